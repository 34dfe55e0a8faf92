//! Emits the field mappings between kipcheck's codec and the `kafka-protocol` crate
//! (`harness/src/oracle/kafka_protocol/generated.rs`): for every message in
//! [`KAFKA_PROTOCOL_PAIRS`], a `Pair` with a field-by-field comparison for a version and a
//! field-by-field mapping of our value to kafka-protocol's, both derived from the same
//! resolved definitions as the codec (versions, nullability, tagged fields), so they cannot
//! drift from the JSON. Leaf values (strings, entity newtypes, UUIDs, bytes, ints) go through
//! the hand-written `Leaf` trait beside the generated file, which picks kafka-protocol's type
//! by inference; the generator never needs to know it.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::emit::{cond, uses_ident, value_type};
use crate::model::{snake, Field, Message, Struct, Ty};
use crate::spec::Versions;
use crate::GenError;

/// Where the output goes, relative to `harness/`.
pub const OUTPUT: &str = "src/oracle/kafka_protocol/generated.rs";

/// Every message compared with kafka-protocol 0.18 (generated from Kafka 4.1.0's
/// definitions), with the versions kafka-protocol has (its `Message::VERSIONS`, checked by
/// a test in the harness). The order is the `differential_codec` fuzz target's selector (its
/// first input byte modulo the count), which the checked-in corpus depends on: append,
/// never reorder.
pub const KAFKA_PROTOCOL_PAIRS: &[(&str, Versions)] = &[
    ("ApiVersionsRequest", Versions { lo: 0, hi: 4 }),
    ("ApiVersionsResponse", Versions { lo: 0, hi: 4 }),
    ("MetadataRequest", Versions { lo: 0, hi: 13 }),
    ("MetadataResponse", Versions { lo: 0, hi: 13 }),
    ("AlterConfigsRequest", Versions { lo: 0, hi: 2 }),
    ("AlterConfigsResponse", Versions { lo: 0, hi: 2 }),
    ("IncrementalAlterConfigsRequest", Versions { lo: 0, hi: 1 }),
    ("IncrementalAlterConfigsResponse", Versions { lo: 0, hi: 1 }),
    ("UpdateFeaturesRequest", Versions { lo: 0, hi: 2 }),
    ("UpdateFeaturesResponse", Versions { lo: 0, hi: 2 }),
    ("BrokerRegistrationRequest", Versions { lo: 0, hi: 4 }),
    ("BrokerRegistrationResponse", Versions { lo: 0, hi: 4 }),
];

/// The `Pair` type's name: `ApiVersionsRequest` → `ApiVersionsReq`.
fn pair_name(message: &str) -> String {
    if let Some(stem) = message.strip_suffix("Request") {
        format!("{stem}Req")
    } else if let Some(stem) = message.strip_suffix("Response") {
        format!("{stem}Resp")
    } else {
        message.to_owned()
    }
}

/// One message's structs, within the versions both codecs have.
struct Ctx<'a> {
    msg: &'a Message,
    module: String,
    range: Versions,
}

impl Ctx<'_> {
    fn find(&self, name: &str) -> Result<&Struct, GenError> {
        self.msg
            .structs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| GenError::Spec(format!("{}: no struct {name}", self.msg.name)))
    }

    fn ours(&self, s: &str) -> String {
        format!("ours::{}::{s}", self.module)
    }

    fn theirs(&self, s: &str) -> String {
        format!("kp::{}::{s}", self.module)
    }
}

/// The struct a field holds (directly or as array elements), and whether it is an array.
fn struct_of(ty: &Ty) -> Result<Option<(&str, bool)>, GenError> {
    match ty {
        Ty::Struct(n) => Ok(Some((n, false))),
        Ty::Array(inner) => match &**inner {
            Ty::Struct(n) => Ok(Some((n, true))),
            Ty::Array(_) if inner.struct_name().is_some() => Err(GenError::Spec(format!(
                "arrays of arrays of structs are not mapped to kafka-protocol ({ty:?})"
            ))),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// Statement comparing `x` (ours, a reference to the value) with `tx` (kafka-protocol's
/// field) at path `f`.
fn cmp_value(f: &Field, x: &str, tx: &str) -> Result<String, GenError> {
    let Some((s, array)) = struct_of(&f.ty)? else {
        return Ok(format!(
            "c.eq(&f, {x}, &<{} as Leaf<_>>::from_kp(&{tx}));",
            value_type(f)
        ));
    };
    let fun = format!("cmp_{}", snake(s));
    let inner = |x: &str, tx: &str, path: &str| {
        if array {
            format!("c.list({path}, {x}, {tx}, |c, p, o, t| {fun}(c, p, o, t, version))")
        } else {
            format!("{fun}(c, {path}, {x}, {tx}, version)")
        }
    };
    Ok(if f.nullable_any() {
        format!(
            "c.nullable(&f, {x}, &{tx}, |c, f, x, tx| {});",
            inner("x", "tx", "f")
        )
    } else {
        format!("{};", inner(x, &format!("&{tx}"), "&f"))
    })
}

/// Expression for kafka-protocol's value of ours: `r` is a reference to it, `x` the same
/// value as a place (`&o.f` and `o.f`, or `x` and `x` for a reference `x`).
fn to_kp_value(f: &Field, r: &str, x: &str) -> Result<String, GenError> {
    let Some((s, array)) = struct_of(&f.ty)? else {
        return Ok(format!("Leaf::to_kp({r})"));
    };
    let fun = format!("kp_{}", snake(s));
    let inner = |r: &str, x: &str| {
        if array {
            format!("{x}.iter().map({fun}).collect()")
        } else {
            format!("{fun}({r})")
        }
    };
    Ok(if f.nullable_any() {
        format!("{x}.as_ref().map(|x| {})", inner("x", "x"))
    } else {
        inner(r, x)
    })
}

/// The `cmp_*` and `kp_*` functions of one struct.
fn emit_struct(out: &mut String, cx: &Ctx<'_>, st: &Struct) -> Result<(), GenError> {
    let ctx = st.context.intersect(cx.range);
    let name = snake(&st.name);
    let (o_ty, t_ty) = (cx.ours(&st.name), cx.theirs(&st.name));
    let mut cmp = String::new();
    let mut map = String::new();
    for f in &st.fields {
        let path = format!("    let f = format!(\"{{p}}.{}\");\n", f.name);
        let id = &f.ident;
        let versions = f.versions.intersect(cx.range);
        if versions.is_empty() {
            // Not in kafka-protocol's versions (nor, then, in its struct).
            if !f.always_present {
                let _ = writeln!(cmp, "{path}    c.absent(&f, &o.{id});");
            }
            continue;
        }
        if f.always_present {
            let _ = writeln!(
                cmp,
                "{path}    {}",
                cmp_value(f, &format!("&o.{id}"), &format!("t.{id}"))?
            );
            let _ = writeln!(
                map,
                "    t.{id} = {};",
                to_kp_value(f, &format!("&o.{id}"), &format!("o.{id}"))?
            );
        } else {
            let _ = writeln!(
                cmp,
                "{path}    if let Some(x) = c.versioned(&f, {}, &o.{id}) {{\n        {}\n    }}",
                cond(versions, ctx),
                cmp_value(f, "x", &format!("t.{id}"))?
            );
            let _ = writeln!(
                map,
                "    if let Some(x) = &o.{id} {{\n        t.{id} = {};\n    }}",
                to_kp_value(f, "x", "x")?
            );
        }
    }
    let flexible = cond(cx.msg.flexible, ctx);
    if cx.msg.flexible.intersect(st.context).is_empty() {
        let _ = writeln!(
            cmp,
            "    c.tags(p, {flexible}, &TaggedFields::default(), &t.unknown_tagged_fields);"
        );
    } else {
        let _ = writeln!(
            cmp,
            "    c.tags(p, {flexible}, &o.unknown_tagged_fields, &t.unknown_tagged_fields);"
        );
        let _ = writeln!(
            map,
            "    t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);"
        );
    }
    let version = if uses_ident(&cmp, "version") {
        "version"
    } else {
        "_version"
    };
    let _ = writeln!(
        out,
        "/// `{}` field by field (versions {ctx}).\nfn cmp_{name}(c: &mut Cmp, p: &str, o: &{o_ty}, t: &{t_ty}, {version}: i16) {{\n{cmp}}}\n",
        st.name
    );
    let _ = writeln!(
        out,
        "/// `{}` as kafka-protocol's value.\nfn kp_{name}(o: &{o_ty}) -> {t_ty} {{\n    let mut t = {t_ty}::default();\n{map}    t\n}}\n",
        st.name
    );
    Ok(())
}

/// The structs reachable from the root through fields both codecs have, root first.
fn reachable<'a>(cx: &'a Ctx<'_>) -> Result<Vec<&'a Struct>, GenError> {
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut todo = vec![cx.msg.name.as_str()];
    while let Some(name) = todo.pop() {
        if !seen.insert(name.to_owned()) {
            continue;
        }
        let st = cx.find(name)?;
        order.push(st);
        for f in st.fields.iter().rev() {
            if f.versions.intersect(cx.range).is_empty() {
                continue;
            }
            if let Some((s, _)) = struct_of(&f.ty)? {
                todo.push(s);
            }
        }
    }
    Ok(order)
}

/// The generated file: one `Pair` per message of [`KAFKA_PROTOCOL_PAIRS`], its comparison
/// and mapping functions, and `visit` (the fuzz target's selector).
pub fn emit_kafka_protocol_pairs(messages: &[Message]) -> Result<String, GenError> {
    let mut out = String::new();
    out.push_str(
        "// @generated by kipcheck-codegen (crates/codegen/src/kafka_protocol.rs) from harness/messages/.\n\
         // Do not edit: change the JSON (or the generator) and run `cargo run -p kipcheck-codegen`.\n\
         //! The messages compared with the `kafka-protocol` crate: one [`Pair`] each, comparing\n\
         //! every field of a version and mapping our value to kafka-protocol's field by field.\n\n\
         use std::ops::RangeInclusive;\n\n\
         use kafka_protocol::messages as kp;\n\n\
         use super::{ktags, Cmp, Leaf, Pair, Visit};\n\
         #[allow(unused_imports)]\n\
         use crate::codec::{self as ours, Bytes, KString, SmallVec, TaggedFields, Uuid};\n\n",
    );
    let mut pairs = Vec::new();
    for (name, theirs) in KAFKA_PROTOCOL_PAIRS {
        let msg = messages.iter().find(|m| m.name == *name).ok_or_else(|| {
            GenError::Spec(format!("kafka-protocol pair {name}: no such message"))
        })?;
        let range = msg.valid.intersect(*theirs);
        if range.is_empty() {
            return Err(GenError::Spec(format!("{name}: no version in both codecs")));
        }
        let cx = Ctx {
            msg,
            module: snake(name),
            range,
        };
        let pair = pair_name(name);
        let root = snake(name);
        let _ = writeln!(
            out,
            "/// {name}: kipcheck's and kafka-protocol's, versions {range} (ours {}, kafka-protocol {theirs}).\n\
             #[derive(Clone, Copy, Debug)]\n\
             pub struct {pair};\n\n\
             impl Pair for {pair} {{\n    type Ours = ours::{name};\n    type Theirs = kp::{name};\n    const VERSIONS: RangeInclusive<i16> = {}..={};\n\
             \x20   fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, version: i16) {{\n        {root}::cmp_{root}(c, \"{name}\", o, t, version);\n    }}\n\
             \x20   fn to_theirs(o: &Self::Ours, _version: i16) -> Self::Theirs {{\n        {root}::kp_{root}(o)\n    }}\n}}\n",
            msg.valid, range.lo, range.hi
        );
        let _ = writeln!(
            out,
            "mod {root} {{\n#[allow(unused_imports)]\nuse super::*;\n"
        );
        let mut body = String::new();
        for (i, st) in reachable(&cx)?.into_iter().enumerate() {
            emit_struct(&mut body, &cx, st)?;
            if i == 0 {
                // The root's functions are called by the Pair impl.
                body = body.replacen(
                    &format!("fn cmp_{root}("),
                    &format!("pub(super) fn cmp_{root}("),
                    1,
                );
                body = body.replacen(
                    &format!("fn kp_{root}("),
                    &format!("pub(super) fn kp_{root}("),
                    1,
                );
            }
        }
        while body.ends_with("\n\n") {
            body.pop();
        }
        let _ = writeln!(out, "{body}}}\n");
        pairs.push(pair);
    }
    let _ = writeln!(
        out,
        "/// The number of pairs.\npub const PAIRS: u8 = {};\n\n\
         /// Calls `v` with the `index % PAIRS`-th pair, in the order of `KAFKA_PROTOCOL_PAIRS`\n\
         /// (crates/codegen/src/kafka_protocol.rs): the `differential_codec` fuzz target's first\n\
         /// input byte.\n\
         pub fn visit<V: Visit>(index: u8, v: V) -> V::Out {{\n    match index % PAIRS {{",
        pairs.len()
    );
    for (i, p) in pairs.iter().enumerate() {
        if i + 1 == pairs.len() {
            let _ = writeln!(out, "        _ => v.visit::<{p}>(),");
        } else {
            let _ = writeln!(out, "        {i} => v.visit::<{p}>(),");
        }
    }
    out.push_str("    }\n}\n");
    Ok(out)
}
