//! Positions in YAML text: where a serde-saphyr error points, the `line:col` of a key or
//! element inside a scenario step, and the rustc-style snippet (source line and caret) an
//! error shows. Every YAML file kipcheck reads (scenarios, target manifests) locates its
//! errors here. Reads no file and checks nothing about what the YAML says.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::body_schema::Seg;

/// Line `line` of `text` and a caret under column `col` (both 1-based, columns counted in
/// characters), rustc style; `None` if the line does not exist.
///
/// ```text
///    7 |   - expect_response: { body: { ErrorCod: 0 } }
///      |                                ^
/// ```
pub fn snippet(text: &str, line: u64, col: u64) -> Option<String> {
    let idx = usize::try_from(line.checked_sub(1)?).ok()?;
    let src = text.lines().nth(idx)?;
    let number = line.to_string();
    let pad: String = src
        .chars()
        .take(usize::try_from(col.saturating_sub(1)).unwrap_or(usize::MAX))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let gutter = " ".repeat(number.len());
    Some(format!(" {number} | {src}\n {gutter} | {pad}^"))
}

/// Where a serde-saphyr error points (1-based line and column; `(0, 0)` when unknown): every
/// YAML file kipcheck reads (scenarios, target manifests) locates its errors this way.
pub(crate) fn yaml_location(e: &serde_saphyr::Error) -> (u64, u64) {
    match e.location() {
        Some(l) => (l.line(), l.column()),
        None => first_line_col(&e.to_string()),
    }
}

fn first_line_col(text: &str) -> (u64, u64) {
    // serde-saphyr messages start with "line L column C" when it knows the position.
    let t = text.trim_start_matches("error: ");
    let mut words = t.split_whitespace();
    if words.next() == Some("line") {
        let l = words.next().and_then(|w| w.parse().ok());
        if words.next() == Some("column") {
            let c = words
                .next()
                .and_then(|w| w.trim_end_matches(':').parse().ok());
            if let (Some(l), Some(c)) = (l, c) {
                return (l, c);
            }
        }
    }
    (0, 0)
}

/// A YAML node with the positions of its keys and elements, for pointing at one place of
/// a file after it was parsed into plain values.
enum Node {
    Map(Vec<(Spanned<Key>, Node)>),
    Seq(Vec<Spanned<Node>>),
    Scalar,
}

/// A mapping key as text (`1` and `"1"` alike).
struct Key(String);

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar key")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(Key(v.to_owned()))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Key, E> {
        Ok(Key("null".into()))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_i128<E>(self, _: i128) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_u128<E>(self, _: u128) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_str<E>(self, _: &str) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(x) = a.next_element::<Spanned<Node>>()? {
            items.push(x);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = a.next_key::<Spanned<Key>>()? {
            entries.push((k, a.next_value::<Node>()?));
        }
        Ok(Node::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

/// `line:col` of the node at `at` inside step `step` of a scenario file's `text`: the key's
/// own position for a mapping key, the element's for an index; as deep as the path can be
/// followed (`None` if not even the step can be found).
pub(crate) fn locate(text: &str, step: usize, at: &[Seg]) -> Option<(u64, u64)> {
    let root: Node = serde_saphyr::from_str(text).ok()?;
    let mut path = vec![Seg::Key("steps".into()), Seg::Index(step)];
    path.extend_from_slice(at);
    let mut node = &root;
    let mut found = None;
    for seg in &path {
        let next = match (seg, node) {
            (Seg::Key(k), Node::Map(entries)) => entries
                .iter()
                .find(|(key, _)| &key.value.0 == k)
                .map(|(key, v)| (&key.referenced, v)),
            (Seg::Index(i), Node::Seq(items)) => items.get(*i).map(|x| (&x.referenced, &x.value)),
            _ => None,
        };
        let Some((loc, n)) = next else { break };
        if loc.line() > 0 {
            found = Some((loc.line(), loc.column()));
        }
        node = n;
    }
    found
}
