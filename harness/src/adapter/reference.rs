//! The reference target: kipcheck's own model (client, broker, controller) behind the
//! [`Target`] interface, in-process, on a virtual clock. Every request and response crosses
//! the real wire codec (frames in, frames out), so the reference exercises exactly the path
//! a live implementation does. A scenario with minutes of backoff runs in microseconds.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use async_trait::async_trait;
use serde_json::Value;

use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, Session, SessionConfig, Target,
    EMULATED_CONTROLLER_NODE,
};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers, RequestBody, RequestHeader,
    ResponseBody, ResponseHeader,
};
use crate::model::controller_describe::CONTROLLER_APIS;
use crate::model::{
    BrokerModel, BrokerReply, BrokerRequest, ClientInput, ClientModel, ClientOutput,
    ControllerModel, Faults, LoggedEvent, Millis, ServerConfigDefs, SpecProfile,
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
        ],
        readings: None,
    }
}

/// A request the client sent that awaits kipcheck's answer.
#[derive(Clone, Copy, Debug)]
struct Pending {
    api_key: ApiKey,
    version: i16,
}

/// One scenario's in-process models.
pub struct ReferenceSession {
    profile: SpecProfile,
    numbers: ProvisionalNumbers,
    roles: Vec<Role>,
    now: Millis,
    client: Option<ClientModel>,
    connect_on_start: Vec<i32>,
    broker: Option<BrokerModel>,
    controller: Option<ControllerModel>,
    defs: ServerConfigDefs,
    conns: BTreeMap<u32, VecDeque<ConnOutput>>,
    closed: BTreeSet<u32>,
    requests: VecDeque<OutRequest>,
    releases: VecDeque<(u64, u64)>,
    wakes: BTreeSet<Millis>,
    pending: BTreeMap<i32, VecDeque<Pending>>,
    next_correlation: i32,
    /// Events of controllers replaced by a failover, so the event history stays whole.
    retired_events: Vec<LoggedEvent>,
    /// The faults of the models (empty for the reference).
    faults: Faults,
}

impl ReferenceSession {
    /// Builds the models the scenario's setup describes.
    pub fn new(config: SessionConfig) -> Result<Self, AdapterError> {
        Self::with_faults(config, Faults::none())
    }

    /// Builds the models the scenario's setup describes, each with `faults` (a faulty
    /// variant of the reference).
    pub fn with_faults(config: SessionConfig, faults: Faults) -> Result<Self, AdapterError> {
        let SessionConfig {
            setup,
            profile,
            seed,
            roles,
            ..
        } = config;
        let setup_err = |e: &dyn std::fmt::Display| AdapterError::Setup(e.to_string());
        let mut connect_on_start = Vec::new();
        let client = match &setup.client {
            Some(c) if roles.contains(&Role::Client) => {
                connect_on_start = c.connect.clone();
                let m = if c.embedded {
                    ClientModel::new_embedded(c.client_type, c.config.clone(), &profile, seed)
                } else {
                    ClientModel::new(c.client_type, c.config.clone(), &profile, seed)
                };
                Some(m.map_err(|e| setup_err(&e))?.with_faults(faults.clone()))
            }
            _ => None,
        };
        let broker = if roles.contains(&Role::Broker) {
            let b = setup.broker.clone().unwrap_or_default();
            Some(
                BrokerModel::new(b.settings(1), &profile)
                    .map_err(|e| setup_err(&e))?
                    .with_faults(faults.clone()),
            )
        } else {
            None
        };
        let mut defs = ServerConfigDefs::default();
        let controller = match &setup.controller {
            Some(c) if roles.contains(&Role::Controller) => {
                defs.broker.extend(c.definitions.clone());
                for v in &c.mv_validators {
                    if !defs.broker.contains_key(&v.key) && !defs.topic.contains_key(&v.key) {
                        return Err(AdapterError::Setup(format!(
                            "mv_validators: no definition named {:?}",
                            v.key
                        )));
                    }
                    defs = defs.with_mv_validator(&v.key, v.level, v.validator.clone());
                }
                Some(
                    ControllerModel::new(&profile, defs.clone(), c.metadata_version, Millis::ZERO)
                        .with_node_id(c.node_id)
                        .with_faults(faults.clone())
                        .with_topics(Millis::ZERO, &c.topics),
                )
            }
            _ if roles.contains(&Role::Controller) => {
                return Err(AdapterError::Setup(
                    "a controller scenario needs setup.controller".into(),
                ))
            }
            _ => None,
        };
        Ok(Self {
            numbers: profile.provisional,
            profile,
            roles,
            now: Millis::ZERO,
            client,
            connect_on_start,
            broker,
            controller,
            defs,
            conns: BTreeMap::new(),
            closed: BTreeSet::new(),
            requests: VecDeque::new(),
            releases: VecDeque::new(),
            wakes: BTreeSet::new(),
            pending: BTreeMap::new(),
            next_correlation: 1,
            retired_events: Vec::new(),
            faults,
        })
    }

    fn client_input(&mut self, input: ClientInput) -> Result<(), AdapterError> {
        let Some(client) = self.client.as_mut() else {
            return Err(AdapterError::Unsupported(
                "no client in this scenario (roles/setup.client)".into(),
            ));
        };
        let outputs = client.handle(self.now, input);
        for o in outputs {
            match o {
                ClientOutput::Send {
                    node,
                    api_key,
                    api_version,
                    body,
                } => {
                    let header = RequestHeader {
                        request_api_key: api_key.0,
                        request_api_version: api_version,
                        correlation_id: self.next_correlation,
                        client_id: Some("kipcheck-reference".into()),
                        ..Default::default()
                    };
                    self.next_correlation += 1;
                    let frame = codec::encode_request_frame(&header, &body, &self.numbers)
                        .map_err(|e| AdapterError::Crashed(format!("client request: {e}")))?;
                    self.pending.entry(node).or_default().push_back(Pending {
                        api_key: body.api_key(),
                        version: api_version,
                    });
                    self.requests.push_back(OutRequest {
                        node,
                        frame,
                        at_ms: self.now.0,
                    });
                }
                ClientOutput::ReleaseUserRequest { id } => {
                    self.releases.push_back((id, self.now.0))
                }
                ClientOutput::WakeAt(t) => {
                    self.wakes.insert(t);
                }
                ClientOutput::Event(_) => {}
            }
        }
        Ok(())
    }

    /// Runs client timers up to `until`, stopping early when `stop` says so.
    fn run_until(
        &mut self,
        until: Millis,
        stop: impl Fn(&Self) -> bool,
    ) -> Result<(), AdapterError> {
        loop {
            if stop(self) {
                return Ok(());
            }
            let next = self.wakes.iter().next().copied();
            match next {
                Some(w) if w <= until => {
                    self.wakes.remove(&w);
                    if w > self.now {
                        self.now = w;
                    }
                    if self.client.is_some() {
                        self.client_input(ClientInput::Tick)?;
                    }
                }
                _ => {
                    if until > self.now {
                        self.now = until;
                    }
                    return Ok(());
                }
            }
        }
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

    fn route_to_controller(&mut self, conn: u32, frame: &[u8]) {
        let decoded =
            match codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers) {
                Ok(d) => d,
                Err(_) => return self.push(conn, ConnOutput::Closed),
            };
        let version = decoded.header.request_api_version;
        let corr = decoded.header.correlation_id;
        let now = self.now;
        let Some(c) = self.controller.as_mut() else {
            return self.push(conn, ConnOutput::Closed);
        };
        let body = match &decoded.body {
            RequestBody::BrokerRegistration(r) => {
                ResponseBody::BrokerRegistration(c.handle_broker_registration(now, version, r))
            }
            RequestBody::AlterConfigs(r) => {
                ResponseBody::AlterConfigs(c.handle_alter_configs(now, version, r))
            }
            RequestBody::IncrementalAlterConfigs(r) => ResponseBody::IncrementalAlterConfigs(
                c.handle_incremental_alter_configs(now, version, r),
            ),
            RequestBody::UpdateFeatures(r) => {
                ResponseBody::UpdateFeatures(c.handle_update_features(now, version, r))
            }
            RequestBody::CreateTopics(r) => {
                ResponseBody::CreateTopics(c.handle_create_topics(now, version, r))
            }
            RequestBody::DescribeConfigs(r) => {
                ResponseBody::DescribeConfigs(c.handle_describe_configs(version, r))
            }
            RequestBody::DescribeCluster(r) => {
                ResponseBody::DescribeCluster(c.handle_describe_cluster(version, r))
            }
            RequestBody::UnregisterBroker(r) => {
                ResponseBody::UnregisterBroker(c.handle_unregister_broker(now, version, r))
            }
            RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(c.api_versions_response()),
            _ => return self.push(conn, ConnOutput::Closed),
        };
        self.respond_frame(conn, corr, version, body);
    }

    fn route_to_broker(&mut self, conn: u32, frame: &[u8]) {
        let parsed = codec::split_request_head(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers)
            .map(|(header, _, body)| (header, body.to_vec()));
        let Some((header, body)) = parsed else {
            return self.push(conn, ConnOutput::Closed);
        };
        let now = self.now;
        let Some(b) = self.broker.as_mut() else {
            return self.push(conn, ConnOutput::Closed);
        };
        // The frame is the 4-byte size, the header, then the body.
        let header_len = frame.len().saturating_sub(4 + body.len());
        let reply = b.handle_framed_request(
            now,
            &BrokerRequest {
                api_key: ApiKey(header.request_api_key),
                api_version: header.request_api_version,
                body,
            },
            header_len,
        );
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
    async fn send(&mut self, conn: u32, frame: Vec<u8>) -> Result<(), AdapterError> {
        if self.closed.contains(&conn) {
            self.push(conn, ConnOutput::Closed);
            return Ok(());
        }
        // Route by API: controller APIs go to the controller when the scenario tests one.
        let key = frame.get(4..6).map(|b| {
            self.numbers
                .canonical_api_key(ApiKey(i16::from_be_bytes([b[0], b[1]])))
        });
        let to_controller = self.roles.contains(&Role::Controller)
            && (!self.roles.contains(&Role::Broker)
                || key.is_some_and(|k| CONTROLLER_APIS.contains(&k)));
        if to_controller {
            self.route_to_controller(conn, &frame);
        } else {
            self.route_to_broker(conn, &frame);
        }
        Ok(())
    }

    async fn recv(&mut self, conn: u32, _wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        Ok(self.conns.get_mut(&conn).and_then(VecDeque::pop_front))
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match action {
            PeerAction::Start => {
                self.client_input(ClientInput::Start)?;
                for node in self.connect_on_start.clone() {
                    self.client_input(ClientInput::Connected { node })?;
                }
            }
            PeerAction::Connect(node) => self.client_input(ClientInput::Connected { node })?,
            PeerAction::Disconnect(node) => {
                self.pending.remove(&node);
                self.client_input(ClientInput::Disconnected { node })?;
            }
            PeerAction::Timeout(node) => {
                if let Some(q) = self.pending.get_mut(&node) {
                    q.pop_front();
                }
                self.client_input(ClientInput::RequestTimedOut { node })?;
            }
            PeerAction::UserRequest(id) => self.client_input(ClientInput::UserRequest { id })?,
            PeerAction::Register {
                controller_max_version,
            } => {
                let Some(b) = self.broker.as_ref() else {
                    return Err(AdapterError::Unsupported(
                        "no broker in this scenario".into(),
                    ));
                };
                let (version, body) = b.registration_request(controller_max_version);
                let header = RequestHeader {
                    request_api_key: ApiKey::BROKER_REGISTRATION.0,
                    request_api_version: version,
                    correlation_id: self.next_correlation,
                    client_id: Some("broker-1".into()),
                    ..Default::default()
                };
                self.next_correlation += 1;
                let body = RequestBody::BrokerRegistration(body);
                let frame = codec::encode_request_frame(&header, &body, &self.numbers)
                    .map_err(|e| AdapterError::Crashed(format!("registration: {e}")))?;
                self.pending
                    .entry(EMULATED_CONTROLLER_NODE)
                    .or_default()
                    .push_back(Pending {
                        api_key: ApiKey::BROKER_REGISTRATION,
                        version,
                    });
                self.requests.push_back(OutRequest {
                    node: EMULATED_CONTROLLER_NODE,
                    frame,
                    at_ms: self.now.0,
                });
            }
            PeerAction::Failover => {
                let Some(c) = self.controller.as_ref() else {
                    return Err(AdapterError::Unsupported(
                        "no controller in this scenario".into(),
                    ));
                };
                let log = c.metadata_log().to_vec();
                let replayed = ControllerModel::replay_with(
                    &self.profile,
                    self.defs.clone(),
                    &log,
                    self.faults.clone(),
                )
                .map_err(|e| AdapterError::Crashed(format!("failover replay: {e}")))?
                .with_node_id(c.node_id());
                self.retired_events.extend(c.events().iter().cloned());
                self.controller = Some(replayed);
            }
        }
        Ok(())
    }

    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        let deadline = self.now.plus(within_ms);
        self.run_until(deadline, |s| !s.requests.is_empty())?;
        Ok(self.requests.pop_front())
    }

    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let Some(p) = self.pending.get_mut(&node).and_then(VecDeque::pop_front) else {
            return Err(AdapterError::Unsupported(format!(
                "no request from the target to node {node} awaits an answer"
            )));
        };
        let decoded =
            codec::decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, p.api_key, p.version)
                .map_err(|e| {
                    AdapterError::Crashed(format!("kipcheck's own response does not decode: {e}"))
                })?;
        if node == EMULATED_CONTROLLER_NODE {
            return Ok(());
        }
        let input = match decoded.body {
            ResponseBody::ApiVersions(body) => ClientInput::ApiVersionsResponse { node, body },
            ResponseBody::PushConfig(body) => ClientInput::PushConfigResponse { node, body },
            _ => return Ok(()),
        };
        self.client_input(input)
    }

    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        let deadline = self.now.plus(within_ms);
        self.run_until(deadline, |s| !s.releases.is_empty())?;
        Ok(self.releases.pop_front())
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        let until = self.now.plus(ms);
        self.run_until(until, |_| false)
    }

    fn now_ms(&self) -> u64 {
        self.now.0
    }

    fn events(&self) -> Vec<Value> {
        let mut all: Vec<&LoggedEvent> = self.retired_events.iter().collect();
        if let Some(c) = &self.client {
            all.extend(c.events());
        }
        if let Some(b) = &self.broker {
            all.extend(b.events());
        }
        if let Some(c) = &self.controller {
            all.extend(c.events());
        }
        // Stable by time: events of one model keep their order.
        all.sort_by_key(|e| e.at);
        all.into_iter().map(logged_json).collect()
    }
}
