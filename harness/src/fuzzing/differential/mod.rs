//! Differential comparison of kipcheck's generated codec against the `kafka-protocol` crate
//! (0.18.0, generated from Apache Kafka 4.1.0 message definitions).
//!
//! For every message pair below and every version both codecs support, a deterministic
//! stream of random values (a fixed seed, printed; override with `KIPCHECK_DIFF_SEED`) is
//! pushed through both codecs in both directions:
//!
//! * ours → bytes → `kafka-protocol` decodes them (all bytes) → every field of the version
//!   agrees with our value → `kafka-protocol` re-encodes → the same bytes;
//! * the same value mapped field by field to a `kafka-protocol` value → its bytes → we
//!   decode them → every field agrees → we re-encode → the same bytes.
//!
//! Values come from `arbitrary::Unstructured` over PRNG bytes (so collection sizes are
//! bounded by the input length), projected onto the version with `Message::project`.
//! Values our encoder rejects (e.g. null in a non-nullable version, an unknown tagged field
//! reusing a known tag) are skipped and counted; each version must still see enough values.
//!
//! Version ranges: Metadata v0-13 and ApiVersions v0-4 are compared (our ApiVersions v5, from
//! Kafka 4.4.0, is newer than kafka-protocol's Kafka 4.1.0); kafka-protocol's BrokerRegistration stops at v4 (Kafka 4.1.0), ours goes to
//! v6 (CordonedLogDirs v5+, StaticConfigs v6), so v0-4 are compared.
//!
//! Legitimate differences, excluded exactly and pinned by tests in `harness/tests/differential_kafka_protocol.rs`:
//!
//! 1. Unknown tagged-field tags above `i32::MAX`: kafka-protocol keeps tags as `i32`, so
//!    such a tag decodes to a negative key that its encoder counts but does not write
//!    (`write_unknown_tagged_fields(buf, 0.., ..)`): it produces corrupt bytes. The
//!    generator drops only those tags (`sanitize`), see `tag_above_i32_max_*`.
//! 2. kafka-protocol does not check nullability per version: it encodes a null
//!    `MetadataResponseTopic.Name` in v4-11 (nullable only in 12+) as length -1, which we
//!    refuse to encode and to decode. The reverse direction therefore only maps values our
//!    encoder accepts, see `null_topic_name_before_v12_*`.

//!
//! This module is the one implementation of that machinery: the test calls [`run`] for every
//! pair, and the `differential_codec` fuzz target calls [`differential_codec`], which feeds
//! arbitrary bytes to both decoders (see [`fuzz`] for the differences it classifies).
//! Behind the `differential` cargo feature (optional dependencies `kafka-protocol` and `bytes`).

use std::collections::BTreeMap;
use std::fmt::Debug;

use arbitrary::{Arbitrary, Unstructured};
use bytes::{Bytes as KBytes, BytesMut};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};

use crate::codec::{to_hex, Message, TaggedFields, Uuid};

pub mod fuzz;
mod pairs;

pub use fuzz::{differential_codec, Difference};
pub use pairs::{
    AlterConfigsReq, AlterConfigsResp, ApiVersionsReq, ApiVersionsResp, BrokerRegistrationReq,
    BrokerRegistrationResp, IncrementalAlterConfigsReq, IncrementalAlterConfigsResp, MetadataReq,
    MetadataResp, UpdateFeaturesReq, UpdateFeaturesResp,
};

/// Default seed; `KIPCHECK_DIFF_SEED` (decimal or 0x-hex) overrides it.
pub const SEED: u64 = 0x6b69_7063_6865_636b;
/// Random values tried per message and version.
pub const ITERATIONS: usize = 500;
/// Upper bound of the `Unstructured` input length: bounds every collection size.
pub const MAX_INPUT: usize = 1024;
/// Values per message and version that must get through our encoder.
pub const MIN_ACCEPTED: usize = 25;

// ---------------------------------------------------------------------------------------
// Deterministic randomness.

// The model's one generator ([`crate::model::ModelRng`]) feeds `Unstructured`.

/// [`SEED`], or `KIPCHECK_DIFF_SEED` (decimal or 0x-hex) when set.
pub fn seed() -> u64 {
    match std::env::var("KIPCHECK_DIFF_SEED") {
        Ok(s) => {
            let s = s.trim();
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => s.parse(),
            }
            .expect("KIPCHECK_DIFF_SEED must be an integer")
        }
        Err(_) => SEED,
    }
}

/// Removes what the generator must not produce for `version` (see the module doc): every
/// unknown tagged field in non-flexible versions (our encoder would reject the value), and
/// tags above `i32::MAX` (difference 1). Works on the serde form, so it reaches every
/// nested struct without per-message code.
pub fn sanitize<T: Message>(value: &T, version: i16) -> T {
    fn walk(j: &mut serde_json::Value, flexible: bool) {
        match j {
            serde_json::Value::Object(m) => {
                if flexible {
                    if let Some(serde_json::Value::Object(tags)) = m.get_mut("_tagged") {
                        tags.retain(|k, _| k.parse::<u32>().is_ok_and(|t| t <= i32::MAX as u32));
                    }
                } else {
                    m.remove("_tagged");
                }
                for v in m.values_mut() {
                    walk(v, flexible);
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|v| walk(v, flexible)),
            _ => {}
        }
    }
    let mut j = serde_json::to_value(value).expect("messages serialize");
    walk(&mut j, T::is_flexible(version));
    serde_json::from_value(j).expect("sanitized messages deserialize")
}

// ---------------------------------------------------------------------------------------
// Field-by-field comparison.

/// Collects mismatches as `path: ours … != kafka-protocol …`.
#[derive(Default)]
pub struct Cmp {
    /// The mismatches found so far.
    pub errs: Vec<String>,
}

impl Cmp {
    /// Records a mismatch unless `ours == theirs`.
    pub fn eq<T: PartialEq + Debug>(&mut self, path: &str, ours: T, theirs: T) {
        if ours != theirs {
            self.errs.push(format!(
                "{path}: ours {ours:?} != kafka-protocol {theirs:?}"
            ));
        }
    }

    /// A field the version has: ours must hold `Some`.
    pub fn present<'a, T>(&mut self, path: &str, v: &'a Option<T>) -> Option<&'a T> {
        if v.is_none() {
            self.errs
                .push(format!("{path}: exists in this version but ours is None"));
        }
        v.as_ref()
    }

    /// A field the version lacks: ours must hold `None`.
    pub fn absent<T: Debug>(&mut self, path: &str, v: &Option<T>) {
        if let Some(v) = v {
            self.errs.push(format!(
                "{path}: absent in this version but ours holds {v:?}"
            ));
        }
    }

    /// A field that `exists` in the version or not: [`Self::present`] or [`Self::absent`];
    /// the value when it exists and ours holds it.
    pub fn versioned<'a, T: Debug>(
        &mut self,
        path: &str,
        exists: bool,
        v: &'a Option<T>,
    ) -> Option<&'a T> {
        if exists {
            self.present(path, v)
        } else {
            self.absent(path, v);
            None
        }
    }

    /// Compares lengths, then element by element with `f`.
    pub fn list<O, T>(
        &mut self,
        path: &str,
        o: &[O],
        t: &[T],
        mut f: impl FnMut(&mut Self, &str, &O, &T),
    ) {
        self.eq(&format!("{path}.len()"), o.len(), t.len());
        for (i, (o, t)) in o.iter().zip(t).enumerate() {
            f(self, &format!("{path}[{i}]"), o, t);
        }
    }

    /// Unknown tagged fields: compared in flexible versions, must be empty otherwise.
    pub fn tags(
        &mut self,
        path: &str,
        flexible: bool,
        o: &TaggedFields,
        t: &BTreeMap<i32, KBytes>,
    ) {
        let path = format!("{path}._tagged");
        let o: Vec<(i64, &[u8])> = o.0.iter().map(|(k, v)| (i64::from(*k), &v.0[..])).collect();
        let t: Vec<(i64, &[u8])> = t.iter().map(|(k, v)| (i64::from(*k), &v[..])).collect();
        if flexible {
            self.eq(&path, o, t);
        } else {
            self.eq(&path, o, Vec::new());
            self.eq(&format!("{path} (kafka-protocol)"), t, Vec::new());
        }
    }
}

/// A kafka-protocol string as `&str`.
pub fn st(s: &StrBytes) -> &str {
    s.as_str()
}

pub(crate) fn ost(s: &Option<StrBytes>) -> Option<&str> {
    s.as_ref().map(StrBytes::as_str)
}

pub(crate) fn otn(s: &Option<kp::TopicName>) -> Option<&str> {
    s.as_ref().map(|n| n.0.as_str())
}

pub(crate) fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_owned())
}

pub(crate) fn osb(s: &Option<crate::codec::KString>) -> Option<StrBytes> {
    s.as_deref().map(sb)
}

/// `kafka-protocol` does not re-export `uuid`; its `Uuid` implements `TryFrom<Vec<u8>>`,
/// so the target type is left to inference.
pub(crate) fn ku<U: TryFrom<Vec<u8>>>(u: &Uuid) -> U
where
    U::Error: Debug,
{
    u.0.to_vec().try_into().expect("16 bytes")
}

pub(crate) fn ktags(t: &TaggedFields) -> BTreeMap<i32, KBytes> {
    t.0.iter()
        .map(|(k, v)| {
            let k = i32::try_from(*k).expect("sanitize keeps tags <= i32::MAX");
            (k, KBytes::from(v.0.clone()))
        })
        .collect()
}

pub(crate) fn ids(v: &[i32]) -> Vec<kp::BrokerId> {
    v.iter().map(|&i| kp::BrokerId(i)).collect()
}

pub(crate) fn from_ids(v: &[kp::BrokerId]) -> Vec<i32> {
    v.iter().map(|i| i.0).collect()
}

// ---------------------------------------------------------------------------------------
// The driver.

/// One message definition in both codecs.
pub trait Pair {
    /// kipcheck's message.
    type Ours: Message + for<'a> Arbitrary<'a>;
    /// kafka-protocol's message.
    type Theirs: Decodable + Encodable + Debug;
    /// Versions both codecs support.
    const VERSIONS: std::ops::RangeInclusive<i16>;
    /// Every field of `version`, nested ones included.
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16);
    /// The same message as a kafka-protocol value, field by field (`o` is projected).
    fn to_theirs(o: &Self::Ours, v: i16) -> Self::Theirs;
}

#[derive(Default, Debug)]
pub struct Stats {
    /// Values `arbitrary` produced.
    pub tried: usize,
    /// Values our encoder refused (skipped).
    pub rejected_by_ours: usize,
    /// Values compared in both directions.
    pub checked: usize,
    /// Encoded bytes checked, in total and in the largest value.
    pub bytes: usize,
    /// Encoded bytes of the largest value.
    pub max_bytes: usize,
    /// Checked values with at least one unknown tagged field somewhere.
    pub with_tags: usize,
}

/// Ours → bytes → kafka-protocol decodes all of them → fields agree → kafka-protocol
/// re-encodes the same bytes.
pub fn check_forward<P: Pair>(o: &P::Ours, v: i16, bytes: &[u8]) -> Result<(), String> {
    let name = <P::Ours as Message>::NAME;
    let ctx = |what: String| {
        format!(
            "{name} v{v} ours→kafka-protocol: {what}\n  bytes: {}\n  ours: {o:?}",
            to_hex(bytes)
        )
    };
    let mut buf = KBytes::copy_from_slice(bytes);
    let t = P::Theirs::decode(&mut buf, v)
        .map_err(|e| ctx(format!("kafka-protocol decode failed: {e:#}")))?;
    if !buf.is_empty() {
        return Err(ctx(format!(
            "kafka-protocol left {} bytes unread",
            buf.len()
        )));
    }
    let mut c = Cmp::default();
    P::compare(&mut c, o, &t, v);
    if !c.errs.is_empty() {
        return Err(ctx(format!(
            "fields differ:\n    {}\n  kafka-protocol: {t:?}",
            c.errs.join("\n    ")
        )));
    }
    let mut out = BytesMut::new();
    t.encode(&mut out, v)
        .map_err(|e| ctx(format!("kafka-protocol re-encode failed: {e:#}")))?;
    if out[..] != bytes[..] {
        return Err(ctx(format!(
            "kafka-protocol re-encodes different bytes: {}",
            to_hex(&out)
        )));
    }
    Ok(())
}

/// Our value mapped to kafka-protocol's → its bytes → we decode → fields agree, the value
/// is unchanged → we re-encode the same bytes.
pub fn check_reverse<P: Pair>(o: &P::Ours, v: i16) -> Result<(), String> {
    let name = <P::Ours as Message>::NAME;
    let t = P::to_theirs(o, v);
    let mut tb = BytesMut::new();
    t.encode(&mut tb, v).map_err(|e| {
        format!(
            "{name} v{v}: kafka-protocol refuses a value we encode: {e:#}\n  kafka-protocol: {t:?}"
        )
    })?;
    let ctx = |what: String| {
        format!(
            "{name} v{v} kafka-protocol→ours: {what}\n  bytes: {}\n  kafka-protocol: {t:?}",
            to_hex(&tb)
        )
    };
    let d = P::Ours::from_bytes(&tb, v).map_err(|e| ctx(format!("our decode failed: {e}")))?;
    let mut c = Cmp::default();
    P::compare(&mut c, &d, &t, v);
    if !c.errs.is_empty() {
        return Err(ctx(format!(
            "fields differ:\n    {}\n  ours: {d:?}",
            c.errs.join("\n    ")
        )));
    }
    // The mapping itself is checked too: the value must survive ours → kafka-protocol
    // value → kafka-protocol bytes → ours unchanged.
    if d != *o {
        return Err(ctx(format!(
            "the value changed on its way through kafka-protocol:\n  before: {o:?}\n  after:  {d:?}"
        )));
    }
    let ob = d
        .to_bytes(v)
        .map_err(|e| ctx(format!("our re-encode failed: {e}")))?;
    if ob[..] != tb[..] {
        return Err(ctx(format!(
            "we re-encode different bytes: {}",
            to_hex(&ob)
        )));
    }
    Ok(())
}

/// The random differential run of one pair: [`ITERATIONS`] values per version from the
/// seed ([`seed`]), both directions; panics with the first disagreements.
pub fn run<P: Pair>() {
    let seed = seed();
    let name = <P::Ours as Message>::NAME;
    println!("{name}: seed {seed:#x} (set KIPCHECK_DIFF_SEED to change)");
    let mut failures = Vec::new();
    for v in P::VERSIONS {
        assert!(<P::Ours as Message>::VALID_VERSIONS.contains(v));
        // One stream per message and version, so a failure reproduces on its own.
        let mut rng = crate::model::ModelRng::new(
            seed ^ (u64::from(v as u16) << 48) ^ name.len() as u64 ^ crate::model::fnv1a64(name),
        );
        let mut stats = Stats::default();
        for _ in 0..ITERATIONS {
            let data = rng.bytes(MAX_INPUT);
            let Ok(raw) = P::Ours::arbitrary(&mut Unstructured::new(&data)) else {
                continue;
            };
            stats.tried += 1;
            let o = sanitize(&raw.project(v), v);
            let Ok(bytes) = o.to_bytes(v) else {
                stats.rejected_by_ours += 1;
                continue;
            };
            stats.checked += 1;
            stats.bytes += bytes.len();
            stats.max_bytes = stats.max_bytes.max(bytes.len());
            if serde_json::to_string(&o).is_ok_and(|j| j.contains("\"_tagged\"")) {
                stats.with_tags += 1;
            }
            for r in [check_forward::<P>(&o, v, &bytes), check_reverse::<P>(&o, v)] {
                if let Err(e) = r {
                    failures.push(e);
                }
            }
        }
        println!("  v{v}: {stats:?}");
        assert!(
            stats.checked >= MIN_ACCEPTED,
            "{name} v{v}: only {} of {} values got through our encoder",
            stats.checked,
            stats.tried
        );
    }
    if !failures.is_empty() {
        let n = failures.len();
        failures.truncate(5);
        panic!(
            "{name}: {n} disagreement(s) with kafka-protocol (seed {seed:#x}); first ones:\n\n{}",
            failures.join("\n\n")
        );
    }
}

/// Both codecs decode `bytes` at `v`, agree field by field, and both re-encode the same
/// bytes; returns both values. Panics otherwise (for hand-written vectors).
pub fn both_decode<P: Pair>(bytes: &[u8], v: i16) -> (P::Ours, P::Theirs) {
    let o = P::Ours::from_bytes(bytes, v).expect("we decode the vector");
    check_forward::<P>(&o, v, bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.to_bytes(v).expect("we re-encode"), bytes);
    let mut buf = KBytes::copy_from_slice(bytes);
    let t = P::Theirs::decode(&mut buf, v).expect("kafka-protocol decodes the vector");
    (o, t)
}
