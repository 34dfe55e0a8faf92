//! A scenario's pins (`profile:`): merging them over a base profile (the default, or the
//! readings a target follows) and listing the readings a scenario pins or pins differently.
//! Reads no file and validates no step; the profile's own checks are `SpecProfile::validate`.

use serde_json::Value;

use super::compiled::Scenario;
use super::error::ProfileOverrideError;
use crate::model::SpecProfile;

/// Merges `overrides` (a mapping) into `base`, recursively.
fn merge(base: &mut Value, overrides: &Value) {
    match (base, overrides) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The default profile with `overrides` merged in.
pub fn profile_with(overrides: Option<&Value>) -> Result<SpecProfile, ProfileOverrideError> {
    profile_over(&SpecProfile::default(), overrides)
}

/// `base` with `overrides` merged in: a scenario's pins over the readings a target follows.
pub fn profile_over(
    base: &SpecProfile,
    overrides: Option<&Value>,
) -> Result<SpecProfile, ProfileOverrideError> {
    let Some(o) = overrides else {
        return Ok(base.clone());
    };
    let mut v = serde_json::to_value(base).map_err(ProfileOverrideError::Shape)?;
    merge(&mut v, o);
    let p: SpecProfile = serde_json::from_value(v).map_err(ProfileOverrideError::Shape)?;
    p.validate().map_err(ProfileOverrideError::Invalid)?;
    Ok(p)
}

/// The readings a scenario pins (`profile:`), one `(path, value)` per leaf, e.g.
/// `("provisional.push_config_api_key", 99)`; arrays are leaves. Timing is not a reading.
pub fn pinned_readings(scenario: &Scenario) -> Vec<(String, Value)> {
    fn walk(path: &str, v: &Value, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, x, out);
                }
            }
            leaf => out.push((path.to_owned(), leaf.clone())),
        }
    }
    let mut out = Vec::new();
    if let Some(p) = &scenario.file.profile {
        walk("", p, &mut out);
    }
    out.retain(|(path, _)| path != "timing" && !path.starts_with("timing."));
    out
}

/// Every reading `scenario` pins to a value other than `fixed`'s: `(path, fixed's value,
/// the pinned value)`.
pub fn differing_pins(fixed: &SpecProfile, scenario: &Scenario) -> Vec<(String, String, String)> {
    let Ok(target) = serde_json::to_value(fixed) else {
        return Vec::new();
    };
    pinned_readings(scenario)
        .into_iter()
        .filter_map(|(path, pinned)| {
            let held = path
                .split('.')
                .try_fold(&target, |v, k| v.get(k))
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            (held != pinned).then(|| (path, held.to_string(), pinned.to_string()))
        })
        .collect()
}
