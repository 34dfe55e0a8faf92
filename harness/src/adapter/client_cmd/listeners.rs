//! The loopback listeners of a `client-cmd:` session: one per emulated node, frames read by
//! [`net::FrameStream`](crate::net::FrameStream). Metadata is answered here (every emulated
//! node as a broker at its listener's address), so is an ApiVersions version newer than
//! kipcheck speaks (the KIP-511 fallback): both by the emulated node of
//! [`crate::model::emulated`]. Every other request goes to the session as an [`Ev::Request`],
//! as it came. Bytes that cannot be a request are an [`Ev::Fault`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Mutex};

use crate::adapter::error::ClientFault;
use crate::codec::{limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers};
use crate::model::{emulated_api_versions, read_request, MetadataBroker, TopicCatalog};
use crate::net::{FrameStream, NetError};

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

/// Answers a Metadata request, and an ApiVersions version newer than kipcheck speaks, in place
/// (the emulated node, [`crate::model::emulated`]); hands any other request to the session.
async fn handle_frame(
    node: i32,
    conn: u64,
    frame: Vec<u8>,
    shared: &Shared,
) -> Result<(), ClientFault> {
    let fault = |source| ClientFault::InPlace { node, source };
    let req = read_request(&frame, &shared.numbers).map_err(fault)?;
    let answer = if req.is_unspoken_api_versions() {
        // A client newer than kipcheck's codec meets a broker that speaks less: answered as
        // any such broker does (KIP-511), and the client retries with a version the
        // scenario's steps see.
        // (Without the SASL entries: the listener does not know the scenario's client config;
        // the answer to the spoken version the client retries with comes from the steps.)
        let advertised = emulated_api_versions(Some(shared.numbers.push_config_api_key), false);
        req.answer_unspoken_api_versions(advertised)
    } else if req.api_key == ApiKey::METADATA {
        let known: Vec<String> = TOPICS.iter().map(|t| (*t).to_owned()).collect();
        let catalog = TopicCatalog {
            known: &known,
            auto_create: true,
        };
        let brokers = shared.brokers.lock().map(|b| b.clone()).unwrap_or_default();
        req.answer_metadata(&brokers, &catalog)
    } else {
        let _ = shared.tx.send(Ev::Request {
            node,
            conn,
            frame,
            at_ms: shared.now_ms(),
        });
        return Ok(());
    };
    write_frame(shared, conn, &answer.map_err(fault)?).await;
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
