//! The differential driver: deterministic random values (a fixed seed, `KIPCHECK_DIFF_SEED`
//! overrides it) sanitized for the version, pushed through both codecs in both directions
//! ([`check_forward`], [`check_reverse`]), with per-version [`Stats`]. Panics on a
//! disagreement (it is the test's assertion); the fuzz target's classification is `fuzz.rs`'.

use arbitrary::{Arbitrary, Unstructured};
use bytes::{Bytes as KBytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};

use super::cmp::Cmp;
use super::disagreement::{Direction, Disagreement, Mismatch};
use super::pair::Pair;
use crate::codec::{to_hex, Message};
use crate::hash::fnv1a64;
use crate::model::ModelRng;

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

/// Up to `max` random bytes from `rng` (the length is random too): the raw input of one
/// `Unstructured`. The length is `next_u64 % (max + 1)`, then whole `next_u64` words in
/// little-endian order, truncated: a seed gives the same bytes forever (a failure's seed
/// reproduces it).
pub fn random_bytes(rng: &mut ModelRng, max: usize) -> Vec<u8> {
    let n = (rng.next_u64() % (max as u64 + 1)) as usize;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(n);
    out
}

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

/// What [`run`] saw for one message and version (printed).
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
pub fn check_forward<P: Pair>(o: &P::Ours, v: i16, bytes: &[u8]) -> Result<(), Box<Disagreement>> {
    let ours = || Some(format!("{o:?}"));
    let fail = |mismatch: Mismatch, theirs: Option<String>| {
        Box::new(Disagreement {
            message: <P::Ours as Message>::NAME,
            version: v,
            direction: Direction::OursToTheirs,
            mismatch,
            bytes: to_hex(bytes),
            ours: ours(),
            theirs,
        })
    };
    let mut buf = KBytes::copy_from_slice(bytes);
    let t = P::Theirs::decode(&mut buf, v).map_err(|e| {
        fail(
            Mismatch::TheirDecode {
                error: format!("{e:#}"),
            },
            None,
        )
    })?;
    let theirs = || Some(format!("{t:?}"));
    if !buf.is_empty() {
        return Err(fail(Mismatch::TheirUnread { unread: buf.len() }, theirs()));
    }
    let mut c = Cmp::default();
    P::compare(&mut c, o, &t, v);
    if !c.errs.is_empty() {
        return Err(fail(Mismatch::Fields { fields: c.errs }, theirs()));
    }
    let mut out = BytesMut::new();
    t.encode(&mut out, v).map_err(|e| {
        fail(
            Mismatch::TheirEncode {
                error: format!("{e:#}"),
            },
            theirs(),
        )
    })?;
    if out[..] != bytes[..] {
        return Err(fail(
            Mismatch::Reencoded {
                ours: to_hex(bytes),
                theirs: to_hex(&out),
            },
            theirs(),
        ));
    }
    Ok(())
}

/// Our value mapped to kafka-protocol's → its bytes → we decode → fields agree, the value
/// is unchanged → we re-encode the same bytes.
pub fn check_reverse<P: Pair>(o: &P::Ours, v: i16) -> Result<(), Box<Disagreement>> {
    let t = P::to_theirs(o, v);
    let mut tb = BytesMut::new();
    let fail = |mismatch: Mismatch, tb: &[u8], ours: Option<String>| {
        Box::new(Disagreement {
            message: <P::Ours as Message>::NAME,
            version: v,
            direction: Direction::TheirsToOurs,
            mismatch,
            bytes: to_hex(tb),
            ours,
            theirs: Some(format!("{t:?}")),
        })
    };
    if let Err(e) = t.encode(&mut tb, v) {
        let error = format!("{e:#}");
        return Err(fail(
            Mismatch::TheirEncode { error },
            &[],
            Some(format!("{o:?}")),
        ));
    }
    let d = P::Ours::from_bytes(&tb, v).map_err(|e| fail(Mismatch::OurDecode(e), &tb, None))?;
    let mut c = Cmp::default();
    P::compare(&mut c, &d, &t, v);
    if !c.errs.is_empty() {
        let fields = c.errs;
        return Err(fail(
            Mismatch::Fields { fields },
            &tb,
            Some(format!("{d:?}")),
        ));
    }
    // The mapping itself is checked too: the value must survive ours → kafka-protocol
    // value → kafka-protocol bytes → ours unchanged.
    if d != *o {
        let (before, after) = (format!("{o:?}"), format!("{d:?}"));
        return Err(fail(Mismatch::ValueChanged { before, after }, &tb, None));
    }
    let ob = d
        .to_bytes(v)
        .map_err(|e| fail(Mismatch::OurEncode(e), &tb, None))?;
    if ob[..] != tb[..] {
        let (ours, theirs) = (to_hex(&ob), to_hex(&tb));
        return Err(fail(Mismatch::Reencoded { ours, theirs }, &tb, None));
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
        let mut rng =
            ModelRng::new(seed ^ (u64::from(v as u16) << 48) ^ name.len() as u64 ^ fnv1a64(name));
        let mut stats = Stats::default();
        for _ in 0..ITERATIONS {
            let data = random_bytes(&mut rng, MAX_INPUT);
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
            failures
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n\n")
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
