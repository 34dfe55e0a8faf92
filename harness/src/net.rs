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

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::codec::{DecodeError, DecodeErrorKind, FrameReader};

/// The most one read asks the socket for (a frame's allocation grows in steps of this).
const READ_CHUNK: usize = 64 * 1024;

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

/// The frame state both readers share: the codec's reader, the peer's address and the cap.
#[derive(Debug)]
struct Framing {
    frames: FrameReader,
    addr: String,
    cap: usize,
}

impl Framing {
    fn new(addr: String, cap: usize) -> Self {
        Framing {
            frames: FrameReader::new(cap),
            addr,
            cap,
        }
    }

    /// A whole frame if one is buffered, an error for a bad prefix, else how much to read.
    fn ready(&mut self) -> Result<Result<Vec<u8>, usize>, NetError> {
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

    fn ended(&self) -> NetError {
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

    fn timed_out(&self, after: Duration) -> NetError {
        NetError::TimedOut {
            addr: self.addr.clone(),
            after,
            claimed: self.frames.claimed(),
            got: self.frames.buffered(),
        }
    }

    fn read_error(&self, e: std::io::Error) -> NetError {
        NetError::Read {
            addr: self.addr.clone(),
            got: self.frames.buffered(),
            source: Arc::new(e),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use tokio::io::AsyncWriteExt;

    const ADDR: &str = "peer:9092";

    async fn stream_of(bytes: &'static [u8], cap: usize) -> FrameStream<tokio::io::DuplexStream> {
        let (mut a, b) = tokio::io::duplex(1 << 16);
        a.write_all(bytes).await.unwrap();
        drop(a);
        FrameStream::new(b, ADDR, cap)
    }

    /// A loopback connection: the client end and a reader of frames (cap 8) on the server end.
    fn loopback() -> (TcpStream, BlockingFrames) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (server, _) = l.accept().unwrap();
        (client, BlockingFrames::new(server, ADDR, 8))
    }

    fn debug(e: &NetError) -> String {
        format!("{e:?}")
    }

    #[tokio::test]
    async fn frames_come_whole_with_their_prefix_then_a_clean_close() {
        let mut s = stream_of(b"\0\0\0\x02ab\0\0\0\0\0\0\0\x01c", 2).await;
        assert_eq!(s.next(None).await.unwrap(), b"\0\0\0\x02ab");
        assert_eq!(s.next(None).await.unwrap(), b"\0\0\0\0");
        assert_eq!(s.next(None).await.unwrap(), b"\0\0\0\x01c");
        let e = s.next(None).await.unwrap_err();
        assert_eq!(debug(&e), r#"Closed { addr: "peer:9092" }"#);
    }

    /// How reading `bytes` (then the end of the stream) with `cap` fails: the error's Debug
    /// and Display, whether it is mid-frame, and the bytes left of the unfinished frame.
    async fn failure(bytes: &'static [u8], cap: usize) -> (String, String, bool, Vec<u8>) {
        let mut s = stream_of(bytes, cap).await;
        let e = s.next(None).await.unwrap_err();
        (debug(&e), e.to_string(), e.mid_frame(), s.take_partial())
    }

    /// (stream, cap, Debug, Display, mid-frame, bytes left of the unfinished frame)
    type Case = (
        &'static [u8],
        usize,
        &'static str,
        &'static str,
        bool,
        &'static [u8],
    );

    #[tokio::test]
    async fn a_claim_over_the_cap_or_a_cut_short_frame_fails_with_exact_values() {
        let cases: [Case; 4] = [
            (
                b"\0\0\0\x0bxxxxxxxxxxx",
                10,
                r#"OverCap { addr: "peer:9092", cap: 10, claimed: 11 }"#,
                "a frame from peer:9092 claims 11 bytes (the cap is 10)",
                false,
                b"\0\0\0\x0b",
            ),
            (
                b"\xff\xff\xff\xfb",
                10,
                r#"OverCap { addr: "peer:9092", cap: 10, claimed: -5 }"#,
                "a frame from peer:9092 claims -5 bytes (the cap is 10)",
                false,
                b"\xff\xff\xff\xfb",
            ),
            (
                b"\0\0\0\x0aabc",
                100,
                r#"CutShort { addr: "peer:9092", claimed: Some(10), got: 7 }"#,
                "peer:9092 closed the connection 7 bytes into a frame of 14",
                true,
                b"\0\0\0\x0aabc",
            ),
            (
                b"\0\0",
                100,
                r#"CutShort { addr: "peer:9092", claimed: None, got: 2 }"#,
                "peer:9092 closed the connection 2 bytes into a frame",
                false,
                b"\0\0",
            ),
        ];
        for (bytes, cap, debug_form, display, mid, left) in cases {
            assert_eq!(
                failure(bytes, cap).await,
                (
                    debug_form.to_owned(),
                    display.to_owned(),
                    mid,
                    left.to_vec()
                )
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_idle_bound_applies_to_the_prefix_and_again_to_the_payload() {
        let (mut a, b) = tokio::io::duplex(1 << 16);
        let mut s = FrameStream::new(b, ADDR, 100);
        let idle = Some(Duration::from_millis(200));
        let e = s.next(idle).await.unwrap_err();
        assert_eq!(
            debug(&e),
            r#"TimedOut { addr: "peer:9092", after: 200ms, claimed: None, got: 0 }"#
        );
        a.write_all(b"\0\0\0\x32abc").await.unwrap();
        let e = s.next(idle).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            "no whole frame from peer:9092 within 200 ms (7 of 54 bytes came)"
        );
        assert!(e.mid_frame());
    }

    #[test]
    fn the_blocking_reader_times_out_then_continues_the_same_frame() {
        let (mut client, mut frames) = loopback();
        client.write_all(b"\0\0\0\x03a").unwrap();
        let e = frames.next(Duration::from_millis(50)).unwrap_err();
        assert_eq!(
            debug(&e),
            r#"TimedOut { addr: "peer:9092", after: 50ms, claimed: Some(3), got: 5 }"#
        );
        client.write_all(b"bc\0\0\0\x09").unwrap();
        assert_eq!(
            frames.next(Duration::from_millis(500)).unwrap(),
            b"\0\0\0\x03abc"
        );
        let e = frames.next(Duration::from_millis(500)).unwrap_err();
        assert_eq!(
            debug(&e),
            r#"OverCap { addr: "peer:9092", cap: 8, claimed: 9 }"#
        );
    }

    #[test]
    fn the_blocking_reader_reports_a_cut_short_frame() {
        let (mut client, mut frames) = loopback();
        client.write_all(b"\0\0\0\x05ab").unwrap();
        drop(client);
        let e = frames.next(Duration::from_secs(5)).unwrap_err();
        assert_eq!(
            debug(&e),
            r#"CutShort { addr: "peer:9092", claimed: Some(5), got: 6 }"#
        );
        assert_eq!(frames.take_partial(), b"\0\0\0\x05ab");
    }

    /// A peer on a 127.0.0.1:0 listener that reads one request of `request_len` bytes, writes
    /// `answer`, then closes (`hold`: false) or keeps the connection open until the test ends.
    fn peer(
        request_len: usize,
        answer: &'static [u8],
        hold: bool,
    ) -> (String, std::sync::mpsc::Sender<()>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let (done, wait) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut request = vec![0; request_len];
            s.read_exact(&mut request).unwrap();
            s.write_all(answer).unwrap();
            if hold {
                let _ = wait.recv();
            }
        });
        (addr, done)
    }

    const REQUEST: &[u8] = b"\0\0\0\x02hi";

    #[test]
    fn an_exchange_names_what_the_peer_did_with_exact_bytes() {
        let oversized = b"\0\x40\0\x01"; // 4 MiB + 1: one byte over the cap
        let cases: [(&'static [u8], bool, Exchange); 5] = [
            (
                b"\0\0\0\x03abc",
                true,
                Exchange::Response(b"\0\0\0\x03abc".to_vec()),
            ),
            (
                b"\0\0\0\x05ab",
                false,
                Exchange::Closed(b"\0\0\0\x05ab".to_vec()),
            ),
            (b"", false, Exchange::Closed(Vec::new())),
            (oversized, true, Exchange::Oversized(4 * 1024 * 1024 + 1)),
            (
                b"\0\0\0\x05a",
                true,
                Exchange::TimedOut(b"\0\0\0\x05a".to_vec()),
            ),
        ];
        for (answer, hold, expected) in cases {
            let (addr, _done) = peer(REQUEST.len(), answer, hold);
            let got = exchange(&addr, REQUEST, Duration::from_millis(300)).unwrap();
            assert_eq!(got, expected, "answer {answer:?}");
        }
    }

    #[test]
    fn an_exchange_with_an_address_that_does_not_resolve_is_a_connect_error() {
        let e = exchange("127.0.0.1", REQUEST, Duration::from_millis(300)).unwrap_err();
        let NetError::Connect { addr, source } = &e else {
            panic!("not a connect error: {e:?}");
        };
        assert_eq!(
            (addr.as_str(), source.kind()),
            ("127.0.0.1", ErrorKind::InvalidInput)
        );
        assert!(e.to_string().starts_with("connecting to 127.0.0.1: "));
    }
}
