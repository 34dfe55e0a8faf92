//! Kafka record batches (message format v2, "magic 2"), as a Fetch response's `Records` bytes
//! carry them: the 61-byte batch header, a CRC32C over everything after the CRC field, and the
//! varint-framed records. Pure; no I/O; nothing is allocated before the length or count that
//! sizes it has been checked against the bytes that remain.
//!
//! Strictness: a batch must have magic 2, a length of at least the header, a matching CRC32C,
//! no compression (the KRaft metadata log is written uncompressed), a non-negative record
//! count, and records that fill the batch exactly; every record's declared length must be
//! exactly what its fields use. Errors carry the absolute byte offset in the `Records` bytes.
//! The one leniency is Kafka's own: a fetch may end in the middle of a batch (the log is read
//! up to a byte limit), so an incomplete *last* batch is reported as
//! [`RecordBatches::truncated_tail`] instead of an error.

use serde::Serialize;

use super::error::{DecodeError, DecodeErrorKind};
use super::reader::Reader;

/// The only batch format decoded.
pub const RECORD_BATCH_MAGIC: i8 = 2;
/// Bytes before `batchLength` counts: `baseOffset` (8) + `batchLength` (4).
pub const BATCH_LOG_OVERHEAD: usize = 12;
/// The whole v2 batch header, up to and including `recordsCount`.
pub const BATCH_HEADER_LEN: usize = 61;
/// Offset of the first byte the CRC32C covers (`attributes`), from the batch start.
const CRC_COVERED_FROM: usize = 21;

/// Attribute bits of a v2 batch.
const COMPRESSION_MASK: i16 = 0x07;
const TRANSACTIONAL_FLAG: i16 = 0x10;
const CONTROL_FLAG: i16 = 0x20;

/// A record's key and value for [`encode_record_batch`] (`None` = null).
pub type KeyValue<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// One record of a batch. Key and value borrow the input (`None` = null).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BatchRecord<'a> {
    /// Record attributes (unused by Kafka, always 0 in practice; kept as read).
    pub attributes: i8,
    /// Timestamp relative to the batch's `base_timestamp`.
    pub timestamp_delta: i64,
    /// Offset relative to the batch's `base_offset`.
    pub offset_delta: i32,
    /// The key bytes.
    #[serde(skip)]
    pub key: Option<&'a [u8]>,
    /// The value bytes.
    #[serde(skip)]
    pub value: Option<&'a [u8]>,
    /// Absolute offset (in the input) of the value's first byte, for errors in the value.
    pub value_at: usize,
    /// Header (key, value) pairs.
    #[serde(skip)]
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
}

impl BatchRecord<'_> {
    /// The type of a control record (a record of a control batch): its key is a version
    /// (int16) then the type (int16; Kafka's `ControlRecordType`: 0 abort, 1 commit, 2 leader
    /// change, 3 snapshot header, ...). `None` when the key is null or shorter than 4 bytes.
    pub fn control_type(&self) -> Option<i16> {
        let mut r = Reader::new(self.key?);
        r.i16().ok()?;
        r.i16().ok()
    }
}

/// One decoded v2 record batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordBatch<'a> {
    /// Absolute offset of the batch's first byte in the input.
    pub at: usize,
    /// Log offset of the first record.
    pub base_offset: i64,
    /// The leader epoch the batch was written in.
    pub partition_leader_epoch: i32,
    /// Attributes (compression, timestamp type, transactional, control, delete horizon).
    pub attributes: i16,
    /// `last offset - base_offset`.
    pub last_offset_delta: i32,
    /// Timestamp of the first record.
    pub base_timestamp: i64,
    /// Largest timestamp in the batch.
    pub max_timestamp: i64,
    /// Producer id (-1 if none).
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// Sequence of the first record.
    pub base_sequence: i32,
    /// The CRC32C the batch carries (checked).
    pub crc: u32,
    /// The records.
    pub records: Vec<BatchRecord<'a>>,
}

impl RecordBatch<'_> {
    /// A control batch (KRaft: leader change, snapshot header/footer, voters, kraft.version).
    pub fn is_control(&self) -> bool {
        self.attributes & CONTROL_FLAG != 0
    }

    /// A transactional batch.
    pub fn is_transactional(&self) -> bool {
        self.attributes & TRANSACTIONAL_FLAG != 0
    }

    /// The offset after the batch's last record: where the next fetch starts.
    pub fn next_offset(&self) -> i64 {
        self.base_offset
            .saturating_add(i64::from(self.last_offset_delta))
            .saturating_add(1)
    }
}

/// Every whole batch of a `Records` field, and how many bytes of an incomplete last batch
/// followed them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordBatches<'a> {
    /// The batches, in order.
    pub batches: Vec<RecordBatch<'a>>,
    /// Bytes of a last batch that did not arrive whole (0 when the input ends on a batch).
    pub truncated_tail: usize,
}

/// Decodes every batch in `bytes` (a Fetch partition's `Records`).
pub fn decode_record_batches(bytes: &[u8]) -> Result<RecordBatches<'_>, DecodeError> {
    let mut r = Reader::new(bytes);
    let mut batches = Vec::new();
    while r.remaining() > 0 {
        let rest = r.rest();
        // Kafka's ByteBufferLogInputStream: fewer bytes than the log overhead, or than the
        // declared batch, is the end of a cut-off fetch.
        if rest.len() < BATCH_LOG_OVERHEAD {
            return Ok(RecordBatches {
                batches,
                truncated_tail: rest.len(),
            });
        }
        let declared = i32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]);
        let at = r.offset();
        let min = (BATCH_HEADER_LEN - BATCH_LOG_OVERHEAD) as i32;
        if declared < min {
            return Err(DecodeError::new(
                DecodeErrorKind::OutOfRange {
                    what: "record batch length below the v2 header",
                    value: declared as i64 as u64,
                    max: min as u64,
                },
                at + 8,
            )
            .root("RecordBatch"));
        }
        let total = BATCH_LOG_OVERHEAD + declared as usize;
        if total > rest.len() {
            return Ok(RecordBatches {
                batches,
                truncated_tail: rest.len(),
            });
        }
        let batch = r.take(total)?;
        batches.push(decode_batch(batch, at).map_err(|e| e.root("RecordBatch"))?);
    }
    Ok(RecordBatches {
        batches,
        truncated_tail: 0,
    })
}

/// Decodes one whole batch occupying all of `bytes`, whose first byte is at `at`.
fn decode_batch(bytes: &[u8], at: usize) -> Result<RecordBatch<'_>, DecodeError> {
    let mut r = Reader::with_base(bytes, at);
    let base_offset = r.i64().map_err(|e| e.field("baseOffset"))?;
    let _batch_length = r.i32().map_err(|e| e.field("batchLength"))?;
    let partition_leader_epoch = r.i32().map_err(|e| e.field("partitionLeaderEpoch"))?;
    let magic_at = r.offset();
    let magic = r.i8().map_err(|e| e.field("magic"))?;
    if magic != RECORD_BATCH_MAGIC {
        return Err(
            DecodeError::new(DecodeErrorKind::UnsupportedMagic { magic }, magic_at).field("magic"),
        );
    }
    let crc_at = r.offset();
    let crc = r.u32().map_err(|e| e.field("crc"))?;
    let computed = crc32c::crc32c(&bytes[CRC_COVERED_FROM..]);
    if computed != crc {
        return Err(DecodeError::new(
            DecodeErrorKind::CrcMismatch {
                stored: crc,
                computed,
            },
            crc_at,
        )
        .field("crc"));
    }
    let attributes_at = r.offset();
    let attributes = r.i16().map_err(|e| e.field("attributes"))?;
    let codec = (attributes & COMPRESSION_MASK) as u8;
    if codec != 0 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedCompression { codec },
            attributes_at,
        )
        .field("attributes"));
    }
    let last_offset_delta = r.i32().map_err(|e| e.field("lastOffsetDelta"))?;
    let base_timestamp = r.i64().map_err(|e| e.field("baseTimestamp"))?;
    let max_timestamp = r.i64().map_err(|e| e.field("maxTimestamp"))?;
    let producer_id = r.i64().map_err(|e| e.field("producerId"))?;
    let producer_epoch = r.i16().map_err(|e| e.field("producerEpoch"))?;
    let base_sequence = r.i32().map_err(|e| e.field("baseSequence"))?;
    let count_at = r.offset();
    let count = r.i32().map_err(|e| e.field("recordsCount"))?;
    let count =
        checked_count(&r, i64::from(count), count_at).map_err(|e| e.field("recordsCount"))?;
    let mut records = Vec::with_capacity(count);
    for i in 0..count {
        records.push(decode_record(&mut r).map_err(|e| e.index(i).field("records"))?);
    }
    r.expect_end().map_err(|e| e.field("records"))?;
    Ok(RecordBatch {
        at,
        base_offset,
        partition_leader_epoch,
        attributes,
        last_offset_delta,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        crc,
        records,
    })
}

/// A count read at `at`: not negative, and at most one element per remaining byte.
fn checked_count(r: &Reader<'_>, count: i64, at: usize) -> Result<usize, DecodeError> {
    if count < 0 {
        return Err(DecodeError::new(
            DecodeErrorKind::NegativeLength { len: count },
            at,
        ));
    }
    if count as u64 > r.remaining() as u64 {
        return Err(DecodeError::new(
            DecodeErrorKind::ArrayCountExceedsRemaining {
                count: count as u64,
                remaining: r.remaining(),
            },
            at,
        ));
    }
    Ok(count as usize)
}

/// A varint-length byte string: -1 is null, any other negative length an error.
fn varint_bytes<'a>(
    r: &mut Reader<'a>,
    what: &'static str,
) -> Result<Option<&'a [u8]>, DecodeError> {
    let at = r.offset();
    let len = r.varint()?;
    match len {
        -1 => Ok(None),
        l if l < -1 => Err(DecodeError::new(
            DecodeErrorKind::NegativeLength { len: i64::from(l) },
            at,
        )),
        l if l as usize > r.remaining() => Err(DecodeError::new(
            DecodeErrorKind::LengthExceedsRemaining {
                what,
                len: l as u64,
                remaining: r.remaining(),
            },
            at,
        )),
        l => r.take(l as usize).map(Some),
    }
}

fn decode_record<'a>(r: &mut Reader<'a>) -> Result<BatchRecord<'a>, DecodeError> {
    let len_at = r.offset();
    let len = r.varint().map_err(|e| e.field("length"))?;
    if len < 0 {
        return Err(DecodeError::new(
            DecodeErrorKind::NegativeLength {
                len: i64::from(len),
            },
            len_at,
        )
        .field("length"));
    }
    if len as usize > r.remaining() {
        return Err(DecodeError::new(
            DecodeErrorKind::LengthExceedsRemaining {
                what: "record",
                len: len as u64,
                remaining: r.remaining(),
            },
            len_at,
        )
        .field("length"));
    }
    let base = r.offset();
    let body = r.take(len as usize)?;
    let mut r = Reader::with_base(body, base);
    let attributes = r.i8().map_err(|e| e.field("attributes"))?;
    let timestamp_delta = r.varlong().map_err(|e| e.field("timestampDelta"))?;
    let offset_delta = r.varint().map_err(|e| e.field("offsetDelta"))?;
    let key = varint_bytes(&mut r, "record key").map_err(|e| e.field("key"))?;
    let value = varint_bytes(&mut r, "record value").map_err(|e| e.field("value"))?;
    let value_at = r.offset() - value.map_or(0, <[u8]>::len);
    let count_at = r.offset();
    let count = r.varint().map_err(|e| e.field("headers"))?;
    let count = checked_count(&r, i64::from(count), count_at).map_err(|e| e.field("headers"))?;
    let mut headers = Vec::with_capacity(count);
    for i in 0..count {
        let key = varint_bytes(&mut r, "header key")
            .map_err(|e| e.field("key").index(i).field("headers"))?;
        let Some(key) = key else {
            return Err(
                DecodeError::new(DecodeErrorKind::NullNotAllowed, r.offset())
                    .field("key")
                    .index(i)
                    .field("headers"),
            );
        };
        let value = varint_bytes(&mut r, "header value")
            .map_err(|e| e.field("value").index(i).field("headers"))?;
        headers.push((key, value));
    }
    r.expect_end()?;
    Ok(BatchRecord {
        attributes,
        timestamp_delta,
        offset_delta,
        key,
        value,
        value_at,
        headers,
    })
}

/// Encodes batches for tests, seeds and hostile-input mutations: one uncompressed v2 batch
/// holding `records` (key, value) at consecutive offsets from `base_offset`, with a correct
/// CRC32C. (Kafka writes every field; only the ones a reader checks are parameters.)
pub fn encode_record_batch(
    base_offset: i64,
    partition_leader_epoch: i32,
    attributes: i16,
    records: &[KeyValue<'_>],
) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, (key, value)) in records.iter().enumerate() {
        let mut rec = vec![0u8]; // attributes
        put_varlong(&mut rec, 0); // timestampDelta
        put_varlong(&mut rec, i as i64); // offsetDelta
        for part in [key, value] {
            match part {
                None => put_varlong(&mut rec, -1),
                Some(b) => {
                    put_varlong(&mut rec, b.len() as i64);
                    rec.extend_from_slice(b);
                }
            }
        }
        put_varlong(&mut rec, 0); // headers
        put_varlong(&mut body, rec.len() as i64);
        body.extend_from_slice(&rec);
    }
    let mut out = Vec::with_capacity(BATCH_HEADER_LEN + body.len());
    out.extend_from_slice(&base_offset.to_be_bytes());
    let batch_length = (BATCH_HEADER_LEN - BATCH_LOG_OVERHEAD + body.len()) as i32;
    out.extend_from_slice(&batch_length.to_be_bytes());
    out.extend_from_slice(&partition_leader_epoch.to_be_bytes());
    out.push(RECORD_BATCH_MAGIC as u8);
    out.extend_from_slice(&[0; 4]); // crc, filled below
    out.extend_from_slice(&attributes.to_be_bytes());
    let last_offset_delta = records.len().saturating_sub(1) as i32;
    out.extend_from_slice(&last_offset_delta.to_be_bytes());
    out.extend_from_slice(&0i64.to_be_bytes()); // baseTimestamp
    out.extend_from_slice(&0i64.to_be_bytes()); // maxTimestamp
    out.extend_from_slice(&(-1i64).to_be_bytes()); // producerId
    out.extend_from_slice(&(-1i16).to_be_bytes()); // producerEpoch
    out.extend_from_slice(&(-1i32).to_be_bytes()); // baseSequence
    out.extend_from_slice(&(records.len() as i32).to_be_bytes());
    out.extend_from_slice(&body);
    let crc = crc32c::crc32c(&out[CRC_COVERED_FROM..]);
    out[17..21].copy_from_slice(&crc.to_be_bytes());
    out
}

/// A zigzag varlong (a varint when the value fits 32 bits: the encodings coincide).
fn put_varlong(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_batch_round_trips_through_the_decoder() {
        let bytes = encode_record_batch(7, 3, 0, &[(None, Some(b"abc")), (Some(b"k"), None)]);
        let got = decode_record_batches(&bytes).unwrap();
        assert_eq!(got.truncated_tail, 0);
        let b = &got.batches[0];
        assert_eq!(
            (b.base_offset, b.partition_leader_epoch, b.next_offset()),
            (7, 3, 9)
        );
        assert_eq!(b.records.len(), 2);
        assert_eq!(b.records[0].value, Some(&b"abc"[..]));
        assert_eq!(b.records[0].key, None);
        assert_eq!(
            &bytes[b.records[0].value_at..b.records[0].value_at + 3],
            b"abc"
        );
        assert_eq!(b.records[1].key, Some(&b"k"[..]));
        assert_eq!(b.records[1].offset_delta, 1);
    }

    #[test]
    fn a_control_record_type_is_the_second_int16_of_its_key() {
        let record = |key: Option<&'static [u8]>| BatchRecord {
            attributes: 0,
            timestamp_delta: 0,
            offset_delta: 0,
            key,
            value: None,
            value_at: 0,
            headers: Vec::new(),
        };
        assert_eq!(record(Some(b"\0\0\0\x02")).control_type(), Some(2));
        assert_eq!(record(Some(b"\0\x01\xff\xfe\x07")).control_type(), Some(-2));
        assert_eq!(record(Some(b"\0\0\0")).control_type(), None);
        assert_eq!(record(None).control_type(), None);
    }
}
