//! Tests of the frame readers and the exchange: exact errors for a claim over the cap, a
//! cut-short frame, an idle bound, and what a peer did with an exchange's request.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use super::*;
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
