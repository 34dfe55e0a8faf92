//! The `record_batches` target: the record-batch decoder (`codec::decode_record_batches`) and
//! the metadata-log observer's record decoding on any bytes. Oracles: never a panic; a batch
//! that decodes borrows its values at the offsets it reports; a well-formed batch built around
//! the input decodes back to exactly its records, and any byte the CRC32C covers, once
//! flipped, is refused with `CrcMismatch`.

use crate::adapter::metadata_log::records_of;
use crate::codec::{decode_record_batches, encode_record_batch, DecodeErrorKind, KeyValue};

/// Runs the oracles on `data`.
pub fn record_batches(data: &[u8]) {
    if let Ok(got) = decode_record_batches(data) {
        for b in &got.batches {
            assert!(b.at < data.len(), "batch offset {} outside the input", b.at);
            for r in &b.records {
                if let Some(v) = r.value {
                    assert_eq!(data.get(r.value_at..r.value_at + v.len()), Some(v));
                }
            }
        }
    }
    let _ = records_of(data);
    // A valid batch whose record values are the input cut in up to four pieces.
    let cuts = data.first().map_or(1, |b| usize::from(b % 4) + 1);
    let piece = data.len().div_ceil(cuts).max(1);
    let values: Vec<&[u8]> = data.chunks(piece).collect();
    let records: Vec<KeyValue<'_>> = values.iter().map(|v| (None, Some(*v))).collect();
    let batch = encode_record_batch(5, 2, 0, &records);
    let got = decode_record_batches(&batch).expect("a well-formed batch decodes");
    assert_eq!(got.truncated_tail, 0);
    let [b] = got.batches.as_slice() else {
        panic!("one batch expected, got {}", got.batches.len())
    };
    let values_back: Vec<&[u8]> = b.records.iter().filter_map(|r| r.value).collect();
    assert_eq!(values_back, values);
    // Flip one CRC-covered byte (after the CRC field), chosen by the input.
    let covered = 21..batch.len();
    let pos = covered.start + data.len() % covered.len();
    let mut bad = batch.clone();
    bad[pos] ^= 0x01;
    let err = decode_record_batches(&bad).expect_err("a flipped byte is refused");
    assert!(
        matches!(err.kind(), DecodeErrorKind::CrcMismatch { .. }),
        "flipped byte {pos}: {err}"
    );
}
