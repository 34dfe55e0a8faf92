//! Errors of the ledger: loading `scenarios/requirements.yaml`, validating it, and scanning
//! scenario files for the requirement ids they name.
//!
//! Responsible for one thing: every error carries the file and, where known, the line and
//! column, and displays as `path:line:col: message`. It must not print, exit or decide
//! exit codes; the CLI does that.

use std::fmt;
use std::path::{Path, PathBuf};

/// A position in a file: `path:line:col` (1-based), or only `path` when the position is not
/// known (line 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// The file.
    pub path: PathBuf,
    /// 1-based line; 0 when unknown.
    pub line: u64,
    /// 1-based column; 0 when unknown.
    pub column: u64,
}

impl At {
    /// A position `line:column` in `path`.
    pub fn new(path: &Path, line: u64, column: u64) -> Self {
        At {
            path: path.to_path_buf(),
            line,
            column,
        }
    }

    /// The position of a serde-saphyr location in `path` (line 0 if unknown).
    pub(crate) fn from_location(path: &Path, location: Option<serde_saphyr::Location>) -> Self {
        match location {
            Some(l) if l.line() > 0 => At::new(path, l.line(), l.column()),
            _ => At::new(path, 0, 0),
        }
    }
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.path.display())
        } else {
            write!(f, "{}:{}:{}", self.path.display(), self.line, self.column)
        }
    }
}

/// Why the ledger or a scenario file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The YAML is malformed or does not match the format (unknown key, unknown `kip` or
    /// `kind` value, missing field, wrong type, duplicate mapping key).
    #[error("{at}: {message}")]
    Yaml {
        /// Where.
        at: At,
        /// serde-saphyr's message, without its own location suffix.
        message: String,
    },
    /// Two requirements share an id.
    #[error("{at}: duplicate requirement id `{id}` (first defined at line {first_line})")]
    DuplicateId {
        /// Where the second one is.
        at: At,
        /// The id.
        id: String,
        /// The line of the first one.
        first_line: u64,
    },
    /// A requirement's id is not of the form `<kip>.<area>.<what>`.
    #[error("{at}: invalid requirement id `{id}`: {reason}")]
    InvalidId {
        /// Where.
        at: At,
        /// The id.
        id: String,
        /// What is wrong with it.
        reason: IdRule,
    },
    /// A required text field (`text`, `source`, or a present `excluded`) is empty.
    #[error("{at}: requirement `{id}`: `{field}` must not be empty")]
    EmptyField {
        /// Where.
        at: At,
        /// The requirement.
        id: String,
        /// The field name.
        field: &'static str,
    },
    /// `reading` is not a comma-separated list of kip-notes §6 items (`A1`..., `B1`..., `C1`...).
    #[error(
        "{at}: requirement `{id}`: invalid reading `{reading}` (expected e.g. `A3` or `A3, A4`)"
    )]
    InvalidReading {
        /// Where.
        at: At,
        /// The requirement.
        id: String,
        /// The value.
        reading: String,
    },
    /// The coverage could not be rendered as JSON.
    #[error("rendering the coverage as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl LedgerError {
    /// Wrap a serde-saphyr error for `path`, keeping its line and column.
    pub(crate) fn yaml(path: &Path, err: &serde_saphyr::Error) -> Self {
        use serde_saphyr::MessageFormatter as _;
        let inner = err.without_snippet();
        let message = serde_saphyr::DefaultMessageFormatter
            .format_message(inner)
            .into_owned();
        LedgerError::Yaml {
            at: At::from_location(path, inner.location()),
            message,
        }
    }
}

/// The rule a requirement id breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdRule {
    /// It does not start with its KIP's prefix.
    #[error("ids of {kip} start with `{prefix}`")]
    Prefix {
        /// The requirement's KIP, as written (`KIP-1324`).
        kip: String,
        /// The prefix its ids start with.
        prefix: &'static str,
    },
    /// Only the prefix.
    #[error("nothing after the KIP prefix")]
    NothingAfterPrefix,
    /// Two dots in a row, or a trailing dot.
    #[error("empty segment between dots")]
    EmptySegment,
    /// A character outside `a-z`, `0-9`, `-`.
    #[error("segment `{segment}` may only hold a-z, 0-9 and `-`")]
    Characters {
        /// The segment.
        segment: String,
    },
    /// A segment starting or ending with `-`.
    #[error("segment `{segment}` starts or ends with `-`")]
    Dash {
        /// The segment.
        segment: String,
    },
}
