//! Typed codec errors: what failed, where in the message, and at which byte.
//!
//! A [`DecodeError`] is built only on the failure path. The primitive that fails records
//! the kind and the absolute byte offset; each enclosing field, array element and message
//! adds one path segment while the error travels up, so the rendered error reads
//! `PushConfigRequest.Configs[3].ConfigKey at byte 57: string length 70000 exceeds the 12
//! remaining bytes`. This module must not allocate on the success path.

use std::fmt;

use super::{ApiKey, ApiVersion};

/// What went wrong while decoding untrusted bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// Fewer bytes remained than a fixed-size value needs.
    Truncated {
        /// Bytes the value needs.
        needed: usize,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A length prefix (string, bytes, tagged field) claims more bytes than remain.
    LengthExceedsRemaining {
        /// What the length prefix is for: "string", "bytes", "tagged field".
        what: &'static str,
        /// The length read from the wire.
        len: u64,
        /// Bytes that were left.
        remaining: usize,
    },
    /// An array count is larger than the bytes that remain (checked before allocating).
    ArrayCountExceedsRemaining {
        /// The element count read from the wire.
        count: u64,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A negative length other than the null marker -1.
    NegativeLength {
        /// The length read from the wire.
        len: i64,
    },
    /// Null in a field that is not nullable in this version.
    NullNotAllowed,
    /// A string longer than Java's limit of 32767 bytes.
    StringTooLong {
        /// The length read from the wire.
        len: u64,
    },
    /// String bytes that are not UTF-8.
    InvalidUtf8 {
        /// Offset of the first invalid byte within the string.
        valid_up_to: usize,
    },
    /// An unsigned varint longer than 5 bytes or above `u32::MAX`.
    VarintTooLong,
    /// The same tag appears twice in one tagged-field section.
    DuplicateTag {
        /// The repeated tag.
        tag: u32,
    },
    /// A known tagged field whose value did not use exactly its declared size.
    TaggedFieldSize {
        /// The tag.
        tag: u32,
        /// Declared size.
        declared: usize,
        /// Bytes the value used.
        used: usize,
    },
    /// Bytes were left after the message ended.
    TrailingBytes {
        /// How many bytes were left.
        count: usize,
    },
    /// The version is not one of the message's valid versions.
    UnsupportedVersion {
        /// The message, header or record name.
        message: &'static str,
        /// The version asked for.
        version: ApiVersion,
    },
    /// The API key is not one this codec knows.
    UnknownApiKey {
        /// The API key read from the wire.
        api_key: ApiKey,
    },
    /// A frame's size prefix is negative.
    NegativeFrameSize {
        /// The size read from the wire.
        size: i32,
    },
    /// A frame's size prefix exceeds the configured maximum.
    FrameTooLarge {
        /// The size read from the wire.
        size: u64,
        /// The configured maximum.
        max: usize,
    },
    /// A number read from the wire does not fit the field it decodes into (e.g. a record
    /// type varint above `i16::MAX`).
    OutOfRange {
        /// What the number is.
        what: &'static str,
        /// The value read.
        value: u64,
        /// The largest value accepted.
        max: u64,
    },
    /// A metadata record frame version other than 1.
    UnsupportedFrameVersion {
        /// The frame version read.
        version: u32,
    },
    /// A signed (zigzag) varint longer than 5 bytes or a varlong longer than 10.
    SignedVarintTooLong {
        /// The most bytes the value may use (5 or 10).
        max_bytes: u8,
    },
    /// A record batch whose magic byte is not 2 (the only format kipcheck decodes).
    UnsupportedMagic {
        /// The magic byte read.
        magic: i8,
    },
    /// A record batch whose stored CRC32C differs from the CRC32C of its bytes.
    CrcMismatch {
        /// The CRC the batch carries.
        stored: u32,
        /// The CRC of the bytes it covers.
        computed: u32,
    },
    /// A compressed record batch (attributes bits 0-2 non-zero).
    UnsupportedCompression {
        /// The compression codec number (1 gzip, 2 snappy, 3 lz4, 4 zstd).
        codec: u8,
    },
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { needed, remaining } => write!(
                f,
                "truncated: needs {needed} bytes but only {remaining} remain"
            ),
            Self::LengthExceedsRemaining {
                what,
                len,
                remaining,
            } => write!(
                f,
                "{what} length {len} exceeds the {remaining} remaining bytes"
            ),
            Self::ArrayCountExceedsRemaining { count, remaining } => write!(
                f,
                "array count {count} exceeds the {remaining} remaining bytes"
            ),
            Self::NegativeLength { len } => write!(f, "invalid negative length {len}"),
            Self::NullNotAllowed => f.write_str("null in a non-nullable field"),
            Self::StringTooLong { len } => write!(
                f,
                "string length {len} exceeds the maximum of {}",
                super::limits::MAX_STRING_LEN
            ),
            Self::InvalidUtf8 { valid_up_to } => {
                write!(f, "invalid UTF-8 after {valid_up_to} valid bytes")
            }
            Self::VarintTooLong => f.write_str("unsigned varint longer than 5 bytes"),
            Self::DuplicateTag { tag } => write!(f, "duplicate tagged field {tag}"),
            Self::TaggedFieldSize {
                tag,
                declared,
                used,
            } => write!(
                f,
                "tagged field {tag} declares {declared} bytes but its value used {used}"
            ),
            Self::TrailingBytes { count } => write!(f, "{count} trailing bytes"),
            Self::UnsupportedVersion { message, version } => {
                write!(f, "unsupported version {version} of {message}")
            }
            Self::UnknownApiKey { api_key } => write!(f, "unknown API key {}", api_key.0),
            Self::NegativeFrameSize { size } => write!(f, "negative frame size {size}"),
            Self::FrameTooLarge { size, max } => {
                write!(f, "frame size {size} exceeds the maximum of {max}")
            }
            Self::OutOfRange { what, value, max } => {
                write!(f, "{what} {value} is out of range (at most {max})")
            }
            Self::UnsupportedFrameVersion { version } => {
                write!(f, "unsupported record frame version {version}")
            }
            Self::SignedVarintTooLong { max_bytes } => {
                write!(f, "signed varint longer than {max_bytes} bytes")
            }
            Self::UnsupportedMagic { magic } => {
                write!(f, "record batch magic {magic} (only magic 2 is decoded)")
            }
            Self::CrcMismatch { stored, computed } => write!(
                f,
                "record batch CRC32C {stored:#010x} does not match the computed {computed:#010x}"
            ),
            Self::UnsupportedCompression { codec } => {
                write!(f, "compressed record batch (codec {codec}) is not decoded")
            }
        }
    }
}

/// One step of the path from the message to the failing field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A message, header or struct name at the root.
    Root(&'static str),
    /// A named field.
    Field(&'static str),
    /// An array element.
    Index(usize),
    /// A tagged field with no name in this version.
    Tag(u32),
}

/// A decode failure: kind, absolute byte offset and field path.
///
/// Boxed so that `Result<T, DecodeError>` stays one pointer wide on the success path.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct DecodeErrorInner {
    kind: DecodeErrorKind,
    offset: usize,
    /// Innermost segment first (segments are pushed while the error travels up).
    path: Vec<PathSegment>,
}

impl DecodeError {
    /// A new error at absolute byte `offset`.
    #[cold]
    pub fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        Self(Box::new(DecodeErrorInner {
            kind,
            offset,
            path: Vec::new(),
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> DecodeErrorKind {
        self.0.kind
    }

    /// Absolute byte offset of the value that failed.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The field path, outermost first, e.g. `PushConfigRequest.Configs[3].ConfigKey`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.0.path.iter().rev() {
            match seg {
                PathSegment::Root(name) => out.push_str(name),
                PathSegment::Field(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                PathSegment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
                PathSegment::Tag(t) => {
                    out.push_str(&format!(".<tag {t}>"));
                }
            }
        }
        out
    }

    /// Adds the enclosing field name.
    #[cold]
    pub fn field(mut self, name: &'static str) -> Self {
        self.0.path.push(PathSegment::Field(name));
        self
    }

    /// Adds the enclosing array index.
    #[cold]
    pub fn index(mut self, i: usize) -> Self {
        self.0.path.push(PathSegment::Index(i));
        self
    }

    /// Adds the enclosing unknown tag.
    #[cold]
    pub fn tag(mut self, tag: u32) -> Self {
        self.0.path.push(PathSegment::Tag(tag));
        self
    }

    /// Adds the root message name, unless a root is already present.
    #[cold]
    pub fn root(mut self, name: &'static str) -> Self {
        if !matches!(self.0.path.last(), Some(PathSegment::Root(_))) {
            self.0.path.push(PathSegment::Root(name));
        }
        self
    }

    /// Shifts the offset by `base` (used when a body was decoded from a sub-slice).
    pub fn shifted(mut self, base: usize) -> Self {
        self.0.offset += base;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            write!(f, "at byte {}: {}", self.0.offset, self.0.kind)
        } else {
            write!(f, "{path} at byte {}: {}", self.0.offset, self.0.kind)
        }
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodeError({self})")
    }
}

impl std::error::Error for DecodeError {}

/// Why a message could not be encoded at the requested version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The version is not one of the message's valid versions.
    #[error("unsupported version {version} of {message}")]
    UnsupportedVersion {
        /// Message name.
        message: &'static str,
        /// Version asked for.
        version: ApiVersion,
    },
    /// A non-ignorable field holds a non-default value in a version that lacks it.
    #[error("{field} is set to a non-default value but does not exist in version {version}")]
    FieldNotAvailable {
        /// Field path, e.g. `BrokerRegistrationRequest.StaticConfigs`.
        field: String,
        /// Version asked for.
        version: ApiVersion,
    },
    /// Null in a field that is not nullable in this version.
    #[error("{field} is null but is not nullable in version {version}")]
    NullNotAllowed {
        /// Field path.
        field: String,
        /// Version asked for.
        version: ApiVersion,
    },
    /// A string over 32767 bytes.
    #[error("{field} is {len} bytes long; strings are limited to 32767")]
    StringTooLong {
        /// Field path.
        field: String,
        /// Its length.
        len: usize,
    },
    /// Unknown tagged fields in a version that has no tagged fields.
    #[error("{field} has unknown tagged fields but version {version} is not flexible")]
    TaggedFieldsNotSupported {
        /// Struct path.
        field: String,
        /// Version asked for.
        version: ApiVersion,
    },
    /// An unknown tagged field uses the tag of a known field.
    #[error("{field} has an unknown tagged field with tag {tag}, which is a known tag")]
    DuplicateTag {
        /// Struct path.
        field: String,
        /// The tag.
        tag: u32,
    },
    /// A length that does not fit the wire type.
    #[error("{field} is too long for the wire ({len})")]
    TooLong {
        /// Field path.
        field: String,
        /// Its length.
        len: usize,
    },
}

impl EncodeError {
    /// Prefixes the field path with an array index `[i]` (used while the error travels up).
    #[cold]
    #[inline(never)]
    pub fn within_index(self, i: usize) -> Self {
        self.within(&format!("[{i}]"))
    }

    /// Prefixes the field path with an enclosing name (used while the error travels up).
    #[cold]
    #[inline(never)]
    pub fn within(self, outer: &str) -> Self {
        let join = |f: String| {
            if f.is_empty() {
                outer.to_owned()
            } else if f.starts_with('[') {
                format!("{outer}{f}")
            } else {
                format!("{outer}.{f}")
            }
        };
        match self {
            Self::FieldNotAvailable { field, version } => Self::FieldNotAvailable {
                field: join(field),
                version,
            },
            Self::NullNotAllowed { field, version } => Self::NullNotAllowed {
                field: join(field),
                version,
            },
            Self::StringTooLong { field, len } => Self::StringTooLong {
                field: join(field),
                len,
            },
            Self::TaggedFieldsNotSupported { field, version } => Self::TaggedFieldsNotSupported {
                field: join(field),
                version,
            },
            Self::DuplicateTag { field, tag } => Self::DuplicateTag {
                field: join(field),
                tag,
            },
            Self::TooLong { field, len } => Self::TooLong {
                field: join(field),
                len,
            },
            other @ Self::UnsupportedVersion { .. } => other,
        }
    }
}
