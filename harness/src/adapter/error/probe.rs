//! Why a `tcp://` target's ApiVersions probe failed ([`ProbeError`]). Data only: the probe
//! itself (its sockets) is `adapter::tcp`'s; this must not hold I/O.

use std::fmt;
use std::sync::Arc;

use crate::codec::{DecodeError, EncodeError};
use crate::net::NetError;

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
