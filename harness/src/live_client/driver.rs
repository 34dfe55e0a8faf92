//! The live client's event loop: the sans-IO [`ClientModel`] fed with wall-clock time.
//!
//! - The profile's timing defaults are the configuration's timing keys where it sets them
//!   ([`super::configured_timings`]).
//! - At start the model gets `Start`, then one `Connected` per bootstrap address once its TCP
//!   connection is up, one after the other (node ids `-1, -2, …` in `bootstrap.servers` order,
//!   as Kafka numbers bootstrap nodes). Like the reference model, it never reconnects on its
//!   own and connects to no other node by itself: a scenario's `connect` steps reach it as
//!   [`Control::Connect`] (a `connect <node> <host:port>` line), and it opens that connection
//!   (an address it already knows keeps its node id, so a reconnection is the same node).
//! - Each model output is performed: `Send` writes the request frame (responses are matched
//!   by order and correlation id), `ReleaseUserRequest` becomes a [`Report::Released`],
//!   `WakeAt` arms the one timer, events are reported.
//! - A connection that closes, or answers with bytes that do not frame or decode, is a
//!   `Disconnected` input. A PushConfig the model timed out is answered by nobody: its late
//!   answer is dropped (profile `request_timeout: keep`) or its connection is closed
//!   (`disconnect`), exactly where the model says so.
//! - The loop ends when the control channel closes (the application is done).
//!
//! [`ConnectionStyle::Java`] (`kipcheck client --style java`) uses its connections as Java's
//! NetworkClient does instead: a bootstrap connection only discovers the cluster (ApiVersions,
//! SASL if configured, then Metadata, performed by an embedded model that does no handshake of
//! its own), and the model gets a new connection to the broker Metadata names at that
//! address (node id from Metadata), on which everything else happens, the handshake included.
//! A connection the client loses (except to a failed authentication) is opened again by
//! itself after [`RECONNECT_BACKOFF`] (Java's `reconnect.backoff.ms` default), a bootstrap one
//! only while Metadata has not named its broker; a `connect` line for a node it is connected
//! to, or connecting to, is ignored, and one for a node it waits to reconnect to opens it now.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{ClientSetup, LiveClientError};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers, RequestBody, RequestHeader,
};
use crate::model::events::RetryCause;
use crate::model::{
    ClientInput, ClientModel, ClientOutput, Event, Faults, LoggedEvent, Millis, NodeId, SpecProfile,
};
use crate::net::FrameStream;

/// Bound on opening one TCP connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Pause before trying a bootstrap address again after its first connection failed.
const CONNECT_RETRY: Duration = Duration::from_millis(100);
/// Bound on writing one request frame.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// `client.id` in request headers when the configuration sets none.
pub const DEFAULT_CLIENT_ID: &str = "kipcheck-client";
/// [`ConnectionStyle::Java`]: the pause before opening a lost connection again (Java's
/// `reconnect.backoff.ms` default).
pub const RECONNECT_BACKOFF: Duration = Duration::from_millis(50);
/// [`ConnectionStyle::Java`]: the Metadata version of the bootstrap discovery.
const METADATA_VERSION: i16 = 12;

/// How the live client uses its connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConnectionStyle {
    /// The reference model's: every bootstrap connection is a model node, and the client opens
    /// no connection by itself beyond them (a `connect` line opens one).
    #[default]
    Reference,
    /// Java's NetworkClient's: discovery on the bootstrap connection, then a new connection to
    /// the broker Metadata named, and lost connections opened again by itself (module doc).
    Java,
}

/// How the live client runs.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Client type, embedded flag, bootstrap list, user configuration.
    pub setup: ClientSetup,
    /// The spec profile the model follows.
    pub profile: SpecProfile,
    /// The model's faults ([`Faults::none`]: the reference).
    pub faults: Faults,
    /// The model's RNG seed (node choice, jitter).
    pub seed: u64,
}

/// What the application asks of the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// An application request (e.g. `send()`); its release is reported.
    UserRequest(u64),
    /// Open a connection to `addr` (the network gives the client a connection to that node).
    Connect {
        /// The node's id as the scenario names it; an address the client already knows
        /// keeps the id it has.
        node: NodeId,
        /// `host:port`.
        addr: String,
    },
}

impl Control {
    /// One line of the control channel: `user_request <id>` or `connect <node> <host:port>`;
    /// `None` for anything else.
    pub fn parse(line: &str) -> Option<Self> {
        let mut words = line.split_whitespace();
        let control = match (words.next()?, words.next()?, words.next()) {
            ("user_request", id, None) => Control::UserRequest(id.parse().ok()?),
            ("connect", node, Some(addr)) => Control::Connect {
                node: node.parse().ok()?,
                addr: addr.to_owned(),
            },
            _ => return None,
        };
        words.next().is_none().then_some(control)
    }
}

/// What the client reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// The application request may go ahead (`released <id>` on stdout).
    Released {
        /// Its id.
        id: u64,
        /// Milliseconds since the client started.
        at_ms: u64,
    },
    /// A model decision.
    Event(LoggedEvent),
    /// A connection-level fact (connected, closed, a protocol error), for logs.
    Note(String),
}

/// What the connection tasks tell the loop.
enum NetEvent {
    Connected {
        node: NodeId,
        stream: TcpStream,
    },
    Frame {
        node: NodeId,
        generation: u64,
        /// Size prefix included.
        frame: Vec<u8>,
    },
    Closed {
        node: NodeId,
        generation: u64,
        reason: String,
    },
}

/// A request sent and not yet answered.
#[derive(Clone, Copy, Debug)]
struct Pending {
    correlation_id: i32,
    api_key: ApiKey,
    version: i16,
    /// The model timed it out: its answer, if it comes, is not the model's business.
    stale: bool,
}

struct Conn {
    generation: u64,
    write: OwnedWriteHalf,
    reader: JoinHandle<()>,
    pending: VecDeque<Pending>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

struct Driver {
    model: ClientModel,
    style: ConnectionStyle,
    /// [`ConnectionStyle::Java`]: the embedded model that performs the bootstrap connections'
    /// ApiVersions and SASL (it does no handshake of its own).
    agent: Option<ClientModel>,
    /// Inputs for `agent`, in order.
    agent_inbox: VecDeque<ClientInput>,
    /// Whether the client authenticates with SASL (discovery then waits for it).
    sasl: bool,
    /// [`ConnectionStyle::Java`]: the bootstrap nodes (the agent's), by address.
    bootstrap_nodes: BTreeMap<String, NodeId>,
    /// [`ConnectionStyle::Java`]: the brokers Metadata named, by address.
    metadata_nodes: BTreeMap<String, NodeId>,
    /// [`ConnectionStyle::Java`]: every node's address.
    addr_of: BTreeMap<NodeId, String>,
    /// [`ConnectionStyle::Java`]: connections being opened (a scheduled reconnection included).
    connecting: BTreeMap<NodeId, JoinHandle<()>>,
    /// [`ConnectionStyle::Java`]: nodes not opened again by itself (a failed authentication).
    no_reconnect: std::collections::BTreeSet<NodeId>,
    /// [`ConnectionStyle::Java`]: nodes whose reconnection waits for [`RECONNECT_BACKOFF`].
    waiting_to_reconnect: std::collections::BTreeSet<NodeId>,
    start: Instant,
    numbers: ProvisionalNumbers,
    client_id: String,
    conns: BTreeMap<NodeId, Conn>,
    next_generation: u64,
    next_correlation: i32,
    wake: Option<Millis>,
    /// The node the latest PushConfig went to.
    push_node: Option<NodeId>,
    inbox: VecDeque<ClientInput>,
    /// Bootstrap nodes not yet connected, in order.
    to_connect: VecDeque<(NodeId, String)>,
    /// The bootstrap node being connected and the task opening it.
    connector: Option<(NodeId, JoinHandle<()>)>,
    /// Connections asked for on the control channel, being opened.
    asked: Vec<JoinHandle<()>>,
    /// Every address the client has a node id for.
    known: BTreeMap<String, NodeId>,
    reports: mpsc::UnboundedSender<Report>,
    net: mpsc::UnboundedSender<NetEvent>,
}

/// Runs the client until `control` closes: connects to every bootstrap address, performs
/// the handshake as the model decides, and reports releases and events on `reports`.
pub async fn run_client(
    opts: LiveOptions,
    control: mpsc::UnboundedReceiver<Control>,
    reports: mpsc::UnboundedSender<Report>,
) -> Result<(), LiveClientError> {
    run_client_styled(opts, ConnectionStyle::Reference, control, reports).await
}

/// [`run_client`] with its connections used in `style`.
pub async fn run_client_styled(
    opts: LiveOptions,
    style: ConnectionStyle,
    mut control: mpsc::UnboundedReceiver<Control>,
    reports: mpsc::UnboundedSender<Report>,
) -> Result<(), LiveClientError> {
    let LiveOptions {
        setup,
        profile,
        faults,
        seed,
    } = opts;
    let profile = super::configured_timings(
        &super::configured_timings(&profile, &setup.timing_defaults),
        &setup.user_config,
    );
    let model = if setup.embedded {
        ClientModel::new_embedded(setup.client_type, setup.user_config.clone(), &profile, seed)
    } else {
        ClientModel::new(setup.client_type, setup.user_config.clone(), &profile, seed)
    }?
    .with_faults(faults);
    let agent = match style {
        ConnectionStyle::Reference => None,
        ConnectionStyle::Java => Some(ClientModel::new_embedded(
            setup.client_type,
            setup.user_config.clone(),
            &profile,
            seed,
        )?),
    };
    let (net, mut net_rx) = mpsc::unbounded_channel();
    let mut d = Driver {
        model,
        style,
        agent,
        agent_inbox: VecDeque::new(),
        sasl: crate::model::uses_sasl(&setup.user_config),
        bootstrap_nodes: BTreeMap::new(),
        metadata_nodes: BTreeMap::new(),
        addr_of: BTreeMap::new(),
        connecting: BTreeMap::new(),
        no_reconnect: std::collections::BTreeSet::new(),
        waiting_to_reconnect: std::collections::BTreeSet::new(),
        start: Instant::now(),
        numbers: profile.provisional,
        client_id: setup
            .user_config
            .get("client.id")
            .cloned()
            .unwrap_or_else(|| DEFAULT_CLIENT_ID.to_owned()),
        conns: BTreeMap::new(),
        next_generation: 0,
        next_correlation: 1,
        wake: None,
        push_node: None,
        inbox: VecDeque::new(),
        to_connect: VecDeque::new(),
        connector: None,
        asked: Vec::new(),
        known: BTreeMap::new(),
        reports,
        net,
    };
    d.feed(ClientInput::Start).await;
    // One connection after the other, in bootstrap order: the next is opened once the previous
    // one's ApiVersions is on the wire, so the nodes see them in that order (as the
    // reference's `connect` list gives them).
    d.to_connect = setup
        .bootstrap
        .iter()
        .enumerate()
        .map(|(i, addr)| {
            (
                -(i32::try_from(i).unwrap_or(i32::MAX - 1) + 1),
                addr.clone(),
            )
        })
        .collect();
    d.known = d
        .to_connect
        .iter()
        .map(|(node, addr)| (addr.clone(), *node))
        .collect();
    if d.style == ConnectionStyle::Java {
        d.bootstrap_nodes = d.known.clone();
        d.addr_of = d.known.iter().map(|(a, n)| (*n, a.clone())).collect();
        if let Some(a) = d.agent.as_mut() {
            let now = Millis(0);
            // The agent's own start (it skips the handshake; nothing to perform).
            let _ = a.handle(now, ClientInput::Start);
        }
    }
    d.connect_next();
    loop {
        let wake = d.wake.map(|t| d.start + Duration::from_millis(t.0));
        let timer = async move {
            match wake {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            c = control.recv() => match c {
                Some(Control::UserRequest(id)) => d.feed(ClientInput::UserRequest { id }).await,
                Some(Control::Connect { node, addr }) => d.connect_asked(node, addr),
                None => break,
            },
            Some(ev) = net_rx.recv() => d.on_net(ev).await,
            () = timer => {
                d.wake = None;
                d.feed(ClientInput::Tick).await;
            }
        }
    }
    if let Some((_, c)) = d.connector.take() {
        c.abort();
    }
    for c in d.asked.drain(..) {
        c.abort();
    }
    for (_, c) in std::mem::take(&mut d.connecting) {
        c.abort();
    }
    d.conns.clear();
    Ok(())
}

/// Opens the connection to `addr` for `node`, retrying a failed attempt until the loop ends.
async fn connect(node: NodeId, addr: String, net: mpsc::UnboundedSender<NetEvent>) {
    loop {
        if let Ok(Ok(stream)) =
            tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(&addr)).await
        {
            let _ = stream.set_nodelay(true);
            let _ = net.send(NetEvent::Connected { node, stream });
            return;
        }
        if net.is_closed() {
            return;
        }
        tokio::time::sleep(CONNECT_RETRY).await;
    }
}

/// Reads response frames from one connection until it closes or cannot be framed; the
/// reason is the [`NetError`](crate::net::NetError)'s wording (it names the broker's address).
async fn read_frames(
    node: NodeId,
    generation: u64,
    r: OwnedReadHalf,
    net: mpsc::UnboundedSender<NetEvent>,
) {
    let peer = r
        .peer_addr()
        .map_or_else(|_| "the broker".to_owned(), |a| a.to_string());
    let mut frames = FrameStream::new(r, peer, DEFAULT_MAX_FRAME_SIZE);
    let reason = loop {
        match frames.next(None).await {
            Ok(frame) => {
                let _ = net.send(NetEvent::Frame {
                    node,
                    generation,
                    frame,
                });
            }
            Err(e) => break e.to_string(),
        }
    };
    let _ = net.send(NetEvent::Closed {
        node,
        generation,
        reason,
    });
}

impl Driver {
    fn now(&self) -> Millis {
        Millis(u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// Starts opening the next bootstrap connection, if any.
    fn connect_next(&mut self) {
        if let Some((node, addr)) = self.to_connect.pop_front() {
            self.connector = Some((node, tokio::spawn(connect(node, addr, self.net.clone()))));
        }
    }

    /// Starts opening the connection the control channel asked for.
    fn connect_asked(&mut self, node: NodeId, addr: String) {
        if self.style == ConnectionStyle::Java {
            return self.connect_asked_java(node, addr);
        }
        let node = *self.known.entry(addr.clone()).or_insert(node);
        self.asked.retain(|t| !t.is_finished());
        self.asked
            .push(tokio::spawn(connect(node, addr, self.net.clone())));
    }

    /// [`ConnectionStyle::Java`]: a `connect` line. The node is the one Metadata named at
    /// that address, else the bootstrap node there (Metadata not known yet: discovery again),
    /// else the line's. Ignored while connected or connecting to it; a reconnection waiting
    /// for its backoff is made now.
    fn connect_asked_java(&mut self, node: NodeId, addr: String) {
        let target = self
            .metadata_nodes
            .get(&addr)
            .or_else(|| self.bootstrap_nodes.get(&addr))
            .copied()
            .unwrap_or(node);
        let opening = self
            .connecting
            .get(&target)
            .is_some_and(|h| !h.is_finished())
            && !self.waiting_to_reconnect.contains(&target);
        if self.conns.contains_key(&target) || opening {
            self.note(format!(
                "node {target}: connect {addr} ignored (connected or connecting)"
            ));
            return;
        }
        self.no_reconnect.remove(&target);
        self.open(target, addr, Duration::ZERO);
    }

    /// [`ConnectionStyle::Java`]: opens a connection to `node` at `addr` after `after`
    /// (replacing one being opened).
    fn open(&mut self, node: NodeId, addr: String, after: Duration) {
        self.addr_of.insert(node, addr.clone());
        if let Some(old) = self.connecting.remove(&node) {
            old.abort();
        }
        if after.is_zero() {
            self.waiting_to_reconnect.remove(&node);
        } else {
            self.waiting_to_reconnect.insert(node);
        }
        let net = self.net.clone();
        self.connecting.insert(
            node,
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                connect(node, addr, net).await;
            }),
        );
    }

    /// [`ConnectionStyle::Java`]: the client lost its connection to `node`: it opens it again
    /// after [`RECONNECT_BACKOFF`], a bootstrap one only while Metadata has not named its
    /// broker, none after a failed authentication.
    fn schedule_reconnect(&mut self, node: NodeId) {
        if self.style != ConnectionStyle::Java || self.no_reconnect.contains(&node) {
            return;
        }
        let Some(addr) = self.addr_of.get(&node).cloned() else {
            return;
        };
        if self.is_agent_node(node) && self.metadata_nodes.contains_key(&addr) {
            return;
        }
        self.open(node, addr, RECONNECT_BACKOFF);
    }

    /// Whether `node` is a bootstrap connection the agent performs ([`ConnectionStyle::Java`]).
    fn is_agent_node(&self, node: NodeId) -> bool {
        self.agent.is_some() && self.bootstrap_nodes.values().any(|n| *n == node)
    }

    /// Feeds the agent `input` and performs its outputs: its requests are sent; once a
    /// bootstrap connection's ApiVersions is answered (and, with SASL, it authenticated), the
    /// Metadata request goes out; a failed authentication closes the connection.
    async fn agent_step(&mut self, input: ClientInput) {
        let now = self.now();
        let Some(agent) = self.agent.as_mut() else {
            return;
        };
        let outputs = agent.handle(now, input);
        for o in outputs {
            match o {
                ClientOutput::Send {
                    node,
                    api_key,
                    api_version,
                    body,
                } => self.send(node, api_key, api_version, body).await,
                ClientOutput::Event(event) => match event {
                    Event::NodeSupport { node, .. } if !self.sasl => {
                        self.send_metadata(node).await;
                    }
                    Event::Authenticated { node } => self.send_metadata(node).await,
                    Event::AuthenticationFailed { node, error_code } => {
                        self.no_reconnect.insert(node);
                        if self.conns.remove(&node).is_some() {
                            self.note(format!(
                                "bootstrap node {node}: closed by the client (SASL authentication failed: {error_code:?})"
                            ));
                        }
                    }
                    _ => {}
                },
                ClientOutput::ReleaseUserRequest { .. } | ClientOutput::WakeAt(_) => {}
            }
        }
    }

    /// The discovery request on bootstrap connection `node`.
    async fn send_metadata(&mut self, node: NodeId) {
        let body = RequestBody::Metadata(codec::MetadataRequest {
            topics: Some(Vec::new()),
            allow_auto_topic_creation: Some(false),
            include_topic_authorized_operations: Some(false),
            ..Default::default()
        });
        self.send(node, ApiKey::METADATA, METADATA_VERSION, body)
            .await;
    }

    /// Metadata answered on bootstrap connection `node`: the brokers are known, and the model
    /// gets a new connection to the one at this connection's address.
    fn on_metadata(&mut self, node: NodeId, body: &codec::MetadataResponse) {
        for b in &body.brokers {
            self.metadata_nodes
                .insert(format!("{}:{}", &*b.host, b.port), b.node_id);
        }
        let Some(addr) = self.addr_of.get(&node).cloned() else {
            return;
        };
        let Some(&broker) = self.metadata_nodes.get(&addr) else {
            self.note(format!(
                "bootstrap node {node}: Metadata names no broker at {addr}"
            ));
            return;
        };
        self.note(format!(
            "bootstrap node {node}: Metadata names broker {broker} at {addr}: connecting"
        ));
        if !self.conns.contains_key(&broker) && !self.connecting.contains_key(&broker) {
            self.open(broker, addr, Duration::ZERO);
        }
    }

    fn note(&self, text: String) {
        let _ = self.reports.send(Report::Note(text));
    }

    /// Feeds `input` and every input its outputs cause, in order.
    async fn feed(&mut self, input: ClientInput) {
        self.inbox.push_back(input);
        self.drain().await;
    }

    /// Feeds every queued input (and those their outputs queue), in order.
    async fn drain(&mut self) {
        loop {
            if let Some(input) = self.agent_inbox.pop_front() {
                self.agent_step(input).await;
            } else if let Some(input) = self.inbox.pop_front() {
                let now = self.now();
                let outputs = self.model.handle(now, input);
                self.perform(now, outputs).await;
            } else {
                break;
            }
        }
    }

    async fn perform(&mut self, now: Millis, outputs: Vec<ClientOutput>) {
        let mut wake = None;
        for o in outputs {
            match o {
                ClientOutput::Send {
                    node,
                    api_key,
                    api_version,
                    body,
                } => self.send(node, api_key, api_version, body).await,
                ClientOutput::ReleaseUserRequest { id } => {
                    let _ = self.reports.send(Report::Released { id, at_ms: now.0 });
                }
                ClientOutput::WakeAt(t) => wake = Some(t),
                ClientOutput::Event(event) => {
                    self.after_event(&event);
                    let _ = self
                        .reports
                        .send(Report::Event(LoggedEvent { at: now, event }));
                }
            }
        }
        self.wake = wake;
    }

    /// The socket side of a model decision: a timed-out PushConfig's answer is no longer
    /// awaited; a connection the model closed (a request timeout, a failed authentication)
    /// is closed.
    fn after_event(&mut self, event: &Event) {
        match event {
            Event::RetryScheduled {
                cause: RetryCause::RequestTimedOut,
                ..
            } => {
                let node = self.push_node;
                if let Some(p) = node.and_then(|n| self.conns.get_mut(&n)).and_then(|c| {
                    c.pending
                        .iter_mut()
                        .rev()
                        .find(|p| p.api_key == ApiKey::PUSH_CONFIG)
                }) {
                    p.stale = true;
                }
            }
            Event::AuthenticationFailed { node, error_code }
                if self.conns.remove(node).is_some() =>
            {
                self.note(format!(
                    "node {node}: closed by the client (SASL authentication failed: {error_code:?})"
                ));
            }
            Event::ConnectionClosed { reason } => {
                if let Some(node) = self.push_node {
                    if self.conns.remove(&node).is_some() {
                        self.note(format!("node {node}: closed by the client ({reason})"));
                        self.schedule_reconnect(node);
                    }
                }
            }
            _ => {}
        }
    }

    async fn send(&mut self, node: NodeId, api_key: ApiKey, version: i16, body: RequestBody) {
        let correlation_id = self.next_correlation;
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let header = RequestHeader {
            request_api_key: api_key.0,
            request_api_version: version,
            correlation_id,
            client_id: Some(self.client_id.clone().into()),
            ..Default::default()
        };
        let canonical = body.api_key();
        let frame = match codec::encode_request_frame(&header, &body, &self.numbers) {
            Ok(f) => f,
            Err(e) => {
                self.note(format!("node {node}: cannot encode {canonical:?}: {e}"));
                return;
            }
        };
        if canonical == ApiKey::PUSH_CONFIG {
            self.push_node = Some(node);
        }
        let Some(conn) = self.conns.get_mut(&node) else {
            self.note(format!(
                "node {node}: not connected, {canonical:?} not sent"
            ));
            return;
        };
        conn.pending.push_back(Pending {
            correlation_id,
            api_key: canonical,
            version,
            stale: false,
        });
        let written = tokio::time::timeout(WRITE_TIMEOUT, conn.write.write_all(&frame)).await;
        if !matches!(written, Ok(Ok(()))) {
            self.drop_conn(node, "write failed".into());
        }
    }

    /// Closes the connection to `node` and tells the model (the agent, for a bootstrap
    /// connection of [`ConnectionStyle::Java`], which then opens it again by itself).
    fn drop_conn(&mut self, node: NodeId, reason: String) {
        if self.conns.remove(&node).is_some() {
            self.note(format!("node {node}: disconnected ({reason})"));
            if self.is_agent_node(node) {
                self.agent_inbox
                    .push_back(ClientInput::Disconnected { node });
            } else {
                self.inbox.push_back(ClientInput::Disconnected { node });
            }
            self.schedule_reconnect(node);
        }
    }

    /// True if `generation` is the live connection to `node` (not one closed since).
    fn is_current(&self, node: NodeId, generation: u64) -> bool {
        self.conns
            .get(&node)
            .is_some_and(|c| c.generation == generation)
    }

    async fn on_net(&mut self, ev: NetEvent) {
        match ev {
            NetEvent::Connected { node, stream } => {
                let generation = self.next_generation;
                self.next_generation += 1;
                let (r, w) = stream.into_split();
                let reader = tokio::spawn(read_frames(node, generation, r, self.net.clone()));
                self.conns.insert(
                    node,
                    Conn {
                        generation,
                        write: w,
                        reader,
                        pending: VecDeque::new(),
                    },
                );
                self.note(format!("node {node}: connected"));
                self.connecting.remove(&node);
                self.waiting_to_reconnect.remove(&node);
                if self.is_agent_node(node) {
                    self.agent_inbox.push_back(ClientInput::Connected { node });
                    self.drain().await;
                } else {
                    self.feed(ClientInput::Connected { node }).await;
                }
                if self.connector.as_ref().is_some_and(|(n, _)| *n == node) {
                    self.connector = None;
                    self.connect_next();
                }
            }
            NetEvent::Frame {
                node,
                generation,
                frame,
            } => {
                if self.is_current(node, generation) {
                    // A protocol error queues a Disconnected instead.
                    if let Some(input) = self.response(node, &frame) {
                        if self.is_agent_node(node) {
                            self.agent_inbox.push_back(input);
                        } else {
                            self.inbox.push_back(input);
                        }
                    }
                    self.drain().await;
                }
            }
            NetEvent::Closed {
                node,
                generation,
                reason,
            } => {
                if self.is_current(node, generation) {
                    self.drop_conn(node, reason);
                    self.drain().await;
                }
            }
        }
    }

    /// The model input for a response frame (size prefix included) from `node`, if the model
    /// awaits it.
    fn response(&mut self, node: NodeId, frame: &[u8]) -> Option<ClientInput> {
        let Some(p) = self
            .conns
            .get_mut(&node)
            .and_then(|c| c.pending.pop_front())
        else {
            self.drop_conn(node, "a response to no request".into());
            return None;
        };
        let decoded = match codec::decode_response(&frame[4..], 4, p.api_key, p.version) {
            Ok(d) => d,
            Err(e) => {
                self.drop_conn(
                    node,
                    format!(
                        "the {:?} v{} response does not decode: {e}",
                        p.api_key, p.version
                    ),
                );
                return None;
            }
        };
        if decoded.header.correlation_id != p.correlation_id {
            self.drop_conn(
                node,
                format!(
                    "correlation id {} answers request {}",
                    decoded.header.correlation_id, p.correlation_id
                ),
            );
            return None;
        }
        if p.stale {
            self.note(format!(
                "node {node}: the answer to timed-out request {} dropped",
                p.correlation_id
            ));
            return None;
        }
        if let codec::ResponseBody::Metadata(m) = &decoded.body {
            self.on_metadata(node, m);
            return None;
        }
        ClientInput::answer(node, decoded.body)
    }
}
