//! One bounded request/response exchange with a live peer over blocking loopback TCP: write a
//! frame, read one size-prefixed frame back ([`crate::net`]: its size checked before allocating). It judges
//! nothing: the caller decodes and decides.

use std::io::{ErrorKind, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::error::InteropError;
use crate::net::{BlockingFrames, NetError};

/// How long a probe waits to connect and for each read.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest response frame a probe accepts (ApiVersions and Metadata answers are small).
const MAX_RESPONSE: usize = 4 * 1024 * 1024;

/// What the peer did with the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// It answered with this frame (size prefix included).
    Response(Vec<u8>),
    /// It closed the connection (or reset it) before a whole frame arrived; the bytes that did.
    Closed(Vec<u8>),
    /// Nothing whole arrived within the timeout; the bytes that did.
    TimedOut(Vec<u8>),
    /// It announced a frame larger than the probe accepts.
    Oversized(i32),
}

/// Connects to `addr`, writes `request` and reads one response frame.
pub fn exchange(peer: &str, addr: &str, request: &[u8]) -> Result<Exchange, InteropError> {
    let unreachable = |source| InteropError::Unreachable {
        peer: peer.to_string(),
        addr: addr.to_string(),
        source,
    };
    let sock: SocketAddr = addr
        .to_socket_addrs()
        .map_err(unreachable)?
        .next()
        .ok_or_else(|| unreachable(std::io::Error::new(ErrorKind::NotFound, "no address")))?;
    let mut s = TcpStream::connect_timeout(&sock, PROBE_TIMEOUT).map_err(unreachable)?;
    s.set_read_timeout(Some(PROBE_TIMEOUT))
        .map_err(unreachable)?;
    s.set_write_timeout(Some(PROBE_TIMEOUT))
        .map_err(unreachable)?;
    s.set_nodelay(true).map_err(unreachable)?;
    if let Err(e) = s.write_all(request) {
        return Ok(match e.kind() {
            ErrorKind::WouldBlock | ErrorKind::TimedOut => Exchange::TimedOut(Vec::new()),
            _ => Exchange::Closed(Vec::new()),
        });
    }
    let mut frames = BlockingFrames::new(s, addr, MAX_RESPONSE);
    Ok(match frames.next(PROBE_TIMEOUT) {
        Ok(frame) => Exchange::Response(frame),
        Err(NetError::OverCap { claimed, .. }) => {
            Exchange::Oversized(i32::try_from(claimed).unwrap_or(i32::MAX))
        }
        Err(NetError::TimedOut { .. }) => Exchange::TimedOut(frames.take_partial()),
        Err(_) => Exchange::Closed(frames.take_partial()),
    })
}
