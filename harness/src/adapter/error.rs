//! Why a target could not be driven, as data: [`AdapterError`] and its five kinds (setup,
//! crash, unsupported, protocol violation, timeout), each a `thiserror` enum whose variants
//! carry what went wrong (command, address, API, version, node, the underlying error as
//! `#[source]`, a process's output tails). The runner sorts by kind (an unsupported step makes
//! the scenario unsupported, everything else errors it; the binary maps setup errors to its
//! usage exit code) and prints the message. This file holds the wrapper and the setup kind;
//! one file below `error/` per other kind ([`Crash`], [`Unsupported`], [`TimedOut`],
//! [`ProtocolViolation`]), plus why a `tcp://` probe failed ([`ProbeError`]) and why
//! kipcheck's own requests to a live controller failed (`error/controller.rs`). Not a
//! finding: a wrong answer from the implementation under test is judged by the runner, never
//! returned here. Holds no I/O.

use std::fmt;
use std::path::PathBuf;

mod controller;
mod crash;
mod probe;
mod protocol;
mod timeout;
mod unsupported;

pub use controller::{CallError, CleanupError, ClusterIdError, LevelError};
pub use crash::{ClientFault, Crash, Moment, ProcessEnd};
pub use probe::{ProbeError, ProbeStage};
pub use protocol::{ProtocolViolation, Violation};
pub use timeout::{TimedOut, Waiting};
pub use unsupported::Unsupported;

use crate::adapter::metadata_log::MetadataLogError;
use crate::adapter::policy_host::PolicyHostError;
use crate::codec::ErrorCode;
use crate::model::{BrokerConfigError, ClientConfigError, ProfileError};

/// Why the target could not be driven (not a finding: a finding is a wrong answer).
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    /// The target could not be started or set up as the options or the scenario ask.
    #[error("target setup failed: {0}")]
    Setup(Box<SetupError>),
    /// The target process or connection failed.
    #[error("target failed: {0}")]
    Crashed(Box<Crash>),
    /// The step is not possible on this target.
    #[error("not supported by the target: {0}")]
    Unsupported(Box<Unsupported>),
    /// The target broke its adapter protocol (`exec:`: invalid JSON, a message of the wrong
    /// type, an over-long line, an unsupported protocol version).
    #[error("target broke the adapter protocol: {0}")]
    Protocol(Box<ProtocolViolation>),
    /// The target gave no answer within the wall-clock bound.
    #[error("target timed out: {0}")]
    Timeout(Box<TimedOut>),
    /// I/O.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

// Each kind is boxed: an `AdapterError` stays two words wide on every `Result` path.
macro_rules! boxed_kinds {
    ($($kind:ident($ty:ty)),* $(,)?) => {
        $(impl From<$ty> for AdapterError {
            fn from(e: $ty) -> Self {
                AdapterError::$kind(Box::new(e))
            }
        })*
    };
}
boxed_kinds!(
    Setup(SetupError),
    Crashed(Crash),
    Unsupported(Unsupported),
    Protocol(ProtocolViolation),
    Timeout(TimedOut),
);

/// What a target process wrote last (each tail bounded), kept with an error about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tails {
    /// The end of its stderr.
    pub stderr: String,
    /// The end of its stdout, where kipcheck does not read stdout as a protocol.
    pub stdout: String,
}

impl fmt::Display for Tails {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.stderr.is_empty() {
            write!(f, "; stderr tail:\n{}", self.stderr)?;
        }
        if !self.stdout.is_empty() {
            write!(f, "; stdout tail:\n{}", self.stdout)?;
        }
        Ok(())
    }
}

/// The target, or its options, or the scenario's setup, cannot be put in place.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A target specification of no known kind.
    #[error("unknown target {spec:?} (available: {available})")]
    UnknownTarget {
        /// What was given.
        spec: String,
        /// The kinds there are.
        available: &'static str,
    },
    /// A `tcp://` address that is not `HOST:PORT`.
    #[error("tcp://{addr}: {why}; expected tcp://HOST:PORT with a port from 1 to 65535")]
    BadAddress {
        /// What followed `tcp://`.
        addr: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A target kind that needs a command was given none.
    #[error("needs a command, e.g. {example}")]
    NeedsCommand {
        /// A working specification of that kind.
        example: String,
    },
    /// `mutant:` names no built-in faulty variant.
    #[error("unknown mutant {name:?} (available: {available})")]
    UnknownMutant {
        /// What was given.
        name: String,
        /// The variants there are, comma-separated.
        available: String,
    },
    /// An option or target kind used where it does not apply.
    #[error("{option}: {requirement}")]
    Misused {
        /// The option or target kind (`client-cmd:`, `--metadata-log`, ...).
        option: &'static str,
        /// What it needs, or what to use instead.
        requirement: &'static str,
    },
    /// `--time-scale` out of range.
    #[error("--time-scale {value}: must be more than 0 and at most 1")]
    TimeScale {
        /// What was given.
        value: f64,
    },
    /// `--profile FILE` cannot be read.
    #[error("--profile {}: {source}", path.display())]
    ProfileUnreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `--profile FILE` is not a profile.
    #[error("--profile {}: {source}", path.display())]
    ProfileInvalid {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ProfileError,
    },
    /// `--target-manifest FILE` cannot be used (its text is `file:line:col: what`).
    #[error("--target-manifest {0}")]
    ManifestInvalid(#[source] Box<super::manifest::ManifestError>),
    /// A live controller's ApiVersions answer finalizes a `metadata.version` its
    /// `--target-manifest` does not support.
    #[error("tcp://{addr} runs at metadata.version {level} (the finalized level its ApiVersions answer advertises), outside the range {min}..={max} its --target-manifest ({software}) declares")]
    WireLevelOutOfRange {
        /// The controller's address.
        addr: String,
        /// The finalized level it advertises.
        level: i16,
        /// The manifest's `metadata_version.min`.
        min: i16,
        /// The manifest's `metadata_version.max`.
        max: i16,
        /// The manifest's `software`.
        software: String,
    },
    /// The target command could not be started.
    #[error("cannot start {command:?}: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The started process has no stdin or stdout pipe.
    #[error("{command:?} started without its pipes")]
    PipesMissing {
        /// The command.
        command: String,
    },
    /// An `exec:` adapter answered the session's `open` with an `error` message.
    #[error("the adapter reported an error: {message}")]
    Refused {
        /// Its message.
        message: String,
    },
    /// The scenario's client configuration is refused (the reference).
    #[error(transparent)]
    ClientConfig(#[from] ClientConfigError),
    /// The scenario's broker configuration is refused (the reference).
    #[error(transparent)]
    BrokerConfig(#[from] BrokerConfigError),
    /// `mv_validators` names a configuration the scenario does not define.
    #[error("mv_validators: no definition named {key:?}")]
    UnknownDefinition {
        /// The key.
        key: String,
    },
    /// A scenario playing `role` without its `setup.<role>` section.
    #[error("a {role} scenario needs setup.{role}")]
    MissingSetup {
        /// The role (`controller`).
        role: &'static str,
    },
    /// The scenario's profile cannot be written for the client.
    #[error("cannot write the profile as JSON: {0}")]
    ProfileJson(#[source] serde_json::Error),
    /// A request kipcheck makes of a live controller for its own purposes (its cluster id,
    /// `setup.controller.topics`) got no usable answer.
    #[error(transparent)]
    Call(#[from] CallError),
    /// What an earlier session left on a live controller could not be undone: the next
    /// scenarios are errored until it can (never run on a controller in another state).
    #[error(transparent)]
    Cleanup(#[from] CleanupError),
    /// The live controller refused to put a topic of `setup.controller.topics` in place.
    #[error("setup.controller.topics: {api} of {topic:?} answered {code}: {}", message.as_deref().unwrap_or("no message"))]
    Topic {
        /// DeleteTopics or CreateTopics.
        api: &'static str,
        /// The topic.
        topic: String,
        /// The error it answered.
        code: ErrorCode,
        /// Its error message, if any.
        message: Option<String>,
    },
    /// `--metadata-log`: the log could not be read.
    #[error("--metadata-log: {0}")]
    MetadataLog(#[source] MetadataLogError),
    /// `--policy-host`: the host could not start.
    #[error("--policy-host: {0}")]
    PolicyHost(#[source] PolicyHostError),
    /// The manifest's `failover:` command failed, hung, or the controller did not come back.
    #[error("failover: {0}")]
    Failover(#[source] super::failover::FailoverError),
}
