//! Emits one Rust source file per resolved message: the struct definitions with serde
//! names and docs, `Default` with the spec's defaults, and version-aware decode, encode and
//! projection code. The output is plain text, written to read well in review.

use std::fmt::Write as _;

use crate::model::{Field, Kind, Message, Struct, Ty};
use crate::spec::Versions;

/// A Rust condition that is true exactly for the versions in `vs`, given that the version
/// is already known to lie in `ctx`.
pub(crate) fn cond(vs: Versions, ctx: Versions) -> String {
    let vs = vs.intersect(ctx);
    if vs.is_empty() {
        "false".into()
    } else if vs.covers(ctx) {
        "true".into()
    } else if vs.hi >= ctx.hi {
        format!("version >= {}", vs.lo)
    } else if vs.lo <= ctx.lo {
        format!("version <= {}", vs.hi)
    } else if vs.lo == vs.hi {
        format!("version == {}", vs.lo)
    } else {
        format!("({}..={}).contains(&version)", vs.lo, vs.hi)
    }
}

fn and(a: &str, b: &str) -> String {
    match (a, b) {
        ("false", _) | (_, "false") => "false".into(),
        ("true", x) | (x, "true") => x.into(),
        (a, b) => format!("{a} && {b}"),
    }
}

fn not(a: &str) -> String {
    match a {
        "true" => "false".into(),
        "false" => "true".into(),
        a if a.starts_with("version >= ") && !a.contains("&&") => a.replace(">=", "<"),
        a if a.starts_with("version <= ") && !a.contains("&&") => a.replace("<=", ">"),
        a if a.contains(' ') => format!("!({a})"),
        a => format!("!{a}"),
    }
}

fn base_type(ty: &Ty) -> String {
    match ty {
        Ty::Bool => "bool".into(),
        Ty::I8 => "i8".into(),
        Ty::I16 => "i16".into(),
        Ty::U16 => "u16".into(),
        Ty::I32 => "i32".into(),
        Ty::U32 => "u32".into(),
        Ty::I64 => "i64".into(),
        Ty::F64 => "f64".into(),
        Ty::Str => "KString".into(),
        Ty::Bytes | Ty::Records => "Bytes".into(),
        Ty::Uuid => "Uuid".into(),
        Ty::Struct(n) => n.clone(),
        Ty::Array(inner) => match inline_len(inner) {
            Some(n) => format!("SmallVec<[{}; {n}]>", base_type(inner)),
            None => format!("Vec<{}>", base_type(inner)),
        },
    }
}

/// For an array of a fixed-size numeric primitive, how many elements its `SmallVec` keeps
/// inline: 16 bytes' worth, which with smallvec's `union` feature makes it as big as a `Vec`
/// (24 bytes), so the short arrays Kafka is full of (replica lists) need no allocation.
/// UUID arrays (log directories) stay `Vec`: one UUID fills the 16 bytes, and an
/// `Option<SmallVec>` (no niche) is 8 bytes bigger than an `Option<Vec>`, for two such
/// fields in every broker registration.
fn inline_len(elem: &Ty) -> Option<usize> {
    let size = match elem {
        Ty::Bool | Ty::I8 => 1,
        Ty::I16 | Ty::U16 => 2,
        Ty::I32 | Ty::U32 => 4,
        Ty::I64 | Ty::F64 => 8,
        _ => return None,
    };
    Some(16 / size)
}

/// The empty value of an array field of element type `elem`.
fn empty_array(elem: &Ty) -> &'static str {
    if inline_len(elem).is_some() {
        "SmallVec::new()"
    } else {
        "Vec::new()"
    }
}

/// The type of the field's value when present (nullable → `Option`).
pub(crate) fn value_type(f: &Field) -> String {
    if f.nullable_any() {
        format!("Option<{}>", base_type(&f.ty))
    } else {
        base_type(&f.ty)
    }
}

/// The Rust type of the struct member (possibly-absent → another `Option`).
fn member_type(f: &Field) -> String {
    if f.always_present {
        value_type(f)
    } else {
        format!("Option<{}>", value_type(f))
    }
}

fn int_default(text: Option<&str>) -> String {
    match text {
        None => "0".into(),
        Some(t) => {
            let t = t.trim();
            if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                format!("0x{hex}")
            } else {
                t.to_owned()
            }
        }
    }
}

fn base_default(ty: &Ty, text: Option<&str>) -> String {
    match ty {
        Ty::Bool => match text {
            Some("true") => "true".into(),
            _ => "false".into(),
        },
        Ty::I8 | Ty::I16 | Ty::U16 | Ty::I32 | Ty::U32 | Ty::I64 => int_default(text),
        Ty::F64 => match text {
            Some(t) if t.contains('.') || t.contains('e') => t.to_owned(),
            Some(t) => format!("{t}.0"),
            None => "0.0".into(),
        },
        Ty::Str => match text {
            Some(t) if !t.is_empty() => format!("KString::const_new({t:?})"),
            _ => "KString::const_new(\"\")".into(),
        },
        Ty::Bytes | Ty::Records => "Bytes::default()".into(),
        Ty::Uuid => "Uuid::ZERO".into(),
        Ty::Struct(n) => format!("{n}::default()"),
        Ty::Array(inner) => empty_array(inner).into(),
    }
}

/// The default of the field's value type.
fn value_default(f: &Field) -> String {
    let text = f.default.as_deref();
    if f.nullable_any() {
        if text == Some("null") {
            "None".into()
        } else {
            format!("Some({})", base_default(&f.ty, text))
        }
    } else {
        base_default(&f.ty, text)
    }
}

fn member_default(f: &Field) -> String {
    if f.always_present {
        value_default(f)
    } else {
        "None".into()
    }
}

fn is_copy(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Bool | Ty::I8 | Ty::I16 | Ty::U16 | Ty::I32 | Ty::U32 | Ty::I64 | Ty::F64 | Ty::Uuid
    )
}

/// For a fixed-size primitive, the conversions from and to its big-endian bytes: arrays of
/// these are decoded and encoded in one pass (`Reader::fixed_array`, `put_fixed_array`).
fn fixed_conv(ty: &Ty) -> Option<(&'static str, &'static str)> {
    Some(match ty {
        Ty::Bool => ("|[b]: [u8; 1]| b != 0", "|b: bool| [u8::from(b)]"),
        Ty::I8 => ("i8::from_be_bytes", "i8::to_be_bytes"),
        Ty::I16 => ("i16::from_be_bytes", "i16::to_be_bytes"),
        Ty::U16 => ("u16::from_be_bytes", "u16::to_be_bytes"),
        Ty::I32 => ("i32::from_be_bytes", "i32::to_be_bytes"),
        Ty::U32 => ("u32::from_be_bytes", "u32::to_be_bytes"),
        Ty::I64 => ("i64::from_be_bytes", "i64::to_be_bytes"),
        Ty::F64 => ("f64::from_be_bytes", "f64::to_be_bytes"),
        Ty::Uuid => ("Uuid", "|u: Uuid| u.0"),
        _ => return None,
    })
}

/// Decode expression for one non-null element of type `ty` (array elements, fields).
fn decode_base(ty: &Ty, c: &str) -> String {
    match ty {
        Ty::Bool => "r.bool()".into(),
        Ty::I8 => "r.i8()".into(),
        Ty::I16 => "r.i16()".into(),
        Ty::U16 => "r.u16()".into(),
        Ty::I32 => "r.i32()".into(),
        Ty::U32 => "r.u32()".into(),
        Ty::I64 => "r.i64()".into(),
        Ty::F64 => "r.f64()".into(),
        Ty::Uuid => "r.uuid()".into(),
        Ty::Str => format!("r.string({c})"),
        Ty::Bytes | Ty::Records => format!("r.bytes({c})"),
        Ty::Struct(n) => format!("{n}::decode_body(r, version)"),
        Ty::Array(inner) => match (fixed_conv(inner), &**inner) {
            (Some((from, _)), _) => format!("r.fixed_array({c}, {from})"),
            (None, Ty::Struct(n)) => {
                format!("r.array_push({c}, |r, out| {n}::decode_push(r, version, out))")
            }
            (None, _) => format!("r.array_of({c}, |r| {})", decode_base(inner, c)),
        },
    }
}

/// Decode expression for a nullable value (`Option<base>`), given the nullable condition.
fn decode_nullable(ty: &Ty, c: &str, nc: &str) -> String {
    let nullable = match ty {
        Ty::Str => format!("r.nullable_string({c})"),
        Ty::Bytes | Ty::Records => format!("r.nullable_bytes({c})"),
        Ty::Struct(n) => format!("r.nullable_struct(|r| {n}::decode_body(r, version))"),
        Ty::Array(inner) => match (fixed_conv(inner), &**inner) {
            (Some((from, _)), _) => format!("r.nullable_fixed_array({c}, {from})"),
            (None, Ty::Struct(n)) => {
                format!("r.nullable_array_push({c}, |r, out| {n}::decode_push(r, version, out))")
            }
            (None, _) => format!("r.nullable_array({c}, |r| {})", decode_base(inner, c)),
        },
        _ => unreachable!("checked by the resolver"),
    };
    match nc {
        "true" => nullable,
        "false" => format!("{}.map(Some)", decode_base(ty, c)),
        nc => format!(
            "if {nc} {{ {nullable} }} else {{ {}.map(Some) }}",
            decode_base(ty, c)
        ),
    }
}

/// Statement(s) encoding element `e: &ty` into sink `s`, as an expression of type
/// `Result<(), EncodeError>`.
fn encode_base(ty: &Ty, v: &str, c: &str) -> String {
    match ty {
        Ty::Bool => format!("{{ put_bool(s, *{v}); Ok(()) }}"),
        Ty::I8 => format!("{{ put_i8(s, *{v}); Ok(()) }}"),
        Ty::I16 => format!("{{ put_i16(s, *{v}); Ok(()) }}"),
        Ty::U16 => format!("{{ put_u16(s, *{v}); Ok(()) }}"),
        Ty::I32 => format!("{{ put_i32(s, *{v}); Ok(()) }}"),
        Ty::U32 => format!("{{ put_u32(s, *{v}); Ok(()) }}"),
        Ty::I64 => format!("{{ put_i64(s, *{v}); Ok(()) }}"),
        Ty::F64 => format!("{{ put_f64(s, *{v}); Ok(()) }}"),
        Ty::Uuid => format!("{{ put_uuid(s, {v}); Ok(()) }}"),
        Ty::Str => format!("put_string(s, {v}, {c})"),
        Ty::Bytes | Ty::Records => format!("put_bytes(s, {v}, {c})"),
        Ty::Struct(_) => format!("{v}.encode_body(s, version)"),
        Ty::Array(inner) => match fixed_conv(inner) {
            Some((_, to)) => format!("put_fixed_array(s, {v}, {c}, {to})"),
            None => format!(
                "put_array(s, {v}, {c}, |s, e| {})",
                encode_base(inner, "e", c)
            ),
        },
    }
}

/// The condition under which the field is encoded in the regular (untagged) sequence.
fn regular_cond(f: &Field, ctx: Versions) -> String {
    let tagged = f.tagged.intersect(ctx);
    if tagged.covers(f.versions.intersect(ctx)) {
        "false".into()
    } else if tagged.is_empty() {
        cond(f.versions, ctx)
    } else {
        and(&cond(f.versions, ctx), &not(&cond(f.tagged, ctx)))
    }
}

/// A condition that is true when the value behind reference `v` differs from the field's
/// default (what decides whether a tagged field is written, or an absent field is an error).
fn differs_from_default(f: &Field, v: &str) -> String {
    let d = value_default(f);
    match (&f.ty, f.nullable_any(), d.as_str()) {
        (_, true, "None") => format!("{v}.is_some()"),
        (Ty::Array(inner), false, e) if e == empty_array(inner) => format!("!{v}.is_empty()"),
        (Ty::Str, false, "KString::const_new(\"\")") => format!("!{v}.is_empty()"),
        (Ty::Bool, false, "false") => format!("*{v}"),
        (Ty::Bool, false, "true") => format!("!*{v}"),
        _ => format!("*{v} != {d}"),
    }
}

/// A field-level statement: infallible primitive writes stand alone, the rest carry the
/// field name into their error.
fn fallible(stmt: &str, name: &str) -> String {
    if let Some(inner) = stmt
        .strip_prefix("{ ")
        .and_then(|x| x.strip_suffix("; Ok(()) }"))
    {
        format!("{inner};")
    } else {
        format!("{stmt}.map_err(|e| e.within({name:?}))?;")
    }
}

fn encode_nullable(ty: &Ty, v: &str, c: &str, nc: &str) -> String {
    match ty {
        Ty::Str => format!("put_nullable_string(s, {v}.as_deref(), {c})"),
        Ty::Bytes | Ty::Records => format!("put_nullable_bytes(s, {v}.as_ref(), {c})"),
        Ty::Struct(_) => {
            format!("put_nullable_struct(s, {v}.as_ref(), {nc}, |s, x| x.encode_body(s, version))")
        }
        Ty::Array(inner) => match fixed_conv(inner) {
            Some((_, to)) => format!("put_nullable_fixed_array(s, {v}.as_deref(), {c}, {to})"),
            None => format!(
                "put_nullable_array(s, {v}.as_deref(), {c}, |s, e| {})",
                encode_base(inner, "e", c)
            ),
        },
        _ => unreachable!("checked by the resolver"),
    }
}

/// An owned, projected copy of a value of the field's value type, given a place (`self.x`)
/// or a reference expression `v`.
fn project_value(f: &Field, v: &str, place: bool) -> String {
    let Some(_) = f.ty.struct_name() else {
        return if is_copy(&f.ty) && !f.nullable_any() {
            if place {
                v.to_string()
            } else {
                format!("*{v}")
            }
        } else {
            format!("{v}.clone()")
        };
    };
    let base = |x: &str| match &f.ty {
        Ty::Struct(_) => format!("{x}.project_body(version)"),
        Ty::Array(_) => format!("{x}.iter().map(|e| e.project_body(version)).collect()"),
        _ => unreachable!(),
    };
    if f.nullable_any() {
        format!("{v}.as_ref().map(|x| {})", base("x"))
    } else {
        base(v)
    }
}

/// Emits the struct definition, `Default`, and the three codec methods.
fn emit_struct(out: &mut String, msg: &Message, st: &Struct, is_root: bool) {
    let ctx = st.context;
    let has_tags = !msg.flexible.intersect(ctx).is_empty();
    // Docs.
    if is_root {
        let _ = writeln!(
            out,
            "/// {}: valid versions {}, flexible versions {}.",
            st.name, msg.valid, msg.flexible
        );
    } else if st.about.is_empty() {
        let _ = writeln!(out, "/// {} (versions {}).", st.name, ctx);
    } else {
        let _ = writeln!(out, "/// {}", st.about);
        let _ = writeln!(out, "///\n/// Used in versions {}.", ctx);
    }
    out.push_str("#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]\n");
    out.push_str("#[cfg_attr(feature = \"arbitrary\", derive(arbitrary::Arbitrary))]\n");
    out.push_str("#[serde(default, deny_unknown_fields)]\n");
    let _ = writeln!(out, "pub struct {} {{", st.name);
    for f in &st.fields {
        let mut doc = f.about.clone();
        if doc.is_empty() {
            doc = f.name.clone();
        }
        let _ = writeln!(out, "    /// {doc}");
        let mut facts = vec![format!("Versions: {}", f.versions)];
        if !f.nullable.intersect(f.versions).is_empty() {
            facts.push(format!("nullable: {}", f.nullable.intersect(f.versions)));
        }
        if let Some(tag) = f.tag {
            facts.push(format!("tagged: {} (tag {tag})", f.tagged));
        }
        if let Some(d) = &f.default {
            facts.push(format!("default: {d}"));
        }
        if f.ignorable {
            facts.push("ignorable".into());
        }
        if !f.always_present {
            facts.push("`None` = absent in this version".into());
        }
        let _ = writeln!(out, "    ///\n    /// {}.", facts.join("; "));
        let serde = if f.always_present {
            format!("rename = {:?}", f.name)
        } else if f.nullable_any() {
            format!(
                "rename = {:?}, skip_serializing_if = \"Option::is_none\", with = \"double_option\"",
                f.name
            )
        } else {
            format!(
                "rename = {:?}, skip_serializing_if = \"Option::is_none\"",
                f.name
            )
        };
        let _ = writeln!(out, "    #[serde({serde})]");
        let _ = writeln!(out, "    pub {}: {},", f.ident, member_type(f));
    }
    if has_tags {
        out.push_str(
            "    /// Tagged fields not known in the decoded version, kept and re-encoded.\n",
        );
        out.push_str(
            "    #[serde(rename = \"_tagged\", skip_serializing_if = \"TaggedFields::is_empty\")]\n",
        );
        out.push_str("    pub unknown_tagged_fields: TaggedFields,\n");
    }
    out.push_str("}\n\n");

    // Default.
    let _ = writeln!(out, "impl Default for {} {{", st.name);
    out.push_str("    fn default() -> Self {\n        Self {\n");
    for f in &st.fields {
        let _ = writeln!(out, "            {}: {},", f.ident, member_default(f));
    }
    if has_tags {
        out.push_str("            unknown_tagged_fields: TaggedFields::default(),\n");
    }
    out.push_str("        }\n    }\n}\n\n");

    // Methods.
    let (open, vis) = if is_root {
        (format!("impl Message for {} {{", st.name), "")
    } else {
        (format!("impl {} {{", st.name), "pub ")
    };
    out.push_str(&open);
    out.push('\n');
    if is_root {
        let api = match msg.api_key {
            Some(k) if msg.kind != Kind::Header => format!("Some(ApiKey({k}))"),
            _ => "None".into(),
        };
        let _ = writeln!(out, "    const NAME: &'static str = {:?};", st.name);
        let _ = writeln!(out, "    const API_KEY: Option<ApiKey> = {api};");
        let _ = writeln!(
            out,
            "    const VALID_VERSIONS: VersionRange = VersionRange::new({}, {});",
            msg.valid.lo, msg.valid.hi
        );
        let _ = writeln!(
            out,
            "    const FLEXIBLE_VERSIONS: VersionRange = VersionRange::new({}, {});\n",
            msg.flexible.lo,
            if msg.flexible.hi == i16::MAX {
                "i16::MAX".to_string()
            } else {
                msg.flexible.hi.to_string()
            }
        );
    }
    if !is_root {
        out.push_str(NESTED_DECODE);
    }
    let mut m = String::new();
    emit_decode(&mut m, msg, st, vis, has_tags);
    out.push_str(&mark_unused(m, &["r", "version"]));
    let mut m = String::new();
    emit_encode(&mut m, msg, st, vis, has_tags);
    out.push_str(&mark_unused(m, &["s", "version"]));
    let mut m = String::new();
    emit_project(&mut m, st, vis, has_tags);
    out.push_str(&mark_unused(m, &["version"]));
    let _ = ctx;
    out.push_str("}\n\n");
}

fn compact_cond(msg: &Message, f: &Field, ctx: Versions) -> String {
    if f.flexible == msg.flexible {
        "flexible".into()
    } else {
        cond(f.flexible.intersect(msg.flexible), ctx)
    }
}

/// A nested struct's two ways in: `decode_body` (a field, a nullable struct) and
/// `decode_push` (an array element), both the one `decode_then` inlined. A nested struct is
/// decoded in its parent's loop: inlined there, it is built in place instead of coming back
/// as a `Result` through memory and being copied (the store-forwarding stalls that were 85 %
/// of ApiVersionsResponse's own decode samples), and an array element is built straight in
/// the array's slot (`Reader::array_push`) instead of in a `Result` first (the four `movaps`
/// copies of each partition in MetadataResponse's decode profile).
const NESTED_DECODE: &str = "    /// Decodes the body at `version` (not checked against the valid versions).
    #[inline]
    pub fn decode_body(r: &mut Reader<'_>, version: i16) -> Result<Self, DecodeError> {
        Self::decode_then(r, version, |v| v)
    }

    /// Decodes the body at `version` onto the end of `out` (an array element, built in its
    /// slot there rather than returned and copied).
    #[inline]
    pub fn decode_push(r: &mut Reader<'_>, version: i16, out: &mut Vec<Self>) -> Result<(), DecodeError> {
        Self::decode_then(r, version, |v| out.push(v))
    }

";

fn emit_decode(out: &mut String, msg: &Message, st: &Struct, vis: &str, has_tags: bool) {
    let ctx = st.context;
    let nested = !vis.is_empty();
    if nested {
        out.push_str(
            "    /// Decodes the body at `version` and hands the value to `then` (see `decode_body`\n    /// and `decode_push`).\n    #[inline(always)]\n    fn decode_then<T>(r: &mut Reader<'_>, version: i16, then: impl FnOnce(Self) -> T) -> Result<T, DecodeError> {\n",
        );
    } else {
        out.push_str(
            "    /// Decodes the body at `version` (not checked against the valid versions).\n    fn decode_body(r: &mut Reader<'_>, version: i16) -> Result<Self, DecodeError> {\n",
        );
    }
    let uses_flexible = st
        .fields
        .iter()
        .any(|f| compact_cond(msg, f, ctx) == "flexible")
        || has_tags;
    if uses_flexible {
        let _ = writeln!(out, "        let flexible = {};", cond(msg.flexible, ctx));
    }
    // Each field is read into a local in wire order and the struct is built once at the end
    // (no default value built first and then overwritten); a local the tagged section may
    // set is `mut`.
    let local = |f: &Field| format!("f_{}", f.ident.trim_start_matches("r#"));
    for f in &st.fields {
        let tagged = cond(f.tagged, ctx);
        let c = compact_cond(msg, f, ctx);
        let expr = if f.nullable_any() {
            decode_nullable(&f.ty, &c, &cond(f.nullable.intersect(f.versions), ctx))
        } else {
            decode_base(&f.ty, &c)
        };
        let read = if f.always_present {
            format!("{expr}\n    .map_err(|e| e.field({:?}))?", f.name)
        } else {
            format!(
                "Some(\n    {expr}\n        .map_err(|e| e.field({:?}))?,\n)",
                f.name
            )
        };
        // Only ever tagged in a version: its default when present; the tagged section may
        // override it.
        let otherwise = if tagged != "false" && !f.always_present {
            if_else(&tagged, &format!("Some({})", value_default(f)), "None")
        } else {
            member_default(f)
        };
        let value = if_else(&regular_cond(f, ctx), &read, &otherwise);
        let mutable = if f.tag.is_some() { "mut " } else { "" };
        let _ = writeln!(
            out,
            "        let {mutable}{} = {};",
            local(f),
            indent(&value, 8).trim()
        );
    }
    let mut unknown = "TaggedFields::default()".to_string();
    if has_tags {
        let mut arms = String::new();
        let mut tagged: Vec<&Field> = st.fields.iter().filter(|f| f.tag.is_some()).collect();
        tagged.sort_by_key(|f| f.tag);
        for f in &tagged {
            let tc = cond(f.tagged, ctx);
            let guard = if tc == "true" {
                String::new()
            } else {
                format!(" if {tc}")
            };
            let expr = if f.nullable_any() {
                decode_nullable(&f.ty, "true", &cond(f.nullable.intersect(f.versions), ctx))
            } else {
                decode_base(&f.ty, "true")
            };
            let value = format!("{expr}\n    .map_err(|e| e.field({:?}))?", f.name);
            let assign = if f.always_present {
                format!("{} = {value};", local(f))
            } else {
                format!("{} = Some(\n{}\n);", local(f), indent(&value, 4).trim_end())
            };
            let _ = write!(
                arms,
                "    {}{guard} => {{\n{}        Ok(true)\n    }}\n",
                f.tag.unwrap_or_default(),
                indent(&assign, 8)
            );
        }
        let section = if tagged.is_empty() {
            "r.tagged_fields(|_, _| Ok(false))?".to_string()
        } else {
            format!("r.tagged_fields(|tag, r| match tag {{\n{arms}    _ => Ok(false),\n}})?")
        };
        unknown = if_else("flexible", &section, &unknown);
        let _ = writeln!(
            out,
            "        let f_unknown_tagged_fields = {};",
            indent(&unknown, 8).trim()
        );
        unknown = "f_unknown_tagged_fields".into();
    }
    out.push_str(if nested {
        "        Ok(then(Self {\n"
    } else {
        "        Ok(Self {\n"
    });
    for f in &st.fields {
        let _ = writeln!(out, "            {}: {},", f.ident, local(f));
    }
    if has_tags {
        let _ = writeln!(out, "            unknown_tagged_fields: {unknown},");
    }
    out.push_str(if nested {
        "        }))\n    }\n\n"
    } else {
        "        })\n    }\n\n"
    });
}

/// `if c { a } else { b }` as an expression, folded when `c` is a constant.
fn if_else(c: &str, a: &str, b: &str) -> String {
    match c {
        "true" => a.to_string(),
        "false" => b.to_string(),
        c => format!(
            "if {c} {{\n{}\n}} else {{\n{}\n}}",
            indent(a, 4).trim_end(),
            indent(b, 4).trim_end()
        ),
    }
}

fn emit_encode(out: &mut String, msg: &Message, st: &Struct, vis: &str, has_tags: bool) {
    let ctx = st.context;
    let _ = writeln!(
        out,
        "    /// Encodes the body at `version` (not checked against the valid versions).\n    {vis}fn encode_body<S: Sink>(&self, s: &mut S, version: i16) -> Result<(), EncodeError> {{"
    );
    let uses_flexible = st
        .fields
        .iter()
        .any(|f| compact_cond(msg, f, ctx) == "flexible")
        || has_tags;
    if uses_flexible {
        let _ = writeln!(out, "        let flexible = {};", cond(msg.flexible, ctx));
    }
    if st.fields.is_empty() && !has_tags {
        // nothing to write
    }
    let access = |f: &Field| -> String {
        if f.always_present {
            format!("let v = &self.{};", f.ident)
        } else if is_copy(&f.ty) && !f.nullable_any() {
            format!("let v = &self.{}.unwrap_or({});", f.ident, value_default(f))
        } else {
            format!(
                "let d;\nlet v = match &self.{} {{\n    Some(v) => v,\n    None => {{\n        d = {};\n        &d\n    }}\n}};",
                f.ident,
                value_default(f)
            )
        }
    };
    for f in &st.fields {
        let present = cond(f.versions, ctx);
        let c = compact_cond(msg, f, ctx);
        let regular = regular_cond(f, ctx);
        if regular != "false" {
            let mut body = String::new();
            let _ = writeln!(body, "{}", access(f));
            let stmt = if f.nullable_any() {
                let nc = cond(f.nullable.intersect(f.versions), ctx);
                if nc != "true" {
                    let _ = writeln!(
                        body,
                        "if {} && v.is_none() {{ return Err(EncodeError::NullNotAllowed {{ field: {:?}.into(), version }}); }}",
                        not(&nc),
                        f.name
                    );
                }
                encode_nullable(&f.ty, "v", &c, &nc)
            } else {
                encode_base(&f.ty, "v", &c)
            };
            let _ = writeln!(body, "{}", fallible(&stmt, &f.name));
            if regular == "true" {
                let _ = writeln!(out, "        {{\n{}        }}", indent(&body, 12));
            } else {
                let _ = writeln!(
                    out,
                    "        if {regular} {{\n{}        }}",
                    indent(&body, 12)
                );
            }
        }
        if present != "true" && !f.ignorable && !f.always_present {
            let _ = writeln!(
                out,
                "        if {} {{\n            if let Some(v) = &self.{} {{\n                if {} {{\n                    return Err(EncodeError::FieldNotAvailable {{ field: {:?}.into(), version }});\n                }}\n            }}\n        }}",
                not(&present),
                f.ident,
                differs_from_default(f, "v"),
                f.name
            );
        }
    }
    if has_tags {
        let mut tagged: Vec<&Field> = st.fields.iter().filter(|f| f.tag.is_some()).collect();
        tagged.sort_by_key(|f| f.tag);
        out.push_str("        if flexible {\n");
        if tagged.is_empty() {
            out.push_str(
                "            put_tagged_fields(s, &[], |_| false, &self.unknown_tagged_fields)?;\n",
            );
        } else {
            // Known tagged fields are written in place, merged in tag order with the unknown
            // ones: which of them differ from their defaults is decided first (the count
            // comes before them), and each one's size is counted before it is written.
            let mut known = Vec::new();
            let mut decide = String::new();
            let mut write = String::new();
            for f in &tagged {
                let tc = cond(f.tagged, ctx);
                let tag = f.tag.unwrap_or_default();
                known.push(format!("{tag} => {tc}"));
                let stmt = if f.nullable_any() {
                    let nc = cond(f.nullable.intersect(f.versions), ctx);
                    encode_nullable(&f.ty, "v", "true", &nc)
                } else {
                    encode_base(&f.ty, "v", "true")
                };
                let stmt = fallible(&stmt, &f.name);
                let mut body = String::new();
                let _ = writeln!(body, "{}", access(f));
                let _ = writeln!(body, "{}", differs_from_default(f, "v"));
                let _ = writeln!(
                    decide,
                    "            let w{tag} = {};",
                    indent(
                        &if_else(&tc, &format!("{{\n{}}}", indent(&body, 4)), "false"),
                        12
                    )
                    .trim()
                );
                let _ = writeln!(
                    write,
                    "            if w{tag} {{\n{}            }}",
                    indent(
                        &format!(
                            "{}\nput_unknown_tagged_below(s, &mut unknown, Some({tag}))?;\nlet mut n = SizeCounter(0);\n{{\n    let s = &mut n;\n    {stmt}\n}}\nput_tagged_header(s, {tag}, n.0)?;\n{stmt}\n",
                            access(f)
                        ),
                        16
                    )
                );
            }
            out.push_str(&decide);
            let count: Vec<String> = tagged
                .iter()
                .map(|f| format!("usize::from(w{})", f.tag.unwrap_or_default()))
                .collect();
            let _ = writeln!(
                out,
                "            let known = |tag: u32| match tag {{\n                {},\n                _ => false,\n            }};",
                known.join(",\n                ")
            );
            let _ = writeln!(
                out,
                "            let mut unknown = put_tagged_count(s, {}, known, &self.unknown_tagged_fields)?;",
                count.join(" + ")
            );
            out.push_str(&write);
            out.push_str("            put_unknown_tagged_below(s, &mut unknown, None)?;\n");
        }
        out.push_str("        } else if !self.unknown_tagged_fields.is_empty() {\n");
        out.push_str("            return Err(EncodeError::TaggedFieldsNotSupported { field: String::new(), version });\n");
        out.push_str("        }\n");
    }
    out.push_str("        Ok(())\n    }\n\n");
}

fn emit_project(out: &mut String, st: &Struct, vis: &str, has_tags: bool) {
    let ctx = st.context;
    let _ = writeln!(
        out,
        "    /// This value as `version` decodes it: fields absent in `version` are `None`, present\n    /// ones that were `None` hold their defaults.\n    {vis}fn project_body(&self, version: i16) -> Self {{"
    );
    let needs_version = st
        .fields
        .iter()
        .any(|f| !f.always_present || f.ty.struct_name().is_some());
    if !needs_version {
        // version-independent
    }
    out.push_str("        Self {\n");
    for f in &st.fields {
        let value = if f.always_present {
            project_value(f, &format!("self.{}", f.ident), true)
        } else {
            let present = cond(f.versions, ctx);
            let inner = if is_copy(&f.ty) && !f.nullable_any() {
                format!("self.{}.unwrap_or({})", f.ident, value_default(f))
            } else {
                project_value(
                    f,
                    &format!("self.{}.as_ref().unwrap_or(&{})", f.ident, value_default(f)),
                    false,
                )
            };
            format!(
                "if {present} {{\n                Some({inner})\n            }} else {{\n                None\n            }}"
            )
        };
        let _ = writeln!(out, "            {}: {value},", f.ident);
    }
    if has_tags {
        out.push_str("            unknown_tagged_fields: self.unknown_tagged_fields.clone(),\n");
    }
    out.push_str("        }\n    }\n");
}

pub(crate) fn uses_ident(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// Prefixes with `_` each parameter in `names` that the method body never uses.
fn mark_unused(method: String, names: &[&str]) -> String {
    let Some(sig_end) = method.find("{\n") else {
        return method;
    };
    let (sig, body) = method.split_at(sig_end);
    let mut sig = sig.to_string();
    for name in names {
        if !uses_ident(body, name) {
            sig = sig
                .replace(&format!("({name}: "), &format!("(_{name}: "))
                .replace(&format!(", {name}: "), &format!(", _{name}: "));
        }
    }
    sig + body
}

fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{pad}{l}\n")
            }
        })
        .collect()
}

/// The file for one message.
pub fn emit_message(msg: &Message) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// @generated by kipcheck-codegen from harness/messages/{}.\n// Do not edit: change the JSON (or the generator) and run `cargo run -p kipcheck-codegen`.",
        msg.source
    );
    let key = match (msg.kind, msg.api_key) {
        (Kind::Header, _) | (_, None) => String::new(),
        (Kind::Metadata, Some(k)) => format!(" (metadata record type {k})"),
        (_, Some(k)) => format!(" (API key {k})"),
    };
    let _ = writeln!(
        out,
        "//! `{}`{key}: valid versions {}, flexible versions {}.\n",
        msg.name, msg.valid, msg.flexible
    );
    out.push_str("#[allow(unused_imports)]\nuse crate::prelude::*;\n\n");
    for (i, st) in msg.structs.iter().enumerate() {
        emit_struct(&mut out, msg, st, i == 0);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `mod.rs`: module declarations, re-exports, and the dispatch lists.
pub fn emit_mod(messages: &[Message]) -> String {
    let mut out = String::new();
    out.push_str(
        "// @generated by kipcheck-codegen from harness/messages/*.json.\n// Do not edit: change the JSON (or the generator) and run `cargo run -p kipcheck-codegen`.\n",
    );
    out.push_str(
        "//! Generated wire messages, one module per JSON definition in `harness/messages/`, and the\n//! lists from which `codec::dispatch` builds request, response and metadata-record dispatch.\n\n",
    );
    out.push_str(
        "// Decoding fills a `Default` value field by field, and `Default` spells out the spec's\n// defaults even where they equal Rust's.\n#![allow(clippy::field_reassign_with_default, clippy::derivable_impls)]\n\n",
    );
    for m in messages {
        let _ = writeln!(out, "pub mod {};", crate::module_name(m));
    }
    out.push_str("pub mod schemas;\n");
    out.push('\n');
    for m in messages {
        let _ = writeln!(out, "pub use {}::{};", crate::module_name(m), m.name);
    }
    let section = |out: &mut String, kind: Kind, enum_name: &str, doc: &str, suffix: &str| {
        let _ = writeln!(
            out,
            "\ncrate::dispatch::bodies! {{\n    /// {doc}\n    {enum_name} {{"
        );
        let mut list: Vec<&Message> = messages.iter().filter(|m| m.kind == kind).collect();
        list.sort_by_key(|m| m.api_key);
        for m in list {
            let variant = m.name.strip_suffix(suffix).unwrap_or(&m.name);
            let _ = writeln!(
                out,
                "        {variant}({}) => {},",
                m.api_key.unwrap_or(-1),
                m.name
            );
        }
        out.push_str("    }\n}\n");
    };
    section(
        &mut out,
        Kind::Request,
        "RequestBody",
        "A request body of any API this codec knows.",
        "Request",
    );
    section(
        &mut out,
        Kind::Response,
        "ResponseBody",
        "A response body of any API this codec knows.",
        "Response",
    );
    section(
        &mut out,
        Kind::Metadata,
        "MetadataRecordBody",
        "A KRaft metadata record of any type this codec knows.",
        "",
    );
    out
}

/// `VersionRange::new(lo, hi)` for a resolved range (`none` stays empty).
fn range(vs: Versions) -> String {
    if vs.is_empty() {
        "VersionRange::new(0, -1)".into()
    } else if vs.hi == i16::MAX {
        format!("VersionRange::new({}, i16::MAX)", vs.lo)
    } else {
        format!("VersionRange::new({}, {})", vs.lo, vs.hi)
    }
}

/// The static holding struct `name` of `msg`.
fn schema_static(msg: &Message, name: &str) -> String {
    format!(
        "{}__{}",
        crate::module_name(msg).to_uppercase(),
        crate::model::snake(name).to_uppercase()
    )
}

fn scalar_name(ty: &Ty) -> &'static str {
    match ty {
        Ty::Bool => "Bool",
        Ty::I8 => "Int8",
        Ty::I16 => "Int16",
        Ty::U16 => "Uint16",
        Ty::I32 => "Int32",
        Ty::U32 => "Uint32",
        Ty::I64 => "Int64",
        Ty::F64 => "Float64",
        Ty::Str => "String",
        Ty::Bytes => "Bytes",
        Ty::Records => "Records",
        Ty::Uuid => "Uuid",
        Ty::Struct(_) | Ty::Array(_) => unreachable!("not a scalar"),
    }
}

fn schema_type(msg: &Message, ty: &Ty) -> String {
    match ty {
        Ty::Struct(n) => format!("FieldType::Struct(&{})", schema_static(msg, n)),
        Ty::Array(inner) => match inner.as_ref() {
            Ty::Struct(n) => format!("FieldType::StructArray(&{})", schema_static(msg, n)),
            Ty::Array(_) => unreachable!("Kafka has no nested arrays"),
            scalar => format!("FieldType::ScalarArray(Scalar::{})", scalar_name(scalar)),
        },
        scalar => format!("FieldType::Scalar(Scalar::{})", scalar_name(scalar)),
    }
}

/// `schemas.rs`: the static field table of every message (`codec::schema` has its types).
pub fn emit_schemas(messages: &[Message]) -> String {
    let mut out = String::new();
    out.push_str(
        "// @generated by kipcheck-codegen from harness/messages/*.json.\n// Do not edit: change the JSON (or the generator) and run `cargo run -p kipcheck-codegen`.\n",
    );
    out.push_str(
        "//! Every message's fields per version, as a static table (types in `codec::schema`).\n\n",
    );
    out.push_str(
        "use crate::schema::{FieldSchema, FieldType, MessageSchema, Scalar, SchemaKind, StructSchema};\nuse crate::VersionRange;\n\n",
    );
    out.push_str(
        "/// Every generated message, in file order.\npub static SCHEMAS: &[MessageSchema] = &[\n",
    );
    for m in messages {
        let kind = match m.kind {
            Kind::Request => "Request",
            Kind::Response => "Response",
            Kind::Header => "Header",
            Kind::Metadata => "Metadata",
        };
        let api_key = match (m.kind, m.api_key) {
            (Kind::Header, _) | (_, None) => "None".to_string(),
            (_, Some(k)) => format!("Some({k})"),
        };
        let _ = writeln!(
            out,
            "    MessageSchema {{\n        name: {:?},\n        kind: SchemaKind::{kind},\n        api_key: {api_key},\n        valid: {},\n        flexible: {},\n        root: &{},\n    }},",
            m.name,
            range(m.valid),
            range(m.flexible),
            schema_static(m, &m.name)
        );
    }
    out.push_str("];\n");
    for m in messages {
        for st in &m.structs {
            let _ = writeln!(
                out,
                "\nstatic {}: StructSchema = StructSchema {{\n    name: {:?},\n    versions: {},\n    unknown_tagged: {},\n    fields: &[",
                schema_static(m, &st.name),
                st.name,
                range(st.context),
                range(m.flexible.intersect(st.context))
            );
            for f in &st.fields {
                let tag = match f.tag {
                    Some(t) => format!("Some({t})"),
                    None => "None".into(),
                };
                let _ = writeln!(
                    out,
                    "        FieldSchema {{\n            name: {:?},\n            ty: {},\n            versions: {},\n            nullable: {},\n            tagged: {},\n            tag: {tag},\n        }},",
                    f.name,
                    schema_type(m, &f.ty),
                    range(f.versions),
                    range(f.nullable.intersect(f.versions)),
                    range(f.tagged)
                );
            }
            out.push_str("    ],\n};\n");
        }
    }
    out
}
