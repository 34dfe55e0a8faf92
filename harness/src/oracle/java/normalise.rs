//! Between Kafka's JSON and kipcheck's: Kafka's generated `*JsonConverter`s name fields in
//! camelCase (`clientSoftwareName`) and print `bytes` fields as base64; kipcheck's serde form
//! uses the spec's PascalCase names (`ClientSoftwareName`), hex for bytes, and keeps unknown
//! tagged fields under `_tagged`, which Kafka's JSON never shows. UUIDs are the same string
//! in both (URL-safe base64 without padding). Pure functions, no I/O.

use base64::Engine as _;
use serde_json::{Map, Value};

/// Which dispatch table (and which of Kafka's factories) a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A request body (`ApiMessageType.newRequest`).
    Request,
    /// A response body (`ApiMessageType.newResponse`).
    Response,
    /// A KRaft metadata record body (`MetadataRecordType.newMetadataRecord`).
    Record,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 3] = [Kind::Request, Kind::Response, Kind::Record];

    /// The protocol's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Response => "response",
            Kind::Record => "record",
        }
    }
}

/// Every `bytes` field of every message both codecs know, as (message, field): the only
/// values whose JSON form differs (base64 in Kafka's, hex in ours). A test checks this list
/// against `harness/messages/*.json`, so a new bytes field cannot be missed.
pub const BYTES_FIELDS: &[(&str, &str)] = &[
    ("EnvelopeRequest", "RequestData"),
    ("EnvelopeRequest", "RequestPrincipal"),
    ("EnvelopeRequest", "ClientHostAddress"),
    ("EnvelopeResponse", "ResponseData"),
    ("PushTelemetryRequest", "Metrics"),
    ("SaslAuthenticateRequest", "AuthBytes"),
    ("SaslAuthenticateResponse", "AuthBytes"),
];

/// Field names in our definitions that start with a lower-case letter (Kafka's spec spells
/// them so), as (message, field): they keep their spelling in our serde form. Per message,
/// because another message may spell the same name in PascalCase (DeleteTopicsRequest's
/// `TimeoutMs`). Checked against the definitions by the same test as [`BYTES_FIELDS`].
pub const LOWER_CASE_NAMES: &[(&str, &str)] = &[
    ("CreateTopicsRequest", "timeoutMs"),
    ("CreateTopicsRequest", "validateOnly"),
    ("UpdateFeaturesRequest", "timeoutMs"),
];

fn is_bytes_field(message: &str, field: &str) -> bool {
    BYTES_FIELDS
        .iter()
        .any(|(m, f)| *m == message && f.eq_ignore_ascii_case(field))
}

/// Kafka's name for a field: the spec name with its first letter lower-cased (what Kafka's
/// generator calls `camelCaseName`).
fn lower_first(_message: &str, name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// Our name for a field in Kafka's JSON: the first letter upper-cased, unless the spec
/// spells it in lower case.
fn upper_first(message: &str, name: &str) -> String {
    if LOWER_CASE_NAMES.contains(&(message, name)) {
        return name.to_owned();
    }
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Rewrites every object key with `rename`, drops `_tagged` keys when `drop_tagged`, and
/// passes each bytes field's string through `bytes`; `None` from `bytes` keeps it as is.
fn walk(
    v: &Value,
    message: &str,
    rename: fn(&str, &str) -> String,
    bytes: &dyn Fn(&str) -> Option<String>,
) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m {
                if k == "_tagged" {
                    continue;
                }
                let x = match x {
                    Value::String(s) if is_bytes_field(message, k) => {
                        Value::String(bytes(s).unwrap_or_else(|| s.clone()))
                    }
                    _ => walk(x, message, rename, bytes),
                };
                out.insert(rename(message, k), x);
            }
            Value::Object(out)
        }
        Value::Array(a) => {
            Value::Array(a.iter().map(|x| walk(x, message, rename, bytes)).collect())
        }
        _ => v.clone(),
    }
}

/// Our serde JSON of `message` as Kafka's converters read it: camelCase names, bytes as
/// base64, unknown tagged fields dropped (Kafka's JSON has no place for them).
pub fn to_kafka_json(ours: &Value, message: &str) -> Value {
    walk(ours, message, lower_first, &|hex| {
        crate::codec::from_hex(hex).map(|b| base64::engine::general_purpose::STANDARD.encode(b))
    })
}

/// Kafka's JSON of `message` in our serde form: PascalCase names, bytes as hex. A bytes
/// value that is not valid base64 is left alone (our deserializer then says what is wrong).
pub fn from_kafka_json(kafka: &Value, message: &str) -> Value {
    walk(kafka, message, upper_first, &|b64| {
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .ok()
            .map(|b| crate::codec::to_hex(&b))
    })
}

/// Our serde JSON without unknown tagged fields, for comparing with what came from Kafka's
/// JSON (which cannot carry them).
pub(crate) fn without_tagged(v: &Value) -> Value {
    walk(v, "", |_, k| k.to_owned(), &|_| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_bytes_and_tags_map_both_ways() {
        let ours = json!({"ClientInstanceId": "AAAAAAAAAAAAAAAAAAAAAA", "Metrics": "00ff10",
            "_tagged": {"7": "01"}, "Nested": [{"ZkMigrationReady": true, "_tagged": {}}]});
        let kafka = to_kafka_json(&ours, "PushTelemetryRequest");
        assert_eq!(
            kafka,
            json!({"clientInstanceId": "AAAAAAAAAAAAAAAAAAAAAA", "metrics": "AP8Q",
                "nested": [{"zkMigrationReady": true}]})
        );
        let back = from_kafka_json(&kafka, "PushTelemetryRequest");
        assert_eq!(back, without_tagged(&ours));
        assert_eq!(back["Metrics"], json!("00ff10"));
        // Only the listed message's field is bytes.
        assert_eq!(
            to_kafka_json(&json!({"Metrics": "00"}), "Other"),
            json!({"metrics": "00"})
        );
        // A name the spec spells in lower case keeps it.
        assert_eq!(
            from_kafka_json(&json!({"timeoutMs": 1}), "CreateTopicsRequest"),
            json!({"timeoutMs": 1})
        );
        // ... in that message only.
        assert_eq!(
            from_kafka_json(&json!({"timeoutMs": 1}), "DeleteTopicsRequest"),
            json!({"TimeoutMs": 1})
        );
    }
}
