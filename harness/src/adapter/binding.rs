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
//! - Replacement, in every step, for all keys at once: the key's name wherever a string
//!   equals it, and its values inside the `Value` of any object whose `Name` mentions the key
//!   (requests, config records, DescribeConfigs results, StaticConfigs entries), or of a
//!   `Name`-less object next to one in an array (`$any_of` alternatives).
//! - [`bind_cluster_id`]: every BrokerRegistration carries the live controller's cluster id.

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
    /// The controller's cluster id is not known, so a BrokerRegistration cannot carry it.
    #[error("the scenario sends BrokerRegistration, but the controller's cluster id is unknown ({0}); the manifest's cluster_id declares it")]
    NoClusterId(String),
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
    /// A routed run over several controllers (adapter::routed): none of them runs the
    /// scenario; each one's reason, led by its name (`tcp://HOST:PORT: why`).
    #[error("no target runs it: {}", .0.join("; "))]
    NoTarget(Vec<String>),
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
        let uses = classify(key, def, &levels, &scenario.file.steps)?;
        let mut replace: BTreeMap<String, String> = BTreeMap::new();
        for (class, u) in uses {
            let Some(real) = substitute(&class, config, &f, &scenario_levels) else {
                continue;
            };
            for (from, to) in real_use(&u, &real, key, name, config, &m.software)? {
                match replace.get(&from) {
                    Some(had) if *had != to => {
                        return Err(Unbound::TwoMeanings {
                            key: key.to_owned(),
                            value: from,
                            first: had.clone(),
                            second: to,
                        })
                    }
                    _ => {
                        replace.insert(from, to);
                    }
                }
            }
        }
        for (s, r) in scenario_levels.iter().zip(&f) {
            level_map.insert((key.to_owned(), *s), *r);
        }
        bindings.push(KeyBinding {
            key: key.to_owned(),
            name: name.clone(),
            replace,
        });
    }
    let renamed: BTreeMap<String, String> = bindings
        .iter()
        .map(|b| (b.key.clone(), b.name.clone()))
        .collect();
    if !bindings.is_empty() {
        for step in &mut file.steps {
            let Ok(mut json) = serde_json::to_value(&step.value) else {
                continue;
            };
            rewrite_values(&mut json, &bindings);
            rename(&mut json, &renamed);
            if let Ok(s) = serde_json::from_value(json) {
                step.value = s;
            }
        }
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

/// The cluster id the scenarios' BrokerRegistration requests carry: the reference
/// controller's.
pub const SCENARIO_CLUSTER_ID: &str = crate::model::controller::describe::CLUSTER_ID;

/// `scenario` with the live controller's `cluster_id` (or why it is not known) in every
/// BrokerRegistration it sends, directly or inside an Envelope, where it wrote
/// [`SCENARIO_CLUSTER_ID`] or left `ClusterId` out (a scenario that names another id on
/// purpose keeps it): `Ok(None)` when nothing changes, `Ok(Some(bound))` otherwise, so the
/// report shows the id that was sent. A controller formatted with a real cluster id refuses
/// a registration carrying another (INCONSISTENT_CLUSTER_ID).
pub fn bind_cluster_id(
    scenario: &Scenario,
    cluster_id: Result<&str, &str>,
) -> Result<Option<Scenario>, Unbound> {
    fn fix(body: &mut Option<Value>, id: &str) -> bool {
        let Some(Value::Object(o)) = body else {
            return false;
        };
        match o.get("ClusterId") {
            Some(Value::String(s)) if s == SCENARIO_CLUSTER_ID && s != id => {}
            None => {}
            _ => return false,
        }
        o.insert("ClusterId".into(), Value::String(id.to_owned()));
        true
    }
    let registers = |api: &str| api == "BrokerRegistration";
    let sends = scenario.file.steps.iter().any(|s| {
        matches!(&s.value, Step::Send(x)
            if registers(&x.api) || x.inner.as_ref().is_some_and(|i| registers(&i.api)))
    });
    if !sends {
        return Ok(None);
    }
    let id = cluster_id.map_err(|why| Unbound::NoClusterId(why.to_owned()))?;
    let mut file = scenario.file.clone();
    let mut changed = false;
    for step in &mut file.steps {
        if let Step::Send(x) = &mut step.value {
            if registers(&x.api) {
                changed |= fix(&mut x.body, id);
            }
            if let Some(inner) = x.inner.as_mut().filter(|i| registers(&i.api)) {
                changed |= fix(&mut inner.body, id);
            }
        }
    }
    if !changed {
        return Ok(None);
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

/// An IncrementalAlterConfigs operation on a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    /// The value is the whole new value (SET, AlterConfigs, CreateTopics, StaticConfigs).
    Set,
    /// APPEND (`ConfigOperation` 2) to a list.
    Append,
    /// SUBTRACT (3) from a list.
    Subtract,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Set => "SET",
            Op::Append => "APPEND",
            Op::Subtract => "SUBTRACT",
        }
    }
}

/// One value the scenario sends for a key: the value as sent, the operation, and the value
/// the config has after it (the sent value itself for a SET; for a list APPEND or SUBTRACT,
/// the list it produces from the config's default, as a freshly created topic has it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    sent: String,
    op: Op,
    result: String,
}

/// Each parsable value the scenario's sent bodies give `key`, classified by the value it
/// results in; two different resulting values of one class are unbound.
fn classify(
    key: &str,
    def: &ServerConfigKey,
    levels: &BTreeMap<i16, &Validator>,
    steps: &[serde_saphyr::Spanned<Step>],
) -> Result<Vec<(Class, Use)>, Unbound> {
    let mut sent = BTreeSet::new();
    for s in steps {
        if let Step::Send(x) = &s.value {
            let forwarded = x.inner.as_ref().and_then(|i| i.body.as_ref());
            for body in x.body.iter().chain(forwarded) {
                sent_values(body, key, &mut sent);
            }
        }
    }
    let start = list_items(def.default.as_deref().unwrap_or(""));
    let mut out: Vec<(Class, Use)> = Vec::new();
    for (v, op) in sent {
        let op = if def.ty == ConfigType::List {
            op
        } else {
            Op::Set
        };
        let result = match op {
            Op::Set => v.clone(),
            Op::Append | Op::Subtract => apply_list_op(&start, op, &list_items(&v)).join(","),
        };
        let Some(class) = class_of(def, levels, key, &result) else {
            continue;
        };
        if let Some((_, first)) = out.iter().find(|(c, u)| *c == class && u.result != result) {
            return Err(Unbound::SameClass {
                key: key.to_owned(),
                class: class.name(),
                first: first.result.clone(),
                second: result,
            });
        }
        out.push((
            class,
            Use {
                sent: v,
                op,
                result,
            },
        ));
    }
    Ok(out)
}

/// The items of a LIST value as Kafka parses it (`""`: none).
fn list_items(v: &str) -> Vec<String> {
    match ConfigValue::parse(ConfigType::List, v) {
        Ok(ConfigValue::List(items)) => items,
        _ => Vec::new(),
    }
}

/// `start` after an APPEND (missing items added at the end) or SUBTRACT (every listed item
/// removed) of `delta`, as Kafka's IncrementalAlterConfigs (and the reference model) does.
fn apply_list_op(start: &[String], op: Op, delta: &[String]) -> Vec<String> {
    let mut items = start.to_vec();
    match op {
        Op::Set => return delta.to_vec(),
        Op::Append => {
            for d in delta {
                if !items.contains(d) {
                    items.push(d.clone());
                }
            }
        }
        Op::Subtract => items.retain(|i| !delta.contains(i)),
    }
    items
}

/// The substitutions one use of the scenario's `key` needs, given the manifest's value
/// `real` of the use's class for the real config `name`: for a SET, the value itself; for a
/// list APPEND or SUBTRACT, the operand that turns the real config's default into `real`
/// (and the resulting list the scenario expects into the one the controller records).
fn real_use(
    u: &Use,
    real: &str,
    key: &str,
    name: &str,
    config: &ManifestConfig,
    software: &str,
) -> Result<Vec<(String, String)>, Unbound> {
    if u.op == Op::Set {
        return Ok(vec![(u.sent.clone(), real.to_owned())]);
    }
    let fail = |why: String| Unbound::ListOp {
        key: key.to_owned(),
        op: u.op.name(),
        why,
    };
    let Some(default) = &config.default else {
        return Err(fail(format!(
            "the manifest ({software}) gives no default for {name}, the list it starts from"
        )));
    };
    let start = list_items(default);
    let target = list_items(real);
    let operand: Vec<String> = match u.op {
        Op::Append if start.iter().all(|i| target.contains(i)) => target
            .iter()
            .filter(|i| !start.contains(i))
            .cloned()
            .collect(),
        Op::Subtract if target.iter().all(|i| start.contains(i)) => start
            .iter()
            .filter(|i| !target.contains(i))
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    if operand.is_empty() {
        return Err(fail(format!(
            "no {} to {name}'s default {default:?} results in the manifest's value {real:?}",
            u.op.name()
        )));
    }
    let result = apply_list_op(&start, u.op, &operand).join(",");
    let mut out = vec![(u.sent.clone(), operand.join(","))];
    if u.result != u.sent {
        out.push((u.result.clone(), result));
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

/// Values (`Value` strings) of objects whose `Name` is `key`, anywhere in `v`, with the
/// operation (`ConfigOperation`) applying them; a DELETE's value is ignored, as Kafka does.
fn sent_values(v: &Value, key: &str, out: &mut BTreeSet<(String, Op)>) {
    match v {
        Value::Object(o) => {
            if o.get("Name").and_then(Value::as_str) == Some(key) {
                let op = match o.get("ConfigOperation").and_then(Value::as_i64) {
                    Some(1) => None,
                    Some(2) => Some(Op::Append),
                    Some(3) => Some(Op::Subtract),
                    _ => Some(Op::Set),
                };
                if let (Some(Value::String(s)), Some(op)) = (o.get("Value"), op) {
                    out.insert((s.clone(), op));
                }
            }
            o.values().for_each(|x| sent_values(x, key, out));
        }
        Value::Array(a) => a.iter().for_each(|x| sent_values(x, key, out)),
        _ => {}
    }
}

/// The resource the scenario's requests use `key` on, when that is one kind only: a topic
/// (`ResourceType` 2, a CreateTopics topic's configs) or a broker (`ResourceType` 4, a
/// registration's `StaticConfigs`). A config both resources define (`compression.type`)
/// binds to a real config of the resource the scenario sets it on.
fn used_as(key: &str, steps: &[serde_saphyr::Spanned<Step>]) -> Option<ManifestResource> {
    fn walk(v: &Value, key: &str, ctx: Option<ManifestResource>, seen: &mut [bool; 2]) {
        match v {
            Value::String(s) if s == key => match ctx {
                Some(ManifestResource::Topic) => seen[0] = true,
                Some(ManifestResource::Broker) => seen[1] = true,
                None => {}
            },
            Value::Object(o) => {
                let ctx = match o.get("ResourceType").and_then(Value::as_i64) {
                    Some(2) => Some(ManifestResource::Topic),
                    Some(4) => Some(ManifestResource::Broker),
                    _ if o.contains_key("NumPartitions") => Some(ManifestResource::Topic),
                    _ => ctx,
                };
                for (k, x) in o {
                    let ctx = if k == "StaticConfigs" {
                        Some(ManifestResource::Broker)
                    } else {
                        ctx
                    };
                    walk(x, key, ctx, seen);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, key, ctx, seen)),
            _ => {}
        }
    }
    let mut seen = [false; 2];
    for s in steps {
        if let Step::Send(x) = &s.value {
            let forwarded = x.inner.as_ref().and_then(|i| i.body.as_ref());
            for body in x.body.iter().chain(forwarded) {
                walk(body, key, None, &mut seen);
            }
        }
    }
    match seen {
        [true, false] => Some(ManifestResource::Topic),
        [false, true] => Some(ManifestResource::Broker),
        _ => None,
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

/// One injected config as bound: its real name and the real value of each of its values.
struct KeyBinding {
    key: String,
    name: String,
    replace: BTreeMap<String, String>,
}

/// Every value a binding replaces, inside the `Value` of an object whose `Name` mentions its
/// key, or of a `Name`-less object next to one in an array (a pattern that splits a config
/// across alternatives: `$any_of: [{Name: {$not: K}}, {Value: ...}]`). Each string is
/// replaced at most once, by the first binding whose key the `Name` mentions.
fn rewrite_values(v: &mut Value, bindings: &[KeyBinding]) {
    fn swap(v: &mut Value, maps: &[&BTreeMap<String, String>]) {
        match v {
            Value::String(s) => {
                if let Some(to) = maps.iter().find_map(|m| m.get(s.as_str())) {
                    *s = to.clone();
                }
            }
            Value::Object(o) => o.values_mut().for_each(|x| swap(x, maps)),
            Value::Array(a) => a.iter_mut().for_each(|x| swap(x, maps)),
            _ => {}
        }
    }
    let maps = |name: &Value| -> Vec<&BTreeMap<String, String>> {
        bindings
            .iter()
            .filter(|b| mentions(name, &b.key))
            .map(|b| &b.replace)
            .collect()
    };
    match v {
        Value::Object(o) => {
            if let Some(found) = o.get("Name").map(maps).filter(|m| !m.is_empty()) {
                if let Some(val) = o.get_mut("Value") {
                    swap(val, &found);
                }
            }
            o.values_mut().for_each(|x| rewrite_values(x, bindings));
        }
        Value::Array(a) => {
            let found: Vec<&BTreeMap<String, String>> = a
                .iter()
                .filter_map(|x| x.get("Name"))
                .flat_map(maps)
                .collect();
            if !found.is_empty() {
                for x in a.iter_mut() {
                    if let Value::Object(o) = x {
                        if !o.contains_key("Name") {
                            if let Some(val) = o.get_mut("Value") {
                                swap(val, &found);
                            }
                        }
                    }
                }
            }
            a.iter_mut().for_each(|x| rewrite_values(x, bindings));
        }
        _ => {}
    }
}

/// Every string that is a key of `names` becomes its value, all at once (a renamed string is
/// not renamed again).
fn rename(v: &mut Value, names: &BTreeMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(to) = names.get(s.as_str()) {
                *s = to.clone();
            }
        }
        Value::Object(o) => o.values_mut().for_each(|x| rename(x, names)),
        Value::Array(a) => a.iter_mut().for_each(|x| rename(x, names)),
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

    /// A scenario in the shape of `k1294-iac-append-list-compliant-record` (and, with other
    /// validators, `-append-list-mv` and `-append-validates-resulting-list`): APPEND compact
    /// to topic cleanup.policy (default delete) at MV 10.
    fn append(valid: &str) -> String {
        format!(
            r#"id: floor
title: append
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    topics: [events]
    mv_validators:
      - {{ key: cleanup.policy, level: 10, validator: {{ valid_list: {{ valid: [{valid}], allow_empty: false }} }} }}
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - {{ ResourceType: 2, ResourceName: "events", Configs: [ {{ Name: cleanup.policy, ConfigOperation: 2, Value: "compact" }} ] }}
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - {{ ErrorCode: NONE, ResourceType: 2, ResourceName: "events" }}
  - expect_event: {{ count: 1, event: {{ event: record_appended, record: {{ ResourceType: 2, ResourceName: events, Name: cleanup.policy, Value: "delete,compact" }} }} }}
  - send:
      api: DescribeConfigs
      version: 4
      body:
        Resources:
          - {{ ResourceType: 2, ResourceName: "events", ConfigurationKeys: [ cleanup.policy ] }}
        IncludeSynonyms: false
        IncludeDocumentation: false
  - expect_response: {{ body: {{ Results: [ {{ ErrorCode: NONE, ResourceType: 2, ResourceName: "events", Configs: {{ $each: {{ $any_of: [ {{ Name: {{ $not: cleanup.policy }} }}, {{ Value: {{ $not: {{ $contains: "compact" }} }} }} ] }} }} }} ] }} }}
"#
        )
    }

    /// A controller with an MV validator at 30 on a real topic LIST config whose default is
    /// `delete`.
    const LIST_MANIFEST: &str = r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  example.policy:
    resource: topic
    type: LIST
    default: delete
    static_validator: { violating: "bogus", compliant: "delete" }
    mv_validators:
      30: { violating: "delete,compact", compliant: "delete,keep" }
"#;

    /// The first config `(Name, Value)` the first step sends, and the bound scenario.
    fn first_config(bound: &Scenario) -> (String, String) {
        let Step::Send(send) = &bound.file.steps[0].value else {
            panic!("not a send");
        };
        let c = &send.body.as_ref().unwrap()["Resources"][0]["Configs"][0];
        (
            c["Name"].as_str().unwrap().into(),
            c["Value"].as_str().unwrap().into(),
        )
    }

    #[test]
    fn an_append_sends_the_operand_reaching_the_manifest_list_and_expects_that_list() {
        // Compliant: delete,compact passes [delete, compact]. The manifest's compliant list
        // is delete,keep: appending keep to the default delete reaches it.
        let bound = bind(
            &scenario(&append("delete, compact")),
            Some(&manifest(LIST_MANIFEST)),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            first_config(&bound),
            ("example.policy".to_owned(), "keep".to_owned())
        );
        let Step::ExpectEvent(ev) = &bound.file.steps[2].value else {
            panic!("not an expect_event");
        };
        assert_eq!(ev.event["record"]["Value"], "delete,keep");
        // The read-back's alternative without a Name is bound too.
        let Step::ExpectResponse(r) = &bound.file.steps[4].value else {
            panic!("not an expect_response");
        };
        let alts = &r.body.as_ref().unwrap()["Results"][0]["Configs"]["$each"]["$any_of"];
        assert_eq!(alts[0]["Name"]["$not"], "example.policy");
        assert_eq!(alts[1]["Value"]["$not"]["$contains"], "keep");
    }

    #[test]
    fn an_append_is_classified_by_the_list_it_results_in() {
        // compact alone passes [compact]; the resulting delete,compact does not: the
        // manifest's violating list, delete,compact, is reached by appending compact.
        let bound = bind(
            &scenario(&append("compact")),
            Some(&manifest(LIST_MANIFEST)),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            first_config(&bound),
            ("example.policy".to_owned(), "compact".to_owned())
        );
        // [delete]: the result is refused too.
        let bound = bind(&scenario(&append("delete")), Some(&manifest(LIST_MANIFEST)))
            .unwrap()
            .unwrap();
        assert_eq!(first_config(&bound).1, "compact");
    }

    #[test]
    fn an_append_needs_the_manifest_default_and_a_reachable_list() {
        let m = manifest(&LIST_MANIFEST.replace("    default: delete\n", ""));
        let e = bind(&scenario(&append("compact")), Some(&m)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the scenario's APPEND on cleanup.policy cannot be bound: the manifest (Example 9) \
             gives no default for example.policy, the list it starts from"
        );
        let m = manifest(&LIST_MANIFEST.replace("default: delete", "default: other"));
        let e = bind(&scenario(&append("compact")), Some(&m)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the scenario's APPEND on cleanup.policy cannot be bound: no APPEND to \
             example.policy's default \"other\" results in the manifest's value \"delete,compact\""
        );
    }

    #[test]
    fn a_subtract_is_classified_by_the_list_it_results_in() {
        // SUBTRACT delete from the default delete leaves the empty list, which
        // allow_empty: false refuses; the manifest's violating list is reached by
        // subtracting what its default has beyond it.
        let text = append("compact, delete")
            .replace(
                "ConfigOperation: 2, Value: \"compact\"",
                "ConfigOperation: 3, Value: \"delete\"",
            )
            .replace("Value: \"delete,compact\"", "Value: \"\"");
        let m = manifest(
            &LIST_MANIFEST
                .replace("default: delete", "default: \"delete,compact,keep\"")
                .replace(
                    "violating: \"delete,compact\"",
                    "violating: \"delete,compact,keep,x\"",
                ),
        );
        let e = bind(&scenario(&text), Some(&m)).unwrap_err();
        assert!(e.to_string().contains("SUBTRACT"), "{e}");
        let m =
            manifest(&LIST_MANIFEST.replace("default: delete", "default: \"delete,compact,keep\""));
        let bound = bind(&scenario(&text), Some(&m)).unwrap().unwrap();
        assert_eq!(first_config(&bound).1, "keep");
    }

    /// `k1294-valid-string-mv-validator`'s shape: compression.type (a broker and a topic
    /// config) set on a topic.
    const TOPIC_STRING: &str = r#"id: floor
title: topic string
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    topics: [logs]
    mv_validators:
      - { key: compression.type, level: 10, validator: { valid_string: [zstd, lz4] } }
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - { ResourceType: 2, ResourceName: "logs", Configs: [ { Name: compression.type, ConfigOperation: 0, Value: "gzip" } ] }
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - { ErrorCode: INVALID_CONFIG, ResourceType: 2, ResourceName: "logs" }
"#;

    #[test]
    fn a_config_set_on_a_topic_binds_to_a_topic_config() {
        let m = manifest(
            r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  a.broker.codec:
    resource: broker
    type: STRING
    static_validator: { violating: "bogus", compliant: "snappy" }
    mv_validators:
      30: { violating: "snappy", compliant: "zstd" }
  b.topic.codec:
    resource: topic
    type: STRING
    static_validator: { violating: "bogus", compliant: "snappy" }
    mv_validators:
      30: { violating: "gzip", compliant: "zstd" }
"#,
        );
        let bound = bind(&scenario(TOPIC_STRING), Some(&m)).unwrap().unwrap();
        assert_eq!(
            first_config(&bound),
            ("b.topic.codec".to_owned(), "gzip".to_owned())
        );
        // Without a topic config of its shape it is unbound as a topic config.
        let m = manifest(&m_text_without_topic());
        let e = bind(&scenario(TOPIC_STRING), Some(&m)).unwrap_err();
        assert!(
            e.to_string()
                .contains("declares no topic config of type STRING"),
            "{e}"
        );
    }

    fn m_text_without_topic() -> String {
        r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  a.broker.codec:
    resource: broker
    type: STRING
    static_validator: { violating: "bogus", compliant: "snappy" }
    mv_validators:
      30: { violating: "snappy", compliant: "zstd" }
"#
        .into()
    }

    #[test]
    fn keys_are_renamed_at_once() {
        // kipcheck.x binds to the real kipcheck.y, and the injected kipcheck.y to kipcheck.z:
        // the first must not be renamed again by the second.
        let text = r#"id: floor
title: two keys
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    definitions:
      kipcheck.x: { ty: INT, default: "5", validator: { at_least: 1 }, report_policy: DEFAULT }
      kipcheck.y: { ty: INT, default: "5", validator: { at_least: 1 }, report_policy: DEFAULT }
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - { ResourceType: 4, ResourceName: "1", Configs: [ { Name: kipcheck.x, ConfigOperation: 0, Value: "5" }, { Name: kipcheck.y, ConfigOperation: 0, Value: "0" } ] }
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - { ErrorCode: INVALID_CONFIG, ErrorMessage: { $contains: kipcheck.y }, ResourceType: 4, ResourceName: "1" }
"#;
        let m = manifest(
            r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  kipcheck.y:
    resource: broker
    type: INT
    static_validator: { violating: "-1", compliant: "7" }
  kipcheck.z:
    resource: broker
    type: INT
    static_validator: { violating: "-2", compliant: "8" }
"#,
        );
        let bound = bind(&scenario(text), Some(&m)).unwrap().unwrap();
        let Step::Send(send) = &bound.file.steps[0].value else {
            panic!("not a send");
        };
        let configs: Vec<(String, String)> = send.body.as_ref().unwrap()["Resources"][0]["Configs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["Name"].as_str().unwrap().into(),
                    c["Value"].as_str().unwrap().into(),
                )
            })
            .collect();
        assert_eq!(
            configs,
            [
                ("kipcheck.y".to_owned(), "7".to_owned()),
                ("kipcheck.z".to_owned(), "-2".to_owned())
            ]
        );
        let Step::ExpectResponse(r) = &bound.file.steps[1].value else {
            panic!("not an expect_response");
        };
        assert_eq!(
            r.body.as_ref().unwrap()["Responses"][0]["ErrorMessage"]["$contains"],
            "kipcheck.z"
        );
    }

    /// A registration in the shape of `k1294-registration-*`, its ClusterId as given.
    fn registration(cluster: &str) -> String {
        format!(
            r#"id: floor
title: registration
kip: KIP-1294
grade: MUST
roles: [controller]
steps:
  - send:
      api: BrokerRegistration
      version: 4
      body:
        BrokerId: 1
{cluster}        IncarnationId: AAAAAAAAAAAAAAAAAAAAAQ
        Listeners: [ {{ Name: PLAINTEXT, Host: localhost, Port: 9093, SecurityProtocol: 0 }} ]
        Features: [ {{ Name: metadata.version, MinSupportedVersion: 1, MaxSupportedVersion: 40 }} ]
  - expect_response: {{ body: {{ ErrorCode: NONE }} }}
"#
        )
    }

    fn sent_cluster_id(s: &Scenario) -> Option<String> {
        let Step::Send(send) = &s.file.steps[0].value else {
            panic!("not a send");
        };
        send.body.as_ref().unwrap()["ClusterId"]
            .as_str()
            .map(str::to_owned)
    }

    #[test]
    fn registrations_carry_the_controller_cluster_id() {
        let written = scenario(&registration("        ClusterId: kipcheck-cluster\n"));
        let bound = bind_cluster_id(&written, Ok("MkU3OEVBNTcwNTJENDM2Qg"))
            .unwrap()
            .unwrap();
        assert_eq!(
            sent_cluster_id(&bound).as_deref(),
            Some("MkU3OEVBNTcwNTJENDM2Qg")
        );
        let crate::scenario::Compiled::Request(req) = &bound.compiled[0] else {
            panic!("not compiled");
        };
        assert!(format!("{req:?}").contains("MkU3OEVBNTcwNTJENDM2Qg"));
        // Left out: filled in.
        let bound = bind_cluster_id(&scenario(&registration("")), Ok("real"))
            .unwrap()
            .unwrap();
        assert_eq!(sent_cluster_id(&bound).as_deref(), Some("real"));
        // Another id written on purpose is kept; the same id needs no binding.
        let other = scenario(&registration("        ClusterId: not-this-cluster\n"));
        assert!(bind_cluster_id(&other, Ok("real")).unwrap().is_none());
        assert!(bind_cluster_id(&written, Ok(SCENARIO_CLUSTER_ID))
            .unwrap()
            .is_none());
        // Unknown: a scenario that registers cannot run; one that does not is unaffected.
        let e = bind_cluster_id(
            &written,
            Err("DescribeCluster answered CLUSTER_AUTHORIZATION_FAILED"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the scenario sends BrokerRegistration, but the controller's cluster id is unknown \
             (DescribeCluster answered CLUSTER_AUTHORIZATION_FAILED); the manifest's cluster_id \
             declares it"
        );
        assert!(bind_cluster_id(&scenario(FLOOR), Err("x"))
            .unwrap()
            .is_none());
    }
}
