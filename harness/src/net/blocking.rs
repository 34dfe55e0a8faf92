//! The blocking side (std `TcpStream`): [`BlockingFrames`] reads frames with a per-read
//! timeout, [`write_frame_blocking`] writes one, and [`exchange`] is one bounded round trip
//! on a new connection (write a request, read one frame back). Decodes nothing past the
//! size prefix and judges nothing the peer did.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use super::error::NetError;
use super::framing::Framing;

/// Reads frames from a blocking TCP stream.
#[derive(Debug)]
pub struct BlockingFrames {
    io: TcpStream,
    framing: Framing,
    timeout: Option<Duration>,
}

impl BlockingFrames {
    /// Frames of at most `cap` payload bytes from `io`, whose peer is `addr` (for errors).
    pub fn new(io: TcpStream, addr: impl Into<String>, cap: usize) -> Self {
        BlockingFrames {
            io,
            framing: Framing::new(addr.into(), cap),
            timeout: None,
        }
    }

    /// The next frame, size prefix included. `timeout` bounds each read (the socket's read
    /// timeout is set to it). After [`NetError::TimedOut`] the bytes that came stay
    /// buffered: calling again continues the same frame.
    pub fn next(&mut self, timeout: Duration) -> Result<Vec<u8>, NetError> {
        if self.timeout != Some(timeout) {
            self.io
                .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))
                .map_err(|e| self.framing.read_error(e))?;
            self.timeout = Some(timeout);
        }
        loop {
            let want = match self.framing.ready()? {
                Ok(frame) => return Ok(frame),
                Err(want) => want,
            };
            let spare = self.framing.frames.spare(want);
            let got = self.io.read(spare);
            self.framing
                .frames
                .filled(want, *got.as_ref().unwrap_or(&0));
            match got {
                Ok(0) => return Err(self.framing.ended()),
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Err(self.framing.timed_out(timeout))
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(self.framing.read_error(e)),
            }
        }
    }

    /// The bytes of the frame that did not finish (size prefix included; after an
    /// [`NetError::OverCap`], the prefix alone).
    pub fn take_partial(&mut self) -> Vec<u8> {
        self.framing.frames.take_buffered()
    }

    /// The stream, to write on.
    pub fn get_mut(&mut self) -> &mut TcpStream {
        &mut self.io
    }
}

/// Writes one whole frame (size prefix included) to a blocking stream.
pub fn write_frame_blocking<W: Write>(w: &mut W, addr: &str, frame: &[u8]) -> Result<(), NetError> {
    w.write_all(frame).map_err(|e| NetError::Write {
        addr: addr.to_owned(),
        source: Arc::new(e),
    })
}

/// How long [`exchange`] waits to connect, to write, and for each read of the answer.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest answer frame [`exchange`] accepts (payload bytes; ApiVersions, Metadata and
/// the other answers a probe asks for are far smaller).
pub const EXCHANGE_MAX_FRAME: usize = 4 * 1024 * 1024;

/// What a peer did with the request of an [`exchange`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// It answered with this frame (size prefix included).
    Response(Vec<u8>),
    /// It closed the connection (or reset it) before a whole frame arrived; the bytes that did.
    Closed(Vec<u8>),
    /// Nothing whole arrived within the timeout; the bytes that did.
    TimedOut(Vec<u8>),
    /// It announced a frame over [`EXCHANGE_MAX_FRAME`] (or of negative size): the size prefix.
    Oversized(i32),
}

/// Connects to `addr`, writes `request` (a whole frame) and reads one frame back, each step
/// bounded by `timeout`. Whatever the peer does is an [`Exchange`]; the only error is
/// [`NetError::Connect`]. It judges nothing: the caller decodes and decides.
pub fn exchange(addr: &str, request: &[u8], timeout: Duration) -> Result<Exchange, NetError> {
    let unreachable = |source| NetError::Connect {
        addr: addr.to_owned(),
        source: Arc::new(source),
    };
    let sock: SocketAddr = addr
        .to_socket_addrs()
        .map_err(unreachable)?
        .next()
        .ok_or_else(|| unreachable(std::io::Error::new(ErrorKind::NotFound, "no address")))?;
    let mut s = TcpStream::connect_timeout(&sock, timeout).map_err(unreachable)?;
    s.set_write_timeout(Some(timeout)).map_err(unreachable)?;
    s.set_nodelay(true).map_err(unreachable)?;
    if let Err(e) = s.write_all(request) {
        return Ok(match e.kind() {
            ErrorKind::WouldBlock | ErrorKind::TimedOut => Exchange::TimedOut(Vec::new()),
            _ => Exchange::Closed(Vec::new()),
        });
    }
    let mut frames = BlockingFrames::new(s, addr, EXCHANGE_MAX_FRAME);
    Ok(match frames.next(timeout) {
        Ok(frame) => Exchange::Response(frame),
        Err(NetError::OverCap { claimed, .. }) => {
            Exchange::Oversized(i32::try_from(claimed).unwrap_or(i32::MAX))
        }
        Err(NetError::TimedOut { .. }) => Exchange::TimedOut(frames.take_partial()),
        Err(_) => Exchange::Closed(frames.take_partial()),
    })
}
