//! The metadata.version changes of a scenario (its UpdateFeatures requests) bound to the
//! levels a live controller declares it can move between (`metadata_version.moves`): which
//! real level stands for each level the scenario runs at, keeping their order (upgrade vs
//! downgrade, same level), the scenario's level on the controller's finalized one, and the
//! side of the KIP-1326 persistence level; and the rewrite of those levels in requests and
//! expectations. Which side of each MV validator level is kept by `levels::map_levels`. Pure.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::super::manifest::{Downgrade, TargetManifest};
use super::Unbound;
use crate::scenario::Step;

/// The feature whose levels are bound.
pub(super) const METADATA_VERSION: &str = "metadata.version";

/// One UpdateFeatures entry for metadata.version the scenario sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Move {
    /// `MaxVersionLevel`.
    pub(super) target: i16,
    /// `UpgradeType` (v1+), or 2 for a v0 `AllowDowngrade: true`, else 1.
    pub(super) upgrade_type: i8,
    /// The request's `ValidateOnly`.
    pub(super) validate_only: bool,
    /// Whether the scenario expects it answered with a NONE top-level `ErrorCode`.
    pub(super) expects_success: bool,
}

/// The metadata.version moves the scenario's steps send, in order (empty: it sends no
/// UpdateFeatures for it). Another feature's moves must be ones the manifest declares
/// (`features`: a level it lists, a downgrade it accepts, from its `finalized` level, where the
/// scenario starts every feature but metadata.version); they keep their levels (a feature's
/// levels are the same on every controller that has it), and kipcheck sets them back after the
/// scenario.
pub(super) fn moves(
    steps: &[serde_saphyr::Spanned<Step>],
    m: &TargetManifest,
) -> Result<Vec<Move>, Unbound> {
    let mut out = Vec::new();
    let mut others: BTreeMap<String, i16> = BTreeMap::new();
    for (feature, mv) in feature_updates(steps) {
        if feature == METADATA_VERSION {
            out.push(mv);
            continue;
        }
        let Some(declared) = m.features.get(&feature) else {
            return Err(Unbound::OtherFeature(feature));
        };
        let fail = |why: String| Unbound::Levels {
            software: m.software.clone(),
            why: format!("declares {feature} {why}"),
        };
        if declared.finalized != 0 {
            return Err(fail(format!(
                "finalized at {}; the scenario starts it at 0 (not finalized)",
                declared.finalized
            )));
        }
        let current = others.entry(feature.clone()).or_insert(0);
        if mv.target != declared.finalized && !declared.levels.contains(&mv.target) {
            return Err(fail(format!(
                "movable to {:?} only; the scenario moves it to {}",
                declared.levels, mv.target
            )));
        }
        if mv.target < *current && !declared.downgrade.accepts(mv.upgrade_type) {
            return Err(fail(format!(
                "with no downgrade of UpgradeType {} (the scenario lowers it to {})",
                mv.upgrade_type, mv.target
            )));
        }
        if mv.target > *current && declared.downgrade.upgrade_type().is_none() && mv.expects_success
        {
            return Err(fail(
                "with no downgrade, so kipcheck could not set it back after the scenario".into(),
            ));
        }
        if mv.expects_success && !mv.validate_only {
            *current = mv.target;
        }
    }
    Ok(out)
}

/// Every UpdateFeatures entry the scenario's steps send, in order: its feature and its move.
fn feature_updates(steps: &[serde_saphyr::Spanned<Step>]) -> Vec<(String, Move)> {
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let Step::Send(x) = &s.value else { continue };
        if x.api != "UpdateFeatures" {
            continue;
        }
        let body = x.body.as_ref();
        let validate_only = body
            .and_then(|b| b.get("ValidateOnly"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let expects_success = steps[i + 1..]
            .iter()
            .find(|s| !matches!(s.value, Step::Send(_)))
            .is_some_and(|s| answered_none(&s.value));
        let updates = body
            .and_then(|b| b.get("FeatureUpdates"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for u in updates {
            let feature = u.get("Feature").and_then(Value::as_str).unwrap_or("");
            let Some(target) = u
                .get("MaxVersionLevel")
                .and_then(Value::as_i64)
                .and_then(|l| i16::try_from(l).ok())
            else {
                continue;
            };
            let upgrade_type = match u.get("UpgradeType").and_then(Value::as_i64) {
                Some(t) => i8::try_from(t).unwrap_or(1),
                None if u.get("AllowDowngrade").and_then(Value::as_bool) == Some(true) => 2,
                None => 1,
            };
            let mv = Move {
                target,
                upgrade_type,
                validate_only,
                expects_success,
            };
            out.push((feature.to_owned(), mv));
        }
    }
    out
}

/// An `expect_response` whose body pattern has a top-level `ErrorCode` of NONE.
fn answered_none(step: &Step) -> bool {
    let Step::ExpectResponse(r) = step else {
        return false;
    };
    match r.body.as_ref().and_then(|b| b.get("ErrorCode")) {
        Some(Value::String(s)) => s == "NONE",
        Some(Value::Number(n)) => n.as_i64() == Some(0),
        _ => false,
    }
}

/// Every assignment of real levels to the levels the scenario runs at (its own `level` and
/// each move's target), as `(scenario, real)` pairs in increasing order, that the manifest
/// allows: the scenario's level on `finalized`, every other one on a declared move level,
/// the order kept (a level above, below or equal to another stays so), and, for a scenario
/// that registers brokers (`persistence`: the profile's level), each on the same side of the
/// KIP-1326 persistence level. Without moves: the one pair `(level, finalized)`.
pub(super) fn level_candidates(
    level: i16,
    moves: &[Move],
    m: &TargetManifest,
    persistence: Option<i16>,
) -> Result<Vec<Vec<(i16, i16)>>, Unbound> {
    let finalized = m.metadata_version.finalized;
    if moves.is_empty() {
        return Ok(vec![vec![(level, finalized)]]);
    }
    let fail = |why: String| Unbound::Levels {
        software: m.software.clone(),
        why,
    };
    let Some(declared) = &m.metadata_version.moves else {
        return Err(fail(
            "declares no metadata_version.moves (the levels it can be moved between)".into(),
        ));
    };
    let downgrade = declared.downgrade;
    for mv in moves {
        if matches!(mv.upgrade_type, 2 | 3)
            && mv.target < level
            && !downgrade.accepts(mv.upgrade_type)
        {
            return Err(fail(format!(
                "declares {} (metadata_version.moves.downgrade), and the scenario lowers metadata.version {level} -> {} with UpgradeType {}",
                downgrade_words(downgrade),
                mv.target,
                mv.upgrade_type
            )));
        }
        if mv.expects_success
            && !mv.validate_only
            && mv.target > level
            && downgrade == Downgrade::None
        {
            return Err(fail(format!(
                "cannot be moved back down (metadata_version.moves.downgrade: none), and the scenario raises metadata.version {level} -> {} expecting success: kipcheck could not restore the level",
                mv.target
            )));
        }
    }
    let runs: Vec<i16> = moves
        .iter()
        .map(|m| m.target)
        .chain([level])
        .collect::<BTreeSet<i16>>()
        .into_iter()
        .collect();
    let real: Vec<i16> = declared
        .levels
        .iter()
        .copied()
        .chain([finalized])
        .collect::<BTreeSet<i16>>()
        .into_iter()
        .collect();
    let side = |l: i16, p: Option<i16>| p.is_some_and(|p| l >= p);
    let mut out = Vec::new();
    let mut chosen = Vec::new();
    pick(&runs, &real, level, finalized, &mut chosen, &mut out);
    let listed = |v: &[i16]| v.iter().map(i16::to_string).collect::<Vec<_>>().join(", ");
    if out.is_empty() {
        let count = |v: &[i16], at: i16| {
            (
                v.iter().filter(|r| **r < at).count(),
                v.iter().filter(|r| **r > at).count(),
            )
        };
        let ((below, above), (real_below, real_above)) =
            (count(&runs, level), count(&real, finalized));
        return Err(fail(format!(
            "can move from its finalized level {finalized} to {real_below} level(s) below and {real_above} above (metadata_version.moves); the scenario runs at {below} level(s) below its metadata.version {level} and {above} above ({})",
            listed(&runs)
        )));
    }
    if let Some(p) = persistence {
        out.retain(|pairs| {
            pairs
                .iter()
                .all(|(s, r)| side(*s, Some(p)) == side(*r, m.static_config_persistence_level))
        });
        if out.is_empty() {
            let controller = m
                .static_config_persistence_level
                .map_or("none".to_owned(), |l| l.to_string());
            return Err(fail(format!(
                "declares no levels that keep the scenario's levels ({}) on their side of the persistence level {p} (the controller's: {controller}; metadata_version.moves: {})",
                listed(&runs),
                listed(&real)
            )));
        }
    }
    Ok(out)
}

/// Every increasing choice of `real` levels for `runs` with `level` on `finalized`.
fn pick(
    runs: &[i16],
    real: &[i16],
    level: i16,
    finalized: i16,
    chosen: &mut Vec<(i16, i16)>,
    out: &mut Vec<Vec<(i16, i16)>>,
) {
    let Some(&s) = runs.get(chosen.len()) else {
        out.push(chosen.clone());
        return;
    };
    let above = chosen.last().map(|(_, r)| *r);
    for &r in real {
        if above.is_some_and(|a| r <= a) || (s == level) != (r == finalized) {
            continue;
        }
        chosen.push((s, r));
        pick(runs, real, level, finalized, chosen, out);
        chosen.pop();
    }
}

fn downgrade_words(d: Downgrade) -> &'static str {
    match d {
        Downgrade::None => "no downgrade",
        Downgrade::Safe => "only safe downgrades (UpgradeType 2)",
        Downgrade::Unsafe => "safe and unsafe downgrades",
    }
}

/// Every metadata.version level in `v` that `map` binds, replaced: `MaxVersionLevel`,
/// `MinVersionLevel` and `FeatureLevel` of an object whose `Feature` or `Name` is
/// metadata.version (UpdateFeatures requests and results, ApiVersions' finalized features,
/// FeatureLevelRecord patterns), and `from` / `to` of a `metadata_version_audit` event.
pub(super) fn rewrite_levels(v: &mut Value, map: &BTreeMap<i16, i16>) {
    match v {
        Value::Object(o) => {
            let is_mv = ["Feature", "Name"]
                .iter()
                .any(|k| o.get(*k).and_then(Value::as_str) == Some(METADATA_VERSION));
            let is_audit = o.get("event").and_then(Value::as_str) == Some("metadata_version_audit");
            let keys: &[&str] = match (is_mv, is_audit) {
                (true, _) => &["MaxVersionLevel", "MinVersionLevel", "FeatureLevel"],
                (false, true) => &["from", "to"],
                _ => &[],
            };
            for k in keys {
                if let Some(x) = o.get_mut(*k) {
                    let bound = x
                        .as_i64()
                        .and_then(|l| i16::try_from(l).ok())
                        .and_then(|l| map.get(&l));
                    if let Some(r) = bound {
                        *x = Value::from(*r);
                    }
                }
            }
            o.values_mut().for_each(|x| rewrite_levels(x, map));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite_levels(x, map)),
        _ => {}
    }
}
