//! The loopback listeners of a `client-cmd:` session: one per emulated node. Metadata is
//! answered here (every emulated node as a broker at its listener's address), so is an
//! ApiVersions version newer than kipcheck speaks (the KIP-511 fallback); every other request
//! goes to the session as an [`Ev::Request`]. Bytes that cannot be a request are an
//! [`Ev::Fault`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Mutex};

use crate::adapter::error::ClientFault;
use crate::codec::{
    self, decode_request_header, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ApiVersionsRequest,
    Message, MetadataRequest, ProvisionalNumbers, ResponseBody, ResponseHeader,
};
use crate::model::{api_versions_unsupported, emulated_api_versions};
use crate::net::{FrameStream, NetError};
use crate::serve::{metadata_answer, MetadataBroker, TopicCatalog};

/// Bound on writing one frame to the client.
pub(super) const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Topics the emulated cluster knows; others a client names are auto-created (as Kafka's
/// default `auto.create.topics.enable=true` does) so that producers and consumers bootstrap.
const TOPICS: [&str; 1] = ["kipcheck-topic"];

/// What the connection tasks report to the session.
pub(super) enum Ev {
    /// A request (not Metadata) for the runner.
    Request {
        node: i32,
        conn: u64,
        frame: Vec<u8>,
        at_ms: u64,
    },
    /// The client sent bytes that cannot be a request.
    Fault(ClientFault),
}

/// One accepted connection: its node, write half and reader task.
pub(super) struct Conn {
    pub(super) node: i32,
    pub(super) write: OwnedWriteHalf,
    pub(super) reader: Option<tokio::task::AbortHandle>,
}

/// State the session shares with its listener and connection tasks.
pub(super) struct Shared {
    pub(super) numbers: ProvisionalNumbers,
    /// Every emulated node with a listener (Metadata lists them), in the order they got one.
    pub(super) brokers: std::sync::Mutex<Vec<MetadataBroker>>,
    pub(super) start: Instant,
    pub(super) conns: Mutex<BTreeMap<u64, Conn>>,
    pub(super) tx: mpsc::UnboundedSender<Ev>,
}

impl Shared {
    pub(super) fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

pub(super) async fn accept_loop(node: i32, listener: TcpListener, shared: Arc<Shared>) {
    let mut next = u64::try_from(node).unwrap_or(0) << 32;
    let mut readers = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            Some(_) = readers.join_next(), if !readers.is_empty() => {}
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                next += 1;
                let conn = next;
                let _ = stream.set_nodelay(true);
                let (r, w) = stream.into_split();
                shared.conns.lock().await.insert(conn, Conn { node, write: w, reader: None });
                let abort = readers.spawn(read_conn(node, conn, r, shared.clone()));
                if let Some(c) = shared.conns.lock().await.get_mut(&conn) {
                    c.reader = Some(abort);
                }
            }
        }
    }
}

/// Reads frames from one client connection until it closes (a close inside a frame, or a
/// failed read, ends it the same way) or sends a size prefix that cannot be framed.
async fn read_conn(node: i32, conn: u64, r: tokio::net::tcp::OwnedReadHalf, shared: Arc<Shared>) {
    let peer = r
        .peer_addr()
        .map_or_else(|_| "the client".to_owned(), |a| a.to_string());
    let mut frames = FrameStream::new(r, peer, DEFAULT_MAX_FRAME_SIZE);
    loop {
        let fault = match frames.next(None).await {
            Ok(frame) => match handle_frame(node, conn, frame, &shared).await {
                Ok(()) => continue,
                Err(fault) => fault,
            },
            Err(NetError::OverCap { claimed, cap, .. }) => {
                ClientFault::Unframeable { node, claimed, cap }
            }
            Err(_) => break,
        };
        let _ = shared.tx.send(Ev::Fault(fault));
        break;
    }
    shared.conns.lock().await.remove(&conn);
}

/// Answers a Metadata request in place; hands any other request to the session.
async fn handle_frame(
    node: i32,
    conn: u64,
    frame: Vec<u8>,
    shared: &Shared,
) -> Result<(), ClientFault> {
    let (_, header, api_key, body) = decode_request_header(&frame[4..], 4, &shared.numbers)
        .map_err(|source| ClientFault::Header { node, source })?;
    let version = header.request_api_version;
    if api_key == ApiKey::API_VERSIONS && !ApiVersionsRequest::VALID_VERSIONS.contains(version) {
        // A newer client (e.g. ApiVersions v5 from Kafka 4.4) meets a broker that speaks up to
        // v4: answered in place as any such broker does (KIP-511: UNSUPPORTED_VERSION in the v0
        // layout with the supported ranges), and the client retries with a version the
        // scenario's steps see.
        let body = api_versions_unsupported(emulated_api_versions(Some(
            shared.numbers.push_config_api_key,
        )));
        let h = ResponseHeader {
            correlation_id: header.correlation_id,
            ..Default::default()
        };
        let frame = codec::encode_response_frame(&h, &ResponseBody::ApiVersions(body), 0).map_err(
            |source| ClientFault::Encode {
                answer: "ApiVersions fallback",
                source,
            },
        )?;
        write_frame(shared, conn, &frame).await;
        return Ok(());
    }
    if api_key != ApiKey::METADATA {
        let _ = shared.tx.send(Ev::Request {
            node,
            conn,
            frame,
            at_ms: shared.now_ms(),
        });
        return Ok(());
    }
    if !MetadataRequest::VALID_VERSIONS.contains(version) {
        return Err(ClientFault::MetadataVersion { version });
    }
    // Metadata is scaffolding here (it lets the client bootstrap), not what the scenario
    // judges: bytes after a well-formed body are left alone (librdkafka 2.16 sends three
    // after its Metadata v13 body).
    let mut body = body;
    let req = MetadataRequest::decode(&mut body, version)
        .map_err(|source| ClientFault::Metadata { version, source })?;
    let known: Vec<String> = TOPICS.iter().map(|t| (*t).to_owned()).collect();
    let catalog = TopicCatalog {
        known: &known,
        auto_create: true,
    };
    let brokers = shared.brokers.lock().map(|b| b.clone()).unwrap_or_default();
    let answer = metadata_answer(&brokers, &catalog, &req);
    let h = ResponseHeader {
        correlation_id: header.correlation_id,
        ..Default::default()
    };
    let frame = codec::encode_response_frame(&h, &ResponseBody::Metadata(answer), version)
        .map_err(|source| ClientFault::Encode {
            answer: "Metadata answer",
            source,
        })?;
    write_frame(shared, conn, &frame).await;
    Ok(())
}

/// Writes an answer kipcheck gives in place on connection `conn`.
async fn write_frame(shared: &Shared, conn: u64, frame: &[u8]) {
    let mut conns = shared.conns.lock().await;
    if let Some(c) = conns.get_mut(&conn) {
        // A client that stopped reading: its connection is left to time out on its side.
        let _ = tokio::time::timeout(WRITE_TIMEOUT, c.write.write_all(frame)).await;
    }
}
