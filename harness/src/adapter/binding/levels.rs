//! The metadata.version levels of a binding: which manifest MV validator levels stand for a
//! scenario's, and the shape of a config in words for the unsupported reason. Pure.

use super::super::manifest::{ManifestConfig, ManifestResource};
use crate::model::config_def::ConfigType;
use crate::model::ServerConfigKey;

/// The shape a scenario's injected config needs, in words.
pub(super) fn shape(
    resource: ManifestResource,
    def: &ServerConfigKey,
    levels: &[i16],
    mv: i16,
) -> String {
    let resource = match resource {
        ManifestResource::Broker => "broker",
        ManifestResource::Topic => "topic",
    };
    let ty = type_name(def.ty);
    let mut s = format!(
        "{resource} config of type {ty} {} a static validator",
        if def.validator.is_some() {
            "with"
        } else {
            "without"
        }
    );
    if !levels.is_empty() {
        let below = levels.iter().filter(|l| **l <= mv).count();
        let plural = if levels.len() == 1 { "" } else { "s" };
        s += &format!(
            " and MV validators at {} level{plural} ({below} at or below the scenario's metadata.version {mv}, {} above)",
            levels.len(),
            levels.len() - below
        );
    }
    s
}

/// An increasing map of the scenario's levels onto `c`'s MV validator levels under which the
/// same validators are in force at every level the scenario runs at: for each `(s, r)` of
/// `runs` (a scenario level and the real level bound to it), the scenario's floor at `s` maps
/// to `c`'s floor at `r`, and each validator level is on the same side of `r` as it is of
/// `s`. The first such map, if any.
pub(super) fn map_levels(
    levels: &[i16],
    runs: &[(i16, i16)],
    c: &ManifestConfig,
) -> Option<Vec<i16>> {
    let real: Vec<i16> = c.mv_validators.keys().copied().collect();
    fn pick(
        levels: &[i16],
        real: &[i16],
        chosen: &mut Vec<i16>,
        ok: &dyn Fn(&[i16]) -> bool,
    ) -> bool {
        if chosen.len() == levels.len() {
            return ok(chosen);
        }
        let start = chosen
            .last()
            .and_then(|l| real.iter().position(|r| r == l))
            .map_or(0, |i| i + 1);
        for r in &real[start..] {
            chosen.push(*r);
            if pick(levels, real, chosen, ok) {
                return true;
            }
            chosen.pop();
        }
        false
    }
    let ok = |f: &[i16]| {
        runs.iter().all(|&(mv, finalized)| {
            let real_floor = real.iter().copied().filter(|l| *l <= finalized).max();
            let floor = levels.iter().copied().filter(|l| *l <= mv).max();
            let sides = levels
                .iter()
                .zip(f)
                .all(|(s, r)| (*s <= mv) == (*r <= finalized));
            let bound_floor =
                floor.and_then(|fl| levels.iter().position(|l| *l == fl).map(|i| f[i]));
            sides && bound_floor == real_floor
        })
    };
    let mut chosen = Vec::new();
    pick(levels, &real, &mut chosen, &ok).then_some(chosen)
}

/// The type name a manifest and `shape` use (`INT`, ...).
fn type_name(ty: ConfigType) -> String {
    serde_json::to_value(ty)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
