//! How an `exec:` adapter broke its protocol (docs/exec-protocol.md): [`ProtocolViolation`]
//! and its kinds. Data only: it must not read the adapter's output itself.

use super::Tails;
use crate::codec::EncodeError;
use crate::scenario::TypedBodyError;

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
