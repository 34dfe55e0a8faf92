//! Why a target could not be driven, as data: [`AdapterError`] and its five kinds (setup,
//! crash, unsupported, protocol violation, timeout), each a `thiserror` enum whose variants
//! carry what went wrong (command, address, API, version, node, the underlying error as
//! `#[source]`, a process's output tails). The runner sorts by kind (an unsupported step makes
//! the scenario unsupported, everything else errors it; the binary maps setup errors to its
//! usage exit code) and prints the message. [`ProbeError`] is why a `tcp://` target's
//! ApiVersions probe failed. Not a finding: a wrong answer from the
//! implementation under test is judged by the runner, never returned here. Holds no I/O.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::Arc;

use crate::adapter::metadata_log::MetadataLogError;
use crate::adapter::policy_host::PolicyHostError;
use crate::codec::{DecodeError, EncodeError, ErrorCode};
use crate::emulate::InPlaceError;
use crate::model::{BrokerConfigError, ClientConfigError, ClusterError, ProfileError};
use crate::net::NetError;
use crate::scenario::TypedBodyError;

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
    /// A setup request kipcheck builds does not encode.
    #[error("{api} v{version}: {source}")]
    Encode {
        /// The API.
        api: &'static str,
        /// Its version.
        version: i16,
        /// Why.
        #[source]
        source: EncodeError,
    },
    /// A setup request's answer could not be read.
    #[error("{api} answer: {source}")]
    AnswerUnread {
        /// The API.
        api: &'static str,
        /// Why.
        #[source]
        source: NetError,
    },
    /// A setup request's answer does not decode.
    #[error("{api} answer does not decode: {source}")]
    AnswerUndecodable {
        /// The API.
        api: &'static str,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// A setup request answered as another API.
    #[error("{api} answered as another API")]
    OtherApi {
        /// The API asked.
        api: &'static str,
    },
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

/// How a target process was found gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessEnd {
    /// It exited with this status.
    Exited(ExitStatus),
    /// It closed its stdout (its status was not known yet).
    ClosedStdout,
    /// It closed its stdin (a write to it failed).
    ClosedStdin,
    /// kipcheck had already closed its stdin.
    StdinAlreadyClosed,
}

impl fmt::Display for ProcessEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessEnd::Exited(s) => write!(f, "exited ({s})"),
            ProcessEnd::ClosedStdout => f.write_str("closed its stdout"),
            ProcessEnd::ClosedStdin => f.write_str("closed its stdin"),
            ProcessEnd::StdinAlreadyClosed => f.write_str("has its stdin already closed"),
        }
    }
}

/// What kipcheck was doing when it found the process gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// Writing to its stdin.
    Writing,
    /// Waiting for its answer.
    BeforeAnswering,
    /// Running the scenario (a live client exits only when its stdin closes).
    BeforeStdinClosed,
}

impl fmt::Display for Moment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Moment::Writing => "while kipcheck was writing to it",
            Moment::BeforeAnswering => "before answering",
            Moment::BeforeStdinClosed => "before kipcheck closed its stdin",
        })
    }
}

/// The target process or connection failed, or kipcheck's own half of a session did.
#[derive(Debug, thiserror::Error)]
pub enum Crash {
    /// A target process is gone.
    #[error("{who} {command:?} {end} {moment}{tails}")]
    ProcessGone {
        /// What the process is to kipcheck: `client` (client-cmd:) or `adapter` (exec:).
        who: &'static str,
        /// The command.
        command: String,
        /// How it ended.
        end: ProcessEnd,
        /// What kipcheck was doing.
        moment: Moment,
        /// What it wrote last.
        tails: Tails,
    },
    /// A live client sent what cannot be a request, or stopped reading.
    #[error("{fault}{tails}")]
    Client {
        /// What it did.
        fault: ClientFault,
        /// What it wrote last.
        tails: Tails,
    },
    /// An `exec:` adapter answered a step with an `error` message.
    #[error("the adapter reported an error: {message}")]
    Reported {
        /// Its message.
        message: String,
    },
    /// A live target cannot be reached.
    #[error("cannot connect to {addr}: {source}")]
    Unreachable {
        /// Its address.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A live target did not accept a connection in time.
    #[error("connecting to {addr} timed out")]
    ConnectTimedOut {
        /// Its address.
        addr: String,
    },
    /// A live target stopped reading what kipcheck writes.
    #[error("the target stopped reading (write timed out)")]
    StoppedReading,
    /// A live target did not answer its ApiVersions probe when the target was built.
    #[error("target unreachable: {0}")]
    ProbeFailed(#[source] ProbeError),
    /// kipcheck was asked to answer a request the client never sent.
    #[error("no unanswered request from the client to node {node}")]
    NothingToAnswer {
        /// The emulated node.
        node: i32,
    },
    /// kipcheck's model could not take a step (the reference target).
    #[error(transparent)]
    Model(#[from] ClusterError),
    /// A request of kipcheck's model does not encode.
    #[error("{from} request: {source}")]
    ModelEncode {
        /// Which model sent it.
        from: String,
        /// Why.
        #[source]
        source: EncodeError,
    },
    /// kipcheck's own response does not decode.
    #[error("kipcheck's own response does not decode: {0}")]
    OwnResponse(#[source] DecodeError),
    /// A task or lock of kipcheck's own failed.
    #[error("{what} failed inside kipcheck")]
    Internal {
        /// Which.
        what: &'static str,
    },
}

/// What a live client did wrong on a connection to an emulated node, or what kipcheck could
/// not do there.
#[derive(Debug, thiserror::Error)]
pub enum ClientFault {
    /// Bytes that do not frame as Kafka requests: a size prefix that is negative or over the
    /// cap (`net::NetError::OverCap`; nothing after it can be framed).
    #[error(
        "the client sent an unframeable stream to node {node}: a size prefix of {claimed} bytes (the cap is {cap})"
    )]
    Unframeable {
        /// The emulated node.
        node: i32,
        /// The size the prefix claims.
        claimed: i64,
        /// The largest request payload accepted.
        cap: usize,
    },
    /// A request the emulated node cannot read or answer in place (a header that does not
    /// decode, a Metadata request kipcheck cannot decode, an answer it cannot encode).
    #[error("the client sent node {node} a request kipcheck cannot answer: {source}")]
    InPlace {
        /// The emulated node.
        node: i32,
        /// The emulated node's error.
        #[source]
        source: InPlaceError,
    },
    /// It stopped reading kipcheck's answers.
    #[error("the client stopped reading from node {node}")]
    StoppedReading {
        /// The emulated node.
        node: i32,
    },
}

/// Why a step is not possible on this target (the scenario is unsupported, not errored).
#[derive(Debug, thiserror::Error)]
pub enum Unsupported {
    /// The step has no live form on this kind of target.
    #[error("{step} is not possible {on}")]
    NoLiveForm {
        /// The step.
        step: String,
        /// "against a live tcp:// target", "with a client-cmd: target".
        on: &'static str,
    },
    /// A wait longer than kipcheck spends on a real clock.
    #[error("{what} {ms} ms on a real clock (limit {limit} ms{hint})")]
    RealClock {
        /// "an advance of", "waiting for request.timeout.ms:".
        what: &'static str,
        /// The wait asked.
        ms: u64,
        /// The longest wait kipcheck spends.
        limit: u64,
        /// What could help (`; try --time-scale`), or nothing.
        hint: &'static str,
    },
    /// The scenario has no model of this role (the reference).
    #[error("no {role} in this scenario")]
    NoRole {
        /// The role.
        role: &'static str,
    },
    /// No request from the target awaits an answer from this node.
    #[error("no request from the target to node {node} awaits an answer")]
    NothingToAnswer {
        /// The node.
        node: i32,
    },
    /// The target said so (an `exec:` adapter's `unsupported` reply).
    #[error("{reason}")]
    Declared {
        /// Its reason.
        reason: String,
    },
    /// The scenario's setup asks for what this live target was not declared to have, or
    /// sets what it cannot be told.
    #[error("{reason}")]
    Setup {
        /// What differs, and which option would declare it.
        reason: String,
    },
    /// The scenario sets `bootstrap.servers`, which kipcheck must set for a live client.
    #[error(
        "the scenario sets bootstrap.servers, which a live client needs for kipcheck's listeners"
    )]
    SetsBootstrap,
    /// `setup.controller.topics` on a controller without the topic APIs.
    #[error("setup.controller.topics needs DeleteTopics and CreateTopics, which the live controller does not advertise")]
    NoTopicApis,
}

/// The target did not answer within the wall-clock bound.
#[derive(Debug, thiserror::Error)]
pub enum TimedOut {
    /// A target process did not read or did not answer.
    #[error("{who} {command:?} {waiting} within {ms} ms{tails}")]
    Process {
        /// `client` or `adapter`, as in [`Crash::ProcessGone`].
        who: &'static str,
        /// The command.
        command: String,
        /// What kipcheck waited for.
        waiting: Waiting,
        /// The bound.
        ms: u64,
        /// What it wrote last.
        tails: Tails,
    },
    /// A live target did not accept a connection in time.
    #[error("connecting to {addr} timed out")]
    Connect {
        /// Its address.
        addr: String,
    },
    /// A setup request could not be written in time.
    #[error("writing {api} timed out")]
    Write {
        /// The API.
        api: &'static str,
    },
    /// A setup request got no answer in time.
    #[error("no {api} answer within the bound")]
    Answer {
        /// The API.
        api: &'static str,
    },
}

/// What kipcheck waited for from a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// To read its stdin.
    Read,
    /// To answer.
    Answer,
}

impl fmt::Display for Waiting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Waiting::Read => "did not read its stdin",
            Waiting::Answer => "gave no answer",
        })
    }
}

/// An `exec:` adapter broke its protocol (docs/exec-protocol.md).
#[derive(Debug, thiserror::Error)]
#[error("adapter {command:?} {violation}{tails}")]
pub struct ProtocolViolation {
    /// The command.
    pub command: String,
    /// What it did.
    pub violation: Violation,
    /// What it wrote last.
    pub tails: Tails,
}

/// One way of breaking the `exec:` protocol.
#[derive(Debug, thiserror::Error)]
pub enum Violation {
    /// kipcheck could not serialize its own message.
    #[error("cannot be sent a message: {0}")]
    Serialize(#[source] serde_json::Error),
    /// A line longer than the limit.
    #[error("wrote a line longer than {max} bytes")]
    LineTooLong {
        /// The limit.
        max: usize,
    },
    /// A line that is not JSON.
    #[error("wrote a line that is not JSON ({source}): {line:?}")]
    NotJson {
        /// The line's first 200 characters.
        line: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// JSON that is not an object.
    #[error("wrote JSON that is not an object: {value}")]
    NotObject {
        /// What it wrote.
        value: String,
    },
    /// A first message other than `hello`.
    #[error("did not say hello first: it wrote {got}")]
    NoHello {
        /// What it wrote.
        got: String,
    },
    /// Another protocol version.
    #[error("speaks protocol version {}, kipcheck speaks {ours}", theirs.map_or("(none)".to_string(), |n| n.to_string()))]
    Version {
        /// The version it named, if any.
        theirs: Option<u64>,
        /// kipcheck's.
        ours: u64,
    },
    /// A `hello` that does not parse.
    #[error("wrote an invalid hello: {0}")]
    InvalidHello(#[source] serde_json::Error),
    /// A second process said another `hello` than the first.
    #[error("changed its hello between processes: first {first}, now {now}")]
    HelloChanged {
        /// The first, `Debug`-printed.
        first: String,
        /// This one.
        now: String,
    },
    /// A reply of a type other than ok, unsupported or error.
    #[error("expected ok, unsupported or error in reply to {sent}, got {reply}")]
    UnexpectedReply {
        /// The message type kipcheck sent.
        sent: String,
        /// The reply.
        reply: String,
    },
    /// An `ok` reply that does not parse.
    #[error("wrote an invalid ok reply to {sent}: {source}")]
    InvalidOk {
        /// The message type kipcheck sent.
        sent: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// `now_ms` went backwards.
    #[error("moved now_ms backwards in reply to {sent}: {now} < {before}")]
    ClockBackwards {
        /// The message type kipcheck sent.
        sent: String,
        /// The time it named.
        now: u64,
        /// The time before.
        before: u64,
    },
    /// An advance that moved the clock past its end.
    #[error("was told to advance by {ms} ms from {start} and moved the clock to {now}")]
    Overshot {
        /// The advance.
        ms: u64,
        /// The time before.
        start: u64,
        /// The time after.
        now: u64,
    },
    /// A frame that is not base64.
    #[error("wrote a frame that is not base64: {0}")]
    Base64(#[source] base64::DecodeError),
    /// A JSON-form frame missing a part.
    #[error("wrote a {what} without either frame or api_key, version, correlation_id and body")]
    IncompleteFrame {
        /// "request" or "response".
        what: &'static str,
    },
    /// A JSON-form frame of an API kipcheck does not know.
    #[error("wrote a {what} for unknown API key {key}")]
    UnknownApiKey {
        /// "request" or "response".
        what: &'static str,
        /// The key.
        key: i16,
    },
    /// A JSON-form body that is not a body of its API.
    #[error("wrote a body that does not fit its API: {0}")]
    Body(#[source] TypedBodyError),
    /// A JSON-form frame that does not encode.
    #[error("wrote a {api} v{version} {what} that does not encode: {source}")]
    Encode {
        /// The API.
        api: &'static str,
        /// Its version.
        version: i16,
        /// "request" or "response".
        what: &'static str,
        /// Why.
        #[source]
        source: EncodeError,
    },
}

/// Why the ApiVersions probe of a live target failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ProbeError {
    /// The address does not resolve.
    #[error("cannot resolve {addr}: {source}")]
    Resolve {
        /// `host:port`.
        addr: String,
        /// The resolver's error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The address resolves to nothing.
    #[error("{addr} resolves to nothing")]
    NoAddress {
        /// `host:port`.
        addr: String,
    },
    /// A socket step failed.
    #[error("{stage} {addr}: {source}")]
    Io {
        /// Which step.
        stage: ProbeStage,
        /// `host:port`.
        addr: String,
        /// The socket's error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// No answer came: the connection closed, failed or timed out before a whole size
    /// prefix.
    #[error("no ApiVersions answer from {addr}: {source}")]
    NoAnswer {
        /// `host:port`.
        addr: String,
        /// Why.
        #[source]
        source: NetError,
    },
    /// The answer ends (or stalls) before its size prefix says.
    #[error("ApiVersions answer from {addr} cut short: {source}")]
    CutShort {
        /// `host:port`.
        addr: String,
        /// How far it came.
        #[source]
        source: NetError,
    },
    /// kipcheck could not encode its own request.
    #[error("probe request: {0}")]
    Encode(#[source] EncodeError),
    /// The answer's size prefix is out of bounds.
    #[error("ApiVersions answer from {addr} claims {claimed} bytes")]
    Oversize {
        /// `host:port`.
        addr: String,
        /// The size prefix.
        claimed: i64,
    },
    /// The answer does not decode.
    #[error("ApiVersions answer from {addr} does not decode: {source}")]
    Decode {
        /// `host:port`.
        addr: String,
        /// The codec's error.
        #[source]
        source: DecodeError,
    },
    /// The answer decodes as another API.
    #[error("ApiVersions answer of another API")]
    OtherApi,
    /// The answer carries an error code.
    #[error("ApiVersions answered error {error_code}")]
    ErrorCode {
        /// The code on the wire.
        error_code: i16,
    },
}

/// The socket step of a probe that failed (its text leads the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeStage {
    /// Connecting.
    Connect,
    /// Setting the socket's timeouts.
    Socket,
    /// Writing the request.
    Write,
}

impl fmt::Display for ProbeStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProbeStage::Connect => "cannot connect to",
            ProbeStage::Socket => "socket options for",
            ProbeStage::Write => "probe write to",
        })
    }
}
