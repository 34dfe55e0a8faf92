//! The `client-cmd:"COMMAND {bootstrap}"` target: a live Kafka client, started per scenario
//! as a shell command, with kipcheck playing every broker it talks to. Each emulated node the
//! scenario uses gets a loopback listener; `{bootstrap}` becomes the first node's address.
//! Metadata requests are answered here (every emulated node as a broker, at its listener's
//! address, so the client's later connections reach the right node); every other request goes
//! to the runner as an [`OutRequest`], and the runner's answer goes back on the connection
//! that sent it. The clock is real: waits and `advance` are bounded wall-clock sleeps. A
//! client that exits non-zero or sends unframeable or undecodable bytes makes the session
//! fail with the output tail; the process group is killed when the session ends.
//! This module judges nothing: whether a request was right is the runner's call.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpListener;
use tokio::process::Child;
use tokio::sync::{mpsc, Mutex};
use tokio::task::JoinHandle;

use super::exec_process::{kill_group, spawn_group, StderrTail};
use super::registry::TargetOptions;
use super::target::{
    unclaimable_live, AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, Session,
    SessionConfig, Target,
};
use crate::codec::{
    self, decode_request_header, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ApiVersionsRequest,
    ErrorCode, FrameReader, Message, MetadataRequest, ProvisionalNumbers, ResponseBody,
    ResponseHeader,
};
use crate::model::emulated_api_versions;
use crate::scenario::{Capability, Role};
use crate::serve::{metadata_answer, MetadataBroker, TopicCatalog};

/// The placeholder the command's bootstrap address replaces.
pub const BOOTSTRAP_PLACEHOLDER: &str = "{bootstrap}";
/// Longest single `advance` or request wait on the real clock; longer ones are unsupported
/// (advance) or cut to this bound (waits).
pub const MAX_REAL_WAIT_MS: u64 = 60_000;
/// Bound on writing one frame to the client.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// How much of the client's output (stdout and stderr) is kept for failure reports.
const OUTPUT_TAIL_BYTES: usize = 4096;
/// How often a wait looks at whether the client process has exited.
const EXIT_POLL: Duration = Duration::from_millis(50);
/// Topics the emulated cluster knows; others a client names are auto-created (as Kafka's
/// default `auto.create.topics.enable=true` does) so that producers and consumers bootstrap.
const TOPICS: [&str; 1] = ["kipcheck-topic"];

/// A live client started by a shell command.
#[derive(Clone, Debug)]
pub struct ClientCmdTarget {
    command: String,
    declared: Vec<Capability>,
    readings: crate::model::SpecProfile,
}

impl ClientCmdTarget {
    /// A target running `command` (which must contain `{bootstrap}`) per scenario.
    pub fn new(command: &str, opts: &TargetOptions) -> Result<Self, AdapterError> {
        if !command.contains(BOOTSTRAP_PLACEHOLDER) {
            return Err(AdapterError::Setup(format!(
                "client-cmd: the command must contain {BOOTSTRAP_PLACEHOLDER} (where the client's bootstrap address goes)"
            )));
        }
        if opts.role.is_some_and(|r| r != Role::Client) {
            return Err(AdapterError::Setup(
                "client-cmd: drives a client; drive a broker or controller with tcp:// or exec:"
                    .into(),
            ));
        }
        Ok(Self {
            command: command.to_owned(),
            declared: opts.capabilities.clone(),
            readings: opts.readings.clone().unwrap_or_default(),
        })
    }
}

/// The emulated nodes a scenario uses: the client's bootstrap nodes in order (node 1 when
/// the setup names none), then the other emulated brokers.
fn scenario_nodes(config: &SessionConfig) -> Vec<i32> {
    let mut nodes = config
        .setup
        .client
        .as_ref()
        .map(|c| c.connect.clone())
        .unwrap_or_else(|| vec![1]);
    if nodes.is_empty() {
        nodes.push(1);
    }
    for n in config.setup.emulated_brokers.keys() {
        if !nodes.contains(n) {
            nodes.push(*n);
        }
    }
    nodes
}

#[async_trait]
impl Target for ClientCmdTarget {
    fn name(&self) -> String {
        format!("client-cmd:{}", self.command)
    }

    fn capabilities(&self) -> Capabilities {
        let mut capabilities = self.declared.clone();
        // A live process has a real clock and no observable model events, whatever was declared.
        capabilities.retain(|c| unclaimable_live(*c).is_none());
        capabilities.sort();
        capabilities.dedup();
        Capabilities {
            roles: vec![Role::Client],
            capabilities,
            readings: Some(self.readings.clone()),
        }
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        let nodes = scenario_nodes(&config);
        let mut listeners = Vec::new();
        let mut brokers = Vec::new();
        for node in &nodes {
            let l = TcpListener::bind("127.0.0.1:0").await?;
            let addr = l.local_addr()?;
            brokers.push(MetadataBroker {
                node_id: *node,
                host: addr.ip().to_string(),
                port: i32::from(addr.port()),
            });
            listeners.push((*node, addr, l));
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            numbers: config.profile.provisional,
            brokers,
            start: Instant::now(),
            conns: Mutex::new(BTreeMap::new()),
            tx,
        });
        let mut tasks = Vec::new();
        let mut addrs = Vec::new();
        for (node, addr, l) in listeners {
            addrs.push(addr);
            tasks.push(tokio::spawn(accept_loop(node, l, shared.clone())));
        }
        Ok(Box::new(ClientCmdSession {
            command: self.command.clone(),
            bootstrap: addrs[0],
            shared,
            rx,
            pending: BTreeMap::new(),
            tasks,
            process: None,
        }))
    }
}

/// What the connection tasks report to the session.
enum Ev {
    /// A request (not Metadata) for the runner.
    Request {
        node: i32,
        conn: u64,
        frame: Vec<u8>,
        at_ms: u64,
    },
    /// The client sent bytes that cannot be a request.
    Fault(String),
}

/// One accepted connection: its node, write half and reader task.
struct Conn {
    node: i32,
    write: OwnedWriteHalf,
    reader: Option<tokio::task::AbortHandle>,
}

/// State the session shares with its listener and connection tasks.
struct Shared {
    numbers: ProvisionalNumbers,
    brokers: Vec<MetadataBroker>,
    start: Instant,
    conns: Mutex<BTreeMap<u64, Conn>>,
    tx: mpsc::UnboundedSender<Ev>,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

async fn accept_loop(node: i32, listener: TcpListener, shared: Arc<Shared>) {
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

/// Reads frames from one client connection until it closes or sends something unframeable.
async fn read_conn(
    node: i32,
    conn: u64,
    mut r: tokio::net::tcp::OwnedReadHalf,
    shared: Arc<Shared>,
) {
    let mut frames = FrameReader::new(DEFAULT_MAX_FRAME_SIZE);
    let mut buf = vec![0u8; 64 * 1024];
    'read: loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        frames.push(&buf[..n]);
        loop {
            match frames.next_frame() {
                Ok(None) => break,
                Ok(Some(payload)) => {
                    if let Err(fault) = handle_frame(node, conn, payload, &shared).await {
                        let _ = shared.tx.send(Ev::Fault(fault));
                        break 'read;
                    }
                }
                Err(e) => {
                    let _ = shared.tx.send(Ev::Fault(format!(
                        "the client sent an unframeable stream to node {node}: {e}"
                    )));
                    break 'read;
                }
            }
        }
    }
    shared.conns.lock().await.remove(&conn);
}

/// Answers a Metadata request in place; hands any other request to the session.
async fn handle_frame(
    node: i32,
    conn: u64,
    payload: Vec<u8>,
    shared: &Shared,
) -> Result<(), String> {
    let (_, header, api_key, body) =
        decode_request_header(&payload, 4, &shared.numbers).map_err(|e| {
            format!("the client sent node {node} a request whose header does not decode: {e}")
        })?;
    let version = header.request_api_version;
    if api_key == ApiKey::API_VERSIONS && !ApiVersionsRequest::VALID_VERSIONS.contains(version) {
        // A newer client (e.g. ApiVersions v5 from Kafka 4.4) meets a broker that speaks up to
        // v4: answered in place as any such broker does (KIP-511: UNSUPPORTED_VERSION in the v0
        // layout with the supported ranges), and the client retries with a version the
        // scenario's steps see.
        let mut body = emulated_api_versions(Some(shared.numbers.push_config_api_key));
        body.error_code = ErrorCode::UNSUPPORTED_VERSION.0;
        let h = ResponseHeader {
            correlation_id: header.correlation_id,
            ..Default::default()
        };
        let frame =
            codec::encode_response_frame(&h, &ResponseBody::ApiVersions(body.project(0)), 0)
                .map_err(|e| format!("cannot encode the ApiVersions fallback: {e}"))?;
        return write_frame(shared, conn, &frame).await;
    }
    if api_key != ApiKey::METADATA {
        let mut frame = Vec::with_capacity(4 + payload.len());
        frame.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        frame.extend_from_slice(&payload);
        let _ = shared.tx.send(Ev::Request {
            node,
            conn,
            frame,
            at_ms: shared.now_ms(),
        });
        return Ok(());
    }
    if !MetadataRequest::VALID_VERSIONS.contains(version) {
        return Err(format!(
            "the client sent Metadata v{version}, which kipcheck does not speak"
        ));
    }
    let req = MetadataRequest::from_bytes(body.rest(), version)
        .map_err(|e| format!("the client's Metadata v{version} request does not decode: {e}"))?;
    let known: Vec<String> = TOPICS.iter().map(|t| (*t).to_owned()).collect();
    let catalog = TopicCatalog {
        known: &known,
        auto_create: true,
    };
    let answer = metadata_answer(&shared.brokers, &catalog, &req);
    let h = ResponseHeader {
        correlation_id: header.correlation_id,
        ..Default::default()
    };
    let frame = codec::encode_response_frame(&h, &ResponseBody::Metadata(answer), version)
        .map_err(|e| format!("cannot encode the Metadata answer: {e}"))?;
    write_frame(shared, conn, &frame).await
}

/// Writes an answer kipcheck gives in place on connection `conn`.
async fn write_frame(shared: &Shared, conn: u64, frame: &[u8]) -> Result<(), String> {
    let mut conns = shared.conns.lock().await;
    if let Some(c) = conns.get_mut(&conn) {
        // A client that stopped reading: its connection is left to time out on its side.
        let _ = tokio::time::timeout(WRITE_TIMEOUT, c.write.write_all(frame)).await;
    }
    Ok(())
}

/// The client process and its captured output.
struct ClientProcess {
    command: String,
    child: Child,
    pgid: Option<i32>,
    output: StderrTail,
    readers: Vec<JoinHandle<()>>,
    /// Set once the process has exited with status 0.
    exited_ok: bool,
}

impl ClientProcess {
    fn spawn(command: &str) -> Result<Self, AdapterError> {
        let (mut child, pgid) = spawn_group(command, Stdio::null())?;
        let output = StderrTail::default();
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            readers.push(output.capture(out, OUTPUT_TAIL_BYTES));
        }
        if let Some(err) = child.stderr.take() {
            readers.push(output.capture(err, OUTPUT_TAIL_BYTES));
        }
        Ok(Self {
            command: command.to_owned(),
            child,
            pgid,
            output,
            readers,
            exited_ok: false,
        })
    }

    /// `message` with the output tail.
    async fn failure(&mut self, message: String) -> AdapterError {
        for r in &mut self.readers {
            let _ = tokio::time::timeout(Duration::from_millis(200), r).await;
        }
        let tail = self.output.text();
        if tail.is_empty() {
            AdapterError::Crashed(message)
        } else {
            AdapterError::Crashed(format!("{message}; output tail:\n{tail}"))
        }
    }

    /// An error if the process has exited non-zero.
    async fn check_exit(&mut self) -> Result<(), AdapterError> {
        if self.exited_ok {
            return Ok(());
        }
        match self.child.try_wait() {
            Ok(Some(status)) if status.success() => {
                self.exited_ok = true;
                Ok(())
            }
            Ok(Some(status)) => {
                let msg = format!("client {:?} exited ({status})", self.command);
                Err(self.failure(msg).await)
            }
            Ok(None) => Ok(()),
            Err(e) => Err(AdapterError::Io(e)),
        }
    }
}

impl Drop for ClientProcess {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
        }
        let _ = self.child.start_kill();
        for r in &self.readers {
            r.abort();
        }
    }
}

/// One scenario's client process and emulated nodes.
pub struct ClientCmdSession {
    command: String,
    bootstrap: SocketAddr,
    shared: Arc<Shared>,
    rx: mpsc::UnboundedReceiver<Ev>,
    /// Per node, the connections of its forwarded requests not yet answered, oldest first.
    pending: BTreeMap<i32, VecDeque<u64>>,
    tasks: Vec<JoinHandle<()>>,
    process: Option<ClientProcess>,
}

impl Drop for ClientCmdSession {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn unsupported(what: &str) -> AdapterError {
    AdapterError::Unsupported(format!("{what} is not possible with a client-cmd: target"))
}

impl ClientCmdSession {
    async fn fault(&mut self, message: String) -> AdapterError {
        match self.process.as_mut() {
            Some(p) => p.failure(message).await,
            None => AdapterError::Crashed(message),
        }
    }
}

#[async_trait]
impl Session for ClientCmdSession {
    async fn send(&mut self, _conn: u32, _frame: Vec<u8>) -> Result<(), AdapterError> {
        Err(unsupported("sending a request to a client"))
    }

    async fn recv(
        &mut self,
        _conn: u32,
        _wait_ms: u64,
    ) -> Result<Option<ConnOutput>, AdapterError> {
        Err(unsupported("reading a client's response"))
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match action {
            PeerAction::Start if self.process.is_none() => {
                let command = self
                    .command
                    .replace(BOOTSTRAP_PLACEHOLDER, &self.bootstrap.to_string());
                self.process = Some(ClientProcess::spawn(&command)?);
                Ok(())
            }
            PeerAction::Disconnect(node) => {
                let mut conns = self.shared.conns.lock().await;
                let ids: Vec<u64> = conns
                    .iter()
                    .filter(|(_, c)| c.node == node)
                    .map(|(id, _)| *id)
                    .collect();
                for id in ids {
                    if let Some(mut c) = conns.remove(&id) {
                        if let Some(r) = c.reader.take() {
                            r.abort();
                        }
                        let _ = c.write.shutdown().await;
                    }
                }
                self.pending.remove(&node);
                Ok(())
            }
            other => Err(unsupported(&format!("{other:?}"))),
        }
    }

    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        let deadline = Instant::now() + Duration::from_millis(within_ms.min(MAX_REAL_WAIT_MS));
        loop {
            if let Some(p) = self.process.as_mut() {
                p.check_exit().await?;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left.min(EXIT_POLL), self.rx.recv()).await {
                Ok(Some(Ev::Request {
                    node,
                    conn,
                    frame,
                    at_ms,
                })) => {
                    self.pending.entry(node).or_default().push_back(conn);
                    return Ok(Some(OutRequest { node, frame, at_ms }));
                }
                Ok(Some(Ev::Fault(message))) => return Err(self.fault(message).await),
                Ok(None) => return Ok(None),
                Err(_) => {
                    // A client that exited cleanly sends nothing more.
                    let done = self.process.as_ref().is_some_and(|p| p.exited_ok);
                    if left.is_zero() || done {
                        return Ok(None);
                    }
                }
            }
        }
    }

    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let Some(conn) = self.pending.get_mut(&node).and_then(VecDeque::pop_front) else {
            return Err(AdapterError::Crashed(format!(
                "no unanswered request from the client to node {node}"
            )));
        };
        let mut conns = self.shared.conns.lock().await;
        // A connection the client already closed: the answer is lost, as on a real broker.
        if let Some(c) = conns.get_mut(&conn) {
            if tokio::time::timeout(WRITE_TIMEOUT, c.write.write_all(&frame))
                .await
                .is_err()
            {
                drop(conns);
                return Err(self
                    .fault(format!("the client stopped reading from node {node}"))
                    .await);
            }
        }
        Ok(())
    }

    async fn next_release(&mut self, _within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        Err(unsupported("observing user requests"))
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        if ms > MAX_REAL_WAIT_MS {
            return Err(unsupported(&format!("advancing the real clock by {ms} ms")));
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        self.shared.now_ms()
    }

    fn events(&self) -> Vec<Value> {
        Vec::new()
    }
}
