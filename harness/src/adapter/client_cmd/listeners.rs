//! The loopback listeners of a `client-cmd:` session: one per emulated node, frames read by
//! [`net::FrameStream`](crate::net::FrameStream). Metadata is answered here (every emulated
//! node as a broker at its listener's address), so is an ApiVersions version newer than
//! kipcheck speaks (the KIP-511 fallback): both by the emulated node of
//! [`crate::emulate`]. Every other request goes to the session as an [`Ev::Request`],
//! as it came, except on a *follow-up connection* (below). Bytes that cannot be a request are
//! an [`Ev::Fault`].
//!
//! Follow-up connection: a Java client opens a bootstrap connection (ApiVersions, SASL if any,
//! then Metadata), and then a new connection to the broker Metadata named, on which it goes on
//! (the handshake included; KIP-1324 does not say which connection carries it). A scenario tells
//! one story per node, so the first connection to a node opened while another connection to it
//! that sent Metadata is still open follows that story: its connection-setup requests
//! (ApiVersions, SaslHandshake, SaslAuthenticate) get in place the answer the scenario gave to
//! the same request (API and version) on that node ([`Shared::answers`]), until its first other
//! request, which goes to the session as usual (and so does everything after it). On a SASL
//! listener (the scenario answered SaslHandshake on the node) a follow-up connection whose first
//! other request comes before its SaslAuthenticate is closed unanswered, as Kafka's
//! SaslServerAuthenticator does: the request never reaches the scenario, which then sees the
//! client's next move. A discovery connection lends itself to one follow-up connection only: a
//! later new connection to the node (e.g. after the client closed the follow-up one) is judged
//! from its ApiVersions on.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Mutex};

use crate::adapter::error::ClientFault;
use crate::codec::{limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers};
use crate::emulate::{emulated_api_versions, read_request, MetadataBroker, TopicCatalog};
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
    /// When it was accepted, on [`Shared::seq`].
    pub(super) accepted: u64,
    /// It sent a Metadata request (answered in place): a discovery connection.
    pub(super) metadata: bool,
    /// As a discovery connection, it already lent its node's story to a follow-up connection.
    pub(super) lent: bool,
    /// A follow-up connection still in its connection setup (see the module doc).
    pub(super) follow_up: bool,
    /// A follow-up connection got the node's SaslAuthenticate answer.
    pub(super) authenticated: bool,
}

/// The API keys of the connection setup a follow-up connection gets answered in place.
const SETUP_APIS: [ApiKey; 3] = [
    ApiKey::API_VERSIONS,
    ApiKey::SASL_HANDSHAKE,
    ApiKey::SASL_AUTHENTICATE,
];

/// Whether `api_key` is a connection-setup request (see the module doc).
pub(super) fn is_setup_api(api_key: ApiKey) -> bool {
    SETUP_APIS.contains(&api_key)
}

/// State the session shares with its listener and connection tasks.
pub(super) struct Shared {
    pub(super) numbers: ProvisionalNumbers,
    /// Every emulated node with a listener (Metadata lists them), in the order they got one.
    pub(super) brokers: std::sync::Mutex<Vec<MetadataBroker>>,
    pub(super) start: Instant,
    pub(super) conns: Mutex<BTreeMap<u64, Conn>>,
    pub(super) tx: mpsc::UnboundedSender<Ev>,
    /// Orders accepts and closes: each takes the next number.
    pub(super) seq: AtomicU64,
    /// Per node, the [`Shared::seq`] of the latest close of one of its connections (by either
    /// side).
    pub(super) closed: std::sync::Mutex<BTreeMap<i32, u64>>,
    /// The scenario's latest answer (the whole frame) per node, API key and version, for the
    /// connection-setup APIs: what a follow-up connection gets in place.
    pub(super) answers: std::sync::Mutex<BTreeMap<(i32, ApiKey, i16), Vec<u8>>>,
}

impl Shared {
    pub(super) fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Records that a connection of `node` closed (or was closed) now.
    pub(super) fn note_closed(&self, node: i32) {
        let at = self.next_seq();
        if let Ok(mut c) = self.closed.lock() {
            c.insert(node, at);
        }
    }

    /// Whether `node` has a connection the client opened since it last lost one: it
    /// (re)connected by itself, before a `connect` step asked it to.
    pub(super) async fn reconnected(&self, node: i32) -> bool {
        let since = self
            .closed
            .lock()
            .map(|c| c.get(&node).copied().unwrap_or(0))
            .unwrap_or(0);
        if since == 0 {
            return false;
        }
        self.conns
            .lock()
            .await
            .values()
            .any(|c| c.node == node && c.accepted > since)
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
                let accepted = shared.next_seq();
                {
                    let mut conns = shared.conns.lock().await;
                    // The first connection opened while a discovery connection to the node is
                    // open (and has lent itself to none) follows that one's story.
                    let lender = conns
                        .values_mut()
                        .find(|c| c.node == node && c.metadata && !c.lent);
                    let follow_up = lender.is_some();
                    if let Some(l) = lender {
                        l.lent = true;
                    }
                    conns.insert(
                        conn,
                        Conn {
                            node,
                            write: w,
                            reader: None,
                            accepted,
                            metadata: false,
                            lent: false,
                            follow_up,
                            authenticated: false,
                        },
                    );
                }
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
                Ok(Read::On) => continue,
                Ok(Read::Close) => break,
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
    if shared.conns.lock().await.remove(&conn).is_some() {
        shared.note_closed(node);
    }
}

/// Answers a Metadata request, and an ApiVersions version newer than kipcheck speaks, in place
/// (the emulated node, [`crate::emulate`]); hands any other request to the session.
/// Whether a connection is read on after a frame.
enum Read {
    On,
    /// Closed unanswered (a follow-up connection that skipped its authentication).
    Close,
}

async fn handle_frame(
    node: i32,
    conn: u64,
    frame: Vec<u8>,
    shared: &Shared,
) -> Result<Read, ClientFault> {
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
        if let Some(c) = shared.conns.lock().await.get_mut(&conn) {
            c.metadata = true;
        }
        let known: Vec<String> = TOPICS.iter().map(|t| (*t).to_owned()).collect();
        let catalog = TopicCatalog {
            known: &known,
            auto_create: true,
        };
        let brokers = shared.brokers.lock().map(|b| b.clone()).unwrap_or_default();
        req.answer_metadata(&brokers, &catalog)
    } else if let Some(follow) = follow_up(node, conn, &req, shared).await {
        match follow {
            FollowUp::Answer(frame) => Ok(frame),
            FollowUp::Close => return Ok(Read::Close),
        }
    } else {
        let _ = shared.tx.send(Ev::Request {
            node,
            conn,
            frame,
            at_ms: shared.now_ms(),
        });
        return Ok(Read::On);
    };
    write_frame(shared, conn, &answer.map_err(fault)?).await;
    Ok(Read::On)
}

/// What a follow-up connection's request gets in place.
enum FollowUp {
    /// The scenario's answer to the same setup request on the node (the whole frame).
    Answer(Vec<u8>),
    /// Nothing: the connection is closed (a request before authenticating on a SASL listener).
    Close,
}

/// On a follow-up connection still in its setup, what the request gets in place; `None` when
/// it goes to the session (which ends the connection's setup).
async fn follow_up(
    node: i32,
    conn: u64,
    req: &crate::emulate::Request<'_>,
    shared: &Shared,
) -> Option<FollowUp> {
    let mut conns = shared.conns.lock().await;
    let c = conns.get_mut(&conn)?;
    if !c.follow_up {
        return None;
    }
    let (answer, sasl) = {
        let answers = shared.answers.lock().ok()?;
        let answer = is_setup_api(req.api_key)
            .then(|| answers.get(&(node, req.api_key, req.version())).cloned())
            .flatten()
            .filter(|f| f.len() >= 8);
        let sasl = answers
            .keys()
            .any(|(n, k, _)| *n == node && *k == ApiKey::SASL_HANDSHAKE);
        (answer, sasl)
    };
    if let Some(mut frame) = answer {
        frame[4..8].copy_from_slice(&req.header.correlation_id.to_be_bytes());
        if req.api_key == ApiKey::SASL_AUTHENTICATE {
            c.authenticated = true;
        }
        return Some(FollowUp::Answer(frame));
    }
    c.follow_up = false;
    (sasl && !c.authenticated && !is_setup_api(req.api_key)).then_some(FollowUp::Close)
}

/// Writes an answer kipcheck gives in place on connection `conn`.
async fn write_frame(shared: &Shared, conn: u64, frame: &[u8]) {
    let mut conns = shared.conns.lock().await;
    if let Some(c) = conns.get_mut(&conn) {
        // A client that stopped reading: its connection is left to time out on its side.
        let _ = tokio::time::timeout(WRITE_TIMEOUT, c.write.write_all(frame)).await;
    }
}
