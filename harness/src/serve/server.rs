//! The `kipcheck serve` server: a Kafka-protocol broker on a TCP socket that answers
//! ApiVersions, Metadata (itself as the only broker, a fixed topic list) and PushConfig (the
//! reference [`BrokerModel`] or the script), or with [`ServeOptions::controller`] the reference
//! KRaft controller ([`super::controller`]); either way one accept loop and one frame reader,
//! it records every frame, and survives hostile peers:
//! bad sizes, truncated frames, garbage, unknown APIs, idle clients and connection floods
//! each end one connection, cleanly, and nothing else.
//!
//! This module does async I/O (tokio) because it serves thousands of sockets concurrently;
//! the decisions stay in the sans-IO codec and model, called synchronously under a mutex.
//! It must not judge what clients send: that is the recorder's consumers' job.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::controller::{Answer, ControllerOptions, FailoverFailed, ServedController};
use super::record::{Direction, FrameRecord, Recorder};
use super::script::{PushReply, ScriptStep, ServeScript};
use crate::codec::limits::PEER_MAX_FRAME_SIZE;
use crate::codec::{
    self, to_hex, ApiKey, Message, ProvisionalNumbers, PushConfigRequest, ResponseBody,
    ResponseHeader,
};
use crate::emulate::{advertise_metadata, read_request, MetadataBroker, TopicCatalog};
use crate::model::{BrokerModel, BrokerReply, BrokerRequest, Millis, SpecProfile};
use crate::net::{FrameStream, NetError};

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Spec profile (provisional numbers, limits, readings).
    pub profile: SpecProfile,
    /// Broker setup and PushConfig script.
    pub script: ServeScript,
    /// The node id it advertises in Metadata.
    pub node_id: i32,
    /// Host it advertises in Metadata (default: the address it listens on).
    pub advertised_host: Option<String>,
    /// Topics it lists (one partition each, led by itself).
    pub topics: Vec<String>,
    /// Answer a Metadata request naming an unknown, validly named topic as if the topic had
    /// just been created (Kafka's `auto.create.topics.enable=true`, its default), when the
    /// request allows it.
    pub auto_create_topics: bool,
    /// A connection that sends nothing (or no complete frame) for this long is closed.
    pub idle_timeout: Duration,
    /// Connections served at once; more are accepted and closed at once.
    pub max_connections: usize,
    /// Largest request frame accepted (payload bytes); a larger size prefix closes.
    pub max_frame_bytes: usize,
    /// Keep records in memory ([`Server::recorder`]); off for load tests.
    pub keep_records: bool,
    /// Serve the reference KRaft controller instead of the broker (`--role controller`).
    pub controller: Option<ControllerOptions>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            profile: SpecProfile::default(),
            script: ServeScript::default(),
            node_id: 1,
            advertised_host: None,
            topics: vec!["kipcheck-topic".into()],
            auto_create_topics: true,
            idle_timeout: Duration::from_secs(30),
            max_connections: 20_000,
            max_frame_bytes: PEER_MAX_FRAME_SIZE,
            keep_records: true,
            controller: None,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Binding the listen address failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
    /// The broker setup is invalid.
    #[error("broker setup: {0}")]
    Setup(String),
    /// The controller setup is invalid.
    #[error("controller setup: {0}")]
    Controller(#[from] super::controller::ControllerSetupError),
}

struct Shared {
    numbers: ProvisionalNumbers,
    broker: Mutex<BrokerModel>,
    controller: Option<ServedController>,
    script: Mutex<std::collections::VecDeque<ScriptStep>>,
    opts: ServeOptions,
    host: String,
    port: i32,
    start: Instant,
    recorder: Recorder,
    live: AtomicUsize,
    next_conn: AtomicU64,
    /// How many failovers the controller went through; each closes every connection open then.
    failovers: watch::Sender<u64>,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Records a frame or close; `api` is the request's wire key and version.
    fn record(
        &self,
        conn: u64,
        dir: Direction,
        frame: &[u8],
        api: Option<(i16, i16)>,
        note: Option<String>,
    ) {
        // The hex rendering is most of a record's cost: none for a record nobody keeps.
        if !self.recorder.is_recording() {
            return;
        }
        self.recorder.push(FrameRecord {
            conn,
            at_ms: self.now_ms(),
            dir,
            api_key: api.map(|a| a.0),
            api_version: api.map(|a| a.1),
            hex: to_hex(frame),
            note,
        });
    }
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    recorder: Recorder,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

/// What to do after a request.
enum Action {
    Reply { delay_ms: u64, frame: Vec<u8> },
    Close(String),
}

impl Server {
    /// Binds `listen` (e.g. `127.0.0.1:0`) and starts serving. `sink` receives JSON lines.
    pub async fn start(
        listen: &str,
        opts: ServeOptions,
        sink: Option<Box<dyn std::io::Write + Send>>,
    ) -> Result<Server, ServeError> {
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|source| ServeError::Bind {
                addr: listen.into(),
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ServeError::Bind {
            addr: listen.into(),
            source,
        })?;
        let settings = opts.script.broker.settings(opts.node_id);
        let broker = BrokerModel::new(settings, &opts.profile)
            .map_err(|e| ServeError::Setup(e.to_string()))?;
        let controller = match &opts.controller {
            Some(c) => Some(ServedController::new(c, &opts.profile, opts.node_id)?),
            None => None,
        };
        let recorder = Recorder::new(opts.keep_records, sink);
        let shared = Arc::new(Shared {
            numbers: opts.profile.provisional,
            broker: Mutex::new(broker),
            controller,
            script: Mutex::new(opts.script.steps.clone()),
            host: opts
                .advertised_host
                .clone()
                .unwrap_or_else(|| addr.ip().to_string()),
            port: i32::from(addr.port()),
            opts,
            start: Instant::now(),
            recorder: recorder.clone(),
            live: AtomicUsize::new(0),
            next_conn: AtomicU64::new(1),
            failovers: watch::channel(0).0,
        });
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, shared.clone(), stopped));
        Ok(Server {
            addr,
            recorder,
            shared,
            stop,
            task,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The frame recorder.
    pub fn recorder(&self) -> Recorder {
        self.recorder.clone()
    }

    /// Connections being served now.
    pub fn live_connections(&self) -> usize {
        self.shared.live.load(Ordering::Relaxed)
    }

    /// How often the broker model invoked its policy.
    pub fn policy_invocations(&self) -> u64 {
        self.shared
            .broker
            .lock()
            .map(|b| b.policy_invocations())
            .unwrap_or(0)
    }

    /// The controller fails over as the active controller of a KRaft quorum does, seen from
    /// outside: its successor, rebuilt from the metadata log, answers every request from now
    /// on, and every connection open now is closed (a client reconnects, as to a new active
    /// controller); the listener stays. Returns how many failovers it has gone through.
    pub fn failover(&self) -> Result<u64, FailoverFailed> {
        let c = self
            .shared
            .controller
            .as_ref()
            .ok_or(FailoverFailed::NotController)?;
        c.fail_over()?;
        let mut n = 0;
        self.shared.failovers.send_modify(|f| {
            *f += 1;
            n = *f;
        });
        Ok(n)
    }

    /// Stops accepting and drops every connection.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }

    /// Serves until the process ends.
    pub async fn run_forever(self) {
        let _ = self.task.await;
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            _ = stopped.changed() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    // Out of descriptors or similar: back off briefly, keep serving.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
                if shared.live.load(Ordering::Relaxed) >= shared.opts.max_connections {
                    shared.record(id, Direction::Close, &[], None, Some("too many connections".into()));
                    drop(stream);
                    continue;
                }
                shared.live.fetch_add(1, Ordering::Relaxed);
                let s = shared.clone();
                conns.spawn(async move {
                    let reason = serve_conn(&s, stream, peer, id).await;
                    s.live.fetch_sub(1, Ordering::Relaxed);
                    s.record(id, Direction::Close, &[], None, Some(reason));
                });
            }
        }
    }
    conns.shutdown().await;
}

/// Serves one connection until it ends; returns why it ended.
/// `peer` is the address `accept` gave (asking the socket again costs a system call).
async fn serve_conn(shared: &Shared, stream: TcpStream, peer: SocketAddr, id: u64) -> String {
    let _ = stream.set_nodelay(true);
    let idle = shared.opts.idle_timeout;
    let max = shared.opts.max_frame_bytes;
    let peer = peer.to_string();
    // Grows only as bytes arrive: a size claim alone allocates nothing.
    let mut frames = FrameStream::new(stream, peer.as_str(), max);
    let mut failovers = shared.failovers.subscribe();
    loop {
        let next = tokio::select! {
            next = frames.next(Some(idle)) => next,
            _ = failovers.changed() => return "closed by the controller's failover".into(),
        };
        let frame = match next {
            Ok(frame) => frame,
            Err(e) => return close_reason(&e),
        };
        let peek = codec::peek_request(&frame[4..]);
        let api = peek.api_key.zip(peek.api_version).map(|(k, v)| (k.0, v));
        shared.record(id, Direction::In, &frame, api, None);
        match handle(shared, &frame) {
            Action::Close(reason) => return reason,
            Action::Reply { delay_ms, frame } => {
                if delay_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                }
                match tokio::time::timeout(idle, frames.get_mut().write_all(&frame)).await {
                    Ok(Ok(())) => shared.record(id, Direction::Out, &frame, api, None),
                    Ok(Err(e)) => return format!("write error: {e}"),
                    Err(_) => return "write timeout (client not reading)".into(),
                }
            }
        }
    }
}

/// Why a connection ended when no request frame could be read (the recorder's close note).
fn close_reason(e: &NetError) -> String {
    match e {
        NetError::Closed { .. }
        | NetError::CutShort { claimed: None, .. }
        | NetError::Read { got: 0..=3, .. } => "closed by the client".into(),
        NetError::OverCap { claimed, .. } if *claimed < 0 => {
            format!("negative frame size {claimed}")
        }
        NetError::OverCap { claimed, cap, .. } => {
            format!("frame size {claimed} over the limit {cap}")
        }
        NetError::TimedOut {
            after,
            claimed: Some(n),
            got,
            ..
        } => format!(
            "idle timeout mid-frame ({} of {n} bytes after {} ms)",
            got - 4,
            after.as_millis()
        ),
        NetError::TimedOut { after, .. } => format!("idle timeout ({} ms)", after.as_millis()),
        NetError::CutShort {
            claimed: Some(n),
            got,
            ..
        } => format!("truncated frame: {} of {n} bytes", got - 4),
        NetError::Read { source, .. } => format!("read error: {source}"),
        NetError::Write { source, .. } => format!("write error: {source}"),
        NetError::Connect { source, .. } => format!("connect error: {source}"),
    }
}

/// Answers one request frame (size prefix included): Metadata in place (the emulated node,
/// [`crate::emulate`]), everything else from the script or the [`BrokerModel`].
fn handle(shared: &Shared, frame: &[u8]) -> Action {
    if let Some(c) = &shared.controller {
        let now = Millis(shared.now_ms());
        return match c.handle(now, frame, (&shared.host, shared.port)) {
            Answer::Frame(frame) => Action::Reply { delay_ms: 0, frame },
            Answer::Close(reason) => Action::Close(reason),
        };
    }
    let req = match read_request(frame, &shared.numbers) {
        Ok(r) => r,
        Err(e) => return Action::Close(e.to_string()),
    };
    if req.api_key == ApiKey::METADATA {
        // Itself as the only broker and controller.
        let brokers = [MetadataBroker {
            node_id: shared.opts.node_id,
            host: shared.host.clone(),
            port: shared.port,
        }];
        let catalog = TopicCatalog {
            known: &shared.opts.topics,
            auto_create: shared.opts.auto_create_topics,
        };
        return match req.answer_metadata(&brokers, &catalog) {
            Ok(frame) => Action::Reply { delay_ms: 0, frame },
            Err(e) => Action::Close(e.to_string()),
        };
    }
    let version = req.version();
    let body = req.body.rest();
    let reply = |version: i16, body: ResponseBody, delay_ms: u64| {
        let h = ResponseHeader {
            correlation_id: req.header.correlation_id,
            ..Default::default()
        };
        match codec::encode_response_frame(&h, &body, version) {
            Ok(frame) => Action::Reply { delay_ms, frame },
            Err(e) => Action::Close(format!("cannot encode the response: {e}")),
        }
    };
    let mut step = None;
    if req.api_key == ApiKey::PUSH_CONFIG {
        let advertised = shared
            .broker
            .lock()
            .is_ok_and(|b| b.advertises_push_config());
        if advertised
            && PushConfigRequest::VALID_VERSIONS.contains(version)
            && PushConfigRequest::from_bytes(body, version).is_ok()
        {
            step = shared.script.lock().ok().and_then(|mut s| s.pop_front());
        }
    }
    let delay_ms = step.as_ref().map_or(0, |s| s.delay_ms);
    match step.map(|s| s.reply) {
        Some(PushReply::Disconnect) => Action::Close("scripted disconnect".into()),
        Some(PushReply::Respond(body)) => reply(version, ResponseBody::PushConfig(body), delay_ms),
        Some(PushReply::Model) | None => {
            let broker_req = BrokerRequest {
                api_key: ApiKey(req.header.request_api_key),
                api_version: version,
                body: body.to_vec(),
            };
            let now = Millis(shared.now_ms());
            let answer = match shared.broker.lock() {
                Ok(mut b) => b.handle_request(now, &broker_req),
                Err(_) => return Action::Close("broker state poisoned".into()),
            };
            match answer {
                BrokerReply::Close { reason } => Action::Close(reason),
                BrokerReply::Response {
                    api_version,
                    mut body,
                    ..
                } => {
                    // The reference broker's list (its KIP-511 answer too), with Metadata.
                    if let ResponseBody::ApiVersions(av) = &mut body {
                        advertise_metadata(&mut av.api_keys);
                    }
                    reply(api_version, body, delay_ms)
                }
            }
        }
    }
}
