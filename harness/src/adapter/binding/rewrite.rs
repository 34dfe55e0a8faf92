//! Rewriting a scenario's steps for a binding: which resource a key is used on, and the
//! renaming of keys and values inside request bodies and expectations. Pure.

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::manifest::ManifestResource;
use crate::scenario::Step;

/// The resource the scenario's requests use `key` on, when that is one kind only: a topic
/// (`ResourceType` 2, a CreateTopics topic's configs) or a broker (`ResourceType` 4, a
/// registration's `StaticConfigs`). A config both resources define (`compression.type`)
/// binds to a real config of the resource the scenario sets it on.
pub(super) fn used_as(
    key: &str,
    steps: &[serde_saphyr::Spanned<Step>],
) -> Option<ManifestResource> {
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
pub(super) struct KeyBinding {
    pub(super) key: String,
    pub(super) name: String,
    pub(super) replace: BTreeMap<String, String>,
}

/// Every value a binding replaces, inside the `Value` of an object whose `Name` mentions its
/// key, or of a `Name`-less object next to one in an array (a pattern that splits a config
/// across alternatives: `$any_of: [{Name: {$not: K}}, {Value: ...}]`). Each string is
/// replaced at most once, by the first binding whose key the `Name` mentions.
pub(super) fn rewrite_values(v: &mut Value, bindings: &[KeyBinding]) {
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
pub(super) fn rename(v: &mut Value, names: &BTreeMap<String, String>) {
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
