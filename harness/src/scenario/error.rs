//! Why a scenario file cannot be used: [`LoadError`] (where: file, line, column, the source
//! line) around a [`LoadErrorKind`] (what), with the step checks' own kinds ([`StepError`],
//! [`CaptureError`], [`FillError`], [`TypedBodyError`]). Each kind carries the values it
//! names; its text is what `kipcheck` prints after `file:line:col:`.

use std::fmt;
use std::path::PathBuf;

use super::body_schema::BodyError;
// Defined with the matcher names that raise it (so the matcher imports nothing from here).
pub use super::matcher::names::CaptureError;
use crate::codec::VersionRange;
use crate::model::ProfileError;

/// An error of a YAML file kipcheck reads, located in its file: `file:line:col: what`, then
/// the source line with a caret when known. Scenario files ([`LoadError`]) and target
/// manifests (`adapter::ManifestError`) share it.
#[derive(Debug)]
pub struct Located<K> {
    /// The file.
    pub path: PathBuf,
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub col: u64,
    /// What is wrong (boxed: the `Ok` side of a load stays small).
    pub kind: Box<K>,
    /// The offending source line with a caret under the column (see
    /// [`super::load::snippet`]), when the error came from a file and its position is known.
    pub snippet: Option<String>,
}

/// A scenario file that cannot be used, located in its file.
pub type LoadError = Located<LoadErrorKind>;

impl LoadError {
    /// What is wrong, as printed after `file:line:col:`.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

impl<K: fmt::Display> fmt::Display for Located<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.col,
            self.kind
        )?;
        if let Some(s) = &self.snippet {
            write!(f, "\n{s}")?;
        }
        Ok(())
    }
}

impl<K: fmt::Debug + fmt::Display> std::error::Error for Located<K> {}

/// What makes a scenario file unusable.
#[derive(Debug, thiserror::Error)]
pub enum LoadErrorKind {
    /// The file cannot be read.
    #[error("{0}")]
    Read(#[source] std::io::Error),
    /// The YAML does not parse or does not match the scenario format (the parser's first
    /// line).
    #[error("{}", first_line(.0))]
    Yaml(#[source] serde_saphyr::Error),
    /// `id` is not the file's stem.
    #[error("id {id:?} must equal the file stem {stem:?}")]
    IdNotStem {
        /// The file's `id`.
        id: String,
        /// The file name without its extension.
        stem: String,
    },
    /// `kip` names no KIP kipcheck covers.
    #[error("unknown kip {kip:?}")]
    UnknownKip {
        /// The file's `kip`.
        kip: String,
    },
    /// `roles` is empty.
    #[error("roles must name at least one role")]
    NoRoles,
    /// The `profile:` overrides do not make a valid profile.
    #[error(transparent)]
    Profile(#[from] ProfileOverrideError),
    /// A step is malformed.
    #[error(transparent)]
    Step(#[from] StepError),
    /// A body does not fit its message (located at the field).
    #[error(transparent)]
    Body(#[from] BodyError),
    /// `repeat` is out of its bounds or names a capture no step makes.
    #[error(transparent)]
    Repeat(#[from] RepeatError),
    /// Another file has the same `id`.
    #[error("duplicate id {id:?} (also {})", .first.display())]
    Duplicate {
        /// The id.
        id: String,
        /// The file that has it first.
        first: PathBuf,
    },
}

/// A `repeat:` that cannot be run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RepeatError {
    /// `runs` outside 2..=64.
    #[error("repeat: runs must be 2 to 64, not {runs}")]
    Runs {
        /// What the file says.
        runs: u32,
    },
    /// `at_least` outside 2..=runs.
    #[error(
        "repeat: distinct {capture:?} needs at_least between 2 and runs ({runs}), not {at_least}"
    )]
    AtLeast {
        /// The capture.
        capture: String,
        /// What the file says.
        at_least: usize,
        /// The runs.
        runs: u32,
    },
    /// No step captures this name.
    #[error("repeat: distinct {capture:?} is captured by no step ($capture or capture_node)")]
    NotCaptured {
        /// The capture.
        capture: String,
    },
}

/// The first line of an error's text (serde-saphyr adds the source context below it).
fn first_line(e: &dyn fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or("").to_owned()
}

/// A scenario's `profile:` overrides merged into the default profile do not make a profile.
#[derive(Debug, thiserror::Error)]
pub enum ProfileOverrideError {
    /// The merged value does not have the profile's shape (an unknown field, a wrong type).
    #[error("profile: {0}")]
    Shape(#[source] serde_json::Error),
    /// A field holds a value outside its domain.
    #[error("profile: {0}")]
    Invalid(#[source] ProfileError),
}

/// A malformed step (the step's kind leads the text, as in `send: ...`).
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// `send` has both `body` and `fill`.
    #[error("send: body and fill are exclusive")]
    BodyAndFill,
    /// `send.inner` on an API other than Envelope.
    #[error("send: inner is for Envelope only")]
    InnerNotEnvelope,
    /// `send.fill` on an API other than PushConfig.
    #[error("send: fill is for PushConfig only")]
    FillNotPushConfig,
    /// `send.fill` cannot be built.
    #[error("send: {0}")]
    Fill(#[source] FillError),
    /// A step names an API the codec does not know.
    #[error("{step}: unknown API {api:?}")]
    UnknownApi {
        /// The step's kind (`send`, `send_raw`, `expect_request`, `expect_no_request`).
        step: &'static str,
        /// The name given.
        api: String,
    },
    /// A step pins a version the message does not have.
    #[error("{step}: {message} has versions {valid}, not {version}")]
    Version {
        /// The step's kind.
        step: &'static str,
        /// The message, e.g. `PushConfigRequest`.
        message: &'static str,
        /// Its valid versions.
        valid: VersionRange,
        /// The version given.
        version: i16,
    },
    /// `send_raw.hex` is not hex.
    #[error("send_raw: hex is not valid hex")]
    BadHex,
    /// A `send` body cannot be built into its message.
    #[error(transparent)]
    Body(#[from] TypedBodyError),
    /// A pattern uses a `$` matcher that does not exist.
    #[error("unknown matcher {0}")]
    UnknownMatcher(String),
    /// `expect_one_of` with fewer than two outcomes.
    #[error("expect_one_of needs at least two outcomes")]
    OneOfTooFew,
    /// `expect_one_of` outcomes on different connections.
    #[error("expect_one_of: every outcome must name the same conn")]
    OneOfConns,
    /// `encoded_size` measured as `configs_array` on an API other than PushConfig.
    #[error("expect_request: encoded_size measure configs_array is for PushConfig only")]
    ConfigsArrayNotPushConfig,
    /// `encoded_size` without bounds.
    #[error("expect_request: encoded_size needs min, max or both")]
    EncodedSizeUnbounded,
    /// A `real_time` `expect_no_request` watch longer than the cap.
    #[error("expect_no_request: a real_time watch is at most {max_ms} ms, not {within_ms}")]
    RealTimeTooLong {
        /// The step's `within_ms`.
        within_ms: u64,
        /// The cap ([`super::types::MAX_REAL_TIME_WAIT_MS`]).
        max_ms: u64,
    },
    /// A malformed capture matcher.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// `$eq_captured`/`$ne_captured` of a name no earlier step captures.
    #[error("{name} is not captured by an earlier step")]
    NotCaptured {
        /// The name read.
        name: String,
    },
    /// `expect_no_event` matches nothing, so it captures nothing.
    #[error("expect_no_event cannot $capture {name}")]
    NoEventCapture {
        /// The name.
        name: String,
    },
}

/// A `fill:` that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    /// Larger than kipcheck builds.
    #[error("fill.size {size} is over the {max} bytes kipcheck builds")]
    TooLarge {
        /// The size asked.
        size: usize,
        /// [`super::types::MAX_FILL_BYTES`].
        max: usize,
    },
    /// No PushConfig body has exactly this size under the measure.
    #[error("cannot build a PushConfig of exactly {size} bytes")]
    Unreachable {
        /// The size asked.
        size: usize,
    },
}

/// A body (Kafka's JSON field names, error-code and API names allowed) that does not make
/// a typed message.
#[derive(Debug, thiserror::Error)]
pub enum TypedBodyError {
    /// The codec knows no message of that API name.
    #[error("unknown API {api:?}")]
    UnknownApi {
        /// The name given.
        api: String,
    },
    /// The body does not deserialize into the message.
    #[error("body of {api}: {source}")]
    Body {
        /// The API.
        api: String,
        /// serde's reason.
        #[source]
        source: serde_json::Error,
    },
}
