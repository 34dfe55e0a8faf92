//! The values a scenario sends for an injected config: each classified by the scenario's own
//! validators and replaced by the manifest's value of the same class (a list APPEND or
//! SUBTRACT by the operand reaching it from the manifest's default). Pure.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::super::manifest::ManifestConfig;
use super::Unbound;
use crate::model::config_def::{ConfigType, ConfigValue};
use crate::model::validators::Validator;
use crate::model::ServerConfigKey;
use crate::scenario::Step;

/// How a value the scenario sends relates to its own validators for a key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
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
pub(super) enum Op {
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
pub(super) struct Use {
    sent: String,
    op: Op,
    result: String,
}

impl Use {
    /// The value the config has after the use.
    pub(super) fn result(&self) -> &str {
        &self.result
    }

    /// Whether the use is a whole value (not a list APPEND or SUBTRACT).
    pub(super) fn is_set(&self) -> bool {
        self.op == Op::Set
    }
}

/// Each parsable value the scenario's sent bodies give `key`, classified by the value it
/// results in; two different resulting values of one class are unbound.
pub(super) fn classify(
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
pub(super) fn real_use(
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
pub(super) fn substitute(
    class: &Class,
    c: &ManifestConfig,
    f: &[i16],
    levels: &[i16],
) -> Option<String> {
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

/// One injected key and the real config it is tried on, for its values.
pub(super) struct ValueBinding<'a> {
    pub(super) key: &'a str,
    pub(super) def: &'a ServerConfigKey,
    pub(super) levels: &'a BTreeMap<i16, &'a Validator>,
    pub(super) name: &'a str,
    pub(super) config: &'a ManifestConfig,
    pub(super) runs: &'a [(i16, i16)],
    pub(super) software: &'a str,
    /// The values brokers report for the key in StaticConfigs.
    pub(super) reported: &'a BTreeSet<String>,
}

impl ValueBinding<'_> {
    /// Every use's substitutions into `replace` (`f`: the real levels of `scenario_levels`).
    pub(super) fn bind(
        &self,
        uses: &[(Class, Use)],
        f: &[i16],
        scenario_levels: &[i16],
        replace: &mut BTreeMap<String, String>,
    ) -> Result<(), Unbound> {
        for (class, u) in uses {
            let Some(real) = substitute(class, self.config, f, scenario_levels) else {
                continue;
            };
            let real = self.faithful(u, real)?;
            for (from, to) in real_use(u, &real, self.key, self.name, self.config, self.software)? {
                match replace.get(&from) {
                    Some(had) if *had != to => {
                        return Err(Unbound::TwoMeanings {
                            key: self.key.to_owned(),
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
        Ok(())
    }

    /// `real` (the value of the use's class) if it means, at every run, what the scenario's
    /// value means at the scenario's level, else the first manifest value of the config that
    /// does; a value at the scenario key's default that a broker reports (StaticConfigs) binds
    /// only to the real config's default (a controller may tell a reported default apart; a
    /// dynamic SET to the default is an ordinary value).
    fn faithful(&self, u: &Use, real: String) -> Result<String, Unbound> {
        let v = u.result();
        let wants: Vec<(i16, i16, Option<super::outcome::Outcome>)> = self
            .runs
            .iter()
            .map(|&(s, r)| {
                let o = super::outcome::scenario_outcome(self.def, self.levels, self.key, v, s);
                (s, r, o)
            })
            .collect();
        let needs = wants
            .iter()
            .map(|(s, r, o)| {
                let o = o.map_or("unparsable", super::outcome::Outcome::words);
                format!("{o} at metadata.version {r} (the scenario's {s})")
            })
            .collect::<Vec<_>>()
            .join(", ");
        let fits = |cand: &str| {
            wants.iter().all(|(_, r, o)| {
                o.is_some() && super::outcome::real_outcome(self.config, cand, *r) == *o
            })
        };
        // Not for list operations: their operand is derived from the resulting value.
        if self.def.default.as_deref() == Some(v) && u.is_set() && self.reported.contains(v) {
            return match &self.config.default {
                Some(d) if fits(d) => Ok(d.clone()),
                d => Err(Unbound::Default {
                    key: self.key.to_owned(),
                    value: v.to_owned(),
                    real: format!(
                        "{}'s default ({})",
                        self.name,
                        d.as_ref().map_or("none".into(), |d| format!("{d:?}"))
                    ),
                    needs,
                    software: self.software.to_owned(),
                }),
            };
        }
        if fits(&real) {
            return Ok(real);
        }
        super::outcome::candidates(self.config)
            .into_iter()
            .find(|c| fits(c))
            .ok_or_else(|| Unbound::NoValue {
                key: self.key.to_owned(),
                value: v.to_owned(),
                name: self.name.to_owned(),
                needs,
                software: self.software.to_owned(),
            })
    }
}

/// The values BrokerRegistration requests report for `key` in StaticConfigs.
pub(super) fn reported_static(
    key: &str,
    steps: &[serde_saphyr::Spanned<Step>],
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in steps {
        let Step::Send(x) = &s.value else { continue };
        if x.api != "BrokerRegistration" {
            continue;
        }
        let entries = x
            .body
            .as_ref()
            .and_then(|b| b.get("StaticConfigs"))
            .and_then(serde_json::Value::as_array);
        for e in entries.into_iter().flatten() {
            if e.get("Name").and_then(serde_json::Value::as_str) == Some(key) {
                if let Some(v) = e.get("Value").and_then(serde_json::Value::as_str) {
                    out.insert(v.to_owned());
                }
            }
        }
    }
    out
}
