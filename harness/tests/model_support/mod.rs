//! Shared helpers for the model's integration tests: builders for configs and responses, and
//! `Sim`, a tiny deterministic driver that wires one `ClientModel` to `BrokerModel`s through
//! the wire codec (every request and response is encoded and decoded on the way).

#![allow(dead_code)]

use std::collections::{BTreeMap, VecDeque};

use kipcheck::codec::{
    ApiKey, ApiVersionsResponse, ErrorCode, PushConfigResponse, RequestBody, ResponseBody,
};
use kipcheck::model::{
    BrokerModel, BrokerReply, BrokerRequest, BrokerSettings, ClientInput, ClientModel,
    ClientOutput, ClientType, Event, Millis, NodeId, SpecProfile,
};

/// A user configuration from pairs.
pub fn cfg(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// An ApiVersions response that advertises PushConfig (key 95, v0) iff `push`.
pub fn api_versions(push: bool) -> ApiVersionsResponse {
    kipcheck::model::emulated_api_versions(push.then_some(ApiKey(95)))
}

/// A PushConfig response.
pub fn push_response(
    code: ErrorCode,
    throttle_ms: i32,
    message: Option<&str>,
) -> PushConfigResponse {
    PushConfigResponse {
        throttle_time_ms: throttle_ms,
        error_code: code.0,
        error_message: message.map(Into::into),
        ..Default::default()
    }
}

/// The nodes PushConfig requests were sent to, in order.
pub fn push_targets(out: &[ClientOutput]) -> Vec<NodeId> {
    out.iter()
        .filter_map(|o| match o {
            ClientOutput::Send {
                node,
                body: RequestBody::PushConfig(_),
                ..
            } => Some(*node),
            _ => None,
        })
        .collect()
}

/// The events among outputs.
pub fn events(out: &[ClientOutput]) -> Vec<Event> {
    out.iter()
        .filter_map(|o| match o {
            ClientOutput::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// The WakeAt among outputs, if any.
pub fn wake(out: &[ClientOutput]) -> Option<Millis> {
    out.iter().find_map(|o| match o {
        ClientOutput::WakeAt(t) => Some(*t),
        _ => None,
    })
}

/// Starts `client` and connects it to `node`, answering ApiVersions with `push`; returns all
/// outputs from the ApiVersions answer on.
pub fn start_and_connect(client: &mut ClientModel, node: NodeId, push: bool) -> Vec<ClientOutput> {
    client.handle(Millis(0), ClientInput::Start);
    client.handle(Millis(0), ClientInput::Connected { node });
    client.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse {
            node,
            body: api_versions(push),
        },
    )
}

/// One client wired to brokers through the codec; responses arrive instantly.
pub struct Sim {
    /// Current time.
    pub now: Millis,
    /// The client.
    pub client: ClientModel,
    /// Brokers by node id.
    pub brokers: BTreeMap<NodeId, BrokerModel>,
    /// User requests released, in order.
    pub released: Vec<u64>,
    /// Every request the client sent: (node, wire api key, body).
    pub sent: Vec<(NodeId, ApiKey, RequestBody)>,
    pending: VecDeque<ClientInput>,
    next_wake: Option<Millis>,
}

impl Sim {
    /// A client of `client_type` and one broker per `(node, policy_configured)`.
    pub fn new(
        client_type: ClientType,
        user: BTreeMap<String, String>,
        profile: &SpecProfile,
        seed: u64,
        brokers: &[(NodeId, bool)],
    ) -> Self {
        let client = ClientModel::new(client_type, user, profile, seed).expect("valid config");
        let brokers = brokers
            .iter()
            .map(|(id, policy)| {
                let mut s = BrokerSettings::new(*id);
                if !policy {
                    s.policy = None;
                }
                (*id, BrokerModel::new(s, profile).expect("valid broker"))
            })
            .collect();
        Self {
            now: Millis(0),
            client,
            brokers,
            released: Vec::new(),
            sent: Vec::new(),
            pending: VecDeque::new(),
            next_wake: None,
        }
    }

    /// Feeds an input and everything it causes, until quiet.
    pub fn input(&mut self, input: ClientInput) {
        self.pending.push_back(input);
        while let Some(i) = self.pending.pop_front() {
            let out = self.client.handle(self.now, i);
            self.client.check_invariants().expect("client invariants");
            for o in out {
                self.output(o);
            }
        }
    }

    fn output(&mut self, o: ClientOutput) {
        match o {
            ClientOutput::Send {
                node,
                api_key,
                api_version,
                body,
            } => {
                self.sent.push((node, api_key, body.clone()));
                let bytes = body.to_bytes(api_version).expect("client encodes");
                let broker = self.brokers.get_mut(&node).expect("known node");
                let reply = broker.handle_request(
                    self.now,
                    &BrokerRequest {
                        api_key,
                        api_version,
                        body: bytes,
                    },
                );
                broker.check_invariants().expect("broker invariants");
                match reply {
                    BrokerReply::Response {
                        api_version, body, ..
                    } => {
                        let bytes = body.to_bytes(api_version).expect("broker encodes");
                        let decoded = ResponseBody::decode(
                            body.api_key(),
                            &mut kipcheck::codec::Reader::new(&bytes),
                            api_version,
                        )
                        .expect("client decodes");
                        self.pending.push_back(match decoded {
                            ResponseBody::ApiVersions(b) => {
                                ClientInput::ApiVersionsResponse { node, body: b }
                            }
                            ResponseBody::PushConfig(b) => {
                                ClientInput::PushConfigResponse { node, body: b }
                            }
                            other => panic!("unexpected response {other:?}"),
                        });
                    }
                    BrokerReply::Close { .. } => {
                        self.pending.push_back(ClientInput::Disconnected { node })
                    }
                }
            }
            ClientOutput::ReleaseUserRequest { id } => self.released.push(id),
            ClientOutput::WakeAt(t) => self.next_wake = Some(t),
            ClientOutput::Event(_) => {}
        }
    }

    /// Starts the client and connects every broker.
    pub fn boot(&mut self) {
        self.input(ClientInput::Start);
        let ids: Vec<NodeId> = self.brokers.keys().copied().collect();
        for node in ids {
            self.input(ClientInput::Connected { node });
        }
    }

    /// Advances to `t`, ticking the client.
    pub fn advance_to(&mut self, t: Millis) {
        self.now = t;
        self.input(ClientInput::Tick);
    }

    /// PushConfig requests sent, by node.
    pub fn pushes(&self) -> Vec<NodeId> {
        self.sent
            .iter()
            .filter(|(_, _, b)| matches!(b, RequestBody::PushConfig(_)))
            .map(|(n, _, _)| *n)
            .collect()
    }
}
