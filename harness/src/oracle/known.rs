//! [`KnownDifference`]: the documented ways Kafka 4.4.0's codec departs from kipcheck's, each
//! recognised by an exact predicate (never by the message or category alone), so that any
//! other disagreement stays unexplained and fails the comparison. Each one is a finding in
//! `reports/peers.md`, section "Java codec oracle".

use serde_json::Value;

use crate::codec::DecodeErrorKind;

/// A documented difference between Kafka 4.4.0's codec and ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KnownDifference {
    /// Kafka reads unknown tagged fields in any order, and tags of 2^31 and above as negative
    /// Java `int`s, but then cannot write the message again ("Invalid raw tag field list":
    /// its writer wants ascending signed tags). We read the same bytes and write them
    /// canonically (ascending unsigned tags).
    KafkaCannotRewriteUnknownTags,
    /// Kafka decodes strings with `new String(bytes, UTF_8)`, replacing invalid UTF-8 with
    /// U+FFFD; we reject it (the protocol's strings are UTF-8).
    KafkaAcceptsInvalidUtf8,
    /// RegisterBrokerRecord v4+ `CordonedLogDirs`: Kafka 4.4.0's definition makes it
    /// nullable with default null, ours (apache/kafka trunk, see `harness/messages/README.md`)
    /// non-nullable with default `[]`; so Kafka writes an empty list as a tagged field where
    /// we omit it. Both byte strings decode (ours) to the same value.
    CordonedLogDirsDefaultNull,
}

/// The largest unknown tag anywhere in our serde JSON (`_tagged` keys).
fn max_unknown_tag(v: &Value) -> u64 {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| {
                let own = match (k.as_str(), x) {
                    ("_tagged", Value::Object(t)) => t
                        .keys()
                        .filter_map(|k| k.parse::<u64>().ok())
                        .max()
                        .unwrap_or(0),
                    _ => 0,
                };
                own.max(max_unknown_tag(x))
            })
            .max()
            .unwrap_or(0),
        Value::Array(a) => a.iter().map(max_unknown_tag).max().unwrap_or(0),
        _ => 0,
    }
}

/// Kafka read the input but cannot write it again; we read it as `ours_json` (with
/// `_tagged`) and re-encode it to `ours_bytes`.
pub(crate) fn kafka_write_error(
    write_error: &str,
    ours_json: &Value,
    input: &[u8],
    ours_bytes: &[u8],
) -> Option<KnownDifference> {
    let unknown_tags_kafka_cannot_write =
        max_unknown_tag(ours_json) > i32::MAX as u64 || ours_bytes != input;
    (write_error.contains("Invalid raw tag field list") && unknown_tags_kafka_cannot_write)
        .then_some(KnownDifference::KafkaCannotRewriteUnknownTags)
}

/// Kafka accepts what we reject with `ours`.
pub(crate) fn kafka_accepts(ours: &DecodeErrorKind, kafka_json: &Value) -> Option<KnownDifference> {
    let replaced = kafka_json.to_string().contains('\u{FFFD}');
    (matches!(ours, DecodeErrorKind::InvalidUtf8 { .. }) && replaced)
        .then_some(KnownDifference::KafkaAcceptsInvalidUtf8)
}

/// Kafka encodes our value (whose serde JSON is `ours_json`) to other bytes than ours, and
/// `same_value` says whether our decoder reads Kafka's bytes as the same value.
pub(crate) fn kafka_encodes_differently(
    message: &str,
    version: i16,
    ours_json: &Value,
    same_value: bool,
) -> Option<KnownDifference> {
    let empty_cordoned = ours_json.get("CordonedLogDirs") == Some(&Value::Array(Vec::new()));
    (message == "RegisterBrokerRecord" && version >= 4 && empty_cordoned && same_value)
        .then_some(KnownDifference::CordonedLogDirsDefaultNull)
}
