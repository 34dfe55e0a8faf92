//! The frame state the async and blocking readers share: the codec's one
//! [`FrameReader`] (size prefix checked against the cap before anything is buffered), the
//! peer's address and the cap, and the [`NetError`] each way of failing becomes. Touches no
//! socket: the readers in `stream.rs` and `blocking.rs` do the reading.

use std::sync::Arc;
use std::time::Duration;

use super::error::NetError;
use crate::codec::{DecodeError, DecodeErrorKind, FrameReader};

/// The most one read asks the socket for (a frame's allocation grows in steps of this).
const READ_CHUNK: usize = 64 * 1024;

/// The frame state both readers share: the codec's reader, the peer's address and the cap.
#[derive(Debug)]
pub(super) struct Framing {
    pub(super) frames: FrameReader,
    pub(super) addr: String,
    pub(super) cap: usize,
}

impl Framing {
    pub(super) fn new(addr: String, cap: usize) -> Self {
        Framing {
            frames: FrameReader::new(cap),
            addr,
            cap,
        }
    }

    /// A whole frame if one is buffered, an error for a bad prefix, else how much to read.
    pub(super) fn ready(&mut self) -> Result<Result<Vec<u8>, usize>, NetError> {
        match self.frames.next_whole_frame() {
            Ok(Some(frame)) => Ok(Ok(frame)),
            Ok(None) => Ok(Err(self.frames.wanted().clamp(1, READ_CHUNK))),
            Err(e) => Err(self.over_cap(&e)),
        }
    }

    fn over_cap(&self, e: &DecodeError) -> NetError {
        let claimed = match e.kind() {
            DecodeErrorKind::NegativeFrameSize { size } => i64::from(size),
            DecodeErrorKind::FrameTooLarge { size, .. } => i64::try_from(size).unwrap_or(i64::MAX),
            _ => i64::MIN,
        };
        NetError::OverCap {
            addr: self.addr.clone(),
            cap: self.cap,
            claimed,
        }
    }

    pub(super) fn ended(&self) -> NetError {
        match self.frames.buffered() {
            0 => NetError::Closed {
                addr: self.addr.clone(),
            },
            got => NetError::CutShort {
                addr: self.addr.clone(),
                claimed: self.frames.claimed(),
                got,
            },
        }
    }

    pub(super) fn timed_out(&self, after: Duration) -> NetError {
        NetError::TimedOut {
            addr: self.addr.clone(),
            after,
            claimed: self.frames.claimed(),
            got: self.frames.buffered(),
        }
    }

    pub(super) fn read_error(&self, e: std::io::Error) -> NetError {
        NetError::Read {
            addr: self.addr.clone(),
            got: self.frames.buffered(),
            source: Arc::new(e),
        }
    }
}
