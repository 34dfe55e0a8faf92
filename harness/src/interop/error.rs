//! Errors of the interop run itself (a peer that cannot be reached or started, an unwritable
//! report). A real peer departing from the protocol is a [`super::Verdict::Finding`], never
//! one of these.

use thiserror::Error;

use crate::net::NetError;

/// Why an interop run could not be carried out.
#[derive(Debug, Error)]
pub enum InteropError {
    /// A peer named in the environment could not be reached.
    #[error("peer {peer}: {source}")]
    Unreachable {
        /// The peer's name.
        peer: String,
        /// Its address.
        addr: String,
        /// The connection error ([`NetError::Connect`], which names the address).
        source: NetError,
    },
    /// A client command could not be started or the capture relay failed.
    #[error("client {client}: {message}")]
    Client {
        /// The client's name.
        client: String,
        /// What went wrong.
        message: String,
    },
    /// The async runtime the YAML suites run on could not be built.
    #[error("starting the runtime for the YAML suites: {0}")]
    Runtime(#[source] std::io::Error),
    /// A peer's `tcp://` or `client-cmd:` target could not be made.
    #[error("target {spec}: {source}")]
    Target {
        /// The target specification.
        spec: String,
        /// Why.
        source: crate::adapter::AdapterError,
    },
    /// A controller manifest (`interop/manifests/`) did not load.
    #[error("{0}")]
    Manifest(#[source] Box<crate::adapter::ManifestError>),
    /// A request kipcheck built could not be encoded (a bug in kipcheck, not in the peer).
    #[error("encoding a probe request: {0}")]
    Encode(#[from] crate::codec::EncodeError),
}
