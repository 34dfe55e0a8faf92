//! The `differential_codec` fuzz target: the same bytes through kipcheck's decoder and
//! kafka-protocol's, for a message and version both know (the first input byte picks the
//! message, the second the version, the rest is the body). The outcome must be agreement, or
//! one of the [`KnownDifference`]s (TrailingBytes, NullWhereVersionForbids, TagAboveI32Max,
//! NotCompared), each documented and pinned by a test in
//! `harness/tests/codec/differential_kafka_protocol.rs`; anything else panics.
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
//! we reject is [`KnownDifference::NotCompared`].

use bytes::{Buf, Bytes as KBytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};

use super::{generated, Cmp, Direction, Disagreement, Mismatch, Pair, Visit};
use crate::codec::{to_hex, DecodeErrorKind, Message};
use crate::oracle::known::{self, KnownDifference};

/// Runs one input; see the module doc. Returns what happened: `None` for agreement.
pub fn differential_codec(data: &[u8]) -> Option<KnownDifference> {
    let [m, v, body @ ..] = data else {
        return None;
    };
    struct One<'a>(u8, &'a [u8]);
    impl Visit for One<'_> {
        type Out = Option<KnownDifference>;
        fn visit<P: Pair>(self) -> Self::Out {
            one::<P>(self.0, self.1)
        }
    }
    generated::visit(*m, One(*v, body))
}

/// Our value's unknown tags include one above `i32::MAX` (kafka-protocol cannot hold it).
fn tag_above_i32_max<M: Message>(o: &M) -> Option<KnownDifference> {
    known::tag_above_i32_max(&serde_json::to_value(o).expect("messages serialize"))
}

/// The version `v` picks among the versions both codecs support.
fn pick_version<P: Pair>(v: u8) -> i16 {
    let (lo, hi) = (*P::VERSIONS.start(), *P::VERSIONS.end());
    lo + (i16::from(v) % (hi - lo + 1))
}

fn one<P: Pair>(v: u8, bytes: &[u8]) -> Option<KnownDifference> {
    let v = pick_version::<P>(v);
    let name = <P::Ours as Message>::NAME;
    let fail = |mismatch: Mismatch, ours: Option<String>, theirs: Option<String>| -> ! {
        let d = Disagreement {
            message: name,
            version: v,
            direction: Direction::SameBytes,
            mismatch,
            bytes: to_hex(bytes),
            ours,
            theirs,
        };
        panic!("kipcheck and kafka-protocol disagree: {d}")
    };
    let dbg = |x: &dyn std::fmt::Debug| Some(format!("{x:?}"));
    let ours = P::Ours::from_bytes(bytes, v);
    if let Err(e) = &ours {
        if !structure_checked::<P>(bytes, v, e) {
            return Some(KnownDifference::NotCompared);
        }
    }
    let mut buf = KBytes::copy_from_slice(bytes);
    let theirs = P::Theirs::decode(&mut buf, v);
    match (ours, theirs) {
        (Err(_), Err(_)) => None,
        (Ok(o), Ok(t)) => {
            if !buf.is_empty() {
                let unread = buf.remaining();
                fail(Mismatch::TheirUnread { unread }, dbg(&o), dbg(&t));
            }
            if let Some(k) = tag_above_i32_max(&o) {
                return Some(k);
            }
            agree::<P>(&o, &t, v).unwrap_or_else(|e| fail(e, dbg(&o), dbg(&t)));
            None
        }
        (Err(e), Ok(t)) => match known::kafka_protocol_accepts(&e.kind(), buf.remaining()) {
            Some(KnownDifference::TrailingBytes) => {
                let prefix = &bytes[..bytes.len() - buf.remaining()];
                let o = P::Ours::from_bytes(prefix, v)
                    .unwrap_or_else(|e| fail(Mismatch::OurDecode(e), None, dbg(&t)));
                if tag_above_i32_max(&o).is_none() {
                    agree::<P>(&o, &t, v).unwrap_or_else(|e| fail(e, dbg(&o), dbg(&t)));
                }
                Some(KnownDifference::TrailingBytes)
            }
            Some(k) => Some(k),
            None => {
                let unread = buf.remaining();
                fail(Mismatch::OnlyTheyAccept { ours: e, unread }, None, dbg(&t))
            }
        },
        (Ok(o), Err(e)) => {
            if let Some(k) = tag_above_i32_max(&o) {
                return Some(k);
            }
            let error = format!("{e:#}");
            fail(Mismatch::OnlyWeAccept { error }, dbg(&o), None)
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
fn agree<P: Pair>(o: &P::Ours, t: &P::Theirs, v: i16) -> Result<(), Mismatch> {
    let mut c = Cmp::default();
    P::compare(&mut c, o, t, v);
    if !c.errs.is_empty() {
        return Err(Mismatch::Fields { fields: c.errs });
    }
    let ob = o.to_bytes(v).map_err(Mismatch::OurEncode)?;
    let mut tb = BytesMut::new();
    t.encode(&mut tb, v).map_err(|e| Mismatch::TheirEncode {
        error: format!("{e:#}"),
    })?;
    if ob[..] != tb[..] {
        let (ours, theirs) = (to_hex(&ob), to_hex(&tb));
        return Err(Mismatch::Reencoded { ours, theirs });
    }
    Ok(())
}
