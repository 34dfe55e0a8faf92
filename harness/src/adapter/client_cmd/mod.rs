//! The `client-cmd:"COMMAND {bootstrap} {config} {profile} {client_type}"` target: a live
//! Kafka client, started per scenario as a shell command, with kipcheck playing every broker
//! it talks to (the contract: docs/live-clients.md). Each emulated node the scenario uses gets
//! a loopback listener (`listeners.rs`); `{bootstrap}` becomes the first node's address,
//! `{config}` a `client.properties` kipcheck writes per scenario (`properties.rs`),
//! `{profile}` the scenario's profile as JSON. The process (`process.rs`) lives until the
//! steps are done: then its stdin is closed, it has 2 s to exit, and its group is killed; one
//! that exits earlier makes the scenario errored. User requests go to its stdin, releases come
//! back on its stdout (capability `user_requests`); a `connect` step is a `connect <node>
//! <host:port>` line (capability `connect_requests`), the node getting a listener then if it
//! has none; a client that already connected to that node again by itself since it lost
//! its connection (as Java's NetworkClient does) is not waited for. A Java client's
//! connection opened after its bootstrap Metadata continues the node's story
//! (`listeners.rs`: follow-up connections). The clock is real: the runner measures
//! timings on it with the profile's tolerance and scales them by `--time-scale`.
//! This module judges nothing: whether a request was right is the runner's call.

mod listeners;
pub mod process;
pub mod properties;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Mutex};
use tokio::task::JoinHandle;

use self::listeners::{accept_loop, is_setup_api, Ev, Shared, WRITE_TIMEOUT};
use self::process::ClientProcess;
use self::properties::{client_properties, TempDir, ASSUMED_CLIENT_TYPE};
use super::error::{ClientFault, Crash, SetupError, Tails, Unsupported};
use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, Outbound, PeerAction, Session,
    SessionConfig, Target, TargetOptions,
};
use crate::emulate::MetadataBroker;
use crate::scenario::types::serde_name;
use crate::scenario::{Capability, Role};

/// The placeholder the command's bootstrap address replaces.
pub const BOOTSTRAP_PLACEHOLDER: &str = "{bootstrap}";
/// The placeholder the path of the scenario's `client.properties` replaces.
pub const CONFIG_PLACEHOLDER: &str = "{config}";
/// The placeholder the path of the scenario's profile (JSON) replaces.
pub const PROFILE_PLACEHOLDER: &str = "{profile}";
/// The placeholder the scenario's client type (`consumer`, `admin`, ...) replaces.
pub const CLIENT_TYPE_PLACEHOLDER: &str = "{client_type}";
/// The placeholder the run's seed replaces (a decimal number; each run of a `repeat:`
/// scenario has its own), for a client whose randomness can be seeded.
pub const SEED_PLACEHOLDER: &str = "{seed}";
/// Longest single `advance` or request wait on the real clock; longer ones are unsupported
/// (advance) or cut to this bound (waits).
pub const MAX_REAL_WAIT_MS: u64 = 60_000;
/// How often a wait looks at whether the client process has exited.
const EXIT_POLL: Duration = Duration::from_millis(50);
/// Longest wait in `start` for the started client's first connection (its start-up).
const START_WAIT: Duration = Duration::from_secs(10);
/// How often `start` looks for that connection.
const START_POLL: Duration = Duration::from_millis(10);
/// Why a scenario that configures its client cannot run without `{config}`.
pub const NO_CONFIG_REASON: &str = "the command has no {config}: the client cannot be configured";

/// A live client started by a shell command.
#[derive(Clone, Debug)]
pub struct ClientCmdTarget {
    command: String,
    declared: Vec<Capability>,
    /// `None` when the command takes `{profile}` (the client follows each scenario's).
    readings: Option<crate::model::SpecProfile>,
    time_scale: f64,
    /// `--profile FILE`'s `timing`, for every scenario.
    timing: Option<crate::model::Timing>,
}

impl ClientCmdTarget {
    /// A target running `command` (which must contain `{bootstrap}`) per scenario.
    pub fn new(command: &str, opts: &TargetOptions) -> Result<Self, AdapterError> {
        if !command.contains(BOOTSTRAP_PLACEHOLDER) {
            return Err(SetupError::Misused {
                option: "client-cmd",
                requirement: "the command must contain {bootstrap} (where the client's bootstrap address goes)",
            }
            .into());
        }
        if opts.role.is_some_and(|r| r != Role::Client) {
            return Err(SetupError::Misused {
                option: "client-cmd",
                requirement: "drives a client; drive a broker or controller with tcp:// or exec:",
            }
            .into());
        }
        let time_scale = opts.time_scale.unwrap_or(1.0);
        check_time_scale(time_scale)?;
        if time_scale != 1.0 && !command.contains(CONFIG_PLACEHOLDER) {
            return Err(SetupError::Misused {
                option: "client-cmd",
                requirement: "--time-scale needs {config} in the command (the client's timings are scaled through it)",
            }
            .into());
        }
        let readings = if command.contains(PROFILE_PLACEHOLDER) {
            None
        } else {
            Some(opts.readings.clone().unwrap_or_default())
        };
        Ok(Self {
            command: command.to_owned(),
            declared: opts.capabilities.clone(),
            readings,
            time_scale,
            timing: opts.readings.as_ref().map(|p| p.timing.clone()),
        })
    }

    fn takes(&self, placeholder: &str) -> bool {
        self.command.contains(placeholder)
    }

    /// Why this command cannot run the scenario's client as its setup asks, if it cannot.
    fn cannot_configure(&self, config: &SessionConfig) -> Option<String> {
        if self.takes(CONFIG_PLACEHOLDER) {
            return None;
        }
        let c = config.setup.client.as_ref()?;
        let typed = c.client_type == ASSUMED_CLIENT_TYPE || self.takes(CLIENT_TYPE_PLACEHOLDER);
        (!c.config.is_empty() || c.embedded || !typed).then(|| NO_CONFIG_REASON.to_owned())
    }
}

/// A time scale must be in (0, 1].
pub fn check_time_scale(f: f64) -> Result<(), AdapterError> {
    if f > 0.0 && f <= 1.0 {
        Ok(())
    } else {
        Err(SetupError::TimeScale { value: f }.into())
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
        capabilities.retain(|c| super::target::unclaimable_live(*c).is_none());
        capabilities.push(Capability::RealClock);
        if self.takes(CONFIG_PLACEHOLDER) {
            capabilities.push(Capability::ClientConfig);
        }
        capabilities.sort();
        capabilities.dedup();
        Capabilities {
            roles: vec![Role::Client],
            capabilities,
            readings: self.readings.clone(),
        }
    }

    fn time_scale(&self) -> f64 {
        self.time_scale
    }

    fn timing(&self) -> Option<crate::model::Timing> {
        self.timing.clone()
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        if config
            .setup
            .client
            .as_ref()
            .is_some_and(|c| c.config.contains_key("bootstrap.servers"))
        {
            return Err(Unsupported::SetsBootstrap.into());
        }
        if let Some(reason) = self.cannot_configure(&config) {
            return Err(Unsupported::Setup { reason }.into());
        }
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
        let client = config.setup.client.as_ref();
        // The nodes the client bootstraps from, in order.
        let connect = client.map_or_else(|| vec![1], |c| c.connect.clone());
        let bootstrap: Vec<String> = listeners
            .iter()
            .filter(|(n, _, _)| connect.contains(n))
            .map(|(_, a, _)| a.to_string())
            .collect();
        let bootstrap = if bootstrap.is_empty() {
            vec![listeners[0].1.to_string()]
        } else {
            bootstrap
        };
        let mut command = self
            .command
            .replace(BOOTSTRAP_PLACEHOLDER, &listeners[0].1.to_string());
        let client_type = client.map_or(ASSUMED_CLIENT_TYPE, |c| c.client_type);
        command = command.replace(CLIENT_TYPE_PLACEHOLDER, &serde_name(&client_type));
        command = command.replace(SEED_PLACEHOLDER, &config.seed.to_string());
        let mut dir = None;
        if self.takes(CONFIG_PLACEHOLDER) || self.takes(PROFILE_PLACEHOLDER) {
            let d = TempDir::new()?;
            if self.takes(CONFIG_PLACEHOLDER) {
                let text = client_properties(
                    &config.id,
                    config.seed,
                    client,
                    &bootstrap,
                    &config.profile,
                    self.time_scale,
                );
                let p = d.write("client.properties", &text)?;
                command = command.replace(CONFIG_PLACEHOLDER, &p.display().to_string());
            }
            if self.takes(PROFILE_PLACEHOLDER) {
                let json = serde_json::to_string_pretty(&config.profile)
                    .map_err(SetupError::ProfileJson)?;
                let p = d.write("profile.json", &format!("{json}\n"))?;
                command = command.replace(PROFILE_PLACEHOLDER, &p.display().to_string());
            }
            dir = Some(d);
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            numbers: config.profile.provisional,
            brokers: std::sync::Mutex::new(brokers),
            start: Instant::now(),
            conns: Mutex::new(BTreeMap::new()),
            tx,
            seq: std::sync::atomic::AtomicU64::new(0),
            closed: std::sync::Mutex::new(BTreeMap::new()),
            answers: std::sync::Mutex::new(BTreeMap::new()),
        });
        let mut tasks = Vec::new();
        let mut addrs = BTreeMap::new();
        for (node, addr, l) in listeners {
            addrs.insert(node, addr);
            tasks.push(tokio::spawn(accept_loop(node, l, shared.clone())));
        }
        Ok(Box::new(ClientCmdSession {
            command,
            shared,
            addrs,
            rx,
            pending: BTreeMap::new(),
            tasks,
            process: None,
            _dir: dir,
        }))
    }
}

/// A request handed to the runner: its connection, and its API key and version (the canonical
/// key; `None` when the header did not decode).
#[derive(Clone, Copy, Debug)]
struct Forwarded {
    conn: u64,
    api: Option<(crate::codec::ApiKey, i16)>,
}

/// One scenario's client process and emulated nodes.
pub struct ClientCmdSession {
    /// The command with every placeholder substituted.
    command: String,
    shared: Arc<Shared>,
    /// Each emulated node's listener address.
    addrs: BTreeMap<i32, std::net::SocketAddr>,
    rx: mpsc::UnboundedReceiver<Ev>,
    /// Per node, the forwarded requests not yet answered, oldest first.
    pending: BTreeMap<i32, VecDeque<Forwarded>>,
    tasks: Vec<JoinHandle<()>>,
    process: Option<ClientProcess>,
    /// The `{config}` and `{profile}` files, removed with the session.
    _dir: Option<TempDir>,
}

impl Drop for ClientCmdSession {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn unsupported(step: &str) -> AdapterError {
    Unsupported::NoLiveForm {
        step: step.to_owned(),
        on: "with a client-cmd: target",
    }
    .into()
}

impl ClientCmdSession {
    async fn fault(&mut self, fault: ClientFault) -> AdapterError {
        match self.process.as_mut() {
            Some(p) => p.failure(fault).await,
            None => Crash::Client {
                fault,
                tails: Tails::default(),
            }
            .into(),
        }
    }

    async fn check_exit(&mut self) -> Result<(), AdapterError> {
        match self.process.as_mut() {
            Some(p) => p.check_exit().await,
            None => Ok(()),
        }
    }

    /// The address of `node`'s listener, opening one for a node the setup did not name.
    async fn listener(&mut self, node: i32) -> Result<std::net::SocketAddr, AdapterError> {
        if let Some(a) = self.addrs.get(&node) {
            return Ok(*a);
        }
        let l = TcpListener::bind("127.0.0.1:0").await?;
        let addr = l.local_addr()?;
        if let Ok(mut b) = self.shared.brokers.lock() {
            b.push(MetadataBroker {
                node_id: node,
                host: addr.ip().to_string(),
                port: i32::from(addr.port()),
            });
        }
        self.tasks
            .push(tokio::spawn(accept_loop(node, l, self.shared.clone())));
        self.addrs.insert(node, addr);
        Ok(addr)
    }

    /// The connection ids `node` has now.
    async fn conns_of(&self, node: i32) -> Vec<u64> {
        let conns = self.shared.conns.lock().await;
        conns
            .iter()
            .filter(|(_, c)| c.node == node)
            .map(|(id, _)| *id)
            .collect()
    }

    /// Tells the client to connect to `node`; returns once that connection is accepted (or
    /// the client exited, or START_WAIT passed: the next step then judges a missing request).
    /// A client that already connected to `node` again by itself since it lost its
    /// connection (Java: after reconnect.backoff.ms) is told too, but not waited for.
    async fn connect(&mut self, node: i32) -> Result<(), AdapterError> {
        let addr = self.listener(node).await?;
        let before = self.conns_of(node).await;
        let reconnected = self.shared.reconnected(node).await;
        match self.process.as_mut() {
            Some(p) => p.send_line(&format!("connect {node} {addr}")).await?,
            None => return Err(unsupported("a connect before the client starts")),
        }
        if reconnected {
            return self.check_exit().await;
        }
        self.await_connection(Some(node), &before).await
    }

    /// Waits until a connection not in `before` is up (to `node`, or to any node), the client
    /// exits (an error), or START_WAIT passes (the next step then judges what the client did
    /// not send).
    async fn await_connection(
        &mut self,
        node: Option<i32>,
        before: &[u64],
    ) -> Result<(), AdapterError> {
        let until = Instant::now() + START_WAIT;
        loop {
            let up = self
                .shared
                .conns
                .lock()
                .await
                .iter()
                .any(|(id, c)| node.is_none_or(|n| c.node == n) && !before.contains(id));
            if up {
                return Ok(());
            }
            self.check_exit().await?;
            if Instant::now() >= until {
                return Ok(());
            }
            tokio::time::sleep(START_POLL).await;
        }
    }
}

#[async_trait]
impl Session for ClientCmdSession {
    async fn send(&mut self, _conn: u32, _out: Outbound) -> Result<(), AdapterError> {
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
                self.process = Some(ClientProcess::spawn(&self.command, self.shared.start)?);
                // Starting a process (a JVM, an interpreter and its imports) is not on the
                // scenario's timeline: `start` ends when the client has connected (or exited,
                // or START_WAIT passed), so the next step's clock starts with a running client.
                self.await_connection(None, &[]).await
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
                drop(conns);
                self.shared.note_closed(node);
                self.pending.remove(&node);
                Ok(())
            }
            // The runner waited for the client's own request.timeout.ms: the request stays
            // unanswered, and a later answer from this node goes to the next one.
            PeerAction::Timeout(node) => {
                if let Some(q) = self.pending.get_mut(&node) {
                    q.pop_front();
                }
                self.check_exit().await
            }
            PeerAction::Connect(node) => self.connect(node).await,
            PeerAction::UserRequest(id) => match self.process.as_mut() {
                Some(p) => p.send_line(&format!("user_request {id}")).await,
                None => Err(unsupported("a user request before the client starts")),
            },
            other => Err(unsupported(&format!("{other:?}"))),
        }
    }

    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        let deadline = Instant::now() + Duration::from_millis(within_ms.min(MAX_REAL_WAIT_MS));
        loop {
            self.check_exit().await?;
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left.min(EXIT_POLL), self.rx.recv()).await {
                Ok(Some(Ev::Request {
                    node,
                    conn,
                    frame,
                    at_ms,
                })) => {
                    let api = crate::emulate::read_request(&frame, &self.shared.numbers)
                        .ok()
                        .map(|r| (r.api_key, r.version()));
                    self.pending
                        .entry(node)
                        .or_default()
                        .push_back(Forwarded { conn, api });
                    return Ok(Some(OutRequest { node, frame, at_ms }));
                }
                Ok(Some(Ev::Fault(message))) => return Err(self.fault(message).await),
                Ok(None) => return Ok(None),
                Err(_) if left.is_zero() => return Ok(None),
                Err(_) => {}
            }
        }
    }

    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let Some(Forwarded { conn, api }) =
            self.pending.get_mut(&node).and_then(VecDeque::pop_front)
        else {
            return Err(Crash::NothingToAnswer { node }.into());
        };
        // A connection-setup answer is what a follow-up connection to the node gets too.
        if let Some((key, version)) = api.filter(|(k, _)| is_setup_api(*k)) {
            if let Ok(mut a) = self.shared.answers.lock() {
                a.insert((node, key, version), frame.clone());
            }
        }
        let mut conns = self.shared.conns.lock().await;
        // A connection the client already closed: the answer is lost, as on a real broker.
        if let Some(c) = conns.get_mut(&conn) {
            if tokio::time::timeout(WRITE_TIMEOUT, c.write.write_all(&frame))
                .await
                .is_err()
            {
                drop(conns);
                return Err(self.fault(ClientFault::StoppedReading { node }).await);
            }
        }
        Ok(())
    }

    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        let deadline = Instant::now() + Duration::from_millis(within_ms.min(MAX_REAL_WAIT_MS));
        loop {
            let Some(p) = self.process.as_mut() else {
                return Ok(None);
            };
            // A release already printed counts even if the client exited since.
            if let Ok(r) = p.releases.try_recv() {
                return Ok(Some(r));
            }
            p.check_exit().await?;
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left.min(EXIT_POLL), p.releases.recv()).await {
                Ok(Some(r)) => return Ok(Some(r)),
                Ok(None) | Err(_) if left.is_zero() => return Ok(None),
                Ok(None) => tokio::time::sleep(left.min(EXIT_POLL)).await,
                Err(_) => {}
            }
        }
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        if ms > MAX_REAL_WAIT_MS {
            return Err(unsupported(&format!("advancing the real clock by {ms} ms")));
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        self.check_exit().await
    }

    async fn finish(&mut self) -> Result<(), AdapterError> {
        match self.process.as_mut() {
            Some(p) => p.finish().await,
            None => Ok(()),
        }
    }

    fn now_ms(&self) -> u64 {
        self.shared.now_ms()
    }

    fn events(&self) -> Vec<Value> {
        Vec::new()
    }
}
