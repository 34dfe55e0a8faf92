//! KIP-1324 key selection on the client: which keys a client sends, with which rendered values,
//! `ConfigType` and `IsDefault`, and what it drops to stay within `client.config.max.bytes`.
//! Pure function of the user configuration, the client's definitions and the profile; it
//! sends nothing and keeps no state.
//!
//! Budget rule (documented drop order): while the request is larger than the budget under
//! the profile's size measure, drop one entry, choosing first entries with `IsDefault=true`
//! (the broker may discard those anyway, KIP-1324 "Exclusion of Default Values"), then the
//! entry with the largest encoding, then the alphabetically last key.

use std::collections::BTreeMap;

use super::config_def::{ClientDefinitions, ConfigType, ConfigValue, ParseValueError};
use super::decisions::{ClientDecisions, Reference};
use super::events::Event;
use super::profile::{SizeMeasure, SpecProfile};
use kipcheck_codec::push_config_request::Config;
use kipcheck_codec::{Message, PushConfigRequest};

/// The key whose value replaces the default list.
pub const ALLOWED_KEYS: &str = "config.push.allowed.keys";
/// The client switch.
pub const ENABLE_CONFIG_PUSH: &str = "enable.config.push";

/// The outcome of key selection.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The request to send, or `None` when nothing remains (no request with an empty array).
    pub request: Option<PushConfigRequest>,
    /// Every decision, in order: selected keys, warnings, omissions, budget drops.
    pub events: Vec<Event>,
}

/// The size of `req` under `measure`.
pub fn request_size(measure: SizeMeasure, req: &PushConfigRequest) -> usize {
    let body = req.encoded_len(0).unwrap_or(usize::MAX);
    match measure {
        SizeMeasure::RequestBody => body,
        SizeMeasure::ConfigsArray | SizeMeasure::KeyValueBytes => {
            super::broker::measure(measure, req, body)
        }
    }
}

/// The effective value of `key` as the user set it, parsed; `Err` if it does not parse.
pub fn parse_user_value(
    defs: &ClientDefinitions,
    key: &str,
    value: &str,
) -> Result<Option<ConfigValue>, ParseValueError> {
    match defs.get(key) {
        Some(d) => ConfigValue::parse(d.ty, value).map(Some),
        None => Ok(None),
    }
}

/// The list of keys to consider: `config.push.allowed.keys` if the user set it, else the
/// profile's default list for the client type; duplicates removed, first occurrence kept.
pub fn allowed_keys(
    defs: &ClientDefinitions,
    user: &BTreeMap<String, String>,
    profile: &SpecProfile,
) -> Vec<String> {
    let raw: Vec<String> = match user.get(ALLOWED_KEYS) {
        Some(v) => match ConfigValue::parse(ConfigType::List, v) {
            Ok(ConfigValue::List(items)) => items.into_iter().filter(|s| !s.is_empty()).collect(),
            _ => Vec::new(),
        },
        None => profile.default_keys.for_client(defs.client_type()).to_vec(),
    };
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    for k in raw {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The effective value of one defined key and whether it is the default: the user's value if
/// set, else the default (`config.push.allowed.keys` defaults to the profile's list), parsed
/// and rendered with `convertToString`; `None` for a null (or unparsable) value. `None`
/// overall if the client does not define the key.
pub fn effective_value(
    defs: &ClientDefinitions,
    user: &BTreeMap<String, String>,
    profile: &SpecProfile,
    key: &str,
) -> Option<(Option<String>, bool)> {
    let def = defs.get(key)?;
    let (raw, is_default) = match user.get(key) {
        Some(v) => (Some(v.clone()), false),
        None if key == ALLOWED_KEYS => (
            Some(
                profile
                    .default_keys
                    .for_client(defs.client_type())
                    .join(","),
            ),
            true,
        ),
        None => (def.default.map(str::to_string), true),
    };
    let value = raw
        .and_then(|r| ConfigValue::parse(def.ty, &r).ok())
        .map(|v| v.convert_to_string());
    Some((value, is_default))
}

/// Selects the entries a client of `defs`' type sends for `user`'s configuration.
pub fn select(
    defs: &ClientDefinitions,
    user: &BTreeMap<String, String>,
    profile: &SpecProfile,
) -> Selection {
    select_with(defs, user, profile, &Reference)
}

/// [`select`] as a client taking `decisions` does it; with [`Reference`] exactly [`select`].
pub fn select_with(
    defs: &ClientDefinitions,
    user: &BTreeMap<String, String>,
    profile: &SpecProfile,
    decisions: &dyn ClientDecisions,
) -> Selection {
    let mut events = Vec::new();
    let mut configs = Vec::new();
    let keys = decisions.considered_keys(allowed_keys(defs, user, profile));
    let numbering = profile.config_type_numbering;
    for key in keys {
        let def = defs.get(&key);
        if let Some(rule) = decisions.sensitivity(&key, def.map(|d| d.ty)) {
            events.push(Event::SensitiveKeyDropped { key, rule });
            continue;
        }
        let Some(def) = def else {
            // Only reachable when the sensitivity decision lets a key the client does not
            // define through (rule 6 keeps it out).
            let entry = user
                .get(&key)
                .and_then(|raw| decisions.undefined_key_entry(&key, raw, numbering));
            if let Some(entry) = entry {
                events.push(Event::KeySelected {
                    key,
                    value: entry.config_value.to_string(),
                    config_type: entry.config_type,
                    is_default: entry.is_default,
                });
                configs.push(entry);
            }
            continue;
        };
        let Some(wire_type) = decisions.wire_config_type(def.ty, numbering) else {
            continue;
        };
        let (value, is_default) =
            effective_value(defs, user, profile, &key).unwrap_or((None, true));
        let Some(rendered) = decisions.config_value_text(def.ty, value) else {
            events.push(Event::NullValueOmitted { key });
            continue;
        };
        let is_default = decisions.reports_default(def, &rendered, !is_default);
        events.push(Event::KeySelected {
            key: key.clone(),
            value: rendered.clone(),
            config_type: wire_type,
            is_default,
        });
        configs.push(Config {
            config_key: key.into(),
            config_value: rendered.into(),
            config_type: wire_type,
            is_default,
            ..Default::default()
        });
    }
    let budget = profile.defaults.client_config_max_bytes;
    let mut req = PushConfigRequest {
        configs,
        ..Default::default()
    };
    loop {
        let size = request_size(profile.size_measure, &req);
        if decisions.fits_budget(size, budget) || req.configs.is_empty() {
            break;
        }
        let entry_len = |c: &Config| {
            PushConfigRequest {
                configs: vec![c.clone()],
                ..Default::default()
            }
            .encoded_len(0)
            .unwrap_or(usize::MAX)
        };
        let victim = (0..req.configs.len())
            .max_by(|&a, &b| {
                let (ca, cb) = (&req.configs[a], &req.configs[b]);
                (ca.is_default, entry_len(ca), &ca.config_key).cmp(&(
                    cb.is_default,
                    entry_len(cb),
                    &cb.config_key,
                ))
            })
            .expect("non-empty");
        let dropped = req.configs.remove(victim);
        events.push(Event::KeyDroppedForBudget {
            key: dropped.config_key.to_string(),
            size_before: size,
            budget,
        });
    }
    Selection {
        request: decisions.sends_request(req.configs.len()).then_some(req),
        events,
    }
}
