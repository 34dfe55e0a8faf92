//! How a target process or connection failed ([`Crash`]), and what a live client did wrong on
//! a connection to an emulated node ([`ClientFault`]). Data only: no I/O, no judging (a
//! wrong answer from the implementation is a finding, never one of these).

use std::fmt;
use std::process::ExitStatus;

use super::{ProbeError, Tails};
use crate::codec::{DecodeError, EncodeError};
use crate::emulate::{ClusterError, InPlaceError};

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
