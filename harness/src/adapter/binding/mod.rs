//! Binding a controller scenario to a live controller's [`TargetManifest`]: a scenario that
//! injects definitions (`setup.controller.mv_validators`, `definitions`) or sets a
//! `metadata.version` cannot be put into a real controller, so its injected configs, levels
//! and values are replaced by real ones of the same shape the manifest declares
//! (scenarios/README.md, "Binding to a live controller"). Pure: scenario in, scenario (or the
//! reason it cannot be bound) out.
//!
//! - The scenario's `metadata.version` binds to the controller's finalized level; each
//!   injected config binds to the first manifest config (by name) with the same resource,
//!   type, report policy and static-validator presence whose MV validator levels can stand
//!   for the scenario's, order kept and the same levels in force (the floor at the
//!   scenario's level maps to the floor at the finalized one; levels above stay above). The
//!   resource is the one the scenario's requests use the key on (a key both resources define,
//!   such as `compression.type`, set on a topic binds to a topic config).
//! - Each value the scenario sends for an injected config is classified, by the scenario's
//!   own validators, by the value it results in (a SET's value; a list APPEND's or
//!   SUBTRACT's resulting list, from the key's default): unparsable (kept), refused by the
//!   static validator, refused first by the MV validator of level L, or accepted by all. The
//!   result is replaced by the manifest's value of that class (`static_validator.violating`,
//!   `mv_validators[L'].violating`, the highest bound level's `compliant`, or
//!   `static_validator.compliant`); an APPEND or SUBTRACT operand by the one that turns the
//!   manifest's `default` into that value. Two results of one class cannot be told apart by
//!   the manifest's values: unbound.
//!   The replacement must mean, at every level the scenario runs at, what the scenario's value
//!   means there, as far as the manifest's pairs declare it (`outcome.rs`); else the first
//!   declared value that does; else the next config of the shape; else unbound
//!   (`Unbound::NoValue`). A value reported in StaticConfigs at the key's default binds only to
//!   the real default (`Unbound::Default`); a real config the scenario names itself is never
//!   bound to.
//! - Replacement, in every step, for all keys at once: the key's name wherever a string
//!   equals it, and its values inside the `Value` of any object whose `Name` mentions the key
//!   (requests, config records, DescribeConfigs results, StaticConfigs entries), or of a
//!   `Name`-less object next to one in an array (`$any_of` alternatives).
//! - [`bind_cluster_id`]: every BrokerRegistration carries the live controller's cluster id.

mod cluster_id;
mod levels;
mod moves;
mod outcome;
mod rewrite;
mod values;

use crate::model::controller::DEFAULT_CONTROLLER_NODE_ID;
use std::collections::{BTreeMap, BTreeSet};

use super::manifest::{ManifestResource, TargetManifest};
use crate::model::validators::Validator;
use crate::model::ServerConfigDefs;
use crate::scenario::{validate, Capability, LoadError, Scenario, Step};

pub use self::cluster_id::{bind_cluster_id, SCENARIO_CLUSTER_ID};
use self::levels::{map_levels, shape};
use self::moves::{level_candidates, moves, rewrite_levels};
use self::rewrite::{rename, rewrite_values, used_as, KeyBinding};
use self::values::{classify, reported_static, ValueBinding};

/// Why a scenario cannot be bound to the live controller.
#[derive(Debug, thiserror::Error)]
pub enum Unbound {
    /// No manifest was given.
    #[error("{injects}: a live controller cannot be given definitions or a metadata.version; --target-manifest FILE declares its own")]
    NoManifest {
        /// What the scenario injects, e.g. `setup.controller.mv_validators injects MV
        /// validators on log.segment.bytes`.
        injects: String,
    },
    /// No manifest config has the shape the scenario's injected config has.
    #[error("the manifest ({software}) declares no {shape} to bind {key} to")]
    NoConfig {
        /// The scenario's config.
        key: String,
        /// The shape it needs, in words.
        shape: String,
        /// The manifest's `software`.
        software: String,
    },
    /// Two values of the same class, which the manifest's values cannot tell apart.
    #[error("the scenario uses two {class} values of {key} ({first:?}, {second:?}); the manifest gives one")]
    SameClass {
        /// The scenario's config.
        key: String,
        /// The class, e.g. `compliant`.
        class: String,
        /// One value.
        first: String,
        /// The other.
        second: String,
    },
    /// One value of the scenario would stand for two different values on the controller
    /// (e.g. an APPEND operand that is also a whole value it sets).
    #[error("the scenario's value {value:?} of {key} would stand for both {first:?} and {second:?} on the controller")]
    TwoMeanings {
        /// The scenario's config.
        key: String,
        /// The scenario's value.
        value: String,
        /// One real value.
        first: String,
        /// The other.
        second: String,
    },
    /// An IncrementalAlterConfigs APPEND or SUBTRACT whose resulting list the manifest's
    /// values cannot be reached from.
    #[error("the scenario's {op} on {key} cannot be bound: {why}")]
    ListOp {
        /// The scenario's config.
        key: String,
        /// `APPEND` or `SUBTRACT`.
        op: &'static str,
        /// Why, in words.
        why: String,
    },
    /// No value the manifest declares for the bound config is known to mean, at every level
    /// the scenario runs at, what the scenario's value means there (e.g. a value a lower
    /// level's MV validator refuses and a higher one's accepts: a manifest's pairs never say a
    /// value passes a higher level than its own).
    #[error("the manifest ({software}) declares no value of {name} known to be, like the scenario's {value:?} of {key}, {needs}")]
    NoValue {
        /// The scenario's config.
        key: String,
        /// The scenario's value (the resulting value of a list operation).
        value: String,
        /// The real config it was bound to.
        name: String,
        /// What the value must be at each level, in words.
        needs: String,
        /// The manifest's `software`.
        software: String,
    },
    /// The scenario's value is its config's default, and the bound config's default is not
    /// declared to mean what it means (a controller may treat a default value apart).
    #[error("the scenario's {value:?} is {key}'s default; the manifest ({software}) does not declare {real} to be {needs}")]
    Default {
        /// The scenario's config.
        key: String,
        /// The scenario's value.
        value: String,
        /// The real config's default in words, e.g. `num.io.threads's default ("8")`.
        real: String,
        /// What the value must be at each level, in words.
        needs: String,
        /// The manifest's `software`.
        software: String,
    },
    /// The controller's cluster id is not known, so a BrokerRegistration cannot carry it.
    #[error("the scenario sends BrokerRegistration, but the controller's cluster id is unknown ({0}); the manifest's cluster_id declares it")]
    NoClusterId(String),
    /// The scenario moves `metadata.version` and no binding of its levels was found.
    #[error("the scenario changes metadata.version (UpdateFeatures); its levels are not bound to a live controller")]
    ChangesLevel,
    /// The scenario changes a feature other than metadata.version that the manifest does not
    /// declare (`features`).
    #[error("the scenario changes {0} (UpdateFeatures); the manifest declares no moves of it (features)")]
    OtherFeature(String),
    /// The scenario's metadata.version changes cannot be bound to the levels the manifest
    /// declares the controller can move between.
    #[error("the manifest ({software}) {why}")]
    Levels {
        /// The manifest's `software`.
        software: String,
        /// Why, in words.
        why: String,
    },
    /// The scenario's level is on the other side of the KIP-1326 persistence level than the
    /// controller's.
    #[error("the scenario registers at metadata.version {level} ({side} the persistence level {profile_level}); {controller}")]
    Persistence {
        /// The scenario's level.
        level: i16,
        /// `at or above` / `below`.
        side: &'static str,
        /// The profile's `static_config_persistence_level`.
        profile_level: i16,
        /// Where the controller stands, in words.
        controller: String,
    },
    /// The bound scenario no longer validates (a manifest value does not fit a field).
    #[error("the bound scenario is invalid: {0}")]
    Invalid(#[source] Box<LoadError>),
    /// A routed run over several controllers (adapter::routed): none of them runs the
    /// scenario; each one's reason, led by its name (`tcp://HOST:PORT: why`).
    #[error("no target runs it: {}", .0.join("; "))]
    NoTarget(Vec<String>),
    /// The scenario's controller has another node id than the live one declares (a node id
    /// is fixed when a controller is started; requests and answers name it).
    #[error("the scenario's controller is node {wanted}; the manifest ({software}) declares {}", .declared.map_or("no node_id (node 1 is assumed)".to_owned(), |n| format!("node_id {n}")))]
    NodeId {
        /// `setup.controller.node_id`.
        wanted: i32,
        /// The manifest's `node_id`.
        declared: Option<i32>,
        /// The manifest's `software`.
        software: String,
    },
}

/// `scenario` bound to `manifest` (`None` when given none): `Ok(None)` when it needs no
/// binding (it injects nothing and does not require `metadata_version`), `Ok(Some(bound))`
/// with the real keys, levels and values substituted, or why it cannot run.
pub fn bind(
    scenario: &Scenario,
    manifest: Option<&TargetManifest>,
) -> Result<Option<Scenario>, Unbound> {
    let Some(setup) = &scenario.file.setup.controller else {
        return Ok(None);
    };
    if let Some(m) = manifest {
        let wanted = setup.node_id;
        if m.node_id.unwrap_or(DEFAULT_CONTROLLER_NODE_ID) != wanted {
            return Err(Unbound::NodeId {
                wanted,
                declared: m.node_id,
                software: m.software.clone(),
            });
        }
    }
    let mut injected: BTreeSet<&str> = setup.mv_validators.iter().map(|v| v.key.as_str()).collect();
    injected.extend(setup.definitions.keys().map(String::as_str));
    let needs_level = scenario
        .file
        .requires
        .contains(&Capability::MetadataVersion);
    if injected.is_empty() && !needs_level {
        return Ok(None);
    }
    let Some(m) = manifest else {
        let list = |keys: Vec<&str>| keys.join(", ");
        let injects = if !setup.mv_validators.is_empty() {
            let keys: BTreeSet<&str> = setup.mv_validators.iter().map(|v| v.key.as_str()).collect();
            format!(
                "setup.controller.mv_validators injects MV validators on {}",
                list(keys.into_iter().collect())
            )
        } else if !setup.definitions.is_empty() {
            format!(
                "setup.controller.definitions injects {}",
                list(setup.definitions.keys().map(String::as_str).collect())
            )
        } else {
            format!(
                "the scenario sets metadata.version {}",
                setup.metadata_version
            )
        };
        return Err(Unbound::NoManifest { injects });
    };
    let sends = |api: &str| {
        scenario
            .file
            .steps
            .iter()
            .any(|s| matches!(&s.value, Step::Send(x) if x.api == api))
    };
    let finalized = m.metadata_version.finalized;
    if sends("BrokerRegistration") {
        let profile_level = scenario.profile.static_config_persistence_level;
        let wants = setup.metadata_version >= profile_level;
        let has = m
            .static_config_persistence_level
            .is_some_and(|l| finalized >= l);
        if wants != has {
            let controller = match m.static_config_persistence_level {
                None => format!(
                    "the manifest ({}) declares no static_config_persistence_level (the controller never persists StaticConfigs)",
                    m.software
                ),
                Some(l) => format!(
                    "the controller runs at {finalized}, {} its persistence level {l}",
                    if has { "at or above" } else { "below" }
                ),
            };
            return Err(Unbound::Persistence {
                level: setup.metadata_version,
                side: if wants { "at or above" } else { "below" },
                profile_level,
                controller,
            });
        }
    }
    let persistence =
        sends("BrokerRegistration").then_some(scenario.profile.static_config_persistence_level);
    let moves = moves(&scenario.file.steps, m)?;
    let candidates = level_candidates(setup.metadata_version, &moves, m, persistence)?;
    let mut first_error = None;
    let mut found = None;
    for runs in &candidates {
        match bind_keys(scenario, injected.iter().copied(), m, runs) {
            Ok(b) => {
                found = Some((runs, b));
                break;
            }
            // A reason about values says more than one about shapes: it wins.
            Err(e) => match &first_error {
                None | Some(Unbound::NoConfig { .. }) if !matches!(e, Unbound::NoConfig { .. }) => {
                    first_error = Some(e)
                }
                None => first_error = Some(e),
                _ => {}
            },
        }
    }
    let Some((runs, (bindings, level_map))) = found else {
        return Err(first_error.unwrap_or(Unbound::ChangesLevel));
    };
    let mut file = scenario.file.clone();
    let renamed: BTreeMap<String, String> = bindings
        .iter()
        .map(|b| (b.key.clone(), b.name.clone()))
        .collect();
    let run_map: BTreeMap<i16, i16> = runs.iter().copied().collect();
    // Levels are rewritten whenever the scenario's level matters (a read-back of the
    // finalized level names the scenario's own).
    if !bindings.is_empty() || needs_level {
        for step in &mut file.steps {
            let Ok(mut json) = serde_json::to_value(&step.value) else {
                continue;
            };
            rewrite_values(&mut json, &bindings);
            rename(&mut json, &renamed);
            rewrite_levels(&mut json, &run_map);
            if let Ok(s) = serde_json::from_value(json) {
                step.value = s;
            }
        }
    }
    if let Some(c) = &mut file.setup.controller {
        c.metadata_version = finalized;
        for v in &mut c.mv_validators {
            if let Some(l) = level_map.get(&(v.key.clone(), v.level)) {
                v.level = *l;
            }
            if let Some(n) = renamed.get(&v.key) {
                v.key = n.clone();
            }
        }
        c.definitions = std::mem::take(&mut c.definitions)
            .into_iter()
            .map(|(k, d)| (renamed.get(&k).cloned().unwrap_or(k), d))
            .collect();
    }
    validate(file, &scenario.path, &scenario.area)
        .map(Some)
        .map_err(|e| Unbound::Invalid(Box::new(e)))
}

/// Each injected key bound to a manifest config whose MV validator levels stand for the
/// scenario's at every `(scenario, real)` level of `runs`: the bindings (real name, real
/// values) and the real level of each scenario validator level.
#[allow(clippy::type_complexity)]
fn bind_keys<'a>(
    scenario: &Scenario,
    injected: impl Iterator<Item = &'a str>,
    m: &TargetManifest,
    runs: &[(i16, i16)],
) -> Result<(Vec<KeyBinding>, BTreeMap<(String, i16), i16>), Unbound> {
    let Some(setup) = &scenario.file.setup.controller else {
        return Ok((Vec::new(), BTreeMap::new()));
    };
    let mut defs = ServerConfigDefs::default();
    defs.broker.extend(setup.definitions.clone());
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    // A real config the scenario already names itself (not as an injected key) would be
    // set twice over: never bound to.
    let mut named = BTreeSet::new();
    for s in &scenario.file.steps {
        if let Ok(json) = serde_json::to_value(&s.value) {
            strings(&json, &mut named);
        }
    }
    let injected: Vec<&str> = injected.collect();
    for k in &injected {
        named.remove(*k);
    }
    // Every key is bound against the scenario as written, then all of them are substituted at
    // once: a key bound to a real name that another injected key has is not renamed twice.
    let mut bindings: Vec<KeyBinding> = Vec::new();
    let mut level_map: BTreeMap<(String, i16), i16> = BTreeMap::new();
    for key in injected {
        let broker = defs.broker.get(key);
        let topic = defs.topic.get(key);
        let (resource, def) = match (broker, topic, used_as(key, &scenario.file.steps)) {
            (_, Some(d), Some(ManifestResource::Topic)) | (None, Some(d), _) => {
                (ManifestResource::Topic, d)
            }
            (Some(d), _, _) => (ManifestResource::Broker, d),
            (None, None, _) => {
                return Err(Unbound::NoConfig {
                    key: key.to_owned(),
                    shape: "config (the scenario's key is in no definition list)".into(),
                    software: m.software.clone(),
                })
            }
        };
        let levels: BTreeMap<i16, &Validator> = setup
            .mv_validators
            .iter()
            .filter(|v| v.key == key)
            .map(|v| (v.level, &v.validator))
            .collect();
        let scenario_levels: Vec<i16> = levels.keys().copied().collect();
        let uses = classify(key, def, &levels, &scenario.file.steps)?;
        let reported = reported_static(key, &scenario.file.steps);
        // The first config of the shape whose declared values mean what the scenario's do;
        // if none, why the first of that shape does not.
        let mut value_error = None;
        let mut found = None;
        let fitting = m
            .configs
            .iter()
            .filter(|(name, _)| !taken.contains(name.as_str()) && !named.contains(name.as_str()))
            .filter(|(_, c)| {
                c.resource == resource
                    && c.ty == def.ty
                    && c.report_policy == def.report_policy
                    && c.static_validator.is_some() == def.validator.is_some()
            })
            .filter_map(|(name, c)| map_levels(&scenario_levels, runs, c).map(|f| (name, c, f)));
        for (name, config, f) in fitting {
            let mut replace: BTreeMap<String, String> = BTreeMap::new();
            let values = ValueBinding {
                key,
                def,
                levels: &levels,
                name,
                config,
                runs,
                software: &m.software,
                reported: &reported,
            };
            match values.bind(&uses, &f, &scenario_levels, &mut replace) {
                Ok(()) => {
                    found = Some((name, f, replace));
                    break;
                }
                Err(e) => {
                    value_error.get_or_insert(e);
                }
            }
        }
        let Some((name, f, replace)) = found else {
            return Err(value_error.unwrap_or_else(|| Unbound::NoConfig {
                key: key.to_owned(),
                shape: shape(resource, def, &scenario_levels, setup.metadata_version),
                software: m.software.clone(),
            }));
        };
        taken.insert(name);
        for (s, r) in scenario_levels.iter().zip(&f) {
            level_map.insert((key.to_owned(), *s), *r);
        }
        bindings.push(KeyBinding {
            key: key.to_owned(),
            name: name.clone(),
            replace,
        });
    }
    Ok((bindings, level_map))
}

/// Every string anywhere in `v`.
fn strings(v: &serde_json::Value, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::String(s) => {
            out.insert(s.clone());
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_moves;
#[cfg(test)]
mod tests_values;
