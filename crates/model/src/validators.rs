//! Kafka's built-in `ConfigDef` validators (`Range.atLeast`/`between`, `ValidString`,
//! `ValidList`, `NonEmptyString`, `CaseInsensitiveValidString`) as data, and KIP-1294's
//! metadata-version-aware validator maps with floor selection (kip-notes §3.1, §6 C1).
//! Judges single values; which values get judged, and when, is the controller's job.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_def::{java_double_to_string, ConfigType, ConfigValue};

/// One of Kafka's built-in validators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(schemars::JsonSchema)]
pub enum Validator {
    /// `Range.atLeast(min)`.
    AtLeast(f64),
    /// `Range.between(min, max)`.
    Between(f64, f64),
    /// `ValidString.in(...)` (case sensitive).
    ValidString(Vec<String>),
    /// `CaseInsensitiveValidString.in(...)`.
    CaseInsensitiveValidString(Vec<String>),
    /// `ValidList.in(allowEmpty, ...)`: every element must be one of `valid`.
    ValidList {
        /// Allowed elements.
        valid: Vec<String>,
        /// Whether the empty list is allowed.
        allow_empty: bool,
    },
    /// `NonEmptyString`.
    NonEmptyString,
}

/// Why a value failed a validator; `message` reads like Kafka's `ConfigException`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ValidationFailure {
    /// `Invalid value <v> for configuration <name>: <reason>`.
    pub message: String,
}

fn render_number(ty: ConfigType, n: f64) -> String {
    if ty == ConfigType::Double {
        java_double_to_string(n)
    } else {
        format!("{}", n as i64)
    }
}

impl Validator {
    /// Checks `value` (already parsed as the key's type) for the key `name`.
    pub fn ensure_valid(&self, name: &str, value: &ConfigValue) -> Result<(), ValidationFailure> {
        let fail = |reason: String| {
            Err(ValidationFailure {
                message: format!(
                    "Invalid value {} for configuration {name}: {reason}",
                    value.convert_to_string()
                ),
            })
        };
        let ty = value.config_type();
        match self {
            // Java's `Range` compares `n.doubleValue() < min.doubleValue()`: NaN passes.
            Validator::AtLeast(min) => match value.as_f64() {
                Some(n) if n < *min => fail(format!(
                    "Value must be at least {}",
                    render_number(ty, *min)
                )),
                Some(_) => Ok(()),
                None => fail("Value is not a number".into()),
            },
            Validator::Between(min, max) => match value.as_f64() {
                Some(n) if n < *min => fail(format!(
                    "Value must be at least {}",
                    render_number(ty, *min)
                )),
                Some(n) if n > *max => fail(format!(
                    "Value must be no more than {}",
                    render_number(ty, *max)
                )),
                Some(_) => Ok(()),
                None => fail("Value is not a number".into()),
            },
            Validator::ValidString(valid) => match value {
                ConfigValue::String(s) if valid.contains(s) => Ok(()),
                _ => fail(format!("String must be one of: {}", valid.join(", "))),
            },
            Validator::CaseInsensitiveValidString(valid) => match value {
                ConfigValue::String(s) if valid.iter().any(|v| v.eq_ignore_ascii_case(s)) => Ok(()),
                _ => fail(format!(
                    "String must be one of (case insensitive): {}",
                    valid.join(", ")
                )),
            },
            Validator::ValidList { valid, allow_empty } => match value {
                ConfigValue::List(items) if items.is_empty() && !allow_empty => {
                    fail("Configuration cannot be empty".into())
                }
                ConfigValue::List(items) => match items.iter().find(|i| !valid.contains(i)) {
                    None => Ok(()),
                    Some(_) => fail(format!("String must be one of: {}", valid.join(", "))),
                },
                _ => fail("Value is not a list".into()),
            },
            Validator::NonEmptyString => match value {
                ConfigValue::String(s) | ConfigValue::Class(s) | ConfigValue::Password(s)
                    if !s.is_empty() =>
                {
                    Ok(())
                }
                _ => fail("String must be non-empty".into()),
            },
        }
    }
}

/// KIP-1294's `NavigableMap<Short, Validator>`: feature level → validator.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct MvValidators(pub BTreeMap<i16, Validator>);

impl MvValidators {
    /// The validator in force at `level`: the entry with the highest key ≤ `level` (floor
    /// semantics); `None` below the lowest key.
    pub fn floor(&self, level: i16) -> Option<(i16, &Validator)> {
        self.0.range(..=level).next_back().map(|(l, v)| (*l, v))
    }

    /// True if no level has a validator.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: i32) -> ConfigValue {
        ConfigValue::Int(n)
    }

    #[test]
    fn range_messages_match_kafka() {
        let v = Validator::AtLeast(1048576.0);
        assert_eq!(
            v.ensure_valid("log.segment.bytes", &int(1024)).unwrap_err().message,
            "Invalid value 1024 for configuration log.segment.bytes: Value must be at least 1048576"
        );
        assert!(v.ensure_valid("log.segment.bytes", &int(1048576)).is_ok());
        let b = Validator::Between(1.0, 10.0);
        assert!(b.ensure_valid("x", &int(10)).is_ok());
        assert!(b
            .ensure_valid("x", &int(11))
            .unwrap_err()
            .message
            .ends_with("no more than 10"));
        assert!(b.ensure_valid("x", &int(0)).is_err());
    }

    /// Java compares with `<` and `>`: NaN passes both bounds, infinities fail the side they
    /// are on.
    #[test]
    fn ranges_compare_doubles_as_java_does() {
        let nan = ConfigValue::Double(f64::NAN);
        let inf = ConfigValue::Double(f64::INFINITY);
        let neg = ConfigValue::Double(f64::NEG_INFINITY);
        let at_least = Validator::AtLeast(0.0);
        let between = Validator::Between(0.0, 1.0);
        assert_eq!(at_least.ensure_valid("x", &nan), Ok(()));
        assert_eq!(between.ensure_valid("x", &nan), Ok(()));
        assert_eq!(at_least.ensure_valid("x", &inf), Ok(()));
        assert_eq!(
            at_least.ensure_valid("x", &neg).unwrap_err().message,
            "Invalid value -Infinity for configuration x: Value must be at least 0.0"
        );
        assert!(between.ensure_valid("x", &inf).is_err());
    }

    #[test]
    fn string_and_list_validators() {
        let s = |x: &str| ConfigValue::String(x.into());
        let vs = Validator::ValidString(vec!["a".into(), "b".into()]);
        assert!(vs.ensure_valid("k", &s("a")).is_ok());
        assert!(vs.ensure_valid("k", &s("A")).is_err());
        let ci = Validator::CaseInsensitiveValidString(vec!["a".into()]);
        assert!(ci.ensure_valid("k", &s("A")).is_ok());
        assert!(Validator::NonEmptyString.ensure_valid("k", &s("")).is_err());
        let vl = Validator::ValidList {
            valid: vec!["compact".into(), "delete".into()],
            allow_empty: false,
        };
        let l = |x: &[&str]| ConfigValue::List(x.iter().map(|s| s.to_string()).collect());
        assert!(vl.ensure_valid("k", &l(&["compact", "delete"])).is_ok());
        assert!(vl.ensure_valid("k", &l(&["x"])).is_err());
        assert!(vl.ensure_valid("k", &l(&[])).is_err());
    }

    #[test]
    fn floor_selection() {
        let m = MvValidators(
            [(10, Validator::AtLeast(1.0)), (20, Validator::AtLeast(2.0))]
                .into_iter()
                .collect(),
        );
        assert_eq!(m.floor(9), None);
        assert_eq!(m.floor(10).map(|x| x.0), Some(10));
        assert_eq!(m.floor(19).map(|x| x.0), Some(10));
        assert_eq!(m.floor(25).map(|x| x.0), Some(20));
    }
}
