//! What a disagreement between kipcheck's codec and kafka-protocol's is, as data: which
//! message and version, which way the value went, what differed, and the bytes and values
//! that show it. The checks in [`super`] and [`super::fuzz`] return it; the test driver and
//! the fuzz target print it. Holds no comparison logic.

use std::fmt;

use crate::codec::{DecodeError, EncodeError};

/// Which way a value went through the two codecs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Our value, our bytes, kafka-protocol decodes and re-encodes them.
    OursToTheirs,
    /// Our value mapped to kafka-protocol's, its bytes, we decode and re-encode them.
    TheirsToOurs,
    /// The same input bytes, decoded by both (the fuzz target).
    SameBytes,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::OursToTheirs => "ours→kafka-protocol",
            Direction::TheirsToOurs => "kafka-protocol→ours",
            Direction::SameBytes => "same bytes",
        })
    }
}

/// What differed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// kafka-protocol could not decode bytes we wrote or accepted.
    #[error("kafka-protocol decode failed: {error}")]
    TheirDecode {
        /// kafka-protocol's error, printed (its error type is `anyhow`'s).
        error: String,
    },
    /// kafka-protocol decoded a message but left bytes we consumed.
    #[error("kafka-protocol left {unread} bytes unread")]
    TheirUnread {
        /// Bytes left.
        unread: usize,
    },
    /// kafka-protocol could not encode a value (ours mapped, or one it decoded).
    #[error("kafka-protocol encode failed: {error}")]
    TheirEncode {
        /// kafka-protocol's error, printed.
        error: String,
    },
    /// We could not decode bytes kafka-protocol wrote or accepted.
    #[error("our decode failed: {0}")]
    OurDecode(#[source] DecodeError),
    /// We could not encode a value we decoded.
    #[error("our encode failed: {0}")]
    OurEncode(#[source] EncodeError),
    /// We reject the bytes; kafka-protocol accepts them.
    #[error("we reject ({ours}), kafka-protocol accepts them and leaves {unread} bytes unread")]
    OnlyTheyAccept {
        /// Our decoder's error.
        #[source]
        ours: DecodeError,
        /// Bytes kafka-protocol left.
        unread: usize,
    },
    /// We accept the bytes; kafka-protocol rejects them.
    #[error("we accept them, kafka-protocol rejects them: {error}")]
    OnlyWeAccept {
        /// kafka-protocol's error, printed.
        error: String,
    },
    /// Fields of the version differ ([`super::Cmp`]'s findings, one line each).
    #[error("fields differ:\n    {}", .fields.join("\n    "))]
    Fields {
        /// `path: ours … kafka-protocol …`, one per differing field.
        fields: Vec<String>,
    },
    /// Our value came back changed from a trip through kafka-protocol's value and bytes.
    #[error("the value changed on its way through kafka-protocol:\n  before: {before}\n  after:  {after}")]
    ValueChanged {
        /// Before, `Debug`-printed.
        before: String,
        /// After, `Debug`-printed.
        after: String,
    },
    /// Both encoded the same value to different bytes.
    #[error("re-encodings differ:\n  ours:           {ours}\n  kafka-protocol: {theirs}")]
    Reencoded {
        /// Our bytes, hex.
        ours: String,
        /// kafka-protocol's bytes, hex.
        theirs: String,
    },
}

/// One disagreement, with its context.
#[derive(Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The message (`Message::NAME`).
    pub message: &'static str,
    /// The version compared.
    pub version: i16,
    /// Which way the value went.
    pub direction: Direction,
    /// What differed.
    pub mismatch: Mismatch,
    /// The bytes in question, hex.
    pub bytes: String,
    /// Our value, `Debug`-printed, where there is one.
    pub ours: Option<String>,
    /// kafka-protocol's value, `Debug`-printed, where there is one.
    pub theirs: Option<String>,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} v{} {}: {}\n  bytes: {}",
            self.message, self.version, self.direction, self.mismatch, self.bytes
        )?;
        if let Some(o) = &self.ours {
            write!(f, "\n  ours: {o}")?;
        }
        if let Some(t) = &self.theirs {
            write!(f, "\n  kafka-protocol: {t}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Disagreement {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.mismatch)
    }
}
