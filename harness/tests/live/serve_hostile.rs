//! `kipcheck serve` against hostile peers: each bad connection is closed with its exact
//! reason, nothing crashes, memory stays bounded and other clients keep being served.
//! Real sockets on loopback; every wait is bounded by a timeout.

use std::time::Duration;

use kipcheck::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ApiVersionsRequest, ErrorCode,
    ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody,
};
use kipcheck::serve::{Direction, ServeOptions, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

async fn server(opts: ServeOptions) -> Server {
    Server::start("127.0.0.1:0", opts, None)
        .await
        .expect("bind")
}

fn api_versions_frame(version: i16, corr: i32) -> Vec<u8> {
    let header = RequestHeader {
        request_api_key: ApiKey::API_VERSIONS.0,
        request_api_version: version,
        correlation_id: corr,
        client_id: Some("hostile-test".into()),
        ..Default::default()
    };
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some("t".into()),
        client_software_version: Some("1".into()),
        ..Default::default()
    });
    codec::encode_request_frame(&header, &body, &ProvisionalNumbers::default()).unwrap()
}

/// Reads one size-prefixed frame (bounded wait).
async fn read_frame(s: &mut TcpStream) -> Vec<u8> {
    let mut size = [0u8; 4];
    timeout(WAIT, s.read_exact(&mut size))
        .await
        .unwrap()
        .unwrap();
    let n = i32::from_be_bytes(size) as usize;
    let mut out = size.to_vec();
    out.resize(4 + n, 0);
    timeout(WAIT, s.read_exact(&mut out[4..]))
        .await
        .unwrap()
        .unwrap();
    out
}

/// Asserts the server closes `s` without sending anything.
async fn assert_closed(s: &mut TcpStream) {
    let mut buf = [0u8; 16];
    let n = timeout(WAIT, s.read(&mut buf))
        .await
        .expect("server closes")
        .unwrap_or(0);
    assert_eq!(n, 0, "expected a close, got {:?}", &buf[..n]);
}

/// The server still answers ApiVersions v3 on a fresh connection.
async fn assert_serving(srv: &Server) {
    let mut s = TcpStream::connect(srv.local_addr()).await.unwrap();
    s.write_all(&api_versions_frame(3, 7)).await.unwrap();
    let f = read_frame(&mut s).await;
    let d =
        codec::decode_response_frame(&f, DEFAULT_MAX_FRAME_SIZE, ApiKey::API_VERSIONS, 3).unwrap();
    assert_eq!(d.header.correlation_id, 7);
    let ResponseBody::ApiVersions(b) = d.body else {
        panic!()
    };
    assert_eq!(b.error_code, 0);
}

/// The close reason the recorder holds for the only connection that closed with one.
async fn close_reason(srv: &Server, conn: u64) -> String {
    let rec = srv.recorder();
    assert!(
        rec.wait_until(WAIT, |r| r
            .iter()
            .any(|f| f.conn == conn && f.dir == Direction::Close))
            .await
    );
    rec.records()
        .into_iter()
        .find(|f| f.conn == conn && f.dir == Direction::Close)
        .and_then(|f| f.note)
        .unwrap()
}

async fn hostile(bytes: &[u8], opts: ServeOptions) -> String {
    let srv = server(opts).await;
    let mut s = TcpStream::connect(srv.local_addr()).await.unwrap();
    s.write_all(bytes).await.unwrap();
    assert_closed(&mut s).await;
    let reason = close_reason(&srv, 1).await;
    assert_serving(&srv).await;
    srv.shutdown().await;
    reason
}

#[tokio::test]
async fn negative_size_closes() {
    let r = hostile(&(-1i32).to_be_bytes(), ServeOptions::default()).await;
    assert_eq!(r, "negative frame size -1");
}

#[tokio::test]
async fn size_of_100_mib_closes_before_allocating() {
    let r = hostile(&(100i32 << 20).to_be_bytes(), ServeOptions::default()).await;
    assert_eq!(r, "frame size 104857600 over the limit 1048576");
    // Even with the codec's own 100 MiB limit, one byte more is refused.
    let opts = ServeOptions {
        max_frame_bytes: DEFAULT_MAX_FRAME_SIZE,
        ..Default::default()
    };
    let big = i32::try_from(DEFAULT_MAX_FRAME_SIZE + 1).unwrap();
    let r = hostile(&big.to_be_bytes(), opts).await;
    assert_eq!(
        r,
        format!(
            "frame size {} over the limit {}",
            big, DEFAULT_MAX_FRAME_SIZE
        )
    );
}

#[tokio::test]
async fn truncated_frame_closes() {
    let srv = server(ServeOptions::default()).await;
    let mut s = TcpStream::connect(srv.local_addr()).await.unwrap();
    let mut bytes = 100i32.to_be_bytes().to_vec();
    bytes.extend_from_slice(&[0u8; 10]);
    s.write_all(&bytes).await.unwrap();
    s.shutdown().await.unwrap();
    assert_closed(&mut s).await;
    assert_eq!(
        close_reason(&srv, 1).await,
        "truncated frame: 10 of 100 bytes"
    );
    assert_serving(&srv).await;
}

#[tokio::test]
async fn garbage_header_closes() {
    let mut bytes = 6i32.to_be_bytes().to_vec();
    bytes.extend_from_slice(b"abcdef");
    let r = hostile(&bytes, ServeOptions::default()).await;
    assert!(r.starts_with("request header does not decode: "), "{r}");
    assert!(r.contains("CorrelationId"), "{r}");
}

#[tokio::test]
async fn unknown_api_key_closes() {
    let mut payload = Vec::new();
    payload.extend_from_slice(&999i16.to_be_bytes());
    payload.extend_from_slice(&0i16.to_be_bytes());
    payload.extend_from_slice(&5i32.to_be_bytes());
    payload.extend_from_slice(&(-1i16).to_be_bytes()); // null client id
    let frame = codec::frame(&payload).unwrap();
    assert_eq!(
        hostile(&frame, ServeOptions::default()).await,
        "unsupported API key 999"
    );
}

#[tokio::test]
async fn unsupported_api_versions_version_gets_v0_fallback() {
    let srv = server(ServeOptions::default()).await;
    let mut s = TcpStream::connect(srv.local_addr()).await.unwrap();
    // A v99 request: header v2 layout, empty body.
    let mut payload = Vec::new();
    payload.extend_from_slice(&18i16.to_be_bytes());
    payload.extend_from_slice(&99i16.to_be_bytes());
    payload.extend_from_slice(&9i32.to_be_bytes());
    payload.extend_from_slice(&(-1i16).to_be_bytes());
    payload.push(0);
    s.write_all(&codec::frame(&payload).unwrap()).await.unwrap();
    let f = read_frame(&mut s).await;
    let d =
        codec::decode_response_frame(&f, DEFAULT_MAX_FRAME_SIZE, ApiKey::API_VERSIONS, 99).unwrap();
    assert!(d.fallback_v0);
    assert_eq!(d.header.correlation_id, 9);
    let ResponseBody::ApiVersions(b) = d.body else {
        panic!()
    };
    assert_eq!(b.error_code, ErrorCode::UNSUPPORTED_VERSION.0);
    let av = b.api_keys.iter().find(|k| k.api_key == 18).unwrap();
    // Every ApiVersions version it answers (the codec's, v0-5: Kafka 4.4's clients send v5).
    assert_eq!((av.min_version, av.max_version), (0, 5));
    // The connection stays usable.
    s.write_all(&api_versions_frame(3, 10)).await.unwrap();
    let f = read_frame(&mut s).await;
    assert_eq!(&f[4..8], &10i32.to_be_bytes());
}

#[tokio::test]
async fn unsupported_metadata_version_closes() {
    let mut payload = Vec::new();
    payload.extend_from_slice(&3i16.to_be_bytes());
    payload.extend_from_slice(&99i16.to_be_bytes());
    payload.extend_from_slice(&1i32.to_be_bytes());
    payload.extend_from_slice(&(-1i16).to_be_bytes());
    payload.push(0);
    let r = hostile(&codec::frame(&payload).unwrap(), ServeOptions::default()).await;
    assert_eq!(r, "Metadata version 99 unsupported");
}

#[tokio::test]
async fn idle_and_slow_clients_time_out() {
    let opts = ServeOptions {
        idle_timeout: Duration::from_millis(200),
        ..Default::default()
    };
    let srv = server(opts).await;
    let mut idle = TcpStream::connect(srv.local_addr()).await.unwrap();
    assert_closed(&mut idle).await;
    assert_eq!(close_reason(&srv, 1).await, "idle timeout (200 ms)");
    // A slow client: a size prefix and 3 of 50 bytes, then nothing.
    let mut slow = TcpStream::connect(srv.local_addr()).await.unwrap();
    let mut bytes = 50i32.to_be_bytes().to_vec();
    bytes.extend_from_slice(&[0, 18, 0]);
    slow.write_all(&bytes).await.unwrap();
    assert_closed(&mut slow).await;
    assert_eq!(
        close_reason(&srv, 2).await,
        "idle timeout mid-frame (3 of 50 bytes after 200 ms)"
    );
    assert_serving(&srv).await;
}

#[tokio::test]
async fn over_max_connections_closed_on_accept_others_served() {
    let opts = ServeOptions {
        max_connections: 3,
        ..Default::default()
    };
    let srv = server(opts).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut s = TcpStream::connect(srv.local_addr()).await.unwrap();
        // A round trip proves the server has accepted it and counts it.
        s.write_all(&api_versions_frame(3, 1)).await.unwrap();
        read_frame(&mut s).await;
        held.push(s);
    }
    let mut extra = TcpStream::connect(srv.local_addr()).await.unwrap();
    assert_closed(&mut extra).await;
    assert_eq!(close_reason(&srv, 4).await, "too many connections");
    for s in &mut held {
        s.write_all(&api_versions_frame(3, 2)).await.unwrap();
        read_frame(s).await;
    }
    assert_eq!(srv.live_connections(), 3);
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_concurrent_connections_each_claiming_a_megabyte() {
    let srv = server(ServeOptions::default()).await;
    let before = rss_kib();
    let mut stalled = Vec::new();
    for _ in 0..1000 {
        let mut s = TcpStream::connect(srv.local_addr()).await.unwrap();
        // Claims the maximum, sends 8 bytes, then stalls.
        let mut b = ((1i32 << 20) - 1).to_be_bytes().to_vec();
        b.extend_from_slice(&[0, 18, 0, 3, 0, 0, 0, 1]);
        s.write_all(&b).await.unwrap();
        stalled.push(s);
    }
    // Meanwhile a well-behaved client is served.
    assert_serving(&srv).await;
    assert!(timeout(WAIT, async {
        while srv.live_connections() < 1000 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .is_ok());
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    // Preallocating the claimed sizes would take ~1000 MiB.
    assert!(
        grown_mib < 128,
        "RSS grew {grown_mib} MiB for 1000 stalled connections"
    );
    drop(stalled);
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_concurrent_clients_all_answered() {
    let srv = server(ServeOptions {
        keep_records: false,
        ..Default::default()
    })
    .await;
    let addr = srv.local_addr();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..1000 {
        tasks.spawn(async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(&api_versions_frame(3, i)).await.unwrap();
            let f = read_frame(&mut s).await;
            i32::from_be_bytes([f[4], f[5], f[6], f[7]]) == i
        });
    }
    let mut ok = 0;
    while let Some(r) = timeout(WAIT, tasks.join_next()).await.unwrap() {
        ok += usize::from(r.unwrap());
    }
    assert_eq!(ok, 1000);
}
