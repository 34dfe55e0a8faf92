//! The benchmark fixture type and its cross-check: our encoding of a value must decode, with
//! both codecs, to the values given, and `kafka-protocol` must re-encode the very same bytes
//! before anything is timed. Also the small value helpers the fixtures share. No fixture data
//! and no timing here.

use std::fmt::Debug;

use bytes::{Bytes as KBytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kipcheck::codec::{Message, Uuid};

/// A fixture: our value, the same message as a `kafka-protocol` value, and the bytes.
pub(super) struct Fixture<O, T> {
    pub(super) ours: O,
    pub(super) theirs: T,
    pub(super) bytes: Vec<u8>,
    pub(super) version: i16,
}

/// Encodes `ours`, checks both codecs decode the bytes back to the values given, and that
/// `kafka-protocol` re-encodes the very same bytes.
pub(super) fn fixture<O: Message, T: Decodable + Encodable + PartialEq + Debug>(
    ours: O,
    theirs: T,
    version: i16,
) -> Fixture<O, T> {
    let bytes = ours
        .to_bytes(version)
        .expect("our encoder accepts the fixture");
    assert_eq!(
        O::from_bytes(&bytes, version).expect("we decode our own bytes"),
        ours
    );
    let mut buf = KBytes::from(bytes.clone());
    let decoded = T::decode(&mut buf, version).expect("kafka-protocol decodes our bytes");
    assert!(buf.is_empty(), "kafka-protocol left bytes unread");
    assert_eq!(decoded, theirs, "kafka-protocol decodes a different value");
    let mut out = BytesMut::new();
    theirs
        .encode(&mut out, version)
        .expect("kafka-protocol encodes");
    assert_eq!(
        &out[..],
        &bytes[..],
        "kafka-protocol encodes different bytes"
    );
    Fixture {
        ours,
        theirs,
        bytes,
        version,
    }
}

pub(super) fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_owned())
}

pub(super) fn uuid(n: u8) -> Uuid {
    let mut b = [0u8; 16];
    for (i, x) in b.iter_mut().enumerate() {
        *x = n.wrapping_mul(31).wrapping_add(i as u8 * 17);
    }
    Uuid(b)
}

/// `kafka-protocol` does not re-export `uuid`; its `Uuid` implements `TryFrom<Vec<u8>>`,
/// so the target type is left to inference.
pub(super) fn kuuid<U: TryFrom<Vec<u8>>>(u: &Uuid) -> U
where
    U::Error: Debug,
{
    u.0.to_vec().try_into().expect("16 bytes")
}
