//! The `sensitive_filter` target: arbitrary keys (real definitions of every client type,
//! sensitive patterns, near misses, arbitrary text), their `ConfigDef` types (from the
//! client's definitions), arbitrary `config.push.allowed.keys` overrides and default lists,
//! user values, budgets, size measures and `ConfigType` numberings, for every client type,
//! through [`ClientModel::new`] and its key selection.
//!
//! The oracle re-states kip-notes §1.3 here, independently of the model's
//! [`classify`](crate::model::classify), so a bug there is caught. A key is sensitive if it
//! 1. starts with `sasl.`, `security.` or `ssl.`;
//! 2. contains `.sasl.`, `.security.` or `.ssl.`;
//! 3. ends with `.class` or `.classes`;
//! 4. is declared `CLASS`, or 5. `PASSWORD`;
//! 6. is not defined by the client library.
//!
//! Checked on the built request: no sensitive key; every key listed (in the override if
//! the user set `config.push.allowed.keys`, else in the profile's default list);
//! `config.push.allowed.keys` itself only if listed; no duplicates; the wire `ConfigType` is
//! the key's declared type in the profile's numbering; the size (computed here) within the
//! budget. And the other way round, so over-filtering is caught too: every listed, defined,
//! non-sensitive key with a wire type is sent, or omitted for a null value, or dropped for
//! the budget; `SensitiveKeyDropped` only ever names keys the rules above call sensitive.

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::{Arbitrary, Unstructured};

use crate::codec::Message;
use crate::model::selection::select;
use crate::model::{
    client_definitions, ClientInput, ClientModel, ClientType, ConfigType, Event, Millis,
    SizeMeasure,
};

const ALLOWED_KEYS: &str = "config.push.allowed.keys";
const WORDS: [&str; 3] = ["sasl", "security", "ssl"];

/// Runs one client configuration chosen by `data`.
pub fn sensitive_filter(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
}

/// kip-notes §1.3, re-stated (see the module doc).
fn is_sensitive(key: &str, declared: Option<ConfigType>) -> bool {
    let Some(ty) = declared else {
        return true;
    };
    WORDS.iter().any(|w| key.starts_with(&format!("{w}.")))
        || WORDS.iter().any(|w| key.contains(&format!(".{w}.")))
        || key.ends_with(".class")
        || key.ends_with(".classes")
        || matches!(ty, ConfigType::Class | ConfigType::Password)
}

/// A `LIST` value as Kafka parses it: split on commas, trim, drop empty items.
fn parse_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn fragment(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    const ALPHABET: &[u8] = b"abcdeklmnorstxy.._";
    let n = u.int_in_range(0..=8)?;
    (0..n)
        .map(|_| u.choose(ALPHABET).map(|&b| b as char))
        .collect()
}

fn key(u: &mut Unstructured<'_>, defined: &[&'static str]) -> arbitrary::Result<String> {
    let word = *u.choose(&WORDS)?;
    Ok(match u.int_in_range(0..=7)? {
        0 | 1 => u.choose(defined)?.to_string(),
        2 => format!("{word}.{}", fragment(u)?),
        3 => format!("{}.{word}.{}", fragment(u)?, fragment(u)?),
        4 => format!(
            "{}{}",
            fragment(u)?,
            u.choose(&[".class", ".classes", ".classic", "class", ".class.x"])?
        ),
        // Near misses: the word without its dot, another case, a real key extended.
        5 => format!(
            "{}{}",
            u.choose(&["sslx.", "xssl.", "SSL.", "sasl", ".ssl", "security_"])?,
            fragment(u)?
        ),
        6 => format!("{}{}", u.choose(defined)?, fragment(u)?),
        _ => {
            let s = String::arbitrary(u)?;
            s.chars().filter(|c| *c != ',').take(24).collect()
        }
    })
}

fn value(u: &mut Unstructured<'_>, ty: ConfigType) -> arbitrary::Result<String> {
    Ok(match ty {
        ConfigType::Boolean => u.choose(&["true", "false", "TRUE"])?.to_string(),
        ConfigType::Int | ConfigType::Short => i16::arbitrary(u)?.to_string(),
        ConfigType::Long => i64::arbitrary(u)?.to_string(),
        ConfigType::Double => "0.5".to_string(),
        ConfigType::List => format!("{},{}", fragment(u)?, fragment(u)?),
        ConfigType::Class => "com.example.Thing".to_string(),
        ConfigType::String | ConfigType::Password => {
            let n = u.int_in_range(0..=3)?;
            let mut s = fragment(u)?;
            for _ in 0..n {
                s.push_str(&"x".repeat(u.int_in_range(0..=200)?));
            }
            s
        }
    })
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let client_type = *u.choose(&ClientType::ALL)?;
    let defs = client_definitions(client_type);
    let all_defined: Vec<&'static str> = ClientType::ALL
        .iter()
        .flat_map(|t| {
            client_definitions(*t)
                .keys()
                .map(|d| d.name)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut profile = super::profile::arbitrary_readings(u)?;
    profile.defaults.client_config_max_bytes = match u.int_in_range(0..=3)? {
        0 => u.int_in_range(0..=64)?,
        1 => u.int_in_range(0..=20_000)?,
        _ => 10_240,
    };
    if bool::arbitrary(u)? {
        let n = u.int_in_range(0..=12)?;
        let list = (0..n)
            .map(|_| key(u, &all_defined))
            .collect::<arbitrary::Result<Vec<_>>>()?;
        let d = &mut profile.default_keys;
        *match client_type {
            ClientType::Producer => &mut d.producer,
            ClientType::Consumer => &mut d.consumer,
            ClientType::Admin => &mut d.admin,
            ClientType::ShareConsumer => &mut d.share_consumer,
            ClientType::Streams => &mut d.streams,
        } = list;
    }
    let mut user = BTreeMap::new();
    let n = u.int_in_range(0..=16)?;
    let keys = (0..n)
        .map(|_| key(u, &all_defined))
        .collect::<arbitrary::Result<Vec<_>>>()?;
    if bool::arbitrary(u)? {
        let mut text = keys.join(if bool::arbitrary(u)? { ", " } else { "," });
        if bool::arbitrary(u)? {
            text.push_str(",config.push.allowed.keys");
        }
        user.insert(ALLOWED_KEYS.to_string(), text);
    }
    for k in &keys {
        if k == ALLOWED_KEYS || !bool::arbitrary(u)? {
            continue;
        }
        // Values of the declared type, so the constructor accepts them; any text otherwise.
        let v = match defs.get(k) {
            Some(d) => value(u, d.ty)?,
            None => fragment(u)?,
        };
        user.insert(k.clone(), v);
    }
    user.remove("enable.config.push");
    let Ok(mut client) = ClientModel::new(client_type, user.clone(), &profile, 0) else {
        return Ok(());
    };
    client.handle(Millis(0), ClientInput::Start);

    let listed: Vec<String> = match user.get(ALLOWED_KEYS) {
        Some(v) => parse_list(v),
        None => profile.default_keys.for_client(client_type).to_vec(),
    };
    let numbering = profile.config_type_numbering;
    // What the client built sends: the model's key selection for this configuration.
    let selection = select(&defs, &user, &profile);
    let sent: Vec<_> = selection
        .request
        .as_ref()
        .map(|r| r.configs.clone())
        .unwrap_or_default();
    let mut seen = BTreeSet::new();
    for c in &sent {
        let key = c.config_key.as_str();
        let declared = defs.get(key).map(|d| d.ty);
        assert!(
            !is_sensitive(key, declared),
            "sensitive key {key:?} ({declared:?}) emitted"
        );
        assert!(
            listed.iter().any(|l| l == key),
            "{key:?} emitted but not listed in {listed:?}"
        );
        assert!(seen.insert(key), "{key:?} emitted twice");
        let ty = declared.expect("not sensitive, so defined");
        assert_eq!(
            Some(c.config_type),
            numbering.to_wire(ty),
            "{key:?}: wire ConfigType for {ty} under {numbering:?}"
        );
        if user.contains_key(key) {
            assert!(!c.is_default, "{key:?} set by the user but sent as default");
        }
    }
    if let Some(req) = &selection.request {
        assert!(!req.configs.is_empty(), "a request with no entries");
        assert!(req.unknown_tagged_fields.is_empty());
        let body = req.to_bytes(0).expect("the built request encodes");
        let size = match profile.size_measure {
            SizeMeasure::RequestBody => body.len(),
            // No unknown tags: the tag section is the one byte 0x00.
            SizeMeasure::ConfigsArray => body.len() - 1,
            // Unique keys (no duplicates selected): every key and value counts.
            SizeMeasure::KeyValueBytes => req
                .configs
                .iter()
                .map(|c| c.config_key.len() + c.config_value.len())
                .sum(),
        };
        let budget = profile.defaults.client_config_max_bytes as usize;
        assert!(
            size <= budget,
            "request of {size} bytes ({:?}) over the budget {budget}",
            profile.size_measure
        );
    }
    let events: Vec<&Event> = client.events().iter().map(|e| &e.event).collect();
    for e in &events {
        if let Event::SensitiveKeyDropped { key, rule } = e {
            assert!(
                is_sensitive(key, defs.get(key).map(|d| d.ty)),
                "{key:?} dropped as sensitive ({rule:?}) but no rule applies"
            );
        }
    }
    let mut candidates = listed.clone();
    candidates.dedup();
    for key in &candidates {
        let Some(d) = defs.get(key) else { continue };
        if is_sensitive(key, Some(d.ty)) || numbering.to_wire(d.ty).is_none() {
            continue;
        }
        let accounted = seen.contains(key.as_str())
            || events.iter().any(|e| match e {
                Event::NullValueOmitted { key: k } | Event::KeyDroppedForBudget { key: k, .. } => {
                    k == key
                }
                _ => false,
            });
        assert!(
            accounted,
            "{key:?} is listed, defined and not sensitive, yet neither sent nor accounted for"
        );
    }
    Ok(())
}
