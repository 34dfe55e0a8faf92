//! Matching an expected pattern (from a scenario file) against an actual value (a decoded
//! message or event, as JSON). Patterns are plain values plus a few matchers written as a
//! one-key mapping or a string:
//!
//! | pattern | matches |
//! |---|---|
//! | `"$any"` | anything present |
//! | `"$absent"` | the field is absent (not in this version, or not set) |
//! | `{$any_of: [p, …]}` | any of the patterns |
//! | `{$all_of: [p, …]}` | every one of the patterns |
//! | `{$not: p}` | anything `p` does not match |
//! | `{$range: [min, max]}` | a number in the inclusive range |
//! | `{$contains: "s"}` | a string containing `s` |
//! | `{$contains: [p, …]}` | an array with, for each pattern, some element matching it |
//! | `{$each: p}` | an array whose every element matches `p` |
//! | `{$len: n}` | an array or string of length `n` |
//! | `{$capture: name}` | anything present; remembers it as `name` for later steps |
//! | `{$eq_captured: name}` | a value equal to the one captured as `name` |
//! | `{$ne_captured: name}` | a present value different from the one captured as `name` |
//!
//! Captures relate values across the steps of one scenario run (e.g. a broker epoch: a new
//! one after re-registration, the same one after failover) without fixing the values
//! themselves. They live in a [`Captures`] map the caller owns and passes to
//! [`compare_with`]; a capture is kept only when the whole pattern matched, and a later
//! capture of a name replaces the earlier one. The loader checks that every name is captured
//! in an earlier step than the one that reads it ([`capture_names`]). [`compare`] has no map:
//! there `$capture` is `$any` and the relations are not judged.
//!
//! Under a key ending in `ErrorCode`, a string pattern is an error-code name
//! (`INVALID_CONFIG`); under `ApiKey`, an API name (`PushConfig`). Provisional numbers
//! resolve to the profile's.
//! Pure: no I/O.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::codec::{ErrorCode, ProvisionalNumbers};
use crate::scenario::{CaptureError, MatchMode};

/// One mismatch between an expected and an actual value.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Mismatch {
    /// JSON-pointer-like path, e.g. `body.Configs[2].ConfigKey`.
    pub path: String,
    /// What was expected there (YAML flow text).
    pub expected: String,
    /// What was there (YAML flow text), or `<absent>`.
    pub actual: String,
}

/// Renders a value compactly for a mismatch report (JSON is valid YAML flow).
pub fn render(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "<unrenderable>".into())
}

/// Values captured by `$capture` during one scenario run, by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Captures {
    values: BTreeMap<String, Value>,
}

impl Captures {
    /// The value captured as `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Keeps `value` as `name` (a step's own capture, such as `capture_node`).
    pub fn insert(&mut self, name: &str, value: Value) {
        self.values.insert(name.to_owned(), value);
    }
}

/// Compares `expected` with `actual` (None = absent) and returns every mismatch. Capture
/// relations are not judged (see [`compare_with`]).
pub fn compare(
    expected: &Value,
    actual: Option<&Value>,
    mode: MatchMode,
    numbers: &ProvisionalNumbers,
    path: &str,
) -> Vec<Mismatch> {
    run(expected, actual, mode, numbers, path, None).0
}

/// [`compare`] with the scenario run's captures: `$eq_captured` / `$ne_captured` are judged
/// against `captures`, and when nothing mismatches, every `$capture` in the pattern is
/// stored in it.
pub fn compare_with(
    expected: &Value,
    actual: Option<&Value>,
    mode: MatchMode,
    numbers: &ProvisionalNumbers,
    path: &str,
    captures: &mut Captures,
) -> Vec<Mismatch> {
    let (out, binds) = run(expected, actual, mode, numbers, path, Some(captures));
    if out.is_empty() {
        captures.values.extend(binds);
    }
    out
}

fn run(
    expected: &Value,
    actual: Option<&Value>,
    mode: MatchMode,
    numbers: &ProvisionalNumbers,
    path: &str,
    captures: Option<&Captures>,
) -> (Vec<Mismatch>, Vec<(String, Value)>) {
    let mut out = Vec::new();
    let binds = RefCell::new(Vec::new());
    Matcher {
        mode,
        numbers,
        captures,
        binds: &binds,
    }
    .go(expected, actual, path, "", &mut out);
    (out, binds.into_inner())
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

#[derive(Clone, Copy)]
struct Matcher<'a> {
    mode: MatchMode,
    numbers: &'a ProvisionalNumbers,
    /// None: relations are not judged.
    captures: Option<&'a Captures>,
    /// `$capture`s of the parts matched so far (undone when an alternative fails).
    binds: &'a RefCell<Vec<(String, Value)>>,
}

fn push(out: &mut Vec<Mismatch>, path: &str, expected: String, actual: Option<&Value>) {
    out.push(Mismatch {
        path: path.to_owned(),
        expected,
        actual: actual.map_or_else(|| "<absent>".to_owned(), render),
    });
}

/// Equality of two JSON values, numbers by value (`1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

impl Matcher<'_> {
    /// Whether `p` matches `actual`, keeping its captures only if it does.
    fn matches(&self, p: &Value, actual: Option<&Value>, path: &str, key: &str) -> bool {
        let mark = self.binds.borrow().len();
        let mut tmp = Vec::new();
        self.go(p, actual, path, key, &mut tmp);
        if !tmp.is_empty() {
            self.binds.borrow_mut().truncate(mark);
        }
        tmp.is_empty()
    }

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
                if !alternatives
                    .iter()
                    .any(|p| self.matches(p, actual, path, key))
                {
                    push(out, path, label(), actual);
                }
            }
            "$all_of" => {
                let all = arg.as_array().map(Vec::as_slice).unwrap_or_default();
                if !all.iter().all(|p| self.matches(p, actual, path, key)) {
                    push(out, path, label(), actual);
                }
            }
            "$not" => {
                let mark = self.binds.borrow().len();
                if self.matches(arg, actual, path, key) {
                    push(out, path, label(), actual);
                }
                self.binds.borrow_mut().truncate(mark);
            }
            "$capture" => match (actual, arg.as_str()) {
                (Some(v), Some(name)) => self.binds.borrow_mut().push((name.to_owned(), v.clone())),
                _ => push(out, path, label(), actual),
            },
            "$eq_captured" | "$ne_captured" => {
                let Some(captures) = self.captures else {
                    return;
                };
                let name = arg.as_str().unwrap_or_default();
                let Some(captured) = captures.get(name) else {
                    push(
                        out,
                        path,
                        format!("{} ({name} was never captured)", label()),
                        actual,
                    );
                    return;
                };
                let equal = actual.is_some_and(|a| same(a, captured));
                let ok = if op == "$eq_captured" {
                    equal
                } else {
                    actual.is_some() && !equal
                };
                if !ok {
                    push(
                        out,
                        path,
                        format!("{} ({name} = {})", label(), render(captured)),
                        actual,
                    );
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
                    (Value::Array(ps), Some(Value::Array(items))) => {
                        let subset = Matcher {
                            mode: MatchMode::Subset,
                            ..*self
                        };
                        ps.iter().all(|p| {
                            items
                                .iter()
                                .any(|item| subset.matches(p, Some(item), path, key))
                        })
                    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with(p: Value, actual: Value, captures: &mut Captures) -> Vec<String> {
        let n = ProvisionalNumbers::default();
        compare_with(&p, Some(&actual), MatchMode::Subset, &n, "body", captures)
            .into_iter()
            .map(|m| format!("{}: expected {}, got {}", m.path, m.expected, m.actual))
            .collect()
    }

    #[test]
    fn a_capture_is_judged_by_later_patterns_not_by_its_value() {
        let mut c = Captures::default();
        assert!(with(json!({"E": {"$capture": "e1"}}), json!({"E": 42}), &mut c).is_empty());
        assert_eq!(c.get("e1"), Some(&json!(42)));
        let cases: [(Value, Value, &[&str]); 7] = [
            (
                json!({"E": {"$eq_captured": "e1"}}),
                json!({"E": 42.0}),
                &[],
            ),
            (json!({"E": {"$ne_captured": "e1"}}), json!({"E": 43}), &[]),
            (
                json!({"E": {"$eq_captured": "e1"}}),
                json!({"E": 43}),
                &[r#"body.E: expected {$eq_captured: "e1"} (e1 = 42), got 43"#],
            ),
            (
                json!({"E": {"$ne_captured": "e1"}}),
                json!({"E": 42}),
                &[r#"body.E: expected {$ne_captured: "e1"} (e1 = 42), got 42"#],
            ),
            // An absent field is neither equal nor different.
            (
                json!({"F": {"$ne_captured": "e1"}}),
                json!({"E": 1}),
                &[r#"body.F: expected {$ne_captured: "e1"} (e1 = 42), got <absent>"#],
            ),
            (
                json!({"E": {"$capture": "e2"}}),
                json!({}),
                &[r#"body.E: expected {$capture: "e2"}, got <absent>"#],
            ),
            (
                json!({"E": {"$eq_captured": "e9"}}),
                json!({"E": 1}),
                &[r#"body.E: expected {$eq_captured: "e9"} (e9 was never captured), got 1"#],
            ),
        ];
        for (pattern, actual, expected) in cases {
            assert_eq!(with(pattern.clone(), actual, &mut c), expected, "{pattern}");
        }
    }

    #[test]
    fn a_capture_is_kept_only_when_the_whole_pattern_matches() {
        let mut c = Captures::default();
        let p = json!({"E": {"$capture": "e1"}, "ErrorCode": 0});
        assert_eq!(
            with(p.clone(), json!({"E": 5, "ErrorCode": 1}), &mut c).len(),
            1
        );
        assert_eq!(c, Captures::default());
        // A failed alternative keeps nothing; the one that matched keeps its capture.
        let p = json!({"$any_of": [{"E": {"$capture": "a"}, "X": 1}, {"E": {"$capture": "b"}}]});
        assert!(with(p, json!({"E": 5, "X": 2}), &mut c).is_empty());
        assert_eq!((c.get("a"), c.get("b")), (None, Some(&json!(5))));
        // $contains keeps the capture of the element that matched.
        let p = json!({"$contains": [{"Id": 2, "E": {"$capture": "c"}}]});
        assert!(with(p, json!([{"Id": 1, "E": 10}, {"Id": 2, "E": 20}]), &mut c).is_empty());
        assert_eq!(c.get("c"), Some(&json!(20)));
        // $all_of: every part must match, and keeps every part's capture.
        let p = json!({"E": {"$all_of": [{"$capture": "d"}, {"$ne_captured": "c"}]}});
        assert!(with(p.clone(), json!({"E": 21}), &mut c).is_empty());
        assert_eq!(c.get("d"), Some(&json!(21)));
        assert_eq!(
            with(p, json!({"E": 20}), &mut c),
            [r#"body.E: expected {$all_of: [{"$capture":"d"},{"$ne_captured":"c"}]}, got 20"#]
        );
        assert_eq!(c.get("d"), Some(&json!(21)));
        // A later capture of a name replaces the earlier one.
        assert!(with(json!({"E": {"$capture": "c"}}), json!({"E": 30}), &mut c).is_empty());
        assert_eq!(c.get("c"), Some(&json!(30)));
    }

    #[test]
    fn without_a_capture_map_relations_are_not_judged() {
        let n = ProvisionalNumbers::default();
        let p = json!({"E": {"$ne_captured": "e1"}, "F": {"$capture": "e2"}});
        let actual = json!({"E": 1, "F": 2});
        assert!(compare(&p, Some(&actual), MatchMode::Subset, &n, "body").is_empty());
        // $capture is $any there.
        let absent = json!({"E": 1});
        assert_eq!(
            compare(&p, Some(&absent), MatchMode::Subset, &n, "body").len(),
            1
        );
    }

    #[test]
    fn capture_names_lists_captures_and_reads() {
        let p = json!({"A": {"$capture": "x"}, "B": [{"$eq_captured": "y"}], "C": {"$any_of": [{"$ne_captured": "z"}]}});
        assert_eq!(
            capture_names(&p),
            Ok((vec!["x".to_owned()], vec!["y".to_owned(), "z".to_owned()]))
        );
    }
}
