//! The `differential_codec` fuzz target: the same bytes through kipcheck's decoder and
//! kafka-protocol's, for a message and version both know (the first input byte picks the
//! message, the second the version, the rest is the body). The outcome must be agreement, or
//! one of the [`Difference`]s below, each documented and pinned by a test in
//! `harness/tests/differential_kafka_protocol.rs`; anything else panics.
//!
//! Agreement means: both reject the bytes; or both accept them, every field of the version
//! agrees ([`Pair::compare`]) and both re-encode the same (canonical) bytes.
//!
//! kafka-protocol 0.18 preallocates an array from its wire count before reading an element
//! (`Vec::with_capacity(n)`, the KAFKA-14063 pattern): five bytes can ask for gigabytes and
//! abort the process. So kafka-protocol only sees inputs whose whole structure our decoder
//! has checked: inputs we accept; inputs we reject only for trailing bytes (the message
//! before them we checked); and inputs we reject only for nulls the version forbids, which
//! we check by decoding them again with each such null replaced by an empty value of the
//! same width (compact `00` → `01`, `ffff` → `0000`, `ffffffff` → `00000000`). Anything else
//! we reject is [`Difference::NotCompared`].

use bytes::{Buf, Bytes as KBytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};

use super::pairs::*;
use super::{sanitize, Cmp, Pair};
use crate::codec::{to_hex, DecodeErrorKind, Message};

/// A classified, documented disagreement between the two decoders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Difference {
    /// We reject bytes after the message (`TrailingBytes`); kafka-protocol stops reading
    /// where the message ends and leaves them in the buffer. The prefix must agree.
    TrailingBytes,
    /// Null in a field that is not nullable in this version: we reject it
    /// (`NullNotAllowed`), kafka-protocol does not check nullability per version.
    NullWhereVersionForbids,
    /// An unknown tagged field with a tag above `i32::MAX`: kafka-protocol keeps tags as
    /// `i32` and stores it under a negative key; we keep it exactly.
    TagAboveI32Max,
    /// We reject the input before checking all of it (a count or length beyond the
    /// remaining bytes, a bad varint, string or tag, ...): kafka-protocol would read on and
    /// may preallocate an unchecked count, so it is not run on such input (module doc).
    NotCompared,
}

/// Runs one input; see the module doc. Returns what happened: `None` for agreement.
pub fn differential_codec(data: &[u8]) -> Option<Difference> {
    let [m, v, body @ ..] = data else {
        return None;
    };
    match m % 12 {
        0 => one::<ApiVersionsReq>(*v, body),
        1 => one::<ApiVersionsResp>(*v, body),
        2 => one::<MetadataReq>(*v, body),
        3 => one::<MetadataResp>(*v, body),
        4 => one::<AlterConfigsReq>(*v, body),
        5 => one::<AlterConfigsResp>(*v, body),
        6 => one::<IncrementalAlterConfigsReq>(*v, body),
        7 => one::<IncrementalAlterConfigsResp>(*v, body),
        8 => one::<UpdateFeaturesReq>(*v, body),
        9 => one::<UpdateFeaturesResp>(*v, body),
        10 => one::<BrokerRegistrationReq>(*v, body),
        _ => one::<BrokerRegistrationResp>(*v, body),
    }
}

/// The version `v` picks among the versions both codecs support.
fn pick_version<P: Pair>(v: u8) -> i16 {
    let (lo, hi) = (*P::VERSIONS.start(), *P::VERSIONS.end());
    lo + (i16::from(v) % (hi - lo + 1))
}

fn one<P: Pair>(v: u8, bytes: &[u8]) -> Option<Difference> {
    let v = pick_version::<P>(v);
    let name = <P::Ours as Message>::NAME;
    let fail = |what: String| -> ! {
        panic!(
            "{name} v{v}: kipcheck and kafka-protocol disagree: {what}\n  bytes: {}",
            to_hex(bytes)
        )
    };
    let ours = P::Ours::from_bytes(bytes, v);
    if let Err(e) = &ours {
        if !structure_checked::<P>(bytes, v, e) {
            return Some(Difference::NotCompared);
        }
    }
    let mut buf = KBytes::copy_from_slice(bytes);
    let theirs = P::Theirs::decode(&mut buf, v);
    match (ours, theirs) {
        (Err(_), Err(_)) => None,
        (Ok(o), Ok(t)) => {
            if !buf.is_empty() {
                fail(format!(
                    "we decode all bytes, kafka-protocol leaves {} unread",
                    buf.remaining()
                ));
            }
            if sanitize(&o, v) != o {
                return Some(Difference::TagAboveI32Max);
            }
            agree::<P>(&o, &t, v).unwrap_or_else(|e| fail(e));
            None
        }
        (Err(e), Ok(t)) => match e.kind() {
            DecodeErrorKind::TrailingBytes { count } => {
                if buf.remaining() != count {
                    fail(format!(
                        "we see {count} trailing bytes, kafka-protocol leaves {}",
                        buf.remaining()
                    ));
                }
                let prefix = &bytes[..bytes.len() - count];
                let o = P::Ours::from_bytes(prefix, v)
                    .unwrap_or_else(|e| fail(format!("the prefix does not decode: {e}")));
                if sanitize(&o, v) == o {
                    agree::<P>(&o, &t, v).unwrap_or_else(|e| fail(e));
                }
                Some(Difference::TrailingBytes)
            }
            DecodeErrorKind::NullNotAllowed => Some(Difference::NullWhereVersionForbids),
            _ => fail(format!("we reject ({e}), kafka-protocol accepts {t:?}")),
        },
        (Ok(o), Err(e)) => {
            if sanitize(&o, v) != o {
                return Some(Difference::TagAboveI32Max);
            }
            fail(format!("we accept {o:?}, kafka-protocol rejects: {e:#}"))
        }
    }
}

/// True if our decoder has checked every count and length in `bytes` although it rejected
/// them with `err`: only trailing bytes, or nulls the version forbids (each replaced by an
/// empty value of the same width, the input then decodes).
fn structure_checked<P: Pair>(bytes: &[u8], v: i16, err: &crate::codec::DecodeError) -> bool {
    let mut patched = bytes.to_vec();
    let mut err = err.clone();
    for _ in 0..64 {
        match err.kind() {
            DecodeErrorKind::TrailingBytes { .. } => return true,
            DecodeErrorKind::NullNotAllowed => {}
            _ => return false,
        }
        let at = err.offset();
        let widths: &[usize] = match patched.get(at) {
            Some(0x00) => &[1],
            Some(0xff) => &[2, 4],
            _ => return false,
        };
        let mut next = None;
        for &w in widths {
            let Some(marker) = patched.get(at..at + w) else {
                continue;
            };
            if w > 1 && marker.iter().any(|&b| b != 0xff) {
                continue;
            }
            let mut candidate = patched.clone();
            if w == 1 {
                candidate[at] = 0x01;
            } else {
                candidate[at..at + w].fill(0);
            }
            match P::Ours::from_bytes(&candidate, v) {
                Ok(_) => return true,
                Err(e)
                    if e.offset() > at
                        || matches!(e.kind(), DecodeErrorKind::TrailingBytes { .. }) =>
                {
                    next = Some((candidate, e));
                    break;
                }
                Err(_) => {}
            }
        }
        let Some((candidate, e)) = next else {
            return false;
        };
        patched = candidate;
        err = e;
    }
    false
}

/// Fields agree and both codecs re-encode the same bytes.
fn agree<P: Pair>(o: &P::Ours, t: &P::Theirs, v: i16) -> Result<(), String> {
    let mut c = Cmp::default();
    P::compare(&mut c, o, t, v);
    if !c.errs.is_empty() {
        return Err(format!(
            "fields differ:\n    {}\n  ours: {o:?}\n  kafka-protocol: {t:?}",
            c.errs.join("\n    ")
        ));
    }
    let ob = o
        .to_bytes(v)
        .map_err(|e| format!("we cannot re-encode what we decoded: {e}"))?;
    let mut tb = BytesMut::new();
    t.encode(&mut tb, v)
        .map_err(|e| format!("kafka-protocol cannot re-encode what it decoded: {e:#}"))?;
    if ob[..] != tb[..] {
        return Err(format!(
            "re-encodings differ:\n  ours:           {}\n  kafka-protocol: {}",
            to_hex(&ob),
            to_hex(&tb)
        ));
    }
    Ok(())
}
