//! Matching an expected pattern (from a scenario file) against an actual value (a decoded
//! message or event, as JSON). Patterns are plain values plus a few matchers written as a
//! one-key mapping or a string:
//!
//! | pattern | matches |
//! |---|---|
//! | `"$any"` | anything present |
//! | `"$absent"` | the field is absent (not in this version, or not set) |
//! | `{$any_of: [p, …]}` | any of the patterns |
//! | `{$not: p}` | anything `p` does not match |
//! | `{$range: [min, max]}` | a number in the inclusive range |
//! | `{$contains: "s"}` | a string containing `s` |
//! | `{$contains: [p, …]}` | an array with, for each pattern, some element matching it |
//! | `{$each: p}` | an array whose every element matches `p` |
//! | `{$len: n}` | an array or string of length `n` |
//!
//! Under a key ending in `ErrorCode`, a string pattern is an error-code name
//! (`INVALID_CONFIG`); under `ApiKey`, an API name (`PushConfig`). Provisional numbers
//! resolve to the profile's.
//! Pure: no I/O.

use serde_json::Value;

use crate::codec::{ErrorCode, ProvisionalNumbers};
use crate::runner::Mismatch;
use crate::scenario::MatchMode;

/// Renders a value compactly for a mismatch report (JSON is valid YAML flow).
pub fn render(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "<unrenderable>".into())
}

/// Compares `expected` with `actual` (None = absent) and returns every mismatch.
pub fn compare(
    expected: &Value,
    actual: Option<&Value>,
    mode: MatchMode,
    numbers: &ProvisionalNumbers,
    path: &str,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    Matcher { mode, numbers }.go(expected, actual, path, "", &mut out);
    out
}

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

struct Matcher<'a> {
    mode: MatchMode,
    numbers: &'a ProvisionalNumbers,
}

fn push(out: &mut Vec<Mismatch>, path: &str, expected: String, actual: Option<&Value>) {
    out.push(Mismatch {
        path: path.to_owned(),
        expected,
        actual: actual.map_or_else(|| "<absent>".to_owned(), render),
    });
}

impl Matcher<'_> {
    fn go(
        &self,
        expected: &Value,
        actual: Option<&Value>,
        path: &str,
        key: &str,
        out: &mut Vec<Mismatch>,
    ) {
        // String matchers.
        if let Value::String(s) = expected {
            match s.as_str() {
                "$any" => {
                    if actual.is_none() {
                        push(out, path, "$any".into(), None);
                    }
                    return;
                }
                "$absent" => {
                    if actual.is_some() {
                        push(out, path, "$absent".into(), actual);
                    }
                    return;
                }
                _ => {}
            }
            if holds_api_key(key) {
                if let Some(k) = crate::codec::ApiKey::from_name(s) {
                    let wire = self.numbers.wire_api_key(k).0;
                    if actual.and_then(Value::as_i64) != Some(i64::from(wire)) {
                        push(out, path, format!("{s} ({wire})"), actual);
                    }
                    return;
                }
            }
            if holds_error_code(key) {
                if let Some(code) = error_code_by_name(s, self.numbers) {
                    if actual.and_then(Value::as_i64) != Some(i64::from(code)) {
                        push(out, path, format!("{s} ({code})"), actual);
                    }
                    return;
                }
            }
        }
        // One-key `$` matchers.
        if let Value::Object(map) = expected {
            if map.len() == 1 {
                let (op, arg) = map.iter().next().expect("one entry");
                if op.starts_with('$') {
                    self.op(op, arg, actual, path, key, out);
                    return;
                }
            }
        }
        let Some(actual) = actual else {
            push(out, path, render(expected), None);
            return;
        };
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => {
                for (k, ev) in e {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    self.go(ev, a.get(k), &p, k, out);
                }
                if self.mode == MatchMode::Exact {
                    for (k, av) in a {
                        if !e.contains_key(k) && k != "_tagged" {
                            push(out, &format!("{path}.{k}"), "<absent>".into(), Some(av));
                        }
                    }
                }
            }
            (Value::Array(e), Value::Array(a)) => {
                if e.len() != a.len() {
                    push(
                        out,
                        &format!("{path}.length"),
                        e.len().to_string(),
                        Some(&Value::from(a.len())),
                    );
                }
                for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                    self.go(ev, Some(av), &format!("{path}[{i}]"), key, out);
                }
            }
            (Value::Number(e), Value::Number(a)) => {
                if e.as_f64() != a.as_f64() {
                    push(out, path, render(expected), Some(actual));
                }
            }
            (e, a) => {
                if e != a {
                    push(out, path, render(expected), Some(actual));
                }
            }
        }
    }

    fn op(
        &self,
        op: &str,
        arg: &Value,
        actual: Option<&Value>,
        path: &str,
        key: &str,
        out: &mut Vec<Mismatch>,
    ) {
        let label = || format!("{{{op}: {}}}", render(arg));
        match op {
            "$any_of" => {
                let alternatives = arg.as_array().map(Vec::as_slice).unwrap_or_default();
                let ok = alternatives.iter().any(|p| {
                    let mut tmp = Vec::new();
                    self.go(p, actual, path, key, &mut tmp);
                    tmp.is_empty()
                });
                if !ok {
                    push(out, path, label(), actual);
                }
            }
            "$not" => {
                let mut tmp = Vec::new();
                self.go(arg, actual, path, key, &mut tmp);
                if tmp.is_empty() {
                    push(out, path, label(), actual);
                }
            }
            "$range" => {
                let bounds = arg.as_array().filter(|a| a.len() == 2);
                let n = actual.and_then(Value::as_f64);
                let ok = match (bounds, n) {
                    (Some(b), Some(n)) => {
                        let lo = b[0].as_f64().unwrap_or(f64::NEG_INFINITY);
                        let hi = b[1].as_f64().unwrap_or(f64::INFINITY);
                        lo <= n && n <= hi
                    }
                    _ => false,
                };
                if !ok {
                    push(out, path, label(), actual);
                }
            }
            "$contains" => {
                let ok = match (arg, actual) {
                    (Value::String(s), Some(Value::String(a))) => a.contains(s.as_str()),
                    (Value::Array(ps), Some(Value::Array(items))) => ps.iter().all(|p| {
                        items.iter().any(|item| {
                            let mut tmp = Vec::new();
                            Matcher {
                                mode: MatchMode::Subset,
                                numbers: self.numbers,
                            }
                            .go(p, Some(item), path, key, &mut tmp);
                            tmp.is_empty()
                        })
                    }),
                    _ => false,
                };
                if !ok {
                    push(out, path, label(), actual);
                }
            }
            "$each" => match actual {
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        self.go(arg, Some(item), &format!("{path}[{i}]"), key, out);
                    }
                }
                _ => push(out, path, label(), actual),
            },
            "$len" => {
                let len = match actual {
                    Some(Value::Array(a)) => Some(a.len()),
                    Some(Value::String(s)) => Some(s.len()),
                    _ => None,
                };
                if len.map(|l| l as u64) != arg.as_u64() {
                    push(out, path, label(), actual);
                }
            }
            other => push(out, path, format!("unknown matcher {other}"), actual),
        }
    }
}

/// The matcher names a pattern may use.
pub const MATCHERS: &[&str] = &[
    "$any",
    "$absent",
    "$any_of",
    "$not",
    "$range",
    "$contains",
    "$each",
    "$len",
];

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
        "$any_of" => (OperandsMatch::Value, listed(arg)),
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
