//! The I/O edge for Kafka frames: every socket kipcheck reads Kafka frames from reads them
//! through here: `kipcheck serve` and `kipcheck load`, the `tcp://` target (its probe, setup
//! exchanges and session connections), the `client-cmd:` listeners, the live client's
//! connections, the metadata-log observer, and the interop probes and client relay.
//! Frames are cut by [`codec::FrameReader`](crate::codec::FrameReader) (the one frame reader:
//! the size prefix checked against a cap before anything is buffered, the buffer growing only
//! as bytes arrive, never read past the current frame); this module adds the socket, the
//! deadline and typed errors that name the address. [`FrameStream`] is the async reader (tokio),
//! [`BlockingFrames`] the blocking one (std `TcpStream`); [`write_frame`] and
//! [`write_frame_blocking`] write; [`exchange`] is one bounded blocking round trip on a new
//! connection (write a request, read one frame back). Frames are returned as they came: size
//! prefix included. Nothing here decodes past the size prefix or judges what came.
//!
//! The parts: `error.rs` ([`NetError`]), `framing.rs` (the state both readers share),
//! `stream.rs` (async: [`FrameStream`], [`write_frame`]), `blocking.rs` (std:
//! [`BlockingFrames`], [`write_frame_blocking`], [`exchange`]). This file only declares them
//! and re-exports their names, so `net::X` paths stay as they were.

pub mod blocking;
pub mod error;
mod framing;
pub mod stream;
#[cfg(test)]
mod tests;

pub use blocking::{
    exchange, write_frame_blocking, BlockingFrames, Exchange, EXCHANGE_MAX_FRAME, EXCHANGE_TIMEOUT,
};
pub use error::NetError;
pub use stream::{write_frame, FrameStream};
