//! The [`Message`] trait every generated top-level message, header and record implements,
//! and [`VersionRange`]. Version checks and the root of error paths live here, once.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::error::{DecodeError, DecodeErrorKind, EncodeError};
use super::reader::Reader;
use super::writer::{Sink, SizeCounter};
use super::ApiKey;

/// An inclusive range of versions; `max < min` is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct VersionRange {
    /// Lowest version.
    pub min: i16,
    /// Highest version (`i16::MAX` for open-ended flexible ranges).
    pub max: i16,
}

impl VersionRange {
    /// A range.
    pub const fn new(min: i16, max: i16) -> Self {
        Self { min, max }
    }

    /// True if `v` is in the range.
    pub const fn contains(self, v: i16) -> bool {
        self.min <= v && v <= self.max
    }

    /// True if the range is empty.
    pub const fn is_empty(self) -> bool {
        self.max < self.min
    }

    /// The versions, lowest first.
    pub fn iter(self) -> impl Iterator<Item = i16> {
        self.min..=self.max
    }
}

impl std::fmt::Display for VersionRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.max == i16::MAX {
            write!(f, "{}+", self.min)
        } else if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

/// The capacity [`Message::to_bytes`] starts with: most messages fit, and a size pass
/// first would cost more than the few reallocations of the larger ones.
const TO_BYTES_INITIAL_CAPACITY: usize = 1024;

/// A top-level wire message (request or response body, header, or metadata record).
pub trait Message:
    Sized + Clone + PartialEq + std::fmt::Debug + Default + Serialize + DeserializeOwned
{
    /// Kafka's name, e.g. `PushConfigRequest`.
    const NAME: &'static str;
    /// The API key (or metadata record type) in the JSON definition; `None` for headers.
    const API_KEY: Option<ApiKey>;
    /// Versions this definition covers.
    const VALID_VERSIONS: VersionRange;
    /// Versions that use compact encodings and tagged fields.
    const FLEXIBLE_VERSIONS: VersionRange;

    /// Decodes the body at `version` without checking the version (generated).
    fn decode_body(r: &mut Reader<'_>, version: i16) -> Result<Self, DecodeError>;
    /// Encodes the body at `version` without checking the version (generated).
    fn encode_body<S: Sink>(&self, s: &mut S, version: i16) -> Result<(), EncodeError>;
    /// The projection onto `version` without checking the version (generated).
    fn project_body(&self, version: i16) -> Self;

    /// True if `version` is flexible.
    fn is_flexible(version: i16) -> bool {
        Self::FLEXIBLE_VERSIONS.contains(version)
    }

    /// Decodes at `version`, which must be valid. The reader may hold more bytes after it.
    fn decode(r: &mut Reader<'_>, version: i16) -> Result<Self, DecodeError> {
        if !Self::VALID_VERSIONS.contains(version) {
            return Err(r
                .error(DecodeErrorKind::UnsupportedVersion {
                    message: Self::NAME,
                    version,
                })
                .root(Self::NAME));
        }
        Self::decode_body(r, version).map_err(|e| e.root(Self::NAME))
    }

    /// Decodes all of `bytes` at `version`; trailing bytes are an error.
    fn from_bytes(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let m = Self::decode(&mut r, version)?;
        r.expect_end().map_err(|e| e.root(Self::NAME))?;
        Ok(m)
    }

    /// Encodes at `version`, which must be valid.
    fn encode<S: Sink>(&self, s: &mut S, version: i16) -> Result<(), EncodeError> {
        if !Self::VALID_VERSIONS.contains(version) {
            return Err(EncodeError::UnsupportedVersion {
                message: Self::NAME,
                version,
            });
        }
        self.encode_body(s, version)
            .map_err(|e| e.within(Self::NAME))
    }

    /// The encoded body length at `version`.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        let mut c = SizeCounter::default();
        self.encode(&mut c, version)?;
        Ok(c.0)
    }

    /// Encodes at `version` into a new vector, which starts with room for 1 KiB so that
    /// most messages never regrow it.
    fn to_bytes(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(TO_BYTES_INITIAL_CAPACITY);
        self.encode(&mut out, version)?;
        Ok(out)
    }

    /// This value as `version` would decode it from its own encoding: fields that do not
    /// exist in `version` become `None`, present ones that were `None` take their defaults.
    fn project(&self, version: i16) -> Self {
        self.project_body(version)
    }
}
