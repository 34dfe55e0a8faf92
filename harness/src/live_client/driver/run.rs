//! The live client's event loop: the sans-IO `ClientModel` fed with wall-clock time (module
//! doc in `mod.rs`): the loop's state (`Driver`), its start, the control channel, the one
//! timer, and each model output performed. Writing requests and taking frames back is
//! `wire.rs`'; what only [`ConnectionStyle::Java`] does is `java.rs`'. Judges nothing.

use crate::faulty::Faulty;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::conn::{connect, Conn, NetEvent};
use super::options::{ConnectionStyle, Control, LiveOptions, Report, DEFAULT_CLIENT_ID};
use crate::codec::{ApiKey, ProvisionalNumbers};
use crate::live_client::LiveClientError;
use crate::model::events::RetryCause;
use crate::model::{ClientInput, ClientModel, ClientOutput, Event, LoggedEvent, Millis, NodeId};

pub(super) struct Driver {
    pub(super) model: ClientModel,
    pub(super) style: ConnectionStyle,
    /// [`ConnectionStyle::Java`]: the embedded model that performs the bootstrap connections'
    /// ApiVersions and SASL (it does no handshake of its own).
    pub(super) agent: Option<ClientModel>,
    /// Inputs for `agent`, in order.
    pub(super) agent_inbox: VecDeque<ClientInput>,
    /// Whether the client authenticates with SASL (discovery then waits for it).
    pub(super) sasl: bool,
    /// [`ConnectionStyle::Java`]: the bootstrap nodes (the agent's), by address.
    pub(super) bootstrap_nodes: BTreeMap<String, NodeId>,
    /// [`ConnectionStyle::Java`]: the brokers Metadata named, by address.
    pub(super) metadata_nodes: BTreeMap<String, NodeId>,
    /// [`ConnectionStyle::Java`]: every node's address.
    pub(super) addr_of: BTreeMap<NodeId, String>,
    /// [`ConnectionStyle::Java`]: connections being opened (a scheduled reconnection included).
    pub(super) connecting: BTreeMap<NodeId, JoinHandle<()>>,
    /// [`ConnectionStyle::Java`]: nodes not opened again by itself (a failed authentication).
    pub(super) no_reconnect: std::collections::BTreeSet<NodeId>,
    /// [`ConnectionStyle::Java`]: nodes whose reconnection waits for [`RECONNECT_BACKOFF`].
    pub(super) waiting_to_reconnect: std::collections::BTreeSet<NodeId>,
    pub(super) start: Instant,
    pub(super) numbers: ProvisionalNumbers,
    pub(super) client_id: String,
    pub(super) conns: BTreeMap<NodeId, Conn>,
    pub(super) next_generation: u64,
    pub(super) next_correlation: i32,
    pub(super) wake: Option<Millis>,
    /// The node the latest PushConfig went to.
    pub(super) push_node: Option<NodeId>,
    pub(super) inbox: VecDeque<ClientInput>,
    /// Bootstrap nodes not yet connected, in order.
    pub(super) to_connect: VecDeque<(NodeId, String)>,
    /// The bootstrap node being connected and the task opening it.
    pub(super) connector: Option<(NodeId, JoinHandle<()>)>,
    /// Connections asked for on the control channel, being opened.
    pub(super) asked: Vec<JoinHandle<()>>,
    /// Every address the client has a node id for.
    pub(super) known: BTreeMap<String, NodeId>,
    pub(super) reports: mpsc::UnboundedSender<Report>,
    pub(super) net: mpsc::UnboundedSender<NetEvent>,
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
    let profile = crate::live_client::configured_timings(
        &crate::live_client::configured_timings(&profile, &setup.timing_defaults),
        &setup.user_config,
    );
    let model = if setup.embedded {
        ClientModel::new_embedded(setup.client_type, setup.user_config.clone(), &profile, seed)
    } else {
        ClientModel::new(setup.client_type, setup.user_config.clone(), &profile, seed)
    }?
    .with_decisions(Faulty::client(&faults));
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

impl Driver {
    pub(super) fn now(&self) -> Millis {
        Millis(u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// Starts opening the next bootstrap connection, if any.
    pub(super) fn connect_next(&mut self) {
        if let Some((node, addr)) = self.to_connect.pop_front() {
            self.connector = Some((node, tokio::spawn(connect(node, addr, self.net.clone()))));
        }
    }

    /// Starts opening the connection the control channel asked for.
    pub(super) fn connect_asked(&mut self, node: NodeId, addr: String) {
        if self.style == ConnectionStyle::Java {
            return self.connect_asked_java(node, addr);
        }
        let node = *self.known.entry(addr.clone()).or_insert(node);
        self.asked.retain(|t| !t.is_finished());
        self.asked
            .push(tokio::spawn(connect(node, addr, self.net.clone())));
    }

    pub(super) fn note(&self, text: String) {
        let _ = self.reports.send(Report::Note(text));
    }

    /// Feeds `input` and every input its outputs cause, in order.
    pub(super) async fn feed(&mut self, input: ClientInput) {
        self.inbox.push_back(input);
        self.drain().await;
    }

    /// Feeds every queued input (and those their outputs queue), in order.
    pub(super) async fn drain(&mut self) {
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

    pub(super) async fn perform(&mut self, now: Millis, outputs: Vec<ClientOutput>) {
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
    pub(super) fn after_event(&mut self, event: &Event) {
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
}
