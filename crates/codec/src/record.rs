//! KRaft metadata record framing: an unsigned-varint frame version (always 1), the record
//! type (unsigned varint), the record version (unsigned varint), then the record body — as
//! Kafka's `AbstractApiMessageSerde` writes them. Pure; no I/O.

use serde::Serialize;

use super::error::{DecodeError, DecodeErrorKind, EncodeError};
use super::generated::MetadataRecordBody;
use super::reader::Reader;
use super::writer::put_uvarint;
use super::ApiKey;

/// The only metadata record frame version Kafka writes and accepts.
pub const RECORD_FRAME_VERSION: u32 = 1;

/// A framed metadata record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetadataRecord {
    /// The record version.
    pub version: i16,
    /// The record.
    pub body: MetadataRecordBody,
}

impl MetadataRecord {
    /// Reads only the frame of a record: its type and version (a reader of a live log
    /// meets record types kipcheck's codec does not have).
    pub fn head(bytes: &[u8]) -> Result<(i16, i16), DecodeError> {
        let mut r = Reader::new(bytes);
        Self::read_head(&mut r)
    }

    fn read_head(r: &mut Reader<'_>) -> Result<(i16, i16), DecodeError> {
        let at = r.offset();
        let frame_version = r.uvarint().map_err(|e| e.root("record frame version"))?;
        if frame_version != RECORD_FRAME_VERSION {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedFrameVersion {
                    version: frame_version,
                },
                at,
            )
            .root("record frame version"));
        }
        let at = r.offset();
        let key = r.uvarint().map_err(|e| e.root("record type"))?;
        let key = i16::try_from(key).map_err(|_| {
            DecodeError::new(
                DecodeErrorKind::OutOfRange {
                    what: "record type",
                    value: u64::from(key),
                    max: i16::MAX as u64,
                },
                at,
            )
            .root("record type")
        })?;
        let at = r.offset();
        let version = r.uvarint().map_err(|e| e.root("record version"))?;
        let version = i16::try_from(version).map_err(|_| {
            DecodeError::new(
                DecodeErrorKind::OutOfRange {
                    what: "record version",
                    value: u64::from(version),
                    max: i16::MAX as u64,
                },
                at,
            )
            .root("record version")
        })?;
        Ok((key, version))
    }

    /// Decodes one framed record occupying all of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let (key, version) = Self::read_head(&mut r)?;
        let body = MetadataRecordBody::decode(ApiKey(key), &mut r, version)?;
        r.expect_end().map_err(|e| e.root(body.message_name()))?;
        Ok(Self { version, body })
    }

    /// Encodes the framed record.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        put_uvarint(&mut out, RECORD_FRAME_VERSION);
        put_uvarint(&mut out, self.body.api_key().0 as u16 as u32);
        put_uvarint(&mut out, self.version as u16 as u32);
        self.body.encode(&mut out, self.version)?;
        Ok(out)
    }
}
