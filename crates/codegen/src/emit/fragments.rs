//! The small pieces every emitted file is built from: version conditions, Rust type names,
//! default values, and the per-value decode, encode and projection expressions. Pure
//! string builders over the resolved model; nothing here writes a whole item or file.

use crate::model::{Field, Ty};
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

pub(super) fn and(a: &str, b: &str) -> String {
    match (a, b) {
        ("false", _) | (_, "false") => "false".into(),
        ("true", x) | (x, "true") => x.into(),
        (a, b) => format!("{a} && {b}"),
    }
}

pub(super) fn not(a: &str) -> String {
    match a {
        "true" => "false".into(),
        "false" => "true".into(),
        a if a.starts_with("version >= ") && !a.contains("&&") => a.replace(">=", "<"),
        a if a.starts_with("version <= ") && !a.contains("&&") => a.replace("<=", ">"),
        a if a.contains(' ') => format!("!({a})"),
        a => format!("!{a}"),
    }
}

pub(super) fn base_type(ty: &Ty) -> String {
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
pub(super) fn inline_len(elem: &Ty) -> Option<usize> {
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
pub(super) fn empty_array(elem: &Ty) -> &'static str {
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
pub(super) fn member_type(f: &Field) -> String {
    if f.always_present {
        value_type(f)
    } else {
        format!("Option<{}>", value_type(f))
    }
}

pub(super) fn int_default(text: Option<&str>) -> String {
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

pub(super) fn base_default(ty: &Ty, text: Option<&str>) -> String {
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
pub(super) fn value_default(f: &Field) -> String {
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

pub(super) fn member_default(f: &Field) -> String {
    if f.always_present {
        value_default(f)
    } else {
        "None".into()
    }
}

pub(super) fn is_copy(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Bool | Ty::I8 | Ty::I16 | Ty::U16 | Ty::I32 | Ty::U32 | Ty::I64 | Ty::F64 | Ty::Uuid
    )
}

/// For a fixed-size primitive, the conversions from and to its big-endian bytes: arrays of
/// these are decoded and encoded in one pass (`Reader::fixed_array`, `put_fixed_array`).
pub(super) fn fixed_conv(ty: &Ty) -> Option<(&'static str, &'static str)> {
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
pub(super) fn decode_base(ty: &Ty, c: &str) -> String {
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
pub(super) fn decode_nullable(ty: &Ty, c: &str, nc: &str) -> String {
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
pub(super) fn encode_base(ty: &Ty, v: &str, c: &str) -> String {
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
pub(super) fn regular_cond(f: &Field, ctx: Versions) -> String {
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
pub(super) fn differs_from_default(f: &Field, v: &str) -> String {
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
pub(super) fn fallible(stmt: &str, name: &str) -> String {
    if let Some(inner) = stmt
        .strip_prefix("{ ")
        .and_then(|x| x.strip_suffix("; Ok(()) }"))
    {
        format!("{inner};")
    } else {
        format!("{stmt}.map_err(|e| e.within({name:?}))?;")
    }
}

pub(super) fn encode_nullable(ty: &Ty, v: &str, c: &str, nc: &str) -> String {
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
pub(super) fn project_value(f: &Field, v: &str, place: bool) -> String {
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
