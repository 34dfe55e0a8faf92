//! [`NetError`]: why no frame was read or written, naming the peer's address and how much of
//! the frame came. Only the error type: no socket, no reading.

use std::sync::Arc;
use std::time::Duration;

/// Why no frame was read (or written).
#[derive(Clone, Debug, thiserror::Error)]
pub enum NetError {
    /// The peer closed the connection before any byte of a frame.
    #[error("{addr} closed the connection")]
    Closed {
        /// The peer.
        addr: String,
    },
    /// A size prefix is negative or over the cap: the stream cannot be framed any more.
    #[error("a frame from {addr} claims {claimed} bytes (the cap is {cap})")]
    OverCap {
        /// The peer.
        addr: String,
        /// The largest payload accepted.
        cap: usize,
        /// The size prefix.
        claimed: i64,
    },
    /// The connection ended inside a frame.
    #[error("{addr} closed the connection {got} bytes into a frame{}", of(*claimed))]
    CutShort {
        /// The peer.
        addr: String,
        /// The payload size the prefix claimed (`None`: the prefix itself was cut).
        claimed: Option<usize>,
        /// Bytes of the frame that came, size prefix included.
        got: usize,
    },
    /// The deadline passed before the frame was whole.
    #[error("no whole frame from {addr} within {} ms ({got}{} bytes came)", after.as_millis(), of(*claimed))]
    TimedOut {
        /// The peer.
        addr: String,
        /// The deadline that passed.
        after: Duration,
        /// The payload size the prefix claimed (`None`: not all of the prefix came).
        claimed: Option<usize>,
        /// Bytes of the frame that came, size prefix included.
        got: usize,
    },
    /// A read failed.
    #[error("reading from {addr}: {source}")]
    Read {
        /// The peer.
        addr: String,
        /// Bytes of the frame that had come, size prefix included.
        got: usize,
        /// The socket's error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// No connection to the peer (the address does not resolve, or connecting failed).
    #[error("connecting to {addr}: {source}")]
    Connect {
        /// The peer.
        addr: String,
        /// The resolver's or the socket's error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A write failed (or, for the blocking writer, timed out).
    #[error("writing to {addr}: {source}")]
    Write {
        /// The peer.
        addr: String,
        /// The socket's error.
        #[source]
        source: Arc<std::io::Error>,
    },
}

fn of(claimed: Option<usize>) -> String {
    claimed.map_or(String::new(), |c| format!(" of {}", 4 + c))
}

impl NetError {
    /// True when the frame's size prefix had come whole (the failure is inside its payload).
    pub fn mid_frame(&self) -> bool {
        matches!(
            self,
            NetError::CutShort {
                claimed: Some(_),
                ..
            } | NetError::TimedOut {
                claimed: Some(_),
                ..
            }
        )
    }
}
