//! One message's file: the struct definitions with serde names and docs, `Default` with the
//! spec's defaults, and the file around them ([`emit_message`]). The decode, encode and
//! projection methods come from `codec.rs`.

use std::fmt::Write as _;

use crate::model::{Kind, Message, Struct};

use super::codec::{emit_decode, emit_encode, emit_project, mark_unused, NESTED_DECODE};
use super::fragments::{member_default, member_type};

/// Emits the struct definition, `Default`, and the three codec methods.
pub(super) fn emit_struct(out: &mut String, msg: &Message, st: &Struct, is_root: bool) {
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
