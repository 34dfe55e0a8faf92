//! Differential test of kipcheck's generated codec against the `kafka-protocol` crate
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
//! Version ranges: kafka-protocol has Metadata v0-13 but we define v4-13, so v4-13 are
//! compared; kafka-protocol's BrokerRegistration stops at v4 (Kafka 4.1.0), ours goes to
//! v6 (CordonedLogDirs v5+, StaticConfigs v6), so v0-4 are compared.
//!
//! Legitimate differences, excluded exactly and pinned by their own tests below:
//!
//! 1. Unknown tagged-field tags above `i32::MAX`: kafka-protocol keeps tags as `i32`, so
//!    such a tag decodes to a negative key that its encoder counts but does not write
//!    (`write_unknown_tagged_fields(buf, 0.., ..)`): it produces corrupt bytes. The
//!    generator drops only those tags (`sanitize`), see `tag_above_i32_max_*`.
//! 2. kafka-protocol does not check nullability per version: it encodes a null
//!    `MetadataResponseTopic.Name` in v4-11 (nullable only in 12+) as length -1, which we
//!    refuse to encode and to decode. The reverse direction therefore only maps values our
//!    encoder accepts, see `null_topic_name_before_v12_*`.

use std::collections::BTreeMap;
use std::fmt::Debug;

use arbitrary::{Arbitrary, Unstructured};
use bytes::{Bytes as KBytes, BytesMut};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kipcheck::codec::{self as ours, to_hex, Message, TaggedFields, Uuid};

/// Default seed; `KIPCHECK_DIFF_SEED` (decimal or 0x-hex) overrides it.
const SEED: u64 = 0x6b69_7063_6865_636b;
/// Random values tried per message and version.
const ITERATIONS: usize = 500;
/// Upper bound of the `Unstructured` input length: bounds every collection size.
const MAX_INPUT: usize = 1024;
/// Values per message and version that must get through our encoder.
const MIN_ACCEPTED: usize = 25;

// ---------------------------------------------------------------------------------------
// Deterministic randomness.

/// SplitMix64: tiny, seedable, good enough to feed `Unstructured`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = (self.next() % (max as u64 + 1)) as usize;
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

fn seed() -> u64 {
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
fn sanitize<T: Message>(value: &T, version: i16) -> T {
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
struct Cmp {
    errs: Vec<String>,
}

impl Cmp {
    fn eq<T: PartialEq + Debug>(&mut self, path: &str, ours: T, theirs: T) {
        if ours != theirs {
            self.errs.push(format!(
                "{path}: ours {ours:?} != kafka-protocol {theirs:?}"
            ));
        }
    }

    /// A field the version has: ours must hold `Some`.
    fn present<'a, T>(&mut self, path: &str, v: &'a Option<T>) -> Option<&'a T> {
        if v.is_none() {
            self.errs
                .push(format!("{path}: exists in this version but ours is None"));
        }
        v.as_ref()
    }

    /// A field the version lacks: ours must hold `None`.
    fn absent<T: Debug>(&mut self, path: &str, v: &Option<T>) {
        if let Some(v) = v {
            self.errs.push(format!(
                "{path}: absent in this version but ours holds {v:?}"
            ));
        }
    }

    fn list<O, T>(
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
    fn tags(&mut self, path: &str, flexible: bool, o: &TaggedFields, t: &BTreeMap<i32, KBytes>) {
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

fn st(s: &StrBytes) -> &str {
    s.as_str()
}

fn ost(s: &Option<StrBytes>) -> Option<&str> {
    s.as_ref().map(StrBytes::as_str)
}

fn otn(s: &Option<kp::TopicName>) -> Option<&str> {
    s.as_ref().map(|n| n.0.as_str())
}

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_owned())
}

fn osb(s: &Option<kipcheck::codec::KString>) -> Option<StrBytes> {
    s.as_deref().map(sb)
}

/// `kafka-protocol` does not re-export `uuid`; its `Uuid` implements `TryFrom<Vec<u8>>`,
/// so the target type is left to inference.
fn ku<U: TryFrom<Vec<u8>>>(u: &Uuid) -> U
where
    U::Error: Debug,
{
    u.0.to_vec().try_into().expect("16 bytes")
}

fn ktags(t: &TaggedFields) -> BTreeMap<i32, KBytes> {
    t.0.iter()
        .map(|(k, v)| {
            let k = i32::try_from(*k).expect("sanitize keeps tags <= i32::MAX");
            (k, KBytes::from(v.0.clone()))
        })
        .collect()
}

fn ids(v: &[i32]) -> Vec<kp::BrokerId> {
    v.iter().map(|&i| kp::BrokerId(i)).collect()
}

fn from_ids(v: &[kp::BrokerId]) -> Vec<i32> {
    v.iter().map(|i| i.0).collect()
}

// ---------------------------------------------------------------------------------------
// The driver.

/// One message definition in both codecs.
trait Pair {
    type Ours: Message + for<'a> Arbitrary<'a>;
    type Theirs: Decodable + Encodable + Debug;
    /// Versions both codecs support.
    const VERSIONS: std::ops::RangeInclusive<i16>;
    /// Every field of `version`, nested ones included.
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16);
    /// The same message as a kafka-protocol value, field by field (`o` is projected).
    fn to_theirs(o: &Self::Ours, v: i16) -> Self::Theirs;
}

#[derive(Default, Debug)]
struct Stats {
    tried: usize,
    rejected_by_ours: usize,
    checked: usize,
    /// Encoded bytes checked, in total and in the largest value.
    bytes: usize,
    max_bytes: usize,
    /// Checked values with at least one unknown tagged field somewhere.
    with_tags: usize,
}

fn check_forward<P: Pair>(o: &P::Ours, v: i16, bytes: &[u8]) -> Result<(), String> {
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

fn check_reverse<P: Pair>(o: &P::Ours, v: i16) -> Result<(), String> {
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

fn run<P: Pair>() {
    let seed = seed();
    let name = <P::Ours as Message>::NAME;
    println!("{name}: seed {seed:#x} (set KIPCHECK_DIFF_SEED to change)");
    let mut failures = Vec::new();
    for v in P::VERSIONS {
        assert!(<P::Ours as Message>::VALID_VERSIONS.contains(v));
        // One stream per message and version, so a failure reproduces on its own.
        let mut rng = Rng(seed ^ (u64::from(v as u16) << 48) ^ name.len() as u64 ^ fnv(name));
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

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------------------
// ApiVersions (key 18): v0-4 in both.

struct ApiVersionsReq;
impl Pair for ApiVersionsReq {
    type Ours = ours::ApiVersionsRequest;
    type Theirs = kp::ApiVersionsRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "ApiVersionsRequest";
        if v >= 3 {
            if let Some(x) = c.present(&format!("{p}.ClientSoftwareName"), &o.client_software_name)
            {
                c.eq(
                    &format!("{p}.ClientSoftwareName"),
                    x.as_str(),
                    st(&t.client_software_name),
                );
            }
            if let Some(x) = c.present(
                &format!("{p}.ClientSoftwareVersion"),
                &o.client_software_version,
            ) {
                c.eq(
                    &format!("{p}.ClientSoftwareVersion"),
                    x.as_str(),
                    st(&t.client_software_version),
                );
            }
        } else {
            c.absent(&format!("{p}.ClientSoftwareName"), &o.client_software_name);
            c.absent(
                &format!("{p}.ClientSoftwareVersion"),
                &o.client_software_version,
            );
        }
        c.tags(
            p,
            v >= 3,
            &o.unknown_tagged_fields,
            &t.unknown_tagged_fields,
        );
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        let mut t = Self::Theirs::default();
        t.client_software_name = o
            .client_software_name
            .as_deref()
            .map(sb)
            .unwrap_or_default();
        t.client_software_version = o
            .client_software_version
            .as_deref()
            .map(sb)
            .unwrap_or_default();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

struct ApiVersionsResp;
impl Pair for ApiVersionsResp {
    type Ours = ours::ApiVersionsResponse;
    type Theirs = kp::ApiVersionsResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "ApiVersionsResponse";
        let flex = v >= 3;
        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
        c.list(
            &format!("{p}.ApiKeys"),
            &o.api_keys,
            &t.api_keys,
            |c, p, o, t| {
                c.eq(&format!("{p}.ApiKey"), o.api_key, t.api_key);
                c.eq(&format!("{p}.MinVersion"), o.min_version, t.min_version);
                c.eq(&format!("{p}.MaxVersion"), o.max_version, t.max_version);
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ThrottleTimeMs");
        if v >= 1 {
            if let Some(x) = c.present(&f, &o.throttle_time_ms) {
                c.eq(&f, *x, t.throttle_time_ms);
            }
        } else {
            c.absent(&f, &o.throttle_time_ms);
        }
        if v >= 3 {
            let f = format!("{p}.SupportedFeatures");
            if let Some(x) = c.present(&f, &o.supported_features) {
                c.list(&f, x, &t.supported_features, |c, p, o, t| {
                    c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                    c.eq(&format!("{p}.MinVersion"), o.min_version, t.min_version);
                    c.eq(&format!("{p}.MaxVersion"), o.max_version, t.max_version);
                    c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                });
            }
            let f = format!("{p}.FinalizedFeaturesEpoch");
            if let Some(x) = c.present(&f, &o.finalized_features_epoch) {
                c.eq(&f, *x, t.finalized_features_epoch);
            }
            let f = format!("{p}.FinalizedFeatures");
            if let Some(x) = c.present(&f, &o.finalized_features) {
                c.list(&f, x, &t.finalized_features, |c, p, o, t| {
                    c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                    c.eq(
                        &format!("{p}.MaxVersionLevel"),
                        o.max_version_level,
                        t.max_version_level,
                    );
                    c.eq(
                        &format!("{p}.MinVersionLevel"),
                        o.min_version_level,
                        t.min_version_level,
                    );
                    c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                });
            }
            let f = format!("{p}.ZkMigrationReady");
            if let Some(x) = c.present(&f, &o.zk_migration_ready) {
                c.eq(&f, *x, t.zk_migration_ready);
            }
        } else {
            c.absent(&format!("{p}.SupportedFeatures"), &o.supported_features);
            c.absent(
                &format!("{p}.FinalizedFeaturesEpoch"),
                &o.finalized_features_epoch,
            );
            c.absent(&format!("{p}.FinalizedFeatures"), &o.finalized_features);
            c.absent(&format!("{p}.ZkMigrationReady"), &o.zk_migration_ready);
        }
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::api_versions_response as m;
        let mut t = Self::Theirs::default();
        t.error_code = o.error_code;
        t.api_keys = o
            .api_keys
            .iter()
            .map(|k| {
                m::ApiVersion::default()
                    .with_api_key(k.api_key)
                    .with_min_version(k.min_version)
                    .with_max_version(k.max_version)
                    .with_unknown_tagged_fields(ktags(&k.unknown_tagged_fields))
            })
            .collect();
        t.throttle_time_ms = o.throttle_time_ms.unwrap_or(0);
        t.supported_features = o
            .supported_features
            .iter()
            .flatten()
            .map(|f| {
                m::SupportedFeatureKey::default()
                    .with_name(sb(&f.name))
                    .with_min_version(f.min_version)
                    .with_max_version(f.max_version)
                    .with_unknown_tagged_fields(ktags(&f.unknown_tagged_fields))
            })
            .collect();
        t.finalized_features_epoch = o.finalized_features_epoch.unwrap_or(-1);
        t.finalized_features = o
            .finalized_features
            .iter()
            .flatten()
            .map(|f| {
                m::FinalizedFeatureKey::default()
                    .with_name(sb(&f.name))
                    .with_max_version_level(f.max_version_level)
                    .with_min_version_level(f.min_version_level)
                    .with_unknown_tagged_fields(ktags(&f.unknown_tagged_fields))
            })
            .collect();
        t.zk_migration_ready = o.zk_migration_ready.unwrap_or(false);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// Metadata (key 3): kafka-protocol v0-13, ours v4-13.

struct MetadataReq;
impl Pair for MetadataReq {
    type Ours = ours::MetadataRequest;
    type Theirs = kp::MetadataRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 4..=13;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "MetadataRequest";
        let flex = v >= 9;
        let f = format!("{p}.Topics");
        match (&o.topics, &t.topics) {
            (Some(o), Some(t)) => c.list(&f, o, t, |c, p, o, t| {
                let f = format!("{p}.TopicId");
                if v >= 10 {
                    if let Some(x) = c.present(&f, &o.topic_id) {
                        c.eq(&f, x.0, *t.topic_id.as_bytes());
                    }
                } else {
                    c.absent(&f, &o.topic_id);
                }
                c.eq(&format!("{p}.Name"), o.name.as_deref(), otn(&t.name));
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            }),
            (o, t) => c.eq(&format!("{f} is null"), o.is_none(), t.is_none()),
        }
        c.eq(
            &format!("{p}.AllowAutoTopicCreation"),
            o.allow_auto_topic_creation,
            t.allow_auto_topic_creation,
        );
        let f = format!("{p}.IncludeClusterAuthorizedOperations");
        if (8..=10).contains(&v) {
            if let Some(x) = c.present(&f, &o.include_cluster_authorized_operations) {
                c.eq(&f, *x, t.include_cluster_authorized_operations);
            }
        } else {
            c.absent(&f, &o.include_cluster_authorized_operations);
        }
        let f = format!("{p}.IncludeTopicAuthorizedOperations");
        if v >= 8 {
            if let Some(x) = c.present(&f, &o.include_topic_authorized_operations) {
                c.eq(&f, *x, t.include_topic_authorized_operations);
            }
        } else {
            c.absent(&f, &o.include_topic_authorized_operations);
        }
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        let mut t = Self::Theirs::default();
        t.topics = o.topics.as_ref().map(|ts| {
            ts.iter()
                .map(|x| {
                    let mut k = kp::metadata_request::MetadataRequestTopic::default();
                    if let Some(id) = &x.topic_id {
                        k.topic_id = ku(id);
                    }
                    k.name = x.name.as_deref().map(|n| kp::TopicName(sb(n)));
                    k.unknown_tagged_fields = ktags(&x.unknown_tagged_fields);
                    k
                })
                .collect()
        });
        t.allow_auto_topic_creation = o.allow_auto_topic_creation;
        t.include_cluster_authorized_operations =
            o.include_cluster_authorized_operations.unwrap_or(false);
        t.include_topic_authorized_operations =
            o.include_topic_authorized_operations.unwrap_or(false);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

struct MetadataResp;
impl Pair for MetadataResp {
    type Ours = ours::MetadataResponse;
    type Theirs = kp::MetadataResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 4..=13;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "MetadataResponse";
        let flex = v >= 9;
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.list(
            &format!("{p}.Brokers"),
            &o.brokers,
            &t.brokers,
            |c, p, o, t| {
                c.eq(&format!("{p}.NodeId"), o.node_id, t.node_id.0);
                c.eq(&format!("{p}.Host"), o.host.as_str(), st(&t.host));
                c.eq(&format!("{p}.Port"), o.port, t.port);
                c.eq(&format!("{p}.Rack"), o.rack.as_deref(), ost(&t.rack));
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(
            &format!("{p}.ClusterId"),
            o.cluster_id.as_deref(),
            ost(&t.cluster_id),
        );
        c.eq(
            &format!("{p}.ControllerId"),
            o.controller_id,
            t.controller_id.0,
        );
        c.list(
            &format!("{p}.Topics"),
            &o.topics,
            &t.topics,
            |c, p, o, t| {
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(&format!("{p}.Name"), o.name.as_deref(), otn(&t.name));
                let f = format!("{p}.TopicId");
                if v >= 10 {
                    if let Some(x) = c.present(&f, &o.topic_id) {
                        c.eq(&f, x.0, *t.topic_id.as_bytes());
                    }
                } else {
                    c.absent(&f, &o.topic_id);
                }
                c.eq(&format!("{p}.IsInternal"), o.is_internal, t.is_internal);
                c.list(
                    &format!("{p}.Partitions"),
                    &o.partitions,
                    &t.partitions,
                    |c, p, o, t| {
                        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                        c.eq(
                            &format!("{p}.PartitionIndex"),
                            o.partition_index,
                            t.partition_index,
                        );
                        c.eq(&format!("{p}.LeaderId"), o.leader_id, t.leader_id.0);
                        let f = format!("{p}.LeaderEpoch");
                        if v >= 7 {
                            if let Some(x) = c.present(&f, &o.leader_epoch) {
                                c.eq(&f, *x, t.leader_epoch);
                            }
                        } else {
                            c.absent(&f, &o.leader_epoch);
                        }
                        c.eq(
                            &format!("{p}.ReplicaNodes"),
                            o.replica_nodes.clone(),
                            from_ids(&t.replica_nodes),
                        );
                        c.eq(
                            &format!("{p}.IsrNodes"),
                            o.isr_nodes.clone(),
                            from_ids(&t.isr_nodes),
                        );
                        let f = format!("{p}.OfflineReplicas");
                        if v >= 5 {
                            if let Some(x) = c.present(&f, &o.offline_replicas) {
                                c.eq(&f, x.clone(), from_ids(&t.offline_replicas));
                            }
                        } else {
                            c.absent(&f, &o.offline_replicas);
                        }
                        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                    },
                );
                let f = format!("{p}.TopicAuthorizedOperations");
                if v >= 8 {
                    if let Some(x) = c.present(&f, &o.topic_authorized_operations) {
                        c.eq(&f, *x, t.topic_authorized_operations);
                    }
                } else {
                    c.absent(&f, &o.topic_authorized_operations);
                }
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ClusterAuthorizedOperations");
        if (8..=10).contains(&v) {
            if let Some(x) = c.present(&f, &o.cluster_authorized_operations) {
                c.eq(&f, *x, t.cluster_authorized_operations);
            }
        } else {
            c.absent(&f, &o.cluster_authorized_operations);
        }
        let f = format!("{p}.ErrorCode");
        if v >= 13 {
            if let Some(x) = c.present(&f, &o.error_code) {
                c.eq(&f, *x, t.error_code);
            }
        } else {
            c.absent(&f, &o.error_code);
        }
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::metadata_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.brokers = o
            .brokers
            .iter()
            .map(|b| {
                m::MetadataResponseBroker::default()
                    .with_node_id(kp::BrokerId(b.node_id))
                    .with_host(sb(&b.host))
                    .with_port(b.port)
                    .with_rack(osb(&b.rack))
                    .with_unknown_tagged_fields(ktags(&b.unknown_tagged_fields))
            })
            .collect();
        t.cluster_id = osb(&o.cluster_id);
        t.controller_id = kp::BrokerId(o.controller_id);
        t.topics = o
            .topics
            .iter()
            .map(|x| {
                let mut k = m::MetadataResponseTopic::default();
                k.error_code = x.error_code;
                k.name = x.name.as_deref().map(|n| kp::TopicName(sb(n)));
                if let Some(id) = &x.topic_id {
                    k.topic_id = ku(id);
                }
                k.is_internal = x.is_internal;
                k.partitions = x
                    .partitions
                    .iter()
                    .map(|q| {
                        m::MetadataResponsePartition::default()
                            .with_error_code(q.error_code)
                            .with_partition_index(q.partition_index)
                            .with_leader_id(kp::BrokerId(q.leader_id))
                            .with_leader_epoch(q.leader_epoch.unwrap_or(-1))
                            .with_replica_nodes(ids(&q.replica_nodes))
                            .with_isr_nodes(ids(&q.isr_nodes))
                            .with_offline_replicas(ids(q
                                .offline_replicas
                                .as_deref()
                                .unwrap_or(&[])))
                            .with_unknown_tagged_fields(ktags(&q.unknown_tagged_fields))
                    })
                    .collect();
                k.topic_authorized_operations = x.topic_authorized_operations.unwrap_or(i32::MIN);
                k.unknown_tagged_fields = ktags(&x.unknown_tagged_fields);
                k
            })
            .collect();
        t.cluster_authorized_operations = o.cluster_authorized_operations.unwrap_or(i32::MIN);
        t.error_code = o.error_code.unwrap_or(0);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// AlterConfigs (key 33): v0-2 in both, flexible 2+.

struct AlterConfigsReq;
impl Pair for AlterConfigsReq {
    type Ours = ours::AlterConfigsRequest;
    type Theirs = kp::AlterConfigsRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "AlterConfigsRequest";
        let flex = v >= 2;
        c.list(
            &format!("{p}.Resources"),
            &o.resources,
            &t.resources,
            |c, p, o, t| {
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.list(
                    &format!("{p}.Configs"),
                    &o.configs,
                    &t.configs,
                    |c, p, o, t| {
                        c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                        c.eq(&format!("{p}.Value"), o.value.as_deref(), ost(&t.value));
                        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                    },
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(
            &format!("{p}.ValidateOnly"),
            o.validate_only,
            t.validate_only,
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::alter_configs_request as m;
        let mut t = Self::Theirs::default();
        t.resources = o
            .resources
            .iter()
            .map(|r| {
                m::AlterConfigsResource::default()
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_configs(
                        r.configs
                            .iter()
                            .map(|x| {
                                m::AlterableConfig::default()
                                    .with_name(sb(&x.name))
                                    .with_value(osb(&x.value))
                                    .with_unknown_tagged_fields(ktags(&x.unknown_tagged_fields))
                            })
                            .collect(),
                    )
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.validate_only = o.validate_only;
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

struct AlterConfigsResp;
impl Pair for AlterConfigsResp {
    type Ours = ours::AlterConfigsResponse;
    type Theirs = kp::AlterConfigsResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "AlterConfigsResponse";
        let flex = v >= 2;
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.list(
            &format!("{p}.Responses"),
            &o.responses,
            &t.responses,
            |c, p, o, t| {
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(
                    &format!("{p}.ErrorMessage"),
                    o.error_message.as_deref(),
                    ost(&t.error_message),
                );
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::alter_configs_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.responses = o
            .responses
            .iter()
            .map(|r| {
                m::AlterConfigsResourceResponse::default()
                    .with_error_code(r.error_code)
                    .with_error_message(osb(&r.error_message))
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// IncrementalAlterConfigs (key 44): v0-1 in both, flexible 1+.

struct IncrementalAlterConfigsReq;
impl Pair for IncrementalAlterConfigsReq {
    type Ours = ours::IncrementalAlterConfigsRequest;
    type Theirs = kp::IncrementalAlterConfigsRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=1;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "IncrementalAlterConfigsRequest";
        let flex = v >= 1;
        c.list(
            &format!("{p}.Resources"),
            &o.resources,
            &t.resources,
            |c, p, o, t| {
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.list(
                    &format!("{p}.Configs"),
                    &o.configs,
                    &t.configs,
                    |c, p, o, t| {
                        c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                        c.eq(
                            &format!("{p}.ConfigOperation"),
                            o.config_operation,
                            t.config_operation,
                        );
                        c.eq(&format!("{p}.Value"), o.value.as_deref(), ost(&t.value));
                        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                    },
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(
            &format!("{p}.ValidateOnly"),
            o.validate_only,
            t.validate_only,
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::incremental_alter_configs_request as m;
        let mut t = Self::Theirs::default();
        t.resources = o
            .resources
            .iter()
            .map(|r| {
                m::AlterConfigsResource::default()
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_configs(
                        r.configs
                            .iter()
                            .map(|x| {
                                m::AlterableConfig::default()
                                    .with_name(sb(&x.name))
                                    .with_config_operation(x.config_operation)
                                    .with_value(osb(&x.value))
                                    .with_unknown_tagged_fields(ktags(&x.unknown_tagged_fields))
                            })
                            .collect(),
                    )
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.validate_only = o.validate_only;
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

struct IncrementalAlterConfigsResp;
impl Pair for IncrementalAlterConfigsResp {
    type Ours = ours::IncrementalAlterConfigsResponse;
    type Theirs = kp::IncrementalAlterConfigsResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=1;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "IncrementalAlterConfigsResponse";
        let flex = v >= 1;
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.list(
            &format!("{p}.Responses"),
            &o.responses,
            &t.responses,
            |c, p, o, t| {
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(
                    &format!("{p}.ErrorMessage"),
                    o.error_message.as_deref(),
                    ost(&t.error_message),
                );
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::incremental_alter_configs_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.responses = o
            .responses
            .iter()
            .map(|r| {
                m::AlterConfigsResourceResponse::default()
                    .with_error_code(r.error_code)
                    .with_error_message(osb(&r.error_message))
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// UpdateFeatures (key 57): v0-2 in both, all flexible.

struct UpdateFeaturesReq;
impl Pair for UpdateFeaturesReq {
    type Ours = ours::UpdateFeaturesRequest;
    type Theirs = kp::UpdateFeaturesRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "UpdateFeaturesRequest";
        c.eq(&format!("{p}.TimeoutMs"), o.timeout_ms, t.timeout_ms);
        c.list(
            &format!("{p}.FeatureUpdates"),
            &o.feature_updates,
            &t.feature_updates,
            |c, p, o, t| {
                c.eq(&format!("{p}.Feature"), o.feature.as_str(), st(&t.feature));
                c.eq(
                    &format!("{p}.MaxVersionLevel"),
                    o.max_version_level,
                    t.max_version_level,
                );
                let f = format!("{p}.AllowDowngrade");
                if v == 0 {
                    if let Some(x) = c.present(&f, &o.allow_downgrade) {
                        c.eq(&f, *x, t.allow_downgrade);
                    }
                } else {
                    c.absent(&f, &o.allow_downgrade);
                }
                let f = format!("{p}.UpgradeType");
                if v >= 1 {
                    if let Some(x) = c.present(&f, &o.upgrade_type) {
                        c.eq(&f, *x, t.upgrade_type);
                    }
                } else {
                    c.absent(&f, &o.upgrade_type);
                }
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ValidateOnly");
        if v >= 1 {
            if let Some(x) = c.present(&f, &o.validate_only) {
                c.eq(&f, *x, t.validate_only);
            }
        } else {
            c.absent(&f, &o.validate_only);
        }
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::update_features_request as m;
        let mut t = Self::Theirs::default();
        t.timeout_ms = o.timeout_ms;
        t.feature_updates = o
            .feature_updates
            .iter()
            .map(|u| {
                m::FeatureUpdateKey::default()
                    .with_feature(sb(&u.feature))
                    .with_max_version_level(u.max_version_level)
                    .with_allow_downgrade(u.allow_downgrade.unwrap_or(false))
                    .with_upgrade_type(u.upgrade_type.unwrap_or(1))
                    .with_unknown_tagged_fields(ktags(&u.unknown_tagged_fields))
            })
            .collect();
        t.validate_only = o.validate_only.unwrap_or(false);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

struct UpdateFeaturesResp;
impl Pair for UpdateFeaturesResp {
    type Ours = ours::UpdateFeaturesResponse;
    type Theirs = kp::UpdateFeaturesResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "UpdateFeaturesResponse";
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
        c.eq(
            &format!("{p}.ErrorMessage"),
            o.error_message.as_deref(),
            ost(&t.error_message),
        );
        let f = format!("{p}.Results");
        if v <= 1 {
            if let Some(x) = c.present(&f, &o.results) {
                c.list(&f, x, &t.results, |c, p, o, t| {
                    c.eq(&format!("{p}.Feature"), o.feature.as_str(), st(&t.feature));
                    c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                    c.eq(
                        &format!("{p}.ErrorMessage"),
                        o.error_message.as_deref(),
                        ost(&t.error_message),
                    );
                    c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                });
            }
        } else {
            c.absent(&f, &o.results);
        }
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::update_features_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.error_code = o.error_code;
        t.error_message = osb(&o.error_message);
        t.results = o
            .results
            .iter()
            .flatten()
            .map(|r| {
                m::UpdatableFeatureResult::default()
                    .with_feature(sb(&r.feature))
                    .with_error_code(r.error_code)
                    .with_error_message(osb(&r.error_message))
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// BrokerRegistration (key 62): kafka-protocol v0-4, ours v0-6; all flexible.

struct BrokerRegistrationReq;
impl Pair for BrokerRegistrationReq {
    type Ours = ours::BrokerRegistrationRequest;
    type Theirs = kp::BrokerRegistrationRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "BrokerRegistrationRequest";
        c.eq(&format!("{p}.BrokerId"), o.broker_id, t.broker_id.0);
        c.eq(
            &format!("{p}.ClusterId"),
            o.cluster_id.as_str(),
            st(&t.cluster_id),
        );
        c.eq(
            &format!("{p}.IncarnationId"),
            o.incarnation_id.0,
            *t.incarnation_id.as_bytes(),
        );
        c.list(
            &format!("{p}.Listeners"),
            &o.listeners,
            &t.listeners,
            |c, p, o, t| {
                c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                c.eq(&format!("{p}.Host"), o.host.as_str(), st(&t.host));
                c.eq(&format!("{p}.Port"), o.port, t.port);
                c.eq(
                    &format!("{p}.SecurityProtocol"),
                    o.security_protocol,
                    t.security_protocol,
                );
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.list(
            &format!("{p}.Features"),
            &o.features,
            &t.features,
            |c, p, o, t| {
                c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                c.eq(
                    &format!("{p}.MinSupportedVersion"),
                    o.min_supported_version,
                    t.min_supported_version,
                );
                c.eq(
                    &format!("{p}.MaxSupportedVersion"),
                    o.max_supported_version,
                    t.max_supported_version,
                );
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(&format!("{p}.Rack"), o.rack.as_deref(), ost(&t.rack));
        let f = format!("{p}.IsMigratingZkBroker");
        if v >= 1 {
            if let Some(x) = c.present(&f, &o.is_migrating_zk_broker) {
                c.eq(&f, *x, t.is_migrating_zk_broker);
            }
        } else {
            c.absent(&f, &o.is_migrating_zk_broker);
        }
        let f = format!("{p}.LogDirs");
        if v >= 2 {
            if let Some(x) = c.present(&f, &o.log_dirs) {
                c.list(&f, x, &t.log_dirs, |c, p, o, t| c.eq(p, o.0, *t.as_bytes()));
            }
        } else {
            c.absent(&f, &o.log_dirs);
        }
        let f = format!("{p}.PreviousBrokerEpoch");
        if v >= 3 {
            if let Some(x) = c.present(&f, &o.previous_broker_epoch) {
                c.eq(&f, *x, t.previous_broker_epoch);
            }
        } else {
            c.absent(&f, &o.previous_broker_epoch);
        }
        // Versions 5-6 only (not compared: kafka-protocol stops at v4).
        c.absent(&format!("{p}.CordonedLogDirs"), &o.cordoned_log_dirs);
        c.absent(&format!("{p}.StaticConfigs"), &o.static_configs);
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::broker_registration_request as m;
        let mut t = Self::Theirs::default();
        t.broker_id = kp::BrokerId(o.broker_id);
        t.cluster_id = sb(&o.cluster_id);
        t.incarnation_id = ku(&o.incarnation_id);
        t.listeners = o
            .listeners
            .iter()
            .map(|l| {
                m::Listener::default()
                    .with_name(sb(&l.name))
                    .with_host(sb(&l.host))
                    .with_port(l.port)
                    .with_security_protocol(l.security_protocol)
                    .with_unknown_tagged_fields(ktags(&l.unknown_tagged_fields))
            })
            .collect();
        t.features = o
            .features
            .iter()
            .map(|f| {
                m::Feature::default()
                    .with_name(sb(&f.name))
                    .with_min_supported_version(f.min_supported_version)
                    .with_max_supported_version(f.max_supported_version)
                    .with_unknown_tagged_fields(ktags(&f.unknown_tagged_fields))
            })
            .collect();
        t.rack = osb(&o.rack);
        t.is_migrating_zk_broker = o.is_migrating_zk_broker.unwrap_or(false);
        t.log_dirs = o.log_dirs.iter().flatten().map(ku).collect();
        t.previous_broker_epoch = o.previous_broker_epoch.unwrap_or(-1);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

struct BrokerRegistrationResp;
impl Pair for BrokerRegistrationResp {
    type Ours = ours::BrokerRegistrationResponse;
    type Theirs = kp::BrokerRegistrationResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, _v: i16) {
        let p = "BrokerRegistrationResponse";
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
        c.eq(&format!("{p}.BrokerEpoch"), o.broker_epoch, t.broker_epoch);
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.error_code = o.error_code;
        t.broker_epoch = o.broker_epoch;
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// Random differential runs.

#[test]
fn api_versions_request() {
    run::<ApiVersionsReq>();
}

#[test]
fn api_versions_response() {
    run::<ApiVersionsResp>();
}

#[test]
fn metadata_request() {
    run::<MetadataReq>();
}

#[test]
fn metadata_response() {
    run::<MetadataResp>();
}

#[test]
fn alter_configs_request() {
    run::<AlterConfigsReq>();
}

#[test]
fn alter_configs_response() {
    run::<AlterConfigsResp>();
}

#[test]
fn incremental_alter_configs_request() {
    run::<IncrementalAlterConfigsReq>();
}

#[test]
fn incremental_alter_configs_response() {
    run::<IncrementalAlterConfigsResp>();
}

#[test]
fn update_features_request() {
    run::<UpdateFeaturesReq>();
}

#[test]
fn update_features_response() {
    run::<UpdateFeaturesResp>();
}

#[test]
fn broker_registration_request() {
    run::<BrokerRegistrationReq>();
}

#[test]
fn broker_registration_response() {
    run::<BrokerRegistrationResp>();
}

// ---------------------------------------------------------------------------------------
// Hand-written vectors.

fn hex(s: &str) -> Vec<u8> {
    ours::from_hex(s).expect("valid hex")
}

/// Both codecs decode `bytes`, agree field by field, and re-encode the same bytes.
fn both_decode<P: Pair>(bytes: &[u8], v: i16) -> (P::Ours, P::Theirs) {
    let o = P::Ours::from_bytes(bytes, v).expect("we decode the vector");
    check_forward::<P>(&o, v, bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.to_bytes(v).expect("we re-encode"), bytes);
    let mut buf = KBytes::copy_from_slice(bytes);
    let t = P::Theirs::decode(&mut buf, v).expect("kafka-protocol decodes the vector");
    (o, t)
}

#[test]
fn api_versions_request_v4_vector() {
    // Compact strings: length+1 as uvarint. 0x09 "kafka-rs", 0x06 "0.1.0", no tags.
    let bytes = hex("096b61666b612d727306302e312e3000");
    let (o, t) = both_decode::<ApiVersionsReq>(&bytes, 4);
    assert_eq!(o.client_software_name.as_deref(), Some("kafka-rs"));
    assert_eq!(o.client_software_version.as_deref(), Some("0.1.0"));
    assert!(o.unknown_tagged_fields.is_empty());
    assert_eq!(st(&t.client_software_name), "kafka-rs");
    assert_eq!(st(&t.client_software_version), "0.1.0");
}

#[test]
fn api_versions_response_v4_vector() {
    // ErrorCode 0000 | ApiKeys: compact count 02 (one element), ApiKey 0012, MinVersion
    // 0000, MaxVersion 0004, element tags 00 | ThrottleTimeMs 00000000 | tags 00.
    // 15 bytes; with one more 00 the body has a trailing byte (we reject it).
    let bytes = hex("0000 02 0012 0000 0004 00 00000000 00");
    assert_eq!(bytes.len(), 15);
    let (o, t) = both_decode::<ApiVersionsResp>(&bytes, 4);
    assert_eq!(o.error_code, 0);
    assert_eq!(o.api_keys.len(), 1);
    assert_eq!(
        (
            o.api_keys[0].api_key,
            o.api_keys[0].min_version,
            o.api_keys[0].max_version
        ),
        (18, 0, 4)
    );
    assert_eq!(o.throttle_time_ms, Some(0));
    assert_eq!(o.supported_features.as_deref(), Some(&[][..]));
    assert_eq!(o.finalized_features_epoch, Some(-1));
    assert_eq!(o.zk_migration_ready, Some(false));
    assert_eq!(
        (
            t.api_keys[0].api_key,
            t.api_keys[0].min_version,
            t.api_keys[0].max_version
        ),
        (18, 0, 4)
    );
    assert_eq!(t.finalized_features_epoch, -1);

    // Trailing byte: we reject the whole body; kafka-protocol stops reading after 15.
    let mut long = bytes.clone();
    long.push(0);
    assert!(ours::ApiVersionsResponse::from_bytes(&long, 4).is_err());
    let mut buf = KBytes::from(long);
    kp::ApiVersionsResponse::decode(&mut buf, 4).expect("kafka-protocol ignores the rest");
    assert_eq!(buf.len(), 1);
}

// ---------------------------------------------------------------------------------------
// The two excluded differences, pinned.

/// Difference 1: a tag above `i32::MAX` survives our round trip, but kafka-protocol stores
/// it under a negative `i32` key and its encoder counts it without writing it.
#[test]
fn tag_above_i32_max_is_lost_by_kafka_protocol() {
    let mut o = ours::ApiVersionsRequest {
        client_software_name: Some("a".into()),
        client_software_version: Some("1".into()),
        ..Default::default()
    };
    o.unknown_tagged_fields
        .0
        .insert(0x8000_0000, ours::Bytes(vec![0xab]));
    let bytes = o.to_bytes(3).expect("we encode it");
    // 02 61 | 02 31 | 1 tag: uvarint 0x80000000 = 80 80 80 80 08, size 01, ab.
    assert_eq!(to_hex(&bytes), "0261023101808080800801ab");
    assert_eq!(
        ours::ApiVersionsRequest::from_bytes(&bytes, 3).expect("we decode it"),
        o
    );

    let mut buf = KBytes::from(bytes.clone());
    let t = kp::ApiVersionsRequest::decode(&mut buf, 3).expect("kafka-protocol decodes it");
    assert_eq!(
        t.unknown_tagged_fields.keys().copied().collect::<Vec<_>>(),
        vec![i32::MIN]
    );
    let mut out = BytesMut::new();
    t.encode(&mut out, 3).expect("kafka-protocol encodes it");
    // The count says 1, the field is missing: not even decodable any more.
    assert_eq!(to_hex(&out), "0261023101");
    assert!(ours::ApiVersionsRequest::from_bytes(&out, 3).is_err());
}

/// Difference 2: kafka-protocol writes a null topic name in MetadataResponse v11, where the
/// field is not nullable; we refuse both to encode and to decode it.
#[test]
fn null_topic_name_before_v12_only_kafka_protocol_writes_it() {
    let o = ours::MetadataResponse {
        topics: vec![ours::metadata_response::MetadataResponseTopic {
            name: None,
            ..Default::default()
        }],
        ..Default::default()
    };
    assert!(o.to_bytes(11).is_err(), "null name is not allowed in v11");
    assert!(o.to_bytes(12).is_ok(), "null name is allowed in v12");

    let mut t = kp::MetadataResponse::default();
    t.topics = vec![kp::metadata_response::MetadataResponseTopic::default().with_name(None)];
    let mut out = BytesMut::new();
    t.encode(&mut out, 11).expect("kafka-protocol writes it");
    let err = ours::MetadataResponse::from_bytes(&out, 11).expect_err("we refuse null in v11");
    assert!(format!("{err}").contains("Name"), "{err}");
    // In v12 both agree.
    let mut out12 = BytesMut::new();
    t.encode(&mut out12, 12).expect("kafka-protocol writes it");
    let d = ours::MetadataResponse::from_bytes(&out12, 12).expect("null is fine in v12");
    assert_eq!(d.topics[0].name, None);
    assert_eq!(d.to_bytes(12).expect("we re-encode"), &out12[..]);
}
