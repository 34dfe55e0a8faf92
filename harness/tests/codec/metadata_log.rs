//! The record-batch decoder and the metadata-log observer's records: real batches Apache Kafka
//! 4.4.0's KRaft controller wrote (testdata/metadata-log/, copied from its
//! `__cluster_metadata-0` segment, the bytes a Fetch answer carries), one row per rejection
//! rule with its exact error kind, offset and path, every truncation, and a RegisterBrokerRecord
//! v5 with `StaticConfigs` under tag 2 turned into a `record_appended` observation.

use std::path::Path;

use kipcheck::adapter::metadata_log::{records_of, LogPayload};
use kipcheck::codec::register_broker_record::BrokerStaticConfig;
use kipcheck::codec::{
    decode_record_batches, encode_record_batch, DecodeErrorKind as K, MetadataRecord,
    MetadataRecordBody, RegisterBrokerRecord, Uuid,
};
use serde_json::json;

fn testdata(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/metadata-log")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn kafka_bootstrap_batches_decode_exactly() {
    let bytes = testdata("kafka-4.4.0-bootstrap.bin");
    let got = decode_record_batches(&bytes).unwrap();
    assert_eq!(got.truncated_tail, 0);
    let offsets: Vec<(i64, usize)> = got
        .batches
        .iter()
        .map(|b| (b.base_offset, b.records.len()))
        .collect();
    assert_eq!(
        offsets,
        [(0, 1), (1, 9), (10, 1), (11, 1), (12, 1), (13, 1)]
    );
    assert!(got.batches[0].is_control());
    assert!(got.batches[1..].iter().all(|b| !b.is_control()));
    let (records, last) = records_of(&bytes).unwrap();
    assert_eq!(records.len(), 14);
    assert_eq!(last.map(|l| l.0), Some(14));
    // Offset 0: the LeaderChange control record (type 2) of the first election.
    assert_eq!(records[0].payload, LogPayload::Control { control_type: 2 });
    // Offsets 2-7: the FeatureLevelRecords the storage format wrote; metadata.version first.
    let LogPayload::Decoded(MetadataRecordBody::FeatureLevelRecord(f)) = &records[2].payload else {
        panic!("offset 2: {:?}", records[2]);
    };
    assert_eq!((f.name.as_str(), f.feature_level), ("metadata.version", 33));
    // Offset 13: Kafka's own broker (node 1) registered, RegisterBrokerRecord v4.
    let reg = &records[13];
    assert_eq!((reg.offset, reg.record_type, reg.version), (13, 0, 4));
    let LogPayload::Decoded(MetadataRecordBody::RegisterBrokerRecord(r)) = &reg.payload else {
        panic!("offset 13: {reg:?}");
    };
    assert_eq!((r.broker_id, r.broker_epoch, r.fenced), (1, 13, true));
    // Records kipcheck's codec does not have (BeginTransaction, NoOp, ...) keep their frame.
    assert_eq!(records[1].payload, LogPayload::Undecoded);
    assert_eq!((records[1].record_type, records[1].version), (23, 0));
}

#[test]
fn kafka_registration_of_broker_4242_reads_back() {
    let bytes = testdata("kafka-4.4.0-register-broker-4242.bin");
    let (records, _) = records_of(&bytes).unwrap();
    let [rec] = records.as_slice() else {
        panic!("{records:?}")
    };
    let ev = rec.to_event();
    assert_eq!(ev["event"], "record_appended");
    assert_eq!(ev["offset"], 3330);
    assert_eq!(ev["version"], 4);
    assert_eq!(ev["record_name"], "RegisterBrokerRecord");
    assert_eq!(ev["record"]["BrokerId"], 4242);
    assert_eq!(ev["record"]["BrokerEpoch"], 3330);
    assert_eq!(ev["record"]["EndPoints"][0]["Port"], 9);
}

/// A v2 batch holding one RegisterBrokerRecord v5 with StaticConfigs (tag 2).
fn v5_batch() -> (Vec<u8>, RegisterBrokerRecord) {
    let rec = RegisterBrokerRecord {
        broker_id: 7,
        incarnation_id: Uuid([3; 16]),
        broker_epoch: 42,
        fenced: true,
        static_configs: Some(vec![BrokerStaticConfig {
            name: "num.io.threads".into(),
            value: Some("16".into()),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let framed = MetadataRecord {
        version: 5,
        body: MetadataRecordBody::RegisterBrokerRecord(rec.clone()),
    }
    .to_bytes()
    .unwrap();
    (encode_record_batch(42, 1, 0, &[(None, Some(&framed))]), rec)
}

#[test]
fn register_broker_record_v5_static_configs_become_an_observation() {
    let (bytes, rec) = v5_batch();
    let (records, last) = records_of(&bytes).unwrap();
    assert_eq!(last, Some((43, 1)));
    // What decoding v5 gives: the fields v5 has, at their defaults where unset.
    let want = MetadataRecordBody::RegisterBrokerRecord(rec).project(5);
    assert_eq!(records[0].payload, LogPayload::Decoded(want));
    let ev = records[0].to_event();
    assert_eq!(ev["version"], 5);
    assert_eq!(
        ev["record"]["StaticConfigs"],
        json!([{ "Name": "num.io.threads", "Value": "16" }])
    );
}

#[test]
fn a_record_that_breaks_its_format_is_malformed_with_its_offset() {
    // RegisterBrokerRecord v5 frame, then a body cut after two bytes.
    let value = [0x01, 0x00, 0x05, 0x00, 0x00];
    let bytes = encode_record_batch(0, 0, 0, &[(None, Some(&value))]);
    let (records, _) = records_of(&bytes).unwrap();
    let LogPayload::Malformed(e) = &records[0].payload else {
        panic!("{records:?}")
    };
    assert!(matches!(e.kind(), K::Truncated { .. }), "{e}");
    // The value starts 8 bytes after the record header (length, attributes, deltas, key,
    // value length), so the failing byte is past the 61-byte batch header.
    assert!(e.offset() > 61 && e.offset() <= bytes.len(), "{e}");
}

struct Row {
    rule: &'static str,
    mutate: fn(&mut Vec<u8>),
    kind: K,
    offset: usize,
    path: &'static str,
}

fn fix_crc(b: &mut [u8]) {
    let crc = crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
}

fn crc32c(bytes: &[u8]) -> u32 {
    // Bitwise CRC32C (Castagnoli, reflected 0x82F63B78), independent of the decoder's crate.
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn hostile_batches_are_refused_exactly() {
    let rows = [
        Row {
            rule: "magic 1",
            mutate: |b| b[16] = 1,
            kind: K::UnsupportedMagic { magic: 1 },
            offset: 16,
            path: "RecordBatch.magic",
        },
        Row {
            rule: "a CRC-covered byte flipped",
            mutate: |b| b[30] ^= 0x80,
            kind: K::CrcMismatch {
                stored: 0,
                computed: 0,
            },
            offset: 17,
            path: "RecordBatch.crc",
        },
        Row {
            rule: "gzip compression",
            mutate: |b| {
                b[22] |= 1;
                fix_crc(b)
            },
            kind: K::UnsupportedCompression { codec: 1 },
            offset: 21,
            path: "RecordBatch.attributes",
        },
        Row {
            rule: "batch length below the header",
            mutate: |b| b[8..12].copy_from_slice(&48i32.to_be_bytes()),
            kind: K::OutOfRange {
                what: "record batch length below the v2 header",
                value: 48,
                max: 49,
            },
            offset: 8,
            path: "RecordBatch",
        },
        Row {
            rule: "negative record count",
            mutate: |b| {
                b[57..61].copy_from_slice(&(-1i32).to_be_bytes());
                fix_crc(b)
            },
            kind: K::NegativeLength { len: -1 },
            offset: 57,
            path: "RecordBatch.recordsCount",
        },
        Row {
            rule: "record count above the remaining bytes (checked before allocating)",
            mutate: |b| {
                b[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
                fix_crc(b)
            },
            kind: K::ArrayCountExceedsRemaining {
                count: i32::MAX as u64,
                remaining: 10,
            },
            offset: 57,
            path: "RecordBatch.recordsCount",
        },
        Row {
            rule: "record count one more than the records",
            mutate: |b| {
                b[57..61].copy_from_slice(&2i32.to_be_bytes());
                fix_crc(b)
            },
            kind: K::Truncated {
                needed: 1,
                remaining: 0,
            },
            offset: 71,
            path: "RecordBatch.records[1].length",
        },
        Row {
            rule: "record length above the batch",
            mutate: |b| {
                b[61] = 0x7e; // zigzag 63
                fix_crc(b)
            },
            kind: K::LengthExceedsRemaining {
                what: "record",
                len: 63,
                remaining: 9,
            },
            offset: 61,
            path: "RecordBatch.records[0].length",
        },
        Row {
            rule: "negative record length",
            mutate: |b| {
                b[61] = 0x03; // zigzag -2
                fix_crc(b)
            },
            kind: K::NegativeLength { len: -2 },
            offset: 61,
            path: "RecordBatch.records[0].length",
        },
        Row {
            rule: "value length above the record",
            mutate: |b| {
                b[66] = 0x0a; // zigzag 5, with 4 bytes left
                fix_crc(b)
            },
            kind: K::LengthExceedsRemaining {
                what: "record value",
                len: 5,
                remaining: 4,
            },
            offset: 66,
            path: "RecordBatch.records[0].value",
        },
        Row {
            rule: "record length one more than its fields use",
            mutate: |b| {
                // Record: length 9 -> 10, and one byte more in the batch.
                b[61] = 0x14;
                b.push(0);
                let len = (b.len() - 12) as i32;
                b[8..12].copy_from_slice(&len.to_be_bytes());
                fix_crc(b)
            },
            kind: K::TrailingBytes { count: 1 },
            offset: 71,
            path: "RecordBatch.records[0]",
        },
        Row {
            rule: "a byte after the records, inside the batch",
            mutate: |b| {
                b.push(0);
                let len = (b.len() - 12) as i32;
                b[8..12].copy_from_slice(&len.to_be_bytes());
                fix_crc(b)
            },
            kind: K::TrailingBytes { count: 1 },
            offset: 71,
            path: "RecordBatch.records",
        },
        Row {
            rule: "a signed varint of 6 bytes",
            mutate: |b| {
                // The timestamp delta is a varlong (10 bytes allowed); the offset delta is a
                // varint: make it 0x80 x5 + 0x00 by widening the record.
                let tail = b.split_off(64);
                b.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
                b.extend_from_slice(&tail[1..]);
                b[61] = 0x1c; // record length 14
                let len = (b.len() - 12) as i32;
                b[8..12].copy_from_slice(&len.to_be_bytes());
                fix_crc(b)
            },
            kind: K::SignedVarintTooLong { max_bytes: 5 },
            offset: 64,
            path: "RecordBatch.records[0].offsetDelta",
        },
    ];
    for row in &rows {
        // One record: null key, value "abc" (record length 9 at byte 61, value at 67-69,
        // headers count at 70).
        let mut bytes = encode_record_batch(0, 0, 0, &[(None, Some(b"abc"))]);
        assert_eq!(bytes.len(), 71, "fixture layout");
        (row.mutate)(&mut bytes);
        let err = decode_record_batches(&bytes).expect_err(row.rule);
        let kind_matches = match (err.kind(), row.kind) {
            (K::CrcMismatch { .. }, K::CrcMismatch { .. }) => true,
            (got, want) => got == want,
        };
        assert!(kind_matches, "{}: {err}", row.rule);
        assert_eq!(err.offset(), row.offset, "{}: {err}", row.rule);
        assert_eq!(err.path(), row.path, "{}: {err}", row.rule);
    }
}

#[test]
fn every_cut_of_a_fetch_is_whole_batches_plus_a_tail() {
    let bytes = testdata("kafka-4.4.0-bootstrap.bin");
    let whole = decode_record_batches(&bytes).unwrap();
    let ends: Vec<usize> = whole
        .batches
        .iter()
        .skip(1)
        .map(|b| b.at)
        .chain([bytes.len()])
        .collect();
    for cut in 0..=bytes.len() {
        let got = decode_record_batches(&bytes[..cut]).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        let complete = ends.iter().filter(|&&e| e <= cut).count();
        assert_eq!(got.batches.len(), complete, "cut {cut}");
        let consumed = if complete == 0 { 0 } else { ends[complete - 1] };
        assert_eq!(got.truncated_tail, cut - consumed, "cut {cut}");
    }
}

#[test]
fn seeded_mutations_never_panic_and_errors_stay_inside() {
    let bytes = testdata("kafka-4.4.0-bootstrap.bin");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        let mut m = bytes.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let i = (state % m.len() as u64) as usize;
            m[i] ^= (state >> 32) as u8 | 1;
        }
        match decode_record_batches(&m) {
            Ok(_) => {}
            Err(e) => assert!(e.offset() <= m.len(), "{e}"),
        }
        let _ = records_of(&m);
    }
}
