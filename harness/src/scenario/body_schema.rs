//! Checks a body pattern (or a body kipcheck sends as an emulated broker) against the
//! codec's message schema at load time: every field name exists in the message, at the
//! version the body will be compared at, with a value that can match the field's type;
//! error-code and API names are known. A misspelt name would otherwise only show at run
//! time, as a finding against every target. Pure: no I/O.

use serde_json::Value;

use super::matcher::{holds_api_key, holds_error_code, operands, render, OperandsMatch, MATCHERS};
use crate::codec::schema::{FieldType, MessageSchema, Scalar, StructSchema, UNKNOWN_TAGGED_KEY};
use crate::codec::{ApiKey, ErrorCode};

/// One step of a path through a YAML document: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// Why a body cannot be checked against (or can never match) its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BodyError {
    /// Where in the body (mapping keys and indices as written), for locating it in the file.
    pub at: Vec<Seg>,
    /// What is wrong.
    pub message: String,
}

/// The message a body is checked against.
#[derive(Clone, Copy, Debug)]
pub struct Against<'a> {
    /// Its schema.
    pub message: &'static MessageSchema,
    /// The versions it may be compared at (a field must exist in one of them); `None` = any
    /// valid version (fields of every version).
    pub versions: Option<&'a [i16]>,
    /// `request` or `response`, for messages ("this response is version 2").
    pub what: &'static str,
    /// Where the version comes from, appended to the message name (`the answer to step 3`).
    pub note: Option<&'a str>,
    /// The body is sent as written (`respond`), so matchers are not allowed.
    pub literal: bool,
}

/// Checks `body` against `to`.
pub fn check_body(body: &Value, to: &Against<'_>) -> Result<(), BodyError> {
    check_body_at(body, to, "body")
}

/// Checks `body` against `to`, its paths named from `root` (`body`, `inner.body`, `inner`).
pub fn check_body_at(body: &Value, to: &Against<'_>, root_name: &str) -> Result<(), BodyError> {
    let mut at = Vec::new();
    let root = Pos {
        shape: Shape::Struct(to.message.root),
        nullable: false,
        key: "",
    };
    Walk { to }.go(body, root, &mut at, root_name)
}

/// A place in a message: what it holds, whether null is allowed there, and the name of the
/// field it belongs to (error-code and API names are resolved by it).
#[derive(Clone, Copy)]
struct Pos<'k> {
    shape: Shape,
    nullable: bool,
    key: &'k str,
}

/// `v3`, `v3 or v0`.
fn or_list(vs: &[i16]) -> String {
    let vs: Vec<String> = vs.iter().map(|v| format!("v{v}")).collect();
    vs.join(" or ")
}

/// True for `$absent` and `{$any_of: [.., $absent, ..]}`: patterns that accept a missing field.
fn may_be_absent(p: &Value) -> bool {
    match p {
        Value::String(s) => s == "$absent",
        Value::Object(m) if m.len() == 1 => m
            .get("$any_of")
            .and_then(Value::as_array)
            .is_some_and(|ps| ps.iter().any(may_be_absent)),
        _ => false,
    }
}

/// The values an integer type holds (`None` for `float64`, which takes any number).
fn int_range(sc: Scalar) -> Option<(i64, i64)> {
    Some(match sc {
        Scalar::Int8 => (i8::MIN.into(), i8::MAX.into()),
        Scalar::Int16 => (i16::MIN.into(), i16::MAX.into()),
        Scalar::Uint16 => (0, u16::MAX.into()),
        Scalar::Int32 => (i32::MIN.into(), i32::MAX.into()),
        Scalar::Uint32 => (0, u32::MAX.into()),
        Scalar::Int64 => (i64::MIN, i64::MAX),
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum Shape {
    Struct(&'static StructSchema),
    Scalar(Scalar),
    Array(Elem),
}

#[derive(Clone, Copy)]
enum Elem {
    Scalar(Scalar),
    Struct(&'static StructSchema),
}

impl Elem {
    fn shape(self) -> Shape {
        match self {
            Elem::Scalar(s) => Shape::Scalar(s),
            Elem::Struct(s) => Shape::Struct(s),
        }
    }
}

impl Shape {
    fn of(ty: FieldType) -> Shape {
        match ty {
            FieldType::Scalar(s) => Shape::Scalar(s),
            FieldType::ScalarArray(s) => Shape::Array(Elem::Scalar(s)),
            FieldType::Struct(s) => Shape::Struct(s),
            FieldType::StructArray(s) => Shape::Array(Elem::Struct(s)),
        }
    }

    fn describe(self) -> String {
        match self {
            Shape::Struct(s) => format!("a {} struct", s.name),
            Shape::Scalar(s) => s.name().to_owned(),
            Shape::Array(Elem::Scalar(s)) => format!("[]{}", s.name()),
            Shape::Array(Elem::Struct(s)) => format!("[]{}", s.name),
        }
    }
}

struct Walk<'a, 'b> {
    to: &'a Against<'b>,
}

impl Walk<'_, '_> {
    /// `PushConfigResponse v0, the answer to step 3`; `PushConfigResponse v0-2` for any version.
    fn head(&self) -> String {
        let m = self.to.message;
        let mut s = match self.to.versions {
            Some(vs) => format!("{} {}", m.name, or_list(vs)),
            None => format!("{} v{}", m.name, m.valid),
        };
        if let Some(n) = self.to.note {
            s.push_str(", ");
            s.push_str(n);
        }
        s
    }

    fn exists(&self, versions: crate::codec::VersionRange) -> bool {
        match self.to.versions {
            Some(vs) => vs.iter().any(|v| versions.contains(*v)),
            None => !versions.is_empty(),
        }
    }

    fn fail(&self, at: &[Seg], message: String) -> Result<(), BodyError> {
        Err(BodyError {
            at: at.to_vec(),
            message,
        })
    }

    fn never(&self, at: &[Seg], data: &str, shape: Shape, p: &Value) -> Result<(), BodyError> {
        self.fail(
            at,
            format!(
                "{data}: {} never matches {} (in {})",
                render(p),
                shape.describe(),
                self.head()
            ),
        )
    }

    fn go(&self, p: &Value, pos: Pos<'_>, at: &mut Vec<Seg>, data: &str) -> Result<(), BodyError> {
        let Pos {
            shape,
            nullable,
            key,
        } = pos;
        if let Value::String(s) = p {
            if MATCHERS.contains(&s.as_str()) {
                return self.matcher_in_literal(at, data, s);
            }
        }
        if let Value::Object(map) = p {
            if let Some((op, arg)) = map.iter().next().filter(|_| map.len() == 1) {
                if op.starts_with('$') {
                    self.matcher_in_literal(at, data, op)?;
                    return self.op(op, arg, p, pos, at, data);
                }
            }
        }
        if p.is_null() {
            return if nullable {
                Ok(())
            } else {
                self.fail(
                    at,
                    format!(
                        "{data}: null never matches {}, not nullable (in {})",
                        shape.describe(),
                        self.head()
                    ),
                )
            };
        }
        match (shape, p) {
            (Shape::Struct(st), Value::Object(map)) => {
                for (k, v) in map {
                    at.push(Seg::Key(k.clone()));
                    let inner = format!("{data}.{k}");
                    self.field(st, k, v, at, &inner)?;
                    at.pop();
                }
                Ok(())
            }
            (Shape::Array(e), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    at.push(Seg::Index(i));
                    let elem = Pos {
                        shape: e.shape(),
                        nullable: false,
                        key,
                    };
                    self.go(item, elem, at, &format!("{data}[{i}]"))?;
                    at.pop();
                }
                Ok(())
            }
            (Shape::Scalar(sc), Value::String(s)) if sc.is_number() => {
                let unknown = if holds_error_code(key) {
                    ErrorCode::from_name(s).is_none().then_some("error code")
                } else if holds_api_key(key) {
                    ApiKey::from_name(s).is_none().then_some("API")
                } else {
                    return self.never(at, data, shape, p);
                };
                match unknown {
                    Some(what) => self.fail(
                        at,
                        format!("{data}: unknown {what} name {s:?} in {}", self.head()),
                    ),
                    None => Ok(()),
                }
            }
            (Shape::Scalar(Scalar::Bool), Value::Bool(_)) => Ok(()),
            (Shape::Scalar(sc), Value::Number(n)) if sc.is_number() => match int_range(sc) {
                Some((lo, hi)) if !n.as_i64().is_some_and(|v| (lo..=hi).contains(&v)) => self.fail(
                    at,
                    format!(
                        "{data}: {} is not an {} ({lo} to {hi}) (in {})",
                        render(p),
                        sc.name(),
                        self.head()
                    ),
                ),
                _ => Ok(()),
            },
            (Shape::Scalar(sc), Value::String(_)) if sc.is_text() => Ok(()),
            _ => self.never(at, data, shape, p),
        }
    }

    fn matcher_in_literal(&self, at: &[Seg], data: &str, m: &str) -> Result<(), BodyError> {
        if self.to.literal {
            self.fail(
                at,
                format!("{data}: this body is sent as written, so it cannot hold the matcher {m}"),
            )
        } else {
            Ok(())
        }
    }

    fn field(
        &self,
        st: &'static StructSchema,
        k: &str,
        v: &Value,
        at: &mut Vec<Seg>,
        data: &str,
    ) -> Result<(), BodyError> {
        let absent = may_be_absent(v);
        if k == UNKNOWN_TAGGED_KEY && !st.unknown_tagged.is_empty() {
            return if absent || self.exists(st.unknown_tagged) {
                Ok(())
            } else {
                self.only_in(at, data, st.unknown_tagged)
            };
        }
        let Some(f) = st.field(k) else {
            let names: Vec<&str> = st
                .fields
                .iter()
                .filter(|f| self.exists(f.versions))
                .map(|f| f.name)
                .collect();
            let names = if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            };
            return self.fail(
                at,
                format!(
                    "{data}: no such field in {}; fields there: {names}",
                    self.head()
                ),
            );
        };
        if !self.exists(f.versions) {
            if absent {
                return Ok(());
            }
            return self.only_in(at, data, f.versions);
        }
        let pos = Pos {
            shape: Shape::of(f.ty),
            nullable: self.exists(f.nullable),
            key: f.name,
        };
        self.go(v, pos, at, data)
    }

    fn only_in(
        &self,
        at: &[Seg],
        data: &str,
        versions: crate::codec::VersionRange,
    ) -> Result<(), BodyError> {
        let ver: Vec<String> = self
            .to
            .versions
            .unwrap_or_default()
            .iter()
            .map(i16::to_string)
            .collect();
        let ver = ver.join(" or ");
        let m = self.to.message.name;
        let what = self.to.what;
        let ranges = if versions.is_empty() {
            "no version".to_owned()
        } else {
            format!("versions {versions}")
        };
        self.fail(
            at,
            format!(
                "{data}: the field exists only in {ranges} of {m}; this {what} is version {ver}"
            ),
        )
    }

    fn op(
        &self,
        op: &str,
        arg: &Value,
        whole: &Value,
        pos: Pos<'_>,
        at: &mut Vec<Seg>,
        data: &str,
    ) -> Result<(), BodyError> {
        let Some(found) = operands(op, arg) else {
            // Matchers of one value: the value must be of a kind they can match.
            let fits = match (op, pos.shape) {
                ("$range", Shape::Scalar(sc)) => sc.is_number(),
                ("$range", _) => false,
                ("$len", Shape::Scalar(sc)) => sc.is_text(),
                ("$len", Shape::Array(_)) => true,
                ("$len", Shape::Struct(_)) => false,
                ("$contains", Shape::Scalar(sc)) => sc.is_text(),
                ("$contains", _) => false,
                _ => true,
            };
            return if fits {
                Ok(())
            } else {
                self.never(at, data, pos.shape, whole)
            };
        };
        let (inner, data) = match (found.applies, pos.shape) {
            (OperandsMatch::Value, _) => (pos, data.to_owned()),
            (OperandsMatch::Elements, Shape::Array(e)) => {
                let elem = Pos {
                    shape: e.shape(),
                    nullable: false,
                    key: pos.key,
                };
                (elem, format!("{data}[*]"))
            }
            (OperandsMatch::Elements, shape) => return self.never(at, data, shape, whole),
        };
        at.push(Seg::Key(op.to_owned()));
        for (i, sub) in found.patterns {
            if let Some(i) = i {
                at.push(Seg::Index(i));
            }
            self.go(sub, inner, at, &data)?;
            if i.is_some() {
                at.pop();
            }
        }
        at.pop();
        Ok(())
    }
}
