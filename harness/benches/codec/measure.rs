//! The timed bodies every codec benchmark runs: decode, encode into a fresh buffer and encode
//! into a reused one, for our codec and for `kafka-protocol`, on one [`Fixture`]. No fixture
//! data and no benchmark names here (those are in `codec.rs`, so the names stay put).

use super::fixture::Fixture;
use bytes::{Bytes as KBytes, BytesMut};
use divan::{black_box, Bencher};
use kafka_protocol::protocol::{Decodable, Encodable};
use kipcheck::codec::Message;

pub(super) fn decode_ours<O: Message, T>(b: Bencher, f: &Fixture<O, T>) {
    b.bench_local(|| O::from_bytes(black_box(&f.bytes), black_box(f.version)).unwrap());
}

pub(super) fn decode_theirs<O, T: Decodable>(b: Bencher, f: &Fixture<O, T>) {
    let bytes = KBytes::from(f.bytes.clone());
    b.bench_local(|| {
        let mut buf = black_box(&bytes).clone();
        T::decode(&mut buf, black_box(f.version)).unwrap()
    });
}

pub(super) fn encode_ours<O: Message, T>(b: Bencher, f: &Fixture<O, T>) {
    b.bench_local(|| black_box(&f.ours).to_bytes(black_box(f.version)).unwrap());
}

pub(super) fn encode_theirs<O, T: Encodable>(b: Bencher, f: &Fixture<O, T>) {
    b.bench_local(|| {
        let mut buf = BytesMut::new();
        black_box(&f.theirs)
            .encode(&mut buf, black_box(f.version))
            .unwrap();
        buf
    });
}

pub(super) fn encode_reuse_ours<O: Message, T>(b: Bencher, f: &Fixture<O, T>) {
    let mut buf = Vec::with_capacity(f.bytes.len());
    b.bench_local(|| {
        buf.clear();
        black_box(&f.ours)
            .encode(&mut buf, black_box(f.version))
            .unwrap();
        black_box(buf.len());
    });
}

pub(super) fn encode_reuse_theirs<O, T: Encodable>(b: Bencher, f: &Fixture<O, T>) {
    let mut buf = BytesMut::with_capacity(f.bytes.len());
    b.bench_local(|| {
        buf.clear();
        black_box(&f.theirs)
            .encode(&mut buf, black_box(f.version))
            .unwrap();
        black_box(buf.len());
    });
}

/// Decodes `bytes` as the type of `_like`.
pub(super) fn decode_as<M: Message>(_like: &M, bytes: &[u8], version: i16) -> M {
    M::from_bytes(bytes, version).unwrap()
}
