//! Shared helpers for the model's integration tests: builders for configs and responses, and
//! `Sim`, the harness's one deterministic driver of the models (`kipcheck::emulate::Cluster`)
//! set up as one `ClientModel` wired to `BrokerModel`s through the wire codec, every request
//! delivered at once (every request and response is encoded and decoded on the way).

use std::collections::BTreeMap;

use kipcheck::codec::{ApiKey, ApiVersionsResponse, ErrorCode, PushConfigResponse, RequestBody};
use kipcheck::emulate::Cluster;
use kipcheck::model::{
    BrokerModel, BrokerSettings, ClientInput, ClientModel, ClientOutput, ClientType, Event, Millis,
    NodeId, SpecProfile,
};

/// A user configuration from pairs.
pub(crate) fn cfg(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// An ApiVersions response that advertises PushConfig (key 95, v0) iff `push`.
pub(crate) fn api_versions(push: bool) -> ApiVersionsResponse {
    kipcheck::emulate::emulated_api_versions(push.then_some(ApiKey(95)), false)
}

/// A PushConfig response.
pub(crate) fn push_response(
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
pub(crate) fn push_targets(out: &[ClientOutput]) -> Vec<NodeId> {
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
pub(crate) fn events(out: &[ClientOutput]) -> Vec<Event> {
    out.iter()
        .filter_map(|o| match o {
            ClientOutput::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// The WakeAt among outputs, if any.
pub(crate) fn wake(out: &[ClientOutput]) -> Option<Millis> {
    out.iter().find_map(|o| match o {
        ClientOutput::WakeAt(t) => Some(*t),
        _ => None,
    })
}

/// Starts `client` and connects it to `node`, answering ApiVersions with `push`; returns all
/// outputs from the ApiVersions answer on.
pub(crate) fn start_and_connect(
    client: &mut ClientModel,
    node: NodeId,
    push: bool,
) -> Vec<ClientOutput> {
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

/// One client wired to brokers through the codec, responses arriving instantly: a
/// [`Cluster`] whose every request is delivered at once, with what the tests read back.
pub(crate) struct Sim {
    /// The models, their clock and what is in flight (checked after every step).
    pub cluster: Cluster,
    /// User requests released, in order.
    pub released: Vec<u64>,
    /// Every request the client sent: (node, wire api key, body).
    pub sent: Vec<(NodeId, ApiKey, RequestBody)>,
}

impl Sim {
    /// A client of `client_type` and one broker per `(node, policy_configured)`.
    pub(crate) fn new(
        client_type: ClientType,
        user: BTreeMap<String, String>,
        profile: &SpecProfile,
        seed: u64,
        brokers: &[(NodeId, bool)],
    ) -> Self {
        let client = ClientModel::new(client_type, user, profile, seed).expect("valid config");
        let mut cluster = Cluster::new().with_client(client);
        for (id, policy) in brokers {
            let mut s = BrokerSettings::new(*id);
            if !policy {
                s.policy = None;
            }
            cluster.insert_broker(BrokerModel::new(s, profile).expect("valid broker"));
        }
        Self {
            cluster,
            released: Vec::new(),
            sent: Vec::new(),
        }
    }

    /// The client.
    pub(crate) fn client(&self) -> &ClientModel {
        self.cluster.client().expect("a Sim has a client")
    }

    /// The broker with node id `node`.
    pub(crate) fn broker(&self, node: NodeId) -> &BrokerModel {
        &self.cluster.brokers()[&node]
    }

    /// Feeds an input and everything it causes, until quiet.
    pub(crate) fn input(&mut self, input: ClientInput) {
        self.cluster.input(input).expect("cluster step");
        self.settle();
    }

    /// Delivers every request in flight (and those their answers cause), in order.
    fn settle(&mut self) {
        while let Some(out) = self.cluster.deliver().expect("cluster delivery") {
            self.sent.push((out.node, out.api_key, out.body));
        }
        while let Some(r) = self.cluster.take_release() {
            self.released.push(r.id);
        }
    }

    /// Starts the client and connects every broker.
    pub(crate) fn boot(&mut self) {
        self.input(ClientInput::Start);
        let ids: Vec<NodeId> = self.cluster.brokers().keys().copied().collect();
        for node in ids {
            self.input(ClientInput::Connected { node });
        }
    }

    /// Advances to `t` at once, ticking the client there.
    pub(crate) fn advance_to(&mut self, t: Millis) {
        self.cluster.tick_at(t).expect("cluster tick");
        self.settle();
    }

    /// PushConfig requests sent, by node.
    pub(crate) fn pushes(&self) -> Vec<NodeId> {
        self.sent
            .iter()
            .filter(|(_, _, b)| matches!(b, RequestBody::PushConfig(_)))
            .map(|(n, _, _)| *n)
            .collect()
    }
}
