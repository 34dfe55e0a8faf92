//! The version-aware methods of each emitted struct: decode, encode (with its size pass)
//! and projection onto a version, plus the text helpers they share (marking unused
//! parameters, indenting). Built from `fragments.rs`; does not write whole files.

use std::fmt::Write as _;

use crate::model::{Field, Message, Struct};
use crate::spec::Versions;

use super::fragments::{
    cond, decode_base, decode_nullable, differs_from_default, encode_base, encode_nullable,
    fallible, is_copy, member_default, not, project_value, regular_cond, value_default,
};

pub(super) fn compact_cond(msg: &Message, f: &Field, ctx: Versions) -> String {
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
pub(super) const NESTED_DECODE: &str = "    /// Decodes the body at `version` (not checked against the valid versions).
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

pub(super) fn emit_decode(out: &mut String, msg: &Message, st: &Struct, vis: &str, has_tags: bool) {
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
pub(super) fn if_else(c: &str, a: &str, b: &str) -> String {
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

pub(super) fn emit_encode(out: &mut String, msg: &Message, st: &Struct, vis: &str, has_tags: bool) {
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

pub(super) fn emit_project(out: &mut String, st: &Struct, vis: &str, has_tags: bool) {
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
pub(super) fn mark_unused(method: String, names: &[&str]) -> String {
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

pub(super) fn indent(text: &str, n: usize) -> String {
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
