//! The vocabulary of patterns, read without a value to match: the matcher names
//! ([`MATCHERS`], [`unknown_matcher`]), the names a pattern captures and reads
//! ([`capture_names`]), a matcher's operand patterns ([`operands`]), and error-code and API
//! names (resolved under the profile's provisional numbers), and [`CaptureError`] for a
//! malformed capture matcher. Matches nothing (that is `matching.rs`); pure, no I/O.

use serde_json::Value;

use crate::codec::{ErrorCode, ProvisionalNumbers};

/// Replaces error-code names under `*ErrorCode` keys with their wire numbers (for bodies
/// kipcheck sends).
pub fn resolve_names(v: &mut Value, numbers: &ProvisionalNumbers) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                if holds_error_code(k) {
                    if let Value::String(name) = x {
                        if let Some(code) = error_code_by_name(name, numbers) {
                            *x = Value::from(code);
                        }
                    }
                }
                if k == "ApiKey" {
                    if let Value::String(name) = x {
                        if let Some(key) = crate::codec::ApiKey::from_name(name) {
                            *x = Value::from(numbers.wire_api_key(key).0);
                        }
                    }
                }
                resolve_names(x, numbers);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| resolve_names(x, numbers)),
        _ => {}
    }
}

/// True if a string pattern under field `key` is an error-code name (`…ErrorCode`).
pub fn holds_error_code(key: &str) -> bool {
    key.ends_with("ErrorCode")
}

/// True if a string pattern under field `key` is an API name (`ApiKey`, `RequestApiKey`).
pub fn holds_api_key(key: &str) -> bool {
    key == "ApiKey" || key == "RequestApiKey"
}

/// The wire number of an error-code name.
pub fn error_code_by_name(name: &str, numbers: &ProvisionalNumbers) -> Option<i16> {
    ErrorCode::from_name(name).map(|c| numbers.wire_error(c).0)
}

/// The matcher names a pattern may use.
pub const MATCHERS: &[&str] = &[
    "$any",
    "$absent",
    "$any_of",
    "$all_of",
    "$not",
    "$range",
    "$contains",
    "$each",
    "$len",
    "$capture",
    "$eq_captured",
    "$ne_captured",
];

/// The names a pattern captures and the names it reads (in pattern order), or why its
/// capture matchers are malformed: a name must be a non-empty string, and a `$capture`
/// under `$not` (which never keeps what it matched) captures nothing.
pub fn capture_names(pattern: &Value) -> Result<(Vec<String>, Vec<String>), CaptureError> {
    fn walk(
        p: &Value,
        under_not: bool,
        caps: &mut Vec<String>,
        refs: &mut Vec<String>,
    ) -> Result<(), CaptureError> {
        match p {
            Value::Object(map) => {
                for (k, v) in map {
                    let op = k.as_str();
                    if matches!(op, "$capture" | "$eq_captured" | "$ne_captured") {
                        let name = v.as_str().filter(|n| !n.is_empty()).ok_or_else(|| {
                            CaptureError::NoName {
                                op: op.to_owned(),
                                value: v.to_string(),
                            }
                        })?;
                        if op == "$capture" {
                            if under_not {
                                let name = name.to_owned();
                                return Err(CaptureError::UnderNot { name });
                            }
                            caps.push(name.to_owned());
                        } else {
                            refs.push(name.to_owned());
                        }
                    } else {
                        walk(v, under_not || op == "$not", caps, refs)?;
                    }
                }
                Ok(())
            }
            Value::Array(items) => items
                .iter()
                .try_for_each(|x| walk(x, under_not, caps, refs)),
            _ => Ok(()),
        }
    }
    let (mut caps, mut refs) = (Vec::new(), Vec::new());
    walk(pattern, false, &mut caps, &mut refs)?;
    Ok((caps, refs))
}

/// What a matcher's operand patterns are matched against, for code that walks patterns
/// (the loader's schema check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandsMatch {
    /// The value at the matcher's own position (`$any_of`, `$not`).
    Value,
    /// The elements of the array at the matcher's position (`$each`, `$contains: [p, …]`).
    Elements,
}

/// The patterns inside one matcher.
#[derive(Clone, Debug, PartialEq)]
pub struct Operands<'a> {
    /// What they are matched against.
    pub applies: OperandsMatch,
    /// Each pattern, with its index in the operand when the operand is a list.
    pub patterns: Vec<(Option<usize>, &'a Value)>,
}

/// The sub-patterns of matcher `{op: arg}`; `None` when the operand holds no patterns
/// (`$range`, `$len`, `$contains: "s"`, or a matcher this function does not know).
pub fn operands<'a>(op: &str, arg: &'a Value) -> Option<Operands<'a>> {
    let listed = |a: &'a Value| -> Vec<(Option<usize>, &'a Value)> {
        match a {
            Value::Array(ps) => ps.iter().enumerate().map(|(i, p)| (Some(i), p)).collect(),
            _ => Vec::new(),
        }
    };
    let (applies, patterns) = match op {
        "$any_of" | "$all_of" => (OperandsMatch::Value, listed(arg)),
        "$not" => (OperandsMatch::Value, vec![(None, arg)]),
        "$each" => (OperandsMatch::Elements, vec![(None, arg)]),
        "$contains" if arg.is_array() => (OperandsMatch::Elements, listed(arg)),
        _ => return None,
    };
    Some(Operands { applies, patterns })
}

/// Checks that every `$` key in a pattern is a known matcher; returns the first unknown one.
pub fn unknown_matcher(pattern: &Value) -> Option<String> {
    match pattern {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.starts_with('$') && !MATCHERS.contains(&k.as_str()) {
                Some(k.clone())
            } else {
                unknown_matcher(v)
            }
        }),
        Value::Array(items) => items.iter().find_map(unknown_matcher),
        Value::String(s) if s.starts_with('$') && !MATCHERS.contains(&s.as_str()) => {
            Some(s.clone())
        }
        _ => None,
    }
}

/// A malformed `$capture` / `$eq_captured` / `$ne_captured`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    /// The operand is not a non-empty string.
    #[error("{op} needs a name (a string), not {value}")]
    NoName {
        /// The matcher.
        op: String,
        /// The operand found (as JSON).
        value: String,
    },
    /// A `$capture` under `$not`, which keeps nothing it matched.
    #[error("$capture {name} under $not captures nothing")]
    UnderNot {
        /// The name.
        name: String,
    },
}
