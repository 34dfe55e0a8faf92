//! What goes into and out of the client model: the ApiVersions/SASL versions and software
//! name it puts on the wire, [`ClientInput`], [`ClientOutput`], [`HandshakeState`] and
//! [`ClientConfigError`]. Types only: no decision of the state machine is made here.

use crate::config_def::ConfigType;
use crate::events::{Event, NodeId, SkipReason};
use crate::time::Millis;
use kipcheck_codec::{
    ApiKey, ApiVersionsResponse, ErrorCode, PushConfigResponse, RequestBody, ResponseBody,
    SaslAuthenticateResponse, SaslHandshakeResponse,
};

/// ClientSoftwareName the model puts in ApiVersions.
pub const CLIENT_SOFTWARE_NAME: &str = "kipcheck-model";
/// ClientSoftwareVersion the model puts in ApiVersions.
pub const CLIENT_SOFTWARE_VERSION: &str = "0.1.0";
/// The ApiVersions request version the model sends.
pub const API_VERSIONS_VERSION: i16 = 3;
/// The SaslHandshake version the model sends (v1: the tokens then travel in SaslAuthenticate).
pub const SASL_HANDSHAKE_VERSION: i16 = 1;
/// The SaslAuthenticate version the model sends.
pub const SASL_AUTHENTICATE_VERSION: i16 = 2;

/// Something that happened to the client.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientInput {
    /// The client instance was created (the handshake clock starts).
    Start,
    /// A connection to `node` is established (TCP; SASL, if any, follows ApiVersions).
    Connected {
        /// The node.
        node: NodeId,
    },
    /// The ApiVersions response from `node`.
    ApiVersionsResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: ApiVersionsResponse,
    },
    /// The SaslHandshake response from `node`.
    SaslHandshakeResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: SaslHandshakeResponse,
    },
    /// The SaslAuthenticate response from `node`.
    SaslAuthenticateResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: SaslAuthenticateResponse,
    },
    /// The PushConfig response from `node` (error codes as on the wire).
    PushConfigResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: PushConfigResponse,
    },
    /// The connection to `node` closed.
    Disconnected {
        /// The node.
        node: NodeId,
    },
    /// The runner declares the in-flight request to `node` timed out.
    RequestTimedOut {
        /// The node.
        node: NodeId,
    },
    /// The application issues a request (e.g. `send()`, `poll()`, an admin call).
    UserRequest {
        /// The runner's id for it.
        id: u64,
    },
    /// Time passed; only timers run.
    Tick,
}

impl ClientInput {
    /// The input that carries `body`, `node`'s answer to one of the client's requests
    /// (ApiVersions, SaslHandshake, SaslAuthenticate, PushConfig); `None` for any other API.
    pub fn answer(node: NodeId, body: ResponseBody) -> Option<Self> {
        Some(match body {
            ResponseBody::ApiVersions(body) => Self::ApiVersionsResponse { node, body },
            ResponseBody::SaslHandshake(body) => Self::SaslHandshakeResponse { node, body },
            ResponseBody::SaslAuthenticate(body) => Self::SaslAuthenticateResponse { node, body },
            ResponseBody::PushConfig(body) => Self::PushConfigResponse { node, body },
            _ => return None,
        })
    }
}

/// Something the client wants done.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientOutput {
    /// Send a request.
    Send {
        /// The node.
        node: NodeId,
        /// The API key on the wire (PushConfig's is the profile's provisional number).
        api_key: ApiKey,
        /// The version.
        api_version: i16,
        /// The body.
        body: RequestBody,
    },
    /// The application's request may go ahead now.
    ReleaseUserRequest {
        /// Its id.
        id: u64,
    },
    /// Call [`ClientModel::handle`](super::ClientModel::handle) again at this time (with
    /// [`ClientInput::Tick`]).
    WakeAt(Millis),
    /// A decision (also kept in [`ClientModel::events`](super::ClientModel::events)).
    Event(Event),
}

/// Where the handshake stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandshakeState {
    /// `Start` not yet received.
    NotStarted,
    /// No handshake for this client.
    Skipped(SkipReason),
    /// In progress.
    Pending,
    /// The broker accepted the configuration.
    Completed {
        /// The node that accepted it.
        node: NodeId,
    },
    /// A non-retriable error ended it (logged, not retried).
    Rejected {
        /// The canonical code.
        error_code: ErrorCode,
    },
    /// The deadline passed first.
    Abandoned,
}

/// A user configuration the client refuses (Kafka throws ConfigException in the constructor).
#[derive(Debug, thiserror::Error)]
pub enum ClientConfigError {
    /// A defined key's value does not parse as its type.
    #[error("invalid value {value:?} for configuration {key}: expected {ty}")]
    InvalidValue {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// Its type.
        ty: ConfigType,
    },
}
