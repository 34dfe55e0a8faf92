//! [`KnownDifference`]: the one classification of the documented ways the codec oracles
//! (Kafka 4.4.0's Java codec, [`super::java`]; the `kafka-protocol` crate,
//! [`super::kafka_protocol`]) depart from kipcheck's codec. Each is recognised by an exact
//! predicate below (never by the message or category alone), so that any other disagreement
//! stays unexplained and fails the comparison. A root cause both oracles share is one variant.
//! Kafka's are findings in `reports/peers.md`, section "Java codec oracle"; kafka-protocol's
//! are pinned by `harness/tests/codec/differential_kafka_protocol.rs`.

use serde_json::Value;

use crate::codec::DecodeErrorKind;

/// A documented difference between an oracle's codec and ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KnownDifference {
    /// Both oracles: an unknown tagged field with a tag of 2^31 or above. Both keep tags as
    /// signed 32-bit ints, so the tag turns negative and cannot be written again: Kafka's
    /// writer refuses it ("Invalid raw tag field list"), kafka-protocol's counts it but does
    /// not write it (corrupt bytes). We keep the tag exactly (a uvarint up to 2^32 - 1).
    TagAboveI32Max,
    /// Kafka: it reads unknown tagged fields in any order but then cannot write the message
    /// again ("Invalid raw tag field list": its writer wants ascending tags). We read the
    /// same bytes and write the tags in ascending order.
    UnknownTagsOutOfOrder,
    /// Kafka: it decodes strings with `new String(bytes, UTF_8)`, replacing invalid UTF-8
    /// with U+FFFD; we reject it (the protocol's strings are UTF-8).
    KafkaAcceptsInvalidUtf8,
    /// Kafka: RegisterBrokerRecord v4+ `CordonedLogDirs`: Kafka 4.4.0's definition makes it
    /// nullable with default null, ours (apache/kafka trunk, see `harness/messages/README.md`)
    /// non-nullable with default `[]`; so Kafka writes an empty list as a tagged field where
    /// we omit it. Both byte strings decode (ours) to the same value.
    CordonedLogDirsDefaultNull,
    /// kafka-protocol: we reject bytes after the message (`TrailingBytes`); it stops reading
    /// where the message ends and leaves them in the buffer. The prefix must agree.
    TrailingBytes,
    /// kafka-protocol: null in a field that is not nullable in this version: we reject it
    /// (`NullNotAllowed`), kafka-protocol does not check nullability per version.
    NullWhereVersionForbids,
    /// kafka-protocol: we reject the input before checking all of it (a count or length
    /// beyond the remaining bytes, a bad varint, string or tag, ...). kafka-protocol 0.18
    /// preallocates an array from its unchecked wire count (`Vec::with_capacity(n)`, the
    /// KAFKA-14063 pattern; five bytes can abort the process), so such input is not given to
    /// it: not compared.
    NotCompared,
}

/// Every unknown tag anywhere in our serde JSON (`_tagged` keys).
fn unknown_tags(v: &Value, out: &mut Vec<u64>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("_tagged", Value::Object(t)) => {
                        out.extend(t.keys().filter_map(|k| k.parse::<u64>().ok()))
                    }
                    _ => unknown_tags(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| unknown_tags(x, out)),
        _ => {}
    }
}

fn all_unknown_tags(v: &Value) -> Vec<u64> {
    let mut out = Vec::new();
    unknown_tags(v, &mut out);
    out
}

/// [`KnownDifference::TagAboveI32Max`]'s predicate: our value (its serde JSON) holds an
/// unknown tag above `i32::MAX`.
pub(crate) fn tag_above_i32_max(ours_json: &Value) -> Option<KnownDifference> {
    all_unknown_tags(ours_json)
        .into_iter()
        .any(|t| t > i32::MAX as u64)
        .then_some(KnownDifference::TagAboveI32Max)
}

/// Kafka read the input but cannot write it again; we read it as `ours_json` (with
/// `_tagged`) and re-encode it to `ours_bytes`: a tag above `i32::MAX`, or else unknown
/// tags that we write in another order than the input's.
pub(crate) fn kafka_write_error(
    write_error: &str,
    ours_json: &Value,
    input: &[u8],
    ours_bytes: &[u8],
) -> Option<KnownDifference> {
    if !write_error.contains("Invalid raw tag field list") {
        return None;
    }
    tag_above_i32_max(ours_json).or_else(|| {
        (ours_bytes != input && !all_unknown_tags(ours_json).is_empty())
            .then_some(KnownDifference::UnknownTagsOutOfOrder)
    })
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

/// kafka-protocol accepts what we reject with `ours`, leaving `peer_unread` bytes unread:
/// [`KnownDifference::TrailingBytes`] when it leaves exactly the bytes we call trailing,
/// [`KnownDifference::NullWhereVersionForbids`] for a null the version forbids. (The caller
/// then checks that the two agree on the message before the trailing bytes.)
#[cfg(feature = "differential")]
pub(crate) fn kafka_protocol_accepts(
    ours: &DecodeErrorKind,
    peer_unread: usize,
) -> Option<KnownDifference> {
    match ours {
        DecodeErrorKind::TrailingBytes { count } if *count == peer_unread => {
            Some(KnownDifference::TrailingBytes)
        }
        DecodeErrorKind::NullNotAllowed => Some(KnownDifference::NullWhereVersionForbids),
        _ => None,
    }
}
