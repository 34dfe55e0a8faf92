//! The reference target: kipcheck's own model (client, broker, controller) behind the
//! [`Target`] interface, in-process, on a virtual clock. Every request and response crosses
//! the real wire codec (frames in, frames out), so the reference exercises exactly the path
//! a live implementation does. A scenario with minutes of backoff runs in microseconds.
//!
//! The models, their clock and timers live in one [`Cluster`] (`emulate/cluster.rs`); this
//! file only maps `Session` calls onto it and owns what is about frames: correlation ids,
//! the per-connection output queues, routing a frame to the broker or the controller.

use crate::faulty::Faults;
use crate::faulty::Faulty;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use async_trait::async_trait;
use serde_json::Value;

use super::error::{Crash, SetupError, Unsupported};
use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, Outbound, PeerAction, Session,
    SessionConfig, Target, EMULATED_CONTROLLER_NODE,
};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers, RequestHeader, ResponseBody,
    ResponseHeader,
};
use crate::emulate::controller::{is_controller_api, with_topics};
use crate::emulate::{Cluster, ClusterError, Sender};
use crate::model::{
    BrokerModel, BrokerReply, BrokerRequest, ClientInput, ClientModel, ControllerModel,
    LoggedEvent, Millis, ServerConfigDefs,
};
use crate::scenario::{Capability, Role};

/// The reference implementation as a target.
#[derive(Clone, Debug, Default)]
pub struct ReferenceTarget;

#[async_trait]
impl Target for ReferenceTarget {
    fn name(&self) -> String {
        "reference".into()
    }

    fn capabilities(&self) -> Capabilities {
        reference_capabilities()
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        Ok(Box::new(ReferenceSession::new(config)?))
    }
}

/// What the reference model (and every faulty variant of it) can do.
pub fn reference_capabilities() -> Capabilities {
    Capabilities {
        roles: vec![Role::Client, Role::Broker, Role::Controller],
        capabilities: vec![
            Capability::Events,
            Capability::VirtualClock,
            Capability::PolicyControl,
            Capability::MaxBytes,
            Capability::Throttle,
            Capability::MetadataVersion,
            Capability::Failover,
            Capability::StaticConfigs,
            Capability::ClientConfig,
            Capability::Authorization,
        ],
        readings: None,
    }
}

/// One scenario's in-process models: a [`Cluster`] plus the frames around it.
pub struct ReferenceSession {
    numbers: ProvisionalNumbers,
    roles: Vec<Role>,
    cluster: Cluster,
    connect_on_start: Vec<i32>,
    conns: BTreeMap<u32, VecDeque<ConnOutput>>,
    closed: BTreeSet<u32>,
    /// The cluster's requests as frames, encoded the moment a model emitted them.
    requests: VecDeque<OutRequest>,
    next_correlation: i32,
}

/// The node id of the scenario's broker.
const BROKER_NODE: i32 = 1;

impl ReferenceSession {
    /// Builds the models the scenario's setup describes.
    pub fn new(config: SessionConfig) -> Result<Self, AdapterError> {
        Self::with_faults(config, Faults::none())
    }

    /// Builds the models the scenario's setup describes, each with `faults` (a faulty
    /// variant of the reference). A faulty variant's cluster does not check invariants: its
    /// deviations may break one on purpose, and the scenario must catch them on the wire.
    pub fn with_faults(config: SessionConfig, faults: Faults) -> Result<Self, AdapterError> {
        let SessionConfig {
            setup,
            profile,
            seed,
            roles,
            ..
        } = config;
        let mut cluster = Cluster::new();
        if !faults.is_empty() {
            cluster = cluster.unchecked();
        }
        let mut connect_on_start = Vec::new();
        if let Some(c) = setup
            .client
            .as_ref()
            .filter(|_| roles.contains(&Role::Client))
        {
            connect_on_start = c.connect.clone();
            let m = if c.embedded {
                ClientModel::new_embedded(c.client_type, c.config.clone(), &profile, seed)
            } else {
                ClientModel::new(c.client_type, c.config.clone(), &profile, seed)
            };
            cluster = cluster.with_client(
                m.map_err(SetupError::from)?
                    .with_decisions(Faulty::client(&faults)),
            );
        }
        if roles.contains(&Role::Broker) {
            let b = setup.broker.clone().unwrap_or_default();
            cluster = cluster.with_broker(
                BrokerModel::new(b.settings(BROKER_NODE), &profile)
                    .map_err(SetupError::from)?
                    .with_decisions(Faulty::broker(&faults)),
            );
        }
        match &setup.controller {
            Some(c) if roles.contains(&Role::Controller) => {
                let mut defs = ServerConfigDefs::default();
                defs.broker.extend(c.definitions.clone());
                for v in &c.mv_validators {
                    if !defs.broker.contains_key(&v.key) && !defs.topic.contains_key(&v.key) {
                        let key = v.key.clone();
                        return Err(SetupError::UnknownDefinition { key }.into());
                    }
                    defs = defs.with_mv_validator(&v.key, v.level, v.validator.clone());
                }
                let model = ControllerModel::new(&profile, defs, c.metadata_version, Millis::ZERO)
                    .with_node_id(c.node_id)
                    .with_decisions(Faulty::controller(&faults));
                cluster = cluster.with_controller(with_topics(model, Millis::ZERO, &c.topics));
            }
            _ if roles.contains(&Role::Controller) => {
                return Err(SetupError::MissingSetup { role: "controller" }.into())
            }
            _ => {}
        }
        Ok(Self {
            numbers: profile.provisional,
            roles,
            cluster,
            connect_on_start,
            conns: BTreeMap::new(),
            closed: BTreeSet::new(),
            requests: VecDeque::new(),
            next_correlation: 1,
        })
    }

    /// Encodes every request the cluster emitted as a frame, in order, each with the next
    /// correlation id: a scenario sees them exactly as a live client would send them.
    fn frame_requests(&mut self) -> Result<(), AdapterError> {
        while let Some(out) = self.cluster.take_request() {
            let client_id = match out.from {
                Sender::Client => "kipcheck-reference".to_string(),
                Sender::Broker(id) => format!("broker-{id}"),
            };
            let header = RequestHeader {
                request_api_key: out.api_key.0,
                request_api_version: out.api_version,
                correlation_id: self.next_correlation,
                client_id: Some(client_id.into()),
                ..Default::default()
            };
            self.next_correlation += 1;
            let frame = codec::encode_request_frame(&header, &out.body, &self.numbers).map_err(
                |source| Crash::ModelEncode {
                    from: format!("{:?}", out.from),
                    source,
                },
            )?;
            self.requests.push_back(OutRequest {
                node: out.node,
                frame,
                at_ms: out.at.0,
            });
        }
        Ok(())
    }

    /// Runs `step` on the cluster, then frames what it emitted.
    fn drive(
        &mut self,
        step: impl FnOnce(&mut Cluster) -> Result<(), ClusterError>,
    ) -> Result<(), AdapterError> {
        step(&mut self.cluster).map_err(cluster_error)?;
        self.frame_requests()
    }

    /// Runs client timers up to `until`, stopping early once a request or (with
    /// `releases`) a release is ready.
    fn run_until(&mut self, until: Millis, releases: bool) -> Result<(), AdapterError> {
        if !releases && !self.requests.is_empty() {
            return Ok(());
        }
        self.drive(|c| {
            c.drive_until(until, |c| {
                if releases {
                    c.has_release()
                } else {
                    c.has_request()
                }
            })
        })
    }

    fn respond_frame(&mut self, conn: u32, correlation_id: i32, version: i16, body: ResponseBody) {
        let header = ResponseHeader {
            correlation_id,
            ..Default::default()
        };
        let out = match codec::encode_response_frame(&header, &body, version) {
            Ok(f) => ConnOutput::Frame(f),
            Err(_) => ConnOutput::Closed,
        };
        self.push(conn, out);
    }

    fn push(&mut self, conn: u32, out: ConnOutput) {
        if out == ConnOutput::Closed {
            self.closed.insert(conn);
        }
        self.conns.entry(conn).or_default().push_back(out);
    }

    fn route_to_controller(&mut self, conn: u32, frame: &[u8]) -> Result<(), AdapterError> {
        let decoded =
            match codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers) {
                Ok(d) => d,
                Err(_) => {
                    self.push(conn, ConnOutput::Closed);
                    return Ok(());
                }
            };
        let version = decoded.header.request_api_version;
        let corr = decoded.header.correlation_id;
        match self.cluster.controller_request(version, &decoded.body) {
            Ok(Some(body)) => self.respond_frame(conn, corr, version, body),
            Ok(None) | Err(ClusterError::NoController) => self.push(conn, ConnOutput::Closed),
            Err(e) => return Err(cluster_error(e)),
        }
        Ok(())
    }

    fn route_to_broker(&mut self, conn: u32, frame: &[u8]) -> Result<(), AdapterError> {
        let parsed = codec::split_request_head(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers)
            .map(|(header, _, body)| (header, body.to_vec()));
        let Some((header, body)) = parsed else {
            self.push(conn, ConnOutput::Closed);
            return Ok(());
        };
        // The frame is the 4-byte size, the header, then the body.
        let header_len = frame.len().saturating_sub(4 + body.len());
        let request = BrokerRequest {
            api_key: ApiKey(header.request_api_key),
            api_version: header.request_api_version,
            body,
        };
        let reply = match self
            .cluster
            .broker_request(BROKER_NODE, &request, header_len)
        {
            Ok(reply) => reply,
            Err(ClusterError::NoBroker { .. }) => {
                self.push(conn, ConnOutput::Closed);
                return Ok(());
            }
            Err(e) => return Err(cluster_error(e)),
        };
        match reply {
            BrokerReply::Response {
                api_version,
                body,
                then_close,
                ..
            } => {
                self.respond_frame(conn, header.correlation_id, api_version, body);
                if then_close {
                    self.push(conn, ConnOutput::Closed);
                }
            }
            BrokerReply::Close { .. } => self.push(conn, ConnOutput::Closed),
        }
        Ok(())
    }
}

/// A cluster error as the runner sees it: a step the scenario's models cannot take is
/// unsupported; anything else is the reference's own failure.
fn cluster_error(e: ClusterError) -> AdapterError {
    match e {
        ClusterError::NoClient => Unsupported::NoRole { role: "client" }.into(),
        ClusterError::NoBroker { .. } => Unsupported::NoRole { role: "broker" }.into(),
        ClusterError::NoController => Unsupported::NoRole { role: "controller" }.into(),
        other => Crash::Model(other).into(),
    }
}

/// An event as scenarios see it: its fields, its kind under `event`, and the virtual time it
/// was logged at under `at` — or under `logged_at` when the event has an `at` field of its
/// own (e.g. `retry_scheduled`, whose `at` is the planned send time).
fn logged_json(e: &LoggedEvent) -> Value {
    let mut v = serde_json::to_value(&e.event).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        let key = if map.contains_key("at") {
            "logged_at"
        } else {
            "at"
        };
        map.insert(key.into(), Value::from(e.at.0));
    }
    v
}

#[async_trait]
impl Session for ReferenceSession {
    async fn send(&mut self, conn: u32, out: Outbound) -> Result<(), AdapterError> {
        let frame = out.frame;
        if self.closed.contains(&conn) {
            self.push(conn, ConnOutput::Closed);
            return Ok(());
        }
        // Route by API: controller APIs go to the controller when the scenario tests one.
        let key = frame
            .get(4..)
            .and_then(|p| codec::peek_request(p).api_key)
            .map(|k| self.numbers.canonical_api_key(k));
        let to_controller = self.roles.contains(&Role::Controller)
            && (!self.roles.contains(&Role::Broker) || key.is_some_and(is_controller_api));
        if to_controller {
            self.route_to_controller(conn, &frame)
        } else {
            self.route_to_broker(conn, &frame)
        }
    }

    async fn recv(&mut self, conn: u32, _wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        Ok(self.conns.get_mut(&conn).and_then(VecDeque::pop_front))
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match action {
            PeerAction::Start => {
                let connect = self.connect_on_start.clone();
                self.drive(|c| {
                    c.input(ClientInput::Start)?;
                    for node in connect {
                        c.input(ClientInput::Connected { node })?;
                    }
                    Ok(())
                })
            }
            PeerAction::Connect(node) => self.drive(|c| c.input(ClientInput::Connected { node })),
            PeerAction::Disconnect(node) => self.drive(|c| c.disconnect(node)),
            PeerAction::Timeout(node) => self.drive(|c| c.time_out(node)),
            PeerAction::UserRequest(id) => self.drive(|c| c.input(ClientInput::UserRequest { id })),
            PeerAction::Register {
                controller_max_version,
            } => self.drive(|c| {
                c.register(
                    BROKER_NODE,
                    EMULATED_CONTROLLER_NODE,
                    controller_max_version,
                )
            }),
            PeerAction::Failover => self.drive(Cluster::failover),
        }
    }

    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        let deadline = self.cluster.now().plus(within_ms);
        self.run_until(deadline, false)?;
        Ok(self.requests.pop_front())
    }

    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let Some(awaited) = self.cluster.awaited(node) else {
            return Err(Unsupported::NothingToAnswer { node }.into());
        };
        let decoded = codec::decode_response_frame(
            &frame,
            DEFAULT_MAX_FRAME_SIZE,
            awaited.api_key,
            awaited.api_version,
        )
        .map_err(Crash::OwnResponse)?;
        self.drive(|c| c.answer(node, decoded.body).map(drop))
    }

    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        let deadline = self.cluster.now().plus(within_ms);
        self.run_until(deadline, true)?;
        Ok(self.cluster.take_release().map(|r| (r.id, r.at.0)))
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        let until = self.cluster.now().plus(ms);
        self.drive(|c| c.drive_until(until, |_| false))
    }

    fn now_ms(&self) -> u64 {
        self.cluster.now().0
    }

    fn events(&self) -> Vec<Value> {
        self.cluster.events().into_iter().map(logged_json).collect()
    }
}
