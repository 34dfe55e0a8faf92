//! The async side (tokio): [`FrameStream`] reads frames from a socket or its read half with
//! an idle bound, [`write_frame`] writes one. Decodes nothing past the size prefix.

use std::io::ErrorKind;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::error::NetError;
use super::framing::Framing;

/// Reads frames from an async byte stream (a socket or its read half).
#[derive(Debug)]
pub struct FrameStream<R> {
    io: R,
    framing: Framing,
}

impl<R: AsyncRead + Unpin> FrameStream<R> {
    /// Frames of at most `cap` payload bytes from `io`, whose peer is `addr` (for errors).
    pub fn new(io: R, addr: impl Into<String>, cap: usize) -> Self {
        FrameStream {
            io,
            framing: Framing::new(addr.into(), cap),
        }
    }

    /// The next frame, size prefix included. `idle` bounds the wait for the size prefix, and
    /// the wait for the payload again once the prefix is in (`None`: no bound); a caller
    /// that wants one bound on the whole frame wraps the call in `tokio::time::timeout`.
    /// After an error the bytes of the unfinished frame stay for [`take_partial`](Self::take_partial).
    pub async fn next(&mut self, idle: Option<Duration>) -> Result<Vec<u8>, NetError> {
        let mut had_prefix = self.framing.frames.claimed().is_some();
        let mut stage = tokio::time::Instant::now();
        loop {
            let want = match self.framing.ready()? {
                Ok(frame) => return Ok(frame),
                Err(want) => want,
            };
            let spare = self.framing.frames.spare(want);
            let read = self.io.read(spare);
            let got = match idle {
                None => read.await,
                Some(d) => match tokio::time::timeout_at(stage + d, read).await {
                    Ok(r) => r,
                    Err(_) => {
                        self.framing.frames.filled(want, 0);
                        return Err(self.framing.timed_out(d));
                    }
                },
            };
            match got {
                Ok(0) => {
                    self.framing.frames.filled(want, 0);
                    return Err(self.framing.ended());
                }
                Ok(n) => self.framing.frames.filled(want, n),
                Err(e) => {
                    self.framing.frames.filled(want, 0);
                    if e.kind() != ErrorKind::Interrupted {
                        return Err(self.framing.read_error(e));
                    }
                }
            }
            if !had_prefix && self.framing.frames.claimed().is_some() {
                had_prefix = true;
                stage = tokio::time::Instant::now();
            }
        }
    }

    /// The bytes of the frame that did not finish (size prefix included; after an
    /// [`NetError::OverCap`], the prefix alone).
    pub fn take_partial(&mut self) -> Vec<u8> {
        self.framing.frames.take_buffered()
    }

    /// The stream, to write on.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.io
    }
}

/// Writes one whole frame (size prefix included) to an async stream.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    w: &mut W,
    addr: &str,
    frame: &[u8],
) -> Result<(), NetError> {
    w.write_all(frame).await.map_err(|e| NetError::Write {
        addr: addr.to_owned(),
        source: Arc::new(e),
    })
}
