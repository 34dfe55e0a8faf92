//! A step's failure before it is located and redacted, and the shared ways of building one
//! from mismatches (with error-code names added to numbers).

use serde_json::Value;

use super::redact::yaml;
use crate::adapter::AdapterError;
use crate::codec::{ErrorCode, ProvisionalNumbers};
use crate::scenario::Mismatch;

/// A step's failure before location and redaction are added (boxed: it is large and only
/// built on the failure path).
pub(super) type StepFail = Box<StepFailure>;

/// The contents of a [`StepFail`].
pub(super) struct StepFailure {
    pub(super) message: String,
    pub(super) expected: Option<String>,
    pub(super) actual: Option<String>,
    pub(super) mismatches: Vec<Mismatch>,
    pub(super) raw_hex: Option<String>,
    pub(super) errored: bool,
    /// The target cannot take this step (`AdapterError::Unsupported`): the scenario is
    /// unsupported on it, with this reason, not errored.
    pub(super) unsupported: Option<String>,
}

impl StepFailure {
    pub(super) fn msg(message: impl Into<String>) -> StepFail {
        Box::new(Self {
            message: message.into(),
            expected: None,
            actual: None,
            mismatches: Vec::new(),
            raw_hex: None,
            errored: false,
            unsupported: None,
        })
    }
}

impl From<AdapterError> for StepFail {
    fn from(e: AdapterError) -> Self {
        let mut f = StepFailure::msg(e.to_string());
        f.errored = true;
        if let AdapterError::Unsupported(reason) = e {
            f.unsupported = Some(reason.to_string());
        }
        f
    }
}

/// The failure of a comparison: the first mismatch as the message (error codes named under
/// `numbers`), the pattern and the value as YAML (or, with no pattern, the scalar checks).
pub(super) fn mismatch_fail(
    numbers: &ProvisionalNumbers,
    mismatches: Vec<Mismatch>,
    pattern: Option<&Value>,
    actual: &Value,
) -> StepFail {
    let first = &mismatches[0];
    let mut f = StepFailure::msg(format!(
        "{}: expected {}, got {}",
        first.path,
        first.expected,
        name_code(numbers, &first.path, &first.actual)
    ));
    match pattern {
        Some(p) => {
            f.expected = Some(yaml(p));
            f.actual = if actual.is_null() {
                None
            } else {
                Some(yaml(actual))
            };
        }
        None => {
            // Only scalar checks (node, version, timing): show just those.
            let lines = |pick: fn(&Mismatch) -> &str| {
                mismatches
                    .iter()
                    .map(|m| format!("{}: {}\n", m.path, pick(m)))
                    .collect::<String>()
            };
            f.expected = Some(lines(|m| m.expected.as_str()));
            f.actual = Some(lines(|m| m.actual.as_str()));
        }
    }
    f.mismatches = mismatches;
    f
}

/// Adds the error-code name to a number under an `ErrorCode` path.
fn name_code(numbers: &ProvisionalNumbers, path: &str, actual: &str) -> String {
    if path.ends_with("ErrorCode") {
        if let Ok(n) = actual.parse::<i16>() {
            let canonical = numbers.canonical_error(ErrorCode(n));
            if let Some(name) = canonical.name() {
                return format!("{actual} ({name})");
            }
        }
    }
    actual.to_owned()
}
