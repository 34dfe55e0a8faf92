//! Whether a manifest value means, at every level a scenario runs at, what the scenario's own
//! value means there: refused by the static validator, refused by the MV validator in force
//! (the floor: the highest MV level at or below the level), or accepted. The scenario's
//! outcome is computed from its own validators; the manifest value's only as far as the
//! manifest's pair semantics fix it (docs/live-targets.md "Target manifests": a level's
//! `violating` passes the static validator and every lower level's, its `compliant` passes
//! all of them up to that level, its `relaxed` passes the static validator and that level's
//! while the level below's refuses it; nothing is known about higher levels). A value whose
//! outcome the manifest leaves open at some level is never substituted. Pure.

use std::collections::BTreeMap;

use super::super::manifest::ManifestConfig;
use crate::model::config_def::ConfigValue;
use crate::model::validators::Validator;
use crate::model::ServerConfigKey;

/// What a validator set does with a value at one metadata.version level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Refused by the static validator.
    Static,
    /// Passes the static validator, refused by the MV validator in force.
    Mv,
    /// Accepted.
    Accepted,
}

impl Outcome {
    /// In words, for an unbound reason.
    pub(super) fn words(self) -> &'static str {
        match self {
            Outcome::Static => "refused by the static validator",
            Outcome::Mv => "refused by the MV validator in force",
            Outcome::Accepted => "accepted",
        }
    }
}

/// The scenario's outcome for `v` at level `s` (`None`: unparsable).
pub(super) fn scenario_outcome(
    def: &ServerConfigKey,
    levels: &BTreeMap<i16, &Validator>,
    key: &str,
    v: &str,
    s: i16,
) -> Option<Outcome> {
    let parsed = ConfigValue::parse(def.ty, v).ok()?;
    if def
        .validator
        .as_ref()
        .is_some_and(|val| val.ensure_valid(key, &parsed).is_err())
    {
        return Some(Outcome::Static);
    }
    let floor = levels.range(..=s).next_back().map(|(_, v)| *v);
    Some(match floor {
        Some(val) if val.ensure_valid(key, &parsed).is_err() => Outcome::Mv,
        _ => Outcome::Accepted,
    })
}

/// What the manifest fixes about `v` at real level `r`: `None` when `v` is none of its values
/// or its outcome at `r` is not declared.
pub(super) fn real_outcome(c: &ManifestConfig, v: &str, r: i16) -> Option<Outcome> {
    let floor = c.mv_validators.range(..=r).next_back().map(|(l, _)| *l);
    let mut known = Vec::new();
    if let Some(p) = &c.static_validator {
        if p.violating == v {
            known.push(Outcome::Static);
        }
        if p.compliant == v && floor.is_none() {
            known.push(Outcome::Accepted);
        }
    }
    let mut below = None;
    for (l, p) in &c.mv_validators {
        if p.relaxed.as_deref() == Some(v) {
            match floor {
                Some(f) if f == *l => known.push(Outcome::Accepted),
                Some(f) if Some(f) == below => known.push(Outcome::Mv),
                None => known.push(Outcome::Accepted),
                _ => {}
            }
        }
        below = Some(*l);
        if p.violating == v {
            match floor {
                Some(f) if f == *l => known.push(Outcome::Mv),
                Some(f) if f > *l => {}
                _ => known.push(Outcome::Accepted),
            }
        }
        if p.compliant == v && floor.is_none_or(|f| f <= *l) {
            known.push(Outcome::Accepted);
        }
    }
    let first = *known.first()?;
    known.iter().all(|k| *k == first).then_some(first)
}

/// Every value the manifest declares for `c`, in a fixed order (static pair, then each
/// level's, lowest first, then each level's `relaxed`), without repeats.
pub(super) fn candidates(c: &ManifestConfig) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let pairs = c.static_validator.iter().chain(c.mv_validators.values());
    let relaxed = c.mv_validators.values().filter_map(|p| p.relaxed.as_ref());
    for v in pairs
        .flat_map(|p| [&p.violating, &p.compliant])
        .chain(relaxed)
    {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    out
}
