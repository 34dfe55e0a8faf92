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
//!   scenario's level maps to the floor at the finalized one; levels above stay above).
//! - Each value the scenario sends for an injected config is classified by the scenario's
//!   own validators: unparsable (kept), refused by the static validator, refused first by
//!   the MV validator of level L, or accepted by all; it is replaced by the manifest's value
//!   of that class (`static_validator.violating`, `mv_validators[L'].violating`, the highest
//!   bound level's `compliant`, or `static_validator.compliant`). Two values of one class
//!   cannot be told apart by the manifest's values: unbound.
//! - Replacement, in every step: the key's name wherever a string equals it, and its values
//!   inside the `Value` of any object whose `Name` mentions the key (requests, config
//!   records, DescribeConfigs results, StaticConfigs entries).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::manifest::{ManifestConfig, ManifestResource, TargetManifest};
use crate::model::config_def::{ConfigType, ConfigValue};
use crate::model::validators::Validator;
use crate::model::{ServerConfigDefs, ServerConfigKey};
use crate::scenario::{validate, Capability, LoadError, Scenario, Step};

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
    /// The scenario moves `metadata.version` itself.
    #[error("the scenario changes metadata.version (UpdateFeatures); its levels are not bound to a live controller")]
    ChangesLevel,
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
    let mut defs = ServerConfigDefs::default();
    defs.broker.extend(setup.definitions.clone());
    let mut file = scenario.file.clone();
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    let mut level_map: BTreeMap<(String, i16), i16> = BTreeMap::new();
    for key in injected {
        let (resource, def) = match (defs.broker.get(key), defs.topic.get(key)) {
            (Some(d), _) => (ManifestResource::Broker, d),
            (None, Some(d)) => (ManifestResource::Topic, d),
            (None, None) => {
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
        let fit = m
            .configs
            .iter()
            .filter(|(name, _)| !taken.contains(name.as_str()))
            .filter(|(_, c)| {
                c.resource == resource
                    && c.ty == def.ty
                    && c.report_policy == def.report_policy
                    && c.static_validator.is_some() == def.validator.is_some()
            })
            .find_map(|(name, c)| {
                map_levels(&scenario_levels, setup.metadata_version, c, finalized)
                    .map(|f| (name, c, f))
            });
        let Some((name, config, f)) = fit else {
            return Err(Unbound::NoConfig {
                key: key.to_owned(),
                shape: shape(resource, def, &scenario_levels, setup.metadata_version),
                software: m.software.clone(),
            });
        };
        taken.insert(name);
        let values = classify(key, def, &levels, &file.steps)?;
        let replace: BTreeMap<String, String> = values
            .into_iter()
            .filter_map(|(class, v)| {
                substitute(&class, config, &f, &scenario_levels).map(|to| (v, to))
            })
            .collect();
        for step in &mut file.steps {
            let Ok(mut json) = serde_json::to_value(&step.value) else {
                continue;
            };
            rewrite_values(&mut json, key, &replace);
            rename(&mut json, key, name);
            if let Ok(s) = serde_json::from_value(json) {
                step.value = s;
            }
        }
        for (s, r) in scenario_levels.iter().zip(&f) {
            level_map.insert((key.to_owned(), *s), *r);
        }
        renamed.insert(key.to_owned(), name.clone());
    }
    if sends("UpdateFeatures") {
        return Err(Unbound::ChangesLevel);
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

/// The shape a scenario's injected config needs, in words.
fn shape(resource: ManifestResource, def: &ServerConfigKey, levels: &[i16], mv: i16) -> String {
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
/// same validators are in force: the scenario's floor at `mv` maps to `c`'s floor at
/// `finalized`, levels above `mv` map above `finalized`. The first such map, if any.
fn map_levels(levels: &[i16], mv: i16, c: &ManifestConfig, finalized: i16) -> Option<Vec<i16>> {
    let real: Vec<i16> = c.mv_validators.keys().copied().collect();
    let real_floor = real.iter().copied().filter(|l| *l <= finalized).max();
    let floor = levels.iter().copied().filter(|l| *l <= mv).max();
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
        let sides = levels
            .iter()
            .zip(f)
            .all(|(s, r)| (*s <= mv) == (*r <= finalized));
        let bound_floor = floor.and_then(|fl| levels.iter().position(|l| *l == fl).map(|i| f[i]));
        sides && bound_floor == real_floor
    };
    let mut chosen = Vec::new();
    pick(levels, &real, &mut chosen, &ok).then_some(chosen)
}

/// How a value the scenario sends relates to its own validators for a key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// Refused by the static validator.
    StaticViolating,
    /// Passes the static validator; refused first by the MV validator of this level.
    MvViolating(i16),
    /// Accepted by every validator.
    Compliant,
}

impl Class {
    fn name(&self) -> String {
        match self {
            Class::StaticViolating => "static-validator-violating".into(),
            Class::MvViolating(l) => format!("level-{l}-violating"),
            Class::Compliant => "compliant".into(),
        }
    }
}

/// Each parsable value the scenario's sent bodies give `key`, classified; two values of one
/// class are unbound.
fn classify(
    key: &str,
    def: &ServerConfigKey,
    levels: &BTreeMap<i16, &Validator>,
    steps: &[serde_saphyr::Spanned<Step>],
) -> Result<BTreeMap<Class, String>, Unbound> {
    let mut sent = BTreeSet::new();
    for s in steps {
        if let Step::Send(x) = &s.value {
            let forwarded = x.inner.as_ref().and_then(|i| i.body.as_ref());
            for body in x.body.iter().chain(forwarded) {
                sent_values(body, key, &mut sent);
            }
        }
    }
    let mut out: BTreeMap<Class, String> = BTreeMap::new();
    for v in sent {
        let Some(class) = class_of(def, levels, key, &v) else {
            continue;
        };
        if let Some(first) = out.get(&class) {
            return Err(Unbound::SameClass {
                key: key.to_owned(),
                class: class.name(),
                first: first.clone(),
                second: v,
            });
        }
        out.insert(class, v);
    }
    Ok(out)
}

fn class_of(
    def: &ServerConfigKey,
    levels: &BTreeMap<i16, &Validator>,
    key: &str,
    v: &str,
) -> Option<Class> {
    let parsed = ConfigValue::parse(def.ty, v).ok()?;
    if def
        .validator
        .as_ref()
        .is_some_and(|val| val.ensure_valid(key, &parsed).is_err())
    {
        return Some(Class::StaticViolating);
    }
    Some(
        levels
            .iter()
            .find(|(_, val)| val.ensure_valid(key, &parsed).is_err())
            .map_or(Class::Compliant, |(l, _)| Class::MvViolating(*l)),
    )
}

/// The manifest's value for `class` (`f`: the bound levels, in the scenario levels' order).
fn substitute(class: &Class, c: &ManifestConfig, f: &[i16], levels: &[i16]) -> Option<String> {
    match class {
        Class::StaticViolating => c.static_validator.as_ref().map(|p| p.violating.clone()),
        Class::MvViolating(l) => {
            let i = levels.iter().position(|x| x == l)?;
            c.mv_validators.get(&f[i]).map(|p| p.violating.clone())
        }
        Class::Compliant => match f.last() {
            Some(top) => c.mv_validators.get(top).map(|p| p.compliant.clone()),
            None => c.static_validator.as_ref().map(|p| p.compliant.clone()),
        },
    }
}

/// Values (`Value` strings) of objects whose `Name` is `key`, anywhere in `v`.
fn sent_values(v: &Value, key: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            if o.get("Name").and_then(Value::as_str) == Some(key) {
                if let Some(Value::String(s)) = o.get("Value") {
                    out.insert(s.clone());
                }
            }
            o.values().for_each(|x| sent_values(x, key, out));
        }
        Value::Array(a) => a.iter().for_each(|x| sent_values(x, key, out)),
        _ => {}
    }
}

fn mentions(v: &Value, key: &str) -> bool {
    match v {
        Value::String(s) => s == key,
        Value::Object(o) => o.values().any(|x| mentions(x, key)),
        Value::Array(a) => a.iter().any(|x| mentions(x, key)),
        _ => false,
    }
}

/// Every string of `replace` inside the `Value` of an object whose `Name` mentions `key`.
fn rewrite_values(v: &mut Value, key: &str, replace: &BTreeMap<String, String>) {
    fn swap(v: &mut Value, replace: &BTreeMap<String, String>) {
        match v {
            Value::String(s) => {
                if let Some(to) = replace.get(s.as_str()) {
                    *s = to.clone();
                }
            }
            Value::Object(o) => o.values_mut().for_each(|x| swap(x, replace)),
            Value::Array(a) => a.iter_mut().for_each(|x| swap(x, replace)),
            _ => {}
        }
    }
    match v {
        Value::Object(o) => {
            if o.get("Name").is_some_and(|n| mentions(n, key)) {
                if let Some(val) = o.get_mut("Value") {
                    swap(val, replace);
                }
            }
            o.values_mut().for_each(|x| rewrite_values(x, key, replace));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite_values(x, key, replace)),
        _ => {}
    }
}

/// Every string equal to `from` becomes `to`.
fn rename(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) if s == from => *s = to.to_owned(),
        Value::Object(o) => o.values_mut().for_each(|x| rename(x, from, to)),
        Value::Array(a) => a.iter_mut().for_each(|x| rename(x, from, to)),
        _ => {}
    }
}

/// The type name a manifest and `shape` use (`INT`, ...).
fn type_name(ty: ConfigType) -> String {
    serde_json::to_value(ty)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::adapter::manifest::parse_manifest;
    use crate::scenario::load_text;

    /// A scenario in the shape of `k1294-floor-between-levels`: MV 15, validators at 10
    /// and 20 on log.segment.bytes.
    const FLOOR: &str = r#"id: floor
title: floor between levels
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 15
    mv_validators:
      - { key: log.segment.bytes, level: 10, validator: { at_least: 2097152 } }
      - { key: log.segment.bytes, level: 20, validator: { at_least: 4194304 } }
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - { ResourceType: 4, ResourceName: "1", Configs: [ { Name: log.segment.bytes, ConfigOperation: 0, Value: "2097152" } ] }
          - { ResourceType: 4, ResourceName: "1", Configs: [ { Name: log.segment.bytes, ConfigOperation: 0, Value: "2097151" } ] }
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - { ErrorCode: NONE, ResourceType: 4, ResourceName: "1" }
          - { ErrorCode: INVALID_CONFIG, ErrorMessage: { $contains: log.segment.bytes }, ResourceType: 4, ResourceName: "1" }
  - expect_event: { event: { event: record_appended, record: { Name: log.segment.bytes, Value: "2097152" } } }
"#;

    /// A controller with MV validators at 30 and 32 on a made-up real config, running at 31.
    const MANIFEST: &str = r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  example.bytes:
    resource: broker
    type: INT
    static_validator: { violating: "0", compliant: "100" }
    mv_validators:
      30: { violating: "99", compliant: "300" }
      32: { violating: "299", compliant: "500" }
"#;

    fn scenario(text: &str) -> Scenario {
        load_text(
            text,
            Path::new("scenarios/kip1294/floor.yaml"),
            Path::new("scenarios"),
        )
        .unwrap()
    }

    fn manifest(text: &str) -> TargetManifest {
        parse_manifest(text, Path::new("m.yaml")).unwrap()
    }

    #[test]
    fn without_a_manifest_an_injecting_scenario_is_unbound_with_the_reason() {
        let e = bind(&scenario(FLOOR), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "setup.controller.mv_validators injects MV validators on log.segment.bytes: a live \
             controller cannot be given definitions or a metadata.version; --target-manifest \
             FILE declares its own"
        );
    }

    #[test]
    fn a_bound_scenario_sends_the_manifest_key_and_values() {
        let bound = bind(&scenario(FLOOR), Some(&manifest(MANIFEST)))
            .unwrap()
            .unwrap();
        let Step::Send(send) = &bound.file.steps[0].value else {
            panic!("not a send");
        };
        let configs: Vec<(String, String)> = send.body.as_ref().unwrap()["Resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let c = &r["Configs"][0];
                (
                    c["Name"].as_str().unwrap().into(),
                    c["Value"].as_str().unwrap().into(),
                )
            })
            .collect();
        // 2097152 passes level 10 and fails level 20 (bound to 32): 32's violating value;
        // 2097151 fails level 10 (bound to 30): 30's violating value.
        assert_eq!(
            configs,
            [
                ("example.bytes".to_owned(), "299".to_owned()),
                ("example.bytes".to_owned(), "99".to_owned())
            ]
        );
        let Step::ExpectResponse(r) = &bound.file.steps[1].value else {
            panic!("not an expect_response");
        };
        assert_eq!(
            r.body.as_ref().unwrap()["Responses"][1]["ErrorMessage"]["$contains"],
            "example.bytes"
        );
        let Step::ExpectEvent(ev) = &bound.file.steps[2].value else {
            panic!("not an expect_event");
        };
        assert_eq!(ev.event["record"]["Value"], "299");
        let c = bound.file.setup.controller.as_ref().unwrap();
        assert_eq!(c.metadata_version, 31);
        let levels: Vec<(String, i16)> = c
            .mv_validators
            .iter()
            .map(|v| (v.key.clone(), v.level))
            .collect();
        assert_eq!(
            levels,
            [
                ("example.bytes".to_owned(), 30),
                ("example.bytes".to_owned(), 32)
            ]
        );
        // The typed request the runner sends was rebuilt from the bound body.
        let crate::scenario::Compiled::Request(req) = &bound.compiled[0] else {
            panic!("not compiled");
        };
        assert!(format!("{req:?}").contains("example.bytes"));
    }

    #[test]
    fn levels_in_force_must_match() {
        // Finalized at 33: both real levels are in force, the scenario's level 20 is not.
        let m = manifest(&MANIFEST.replace("finalized: 31", "finalized: 33"));
        let e = bind(&scenario(FLOOR), Some(&m)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the manifest (Example 9) declares no broker config of type INT with a static \
             validator and MV validators at 2 levels (1 at or below the scenario's \
             metadata.version 15, 1 above) to bind log.segment.bytes to"
        );
    }

    #[test]
    fn the_kafka_4_4_manifest_binds_no_mv_validator() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/manifests/kafka-4.4.0.yaml");
        let m = crate::adapter::manifest::load_manifest(&path).unwrap();
        let e = bind(&scenario(FLOOR), Some(&m)).unwrap_err();
        assert!(
            matches!(&e, Unbound::NoConfig { key, software, .. } if key == "log.segment.bytes" && software == "Apache Kafka 4.4.0"),
            "{e}"
        );
    }

    #[test]
    fn two_values_of_one_class_are_unbound() {
        let text = FLOOR.replace("Value: \"2097151\"", "Value: \"2097153\"");
        let e = bind(&scenario(&text), Some(&manifest(MANIFEST))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the scenario uses two level-20-violating values of log.segment.bytes (\"2097152\", \
             \"2097153\"); the manifest gives one"
        );
    }

    #[test]
    fn a_scenario_that_injects_nothing_needs_no_binding() {
        let text = FLOOR
            .replace("requires: [metadata_version]\n", "")
            .replace(
                "    mv_validators:\n      - { key: log.segment.bytes, level: 10, validator: { at_least: 2097152 } }\n      - { key: log.segment.bytes, level: 20, validator: { at_least: 4194304 } }\n",
                "",
            );
        assert!(bind(&scenario(&text), None).unwrap().is_none());
    }
}
