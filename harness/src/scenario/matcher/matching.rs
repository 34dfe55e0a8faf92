//! Matching an expected pattern against an actual value (a decoded message or event, as
//! JSON): every mismatch with its path, and the run's [`Captures`] (kept only when the whole
//! pattern matched). The matchers are listed in the module's `//!` (`mod.rs`). Pure: no I/O;
//! what a pattern names without a value (matcher, capture and error-code names) is
//! `names.rs`'.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use super::names::{error_code_by_name, holds_api_key, holds_error_code};
use crate::codec::ProvisionalNumbers;
use crate::scenario::MatchMode;

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
