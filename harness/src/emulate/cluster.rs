//! `Cluster`: the one deterministic driver of the simulated world (the quinn-proto `Pair`
//! idea). It owns the simulated clock, the client's wake timers, one client, its brokers, a
//! controller and the messages in flight between them, and calls every model's
//! `check_invariants` after every step. The reference target (`adapter/reference.rs`) maps
//! `Session` calls onto it, the `model_ops` fuzz target drives it with arbitrary operations,
//! and the model tests use it through `tests/support/model.rs`.
//!
//! Test machinery of the harness, not the KIP reference: it only wires the reference models
//! (`kipcheck-model`) together through their public API and decides nothing a KIP says. Pure,
//! synchronous and sans-IO like the models it drives: no clock (time moves only when a caller
//! drives it), ordered collections only. A request the client emits waits in the outbox until
//! a caller either takes it ([`Cluster::take_request`]: someone else answers it, later, with
//! [`Cluster::answer`]) or delivers it in-process ([`Cluster::deliver`]: across the codec to the
//! broker model and the broker's reply back to the client).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::controller;
use crate::codec::{ApiKey, DecodeError, EncodeError, Reader, RequestBody, ResponseBody};
use crate::model::{
    BrokerModel, BrokerReply, BrokerRequest, ClientInput, ClientModel, ClientOutput,
    ControllerModel, InvariantViolation, LoggedEvent, Millis, NodeId, ReplayError,
};

/// Who sent a message in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sender {
    /// The client.
    Client,
    /// The broker with this node id (its registration to the controller).
    Broker(NodeId),
}

/// A request on its way: emitted by a model, not yet delivered or taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Outgoing {
    /// Who sent it.
    pub from: Sender,
    /// The node it goes to.
    pub node: NodeId,
    /// Its wire API key (the provisional number where the profile says so).
    pub api_key: ApiKey,
    /// Its version.
    pub api_version: i16,
    /// The body.
    pub body: RequestBody,
    /// When it was emitted.
    pub at: Millis,
}

/// A user request the client let through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The user request's id.
    pub id: u64,
    /// When it was released.
    pub at: Millis,
}

/// A request someone took from the outbox, awaiting its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Awaited {
    /// Who sent it.
    pub from: Sender,
    /// Canonical API key of the request (and so of its response).
    pub api_key: ApiKey,
    /// Its version (and so its response's).
    pub api_version: i16,
}

/// Why the cluster could not take a step.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A model's invariant broke: a bug in the model.
    #[error(transparent)]
    Invariant(#[from] InvariantViolation),
    /// The step needs a client and the cluster has none.
    #[error("no client in this cluster")]
    NoClient,
    /// The step needs a broker the cluster does not have.
    #[error("no broker with node id {node}")]
    NoBroker {
        /// The node asked for.
        node: NodeId,
    },
    /// The step needs a controller and the cluster has none.
    #[error("no controller in this cluster")]
    NoController,
    /// A model's message did not encode.
    #[error("{api_key:?} v{api_version} from a model does not encode: {source}")]
    Encode {
        /// The message's API key.
        api_key: ApiKey,
        /// The version it was encoded at.
        api_version: i16,
        /// What the codec said.
        #[source]
        source: EncodeError,
    },
    /// A model's message did not decode after encoding.
    #[error("{api_key:?} v{api_version} from a model does not decode: {source}")]
    Decode {
        /// The message's API key.
        api_key: ApiKey,
        /// The version it was decoded at.
        api_version: i16,
        /// What the codec said.
        #[source]
        source: DecodeError,
    },
    /// A broker answered the client with a response the client takes no input for.
    #[error("node {node} answered the client with {api_key:?}, which no client input carries")]
    UnexpectedResponse {
        /// The broker.
        node: NodeId,
        /// The response's API key.
        api_key: ApiKey,
    },
    /// The controller's log did not replay at failover.
    #[error("failover replay: {0}")]
    Replay(#[from] ReplayError),
}

/// One client, its brokers and a controller on one simulated clock.
#[derive(Clone, Debug, Default)]
pub struct Cluster {
    now: Millis,
    wakes: BTreeSet<Millis>,
    client: Option<ClientModel>,
    brokers: BTreeMap<NodeId, BrokerModel>,
    controller: Option<ControllerModel>,
    outbox: VecDeque<Outgoing>,
    awaiting: BTreeMap<NodeId, VecDeque<Awaited>>,
    releases: VecDeque<Release>,
    /// Events of controllers replaced by a failover, so the event history stays whole.
    retired_events: Vec<LoggedEvent>,
    /// Whether every step ends with `check_invariants` (off for faulty variants, whose
    /// deviations may break an invariant on purpose).
    unchecked: bool,
}

impl Cluster {
    /// An empty cluster at time 0 that checks invariants after every step.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same cluster with `client`.
    pub fn with_client(mut self, client: ClientModel) -> Self {
        self.client = Some(client);
        self
    }

    /// The same cluster with `broker` (under its node id, replacing one there).
    pub fn with_broker(mut self, broker: BrokerModel) -> Self {
        self.insert_broker(broker);
        self
    }

    /// The same cluster with `controller`.
    pub fn with_controller(mut self, controller: ControllerModel) -> Self {
        self.controller = Some(controller);
        self
    }

    /// The same cluster without the invariant check after each step (a faulty variant's
    /// models may break an invariant on purpose; the scenario, not the model, must catch it).
    pub fn unchecked(mut self) -> Self {
        self.unchecked = true;
        self
    }

    /// Adds `broker` under its node id, replacing one there.
    pub fn insert_broker(&mut self, broker: BrokerModel) {
        self.brokers.insert(broker.settings().node_id, broker);
    }

    /// The current simulated time.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// The client, if there is one.
    pub fn client(&self) -> Option<&ClientModel> {
        self.client.as_ref()
    }

    /// The brokers by node id.
    pub fn brokers(&self) -> &BTreeMap<NodeId, BrokerModel> {
        &self.brokers
    }

    /// The controller, if there is one.
    pub fn controller(&self) -> Option<&ControllerModel> {
        self.controller.as_ref()
    }

    /// The earliest pending wake timer of the client.
    pub fn next_wake(&self) -> Option<Millis> {
        self.wakes.first().copied()
    }

    /// Feeds `input` to the client at the current time.
    pub fn input(&mut self, input: ClientInput) -> Result<(), ClusterError> {
        let client = self.client.as_mut().ok_or(ClusterError::NoClient)?;
        let outputs = client.handle(self.now, input);
        for o in outputs {
            match o {
                ClientOutput::Send {
                    node,
                    api_key,
                    api_version,
                    body,
                } => self.outbox.push_back(Outgoing {
                    from: Sender::Client,
                    node,
                    api_key,
                    api_version,
                    body,
                    at: self.now,
                }),
                ClientOutput::ReleaseUserRequest { id } => {
                    self.releases.push_back(Release { id, at: self.now })
                }
                ClientOutput::WakeAt(t) => {
                    self.wakes.insert(t);
                }
                ClientOutput::Event(_) => {}
            }
        }
        self.checked()
    }

    /// Fires the earliest wake timer: time moves to it (never back) and the client ticks.
    /// `Ok(false)` when no timer is pending.
    pub fn step(&mut self) -> Result<bool, ClusterError> {
        let Some(w) = self.wakes.pop_first() else {
            return Ok(false);
        };
        self.now = self.now.max(w);
        if self.client.is_some() {
            self.input(ClientInput::Tick)?;
        }
        Ok(true)
    }

    /// Fires wake timers up to `until` in order, stopping early when `stop` holds (checked
    /// before each timer); otherwise time ends at `until`.
    pub fn drive_until(
        &mut self,
        until: Millis,
        stop: impl Fn(&Self) -> bool,
    ) -> Result<(), ClusterError> {
        loop {
            if stop(self) {
                return Ok(());
            }
            match self.next_wake() {
                Some(w) if w <= until => {
                    self.step()?;
                }
                _ => {
                    self.now = self.now.max(until);
                    return Ok(());
                }
            }
        }
    }

    /// Moves time to `t` (never back) at once and ticks the client there, as a runner that
    /// wakes late does: the timers due by `t` are served by this one tick.
    pub fn tick_at(&mut self, t: Millis) -> Result<(), ClusterError> {
        self.now = self.now.max(t);
        self.wakes = self.wakes.split_off(&self.now.plus(1));
        self.input(ClientInput::Tick)
    }

    /// Whether a request waits in the outbox.
    pub fn has_request(&self) -> bool {
        !self.outbox.is_empty()
    }

    /// Takes the oldest request from the outbox; its answer is awaited from its node
    /// ([`answer`](Self::answer)).
    pub fn take_request(&mut self) -> Option<Outgoing> {
        let out = self.outbox.pop_front()?;
        let api_key = out.body.api_key();
        self.awaiting
            .entry(out.node)
            .or_default()
            .push_back(Awaited {
                from: out.from,
                api_key,
                api_version: out.api_version,
            });
        Some(out)
    }

    /// The oldest taken request to `node` that awaits an answer.
    pub fn awaited(&self, node: NodeId) -> Option<Awaited> {
        self.awaiting.get(&node).and_then(|q| q.front()).copied()
    }

    /// Answers the oldest taken request to `node` with `body`: a client's ApiVersions, SASL or
    /// PushConfig answer goes to the client ([`ClientInput::answer`]); any other answer is
    /// consumed. `Ok(None)` when
    /// nothing awaits an answer from `node`.
    pub fn answer(
        &mut self,
        node: NodeId,
        body: ResponseBody,
    ) -> Result<Option<Awaited>, ClusterError> {
        let Some(a) = self.awaiting.get_mut(&node).and_then(VecDeque::pop_front) else {
            return Ok(None);
        };
        if a.from == Sender::Client {
            if let Some(input) = ClientInput::answer(node, body) {
                self.input(input)?
            }
        }
        Ok(Some(a))
    }

    /// Delivers the oldest request of the outbox in-process, across the codec (encoded,
    /// handed to its broker as bytes, the reply encoded and decoded back): the broker's
    /// response goes to the client, a close becomes `Disconnected`. A broker's registration
    /// goes to the controller. Returns what was delivered; `None` when the outbox is empty.
    pub fn deliver(&mut self) -> Result<Option<Outgoing>, ClusterError> {
        let Some(out) = self.outbox.pop_front() else {
            return Ok(None);
        };
        let node = out.node;
        if let Sender::Broker(_) = out.from {
            self.controller_request(out.api_version, &out.body)?;
            return Ok(Some(out));
        }
        let bytes = out
            .body
            .to_bytes(out.api_version)
            .map_err(|source| ClusterError::Encode {
                api_key: out.api_key,
                api_version: out.api_version,
                source,
            })?;
        let request = BrokerRequest {
            api_key: out.api_key,
            api_version: out.api_version,
            body: bytes,
        };
        let input = match self.broker_request(node, &request, 0)? {
            BrokerReply::Response {
                api_version, body, ..
            } => {
                let body = cross(&body, api_version)?;
                let api_key = body.api_key();
                ClientInput::answer(node, body)
                    .ok_or(ClusterError::UnexpectedResponse { node, api_key })?
            }
            BrokerReply::Close { .. } => ClientInput::Disconnected { node },
        };
        self.input(input)?;
        Ok(Some(out))
    }

    /// The connection to `node` is gone: requests to it still in the outbox are dropped,
    /// those awaiting its answer forgotten, and the client is told.
    pub fn disconnect(&mut self, node: NodeId) -> Result<(), ClusterError> {
        self.outbox.retain(|o| o.node != node);
        self.awaiting.remove(&node);
        self.input(ClientInput::Disconnected { node })
    }

    /// The oldest request awaiting `node`'s answer timed out: it is forgotten and the client
    /// is told.
    pub fn time_out(&mut self, node: NodeId) -> Result<(), ClusterError> {
        if let Some(q) = self.awaiting.get_mut(&node) {
            q.pop_front();
        }
        self.input(ClientInput::RequestTimedOut { node })
    }

    /// Whether a released user request waits to be taken.
    pub fn has_release(&self) -> bool {
        !self.releases.is_empty()
    }

    /// The oldest release not yet taken.
    pub fn take_release(&mut self) -> Option<Release> {
        self.releases.pop_front()
    }

    /// Broker `node` registers with the controller (`controller_node`), which answers at
    /// most `controller_max_version`: the request joins the outbox.
    pub fn register(
        &mut self,
        node: NodeId,
        controller_node: NodeId,
        controller_max_version: i16,
    ) -> Result<(), ClusterError> {
        let broker = self
            .brokers
            .get(&node)
            .ok_or(ClusterError::NoBroker { node })?;
        let (api_version, body) = broker.registration_request(controller_max_version);
        self.outbox.push_back(Outgoing {
            from: Sender::Broker(node),
            node: controller_node,
            api_key: ApiKey::BROKER_REGISTRATION,
            api_version,
            body: RequestBody::BrokerRegistration(body),
            at: self.now,
        });
        Ok(())
    }

    /// Broker `node` handles one request (`header_len`: the bytes its header took on the
    /// wire, or 0).
    pub fn broker_request(
        &mut self,
        node: NodeId,
        request: &BrokerRequest,
        header_len: usize,
    ) -> Result<BrokerReply, ClusterError> {
        self.on_broker(node, |b, now| {
            b.handle_framed_request(now, request, header_len)
        })
    }

    /// The controller handles one request through the emulated controller's dispatch
    /// ([`controller::handle_request`]); `Ok(None)` for an API it does not serve.
    pub fn controller_request(
        &mut self,
        version: i16,
        request: &RequestBody,
    ) -> Result<Option<ResponseBody>, ClusterError> {
        self.on_controller(|c, now| controller::handle_request(c, now, version, request))
    }

    /// Runs `f` on broker `node` at the current time (setup changes, requests the caller
    /// builds itself), then checks invariants.
    pub fn on_broker<R>(
        &mut self,
        node: NodeId,
        f: impl FnOnce(&mut BrokerModel, Millis) -> R,
    ) -> Result<R, ClusterError> {
        let now = self.now;
        let broker = self
            .brokers
            .get_mut(&node)
            .ok_or(ClusterError::NoBroker { node })?;
        let r = f(broker, now);
        self.checked()?;
        Ok(r)
    }

    /// Runs `f` on the controller at the current time, then checks invariants.
    pub fn on_controller<R>(
        &mut self,
        f: impl FnOnce(&mut ControllerModel, Millis) -> R,
    ) -> Result<R, ClusterError> {
        let now = self.now;
        let c = self.controller.as_mut().ok_or(ClusterError::NoController)?;
        let r = f(c, now);
        self.checked()?;
        Ok(r)
    }

    /// The controller fails over: a new one is rebuilt from its metadata log (same
    /// profile, definitions, faults and node id); the old one's events are kept.
    pub fn failover(&mut self) -> Result<(), ClusterError> {
        let old = self.controller.as_ref().ok_or(ClusterError::NoController)?;
        let new = old.failover()?;
        self.retired_events.extend(old.events().iter().cloned());
        self.controller = Some(new);
        self.checked()
    }

    /// Every event so far (failed-over controllers', the client's, the brokers' in node
    /// order, the controller's), stably ordered by time: one model's events keep their order.
    pub fn events(&self) -> Vec<&LoggedEvent> {
        let mut all: Vec<&LoggedEvent> = self.retired_events.iter().collect();
        if let Some(c) = &self.client {
            all.extend(c.events());
        }
        for b in self.brokers.values() {
            all.extend(b.events());
        }
        if let Some(c) = &self.controller {
            all.extend(c.events());
        }
        all.sort_by_key(|e| e.at);
        all
    }

    /// Every model's `check_invariants`.
    pub fn check_invariants(&self) -> Result<(), InvariantViolation> {
        if let Some(c) = &self.client {
            c.check_invariants()?;
        }
        for b in self.brokers.values() {
            b.check_invariants()?;
        }
        if let Some(c) = &self.controller {
            c.check_invariants()?;
        }
        Ok(())
    }

    /// The end of every step: the invariants, unless the cluster is unchecked.
    fn checked(&self) -> Result<(), ClusterError> {
        if self.unchecked {
            return Ok(());
        }
        Ok(self.check_invariants()?)
    }
}

/// A response as the other side reads it: encoded at `version` and decoded back.
fn cross(body: &ResponseBody, version: i16) -> Result<ResponseBody, ClusterError> {
    let api_key = body.api_key();
    let bytes = body
        .to_bytes(version)
        .map_err(|source| ClusterError::Encode {
            api_key,
            api_version: version,
            source,
        })?;
    ResponseBody::decode(api_key, &mut Reader::new(&bytes), version).map_err(|source| {
        ClusterError::Decode {
            api_key,
            api_version: version,
            source,
        }
    })
}
