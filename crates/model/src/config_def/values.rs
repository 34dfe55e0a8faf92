//! Typed configuration values ([`ConfigValue`]) parsed the way `ConfigDef.parseType` does and
//! rendered the way `ConfigDef.convertToString` does, with Java's integer and double text
//! formats. It knows no key: the tables are in `tables`.

use super::types::ConfigType;
use serde::{Deserialize, Serialize};

/// A configuration value of a known type, as `ConfigDef.parseType` produces it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigValue {
    /// BOOLEAN.
    Boolean(bool),
    /// STRING.
    String(String),
    /// INT.
    Int(i32),
    /// SHORT.
    Short(i16),
    /// LONG.
    Long(i64),
    /// DOUBLE.
    Double(f64),
    /// LIST.
    List(Vec<String>),
    /// CLASS (the class name).
    Class(String),
    /// PASSWORD (the secret; never rendered by [`ConfigValue::convert_to_string`] callers that
    /// send values, because PASSWORD keys are filtered before).
    Password(String),
}

/// A string that does not parse as the declared type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("value {value:?} cannot be parsed as {ty}")]
pub struct ParseValueError {
    /// The declared type.
    pub ty: ConfigType,
    /// The offending text.
    pub value: String,
}

impl ConfigValue {
    /// Parses `text` as `ty` like `ConfigDef.parseType` does for a `String` input: the text
    /// is trimmed; BOOLEAN accepts `true`/`false` in any case; numbers are decimal; LIST splits
    /// on commas with surrounding whitespace and an empty text is the empty list.
    pub fn parse(ty: ConfigType, text: &str) -> Result<ConfigValue, ParseValueError> {
        let t = text.trim();
        let err = || ParseValueError {
            ty,
            value: text.to_string(),
        };
        Ok(match ty {
            ConfigType::Boolean => {
                if t.eq_ignore_ascii_case("true") {
                    ConfigValue::Boolean(true)
                } else if t.eq_ignore_ascii_case("false") {
                    ConfigValue::Boolean(false)
                } else {
                    return Err(err());
                }
            }
            ConfigType::String => ConfigValue::String(t.to_string()),
            ConfigType::Int => ConfigValue::Int(parse_java_int(t).ok_or_else(err)?),
            ConfigType::Short => ConfigValue::Short(parse_java_int(t).ok_or_else(err)?),
            ConfigType::Long => ConfigValue::Long(parse_java_int(t).ok_or_else(err)?),
            ConfigType::Double => ConfigValue::Double(parse_java_double(t).ok_or_else(err)?),
            ConfigType::List => ConfigValue::List(if t.is_empty() {
                Vec::new()
            } else {
                t.split(',').map(|s| s.trim().to_string()).collect()
            }),
            ConfigType::Class => ConfigValue::Class(t.to_string()),
            ConfigType::Password => ConfigValue::Password(t.to_string()),
        })
    }

    /// The type of this value.
    pub fn config_type(&self) -> ConfigType {
        match self {
            ConfigValue::Boolean(_) => ConfigType::Boolean,
            ConfigValue::String(_) => ConfigType::String,
            ConfigValue::Int(_) => ConfigType::Int,
            ConfigValue::Short(_) => ConfigType::Short,
            ConfigValue::Long(_) => ConfigType::Long,
            ConfigValue::Double(_) => ConfigType::Double,
            ConfigValue::List(_) => ConfigType::List,
            ConfigValue::Class(_) => ConfigType::Class,
            ConfigValue::Password(_) => ConfigType::Password,
        }
    }

    /// Kafka's `ConfigDef.convertToString`: BOOLEAN `true`/`false`, numbers in decimal (DOUBLE
    /// as Java's `Double.toString`), LIST joined with `,` and no spaces, CLASS the class name.
    pub fn convert_to_string(&self) -> String {
        match self {
            ConfigValue::Boolean(b) => b.to_string(),
            ConfigValue::String(s) | ConfigValue::Class(s) | ConfigValue::Password(s) => s.clone(),
            ConfigValue::Int(v) => v.to_string(),
            ConfigValue::Short(v) => v.to_string(),
            ConfigValue::Long(v) => v.to_string(),
            ConfigValue::Double(v) => java_double_to_string(*v),
            ConfigValue::List(items) => items.join(","),
        }
    }

    /// The value as an `f64` for range checks (numbers only).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ConfigValue::Int(v) => Some(f64::from(*v)),
            ConfigValue::Short(v) => Some(f64::from(*v)),
            ConfigValue::Long(v) => Some(*v as f64),
            ConfigValue::Double(v) => Some(*v),
            _ => None,
        }
    }
}

/// Java's `Integer.parseInt`/`Long.parseLong`/`Short.parseShort`: optional sign, decimal digits.
pub(super) fn parse_java_int<T: std::str::FromStr>(t: &str) -> Option<T> {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Java's `Double.parseDouble` on a trimmed string: an optional sign, then `NaN`,
/// `Infinity`, or decimal digits with an optional fraction and exponent and an optional
/// `f`/`F`/`d`/`D` suffix. (Hexadecimal floating literals are not accepted.)
pub fn parse_java_double(t: &str) -> Option<f64> {
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, &t[1..]),
        Some(b'+') => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    match body {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !digits(e) {
            return None;
        }
    }
    let normalized = match exponent {
        Some(e) => format!("{int}.{frac}0e{e}"),
        None => format!("{int}.{frac}0"),
    };
    normalized.parse::<f64>().ok().map(|v| sign * v)
}

/// Java's `Double.toString` for the values configs use: `1.0`, `0.2`, `1.0E10`, `NaN`.
pub fn java_double_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = v.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{v}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let s = format!("{v:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_string()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exp}")
    }
}
