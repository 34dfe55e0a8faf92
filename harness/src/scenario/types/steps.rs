//! A scenario's `steps:` as plain data: every step kind ([`Step`]) with its fields, and what a
//! step needs from the target and whether it judges. The runner interprets steps; nothing here
//! runs, matches or validates one (that is the loader's `validate.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::kinds::Capability;

/// How an expected body is compared with the actual one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// Every field written must match; fields not written are ignored.
    #[default]
    Subset,
    /// Every field must be written and match.
    Exact,
}

/// The largest `fill.size` a scenario may ask for (16 MiB: above Kafka's 100 MiB
/// `socket.request.max.bytes` would be pointless, and a bigger body is built in memory).
pub const MAX_FILL_BYTES: usize = 16 << 20;

/// Generates a PushConfig body of an exact size (boundary tests).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// Target size in bytes under `measure`.
    pub size: usize,
    /// Which size: `request_body` (bytes after the header), `configs_array` (the body less
    /// its tagged-field section) or `key_value_bytes` (the UTF-8 bytes of the keys and
    /// values; the fill's keys are distinct).
    pub measure: crate::model::SizeMeasure,
}

/// kipcheck sends a request to the target (broker or controller role).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendStep {
    /// API name (`PushConfig`, `ApiVersions`, ...).
    pub api: String,
    /// Version.
    pub version: i16,
    /// Connection (kipcheck may hold several to the target).
    #[serde(default)]
    pub conn: u32,
    /// Body in Kafka's field names; error codes may be written by name.
    #[serde(default)]
    pub body: Option<Value>,
    /// Instead of a body: a PushConfig body filled to an exact size.
    #[serde(default)]
    pub fill: Option<Fill>,
    /// Client id in the header.
    #[serde(default)]
    pub client_id: Option<String>,
    /// With `api: Envelope` only: the request the Envelope forwards, written typed; kipcheck
    /// encodes its header and body as the Envelope's `RequestData` (the `body` gives
    /// `RequestPrincipal` and `ClientHostAddress`).
    #[serde(default)]
    pub inner: Option<InnerRequest>,
}

/// A request forwarded inside an Envelope (API 58), as a KRaft broker forwards a client's
/// request to the controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InnerRequest {
    /// API name (`IncrementalAlterConfigs`, ...).
    pub api: String,
    /// Version.
    pub version: i16,
    /// Body in Kafka's field names; error codes may be written by name.
    #[serde(default)]
    pub body: Option<Value>,
    /// Client id in its header (default `kipcheck`).
    #[serde(default)]
    pub client_id: Option<String>,
}

/// kipcheck sends raw bytes (a whole frame, size prefix included) to the target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendRawStep {
    /// Connection.
    #[serde(default)]
    pub conn: u32,
    /// Hex bytes.
    pub hex: String,
    /// API and version of the request, so the response can be decoded.
    #[serde(default)]
    pub api: Option<String>,
    /// Version for decoding the response.
    #[serde(default)]
    pub version: Option<i16>,
}

/// The target's answer on a connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectResponseStep {
    /// Connection.
    #[serde(default)]
    pub conn: u32,
    /// Expected body (pattern).
    #[serde(default)]
    pub body: Option<Value>,
    /// Subset or exact.
    #[serde(default, rename = "match")]
    pub mode: MatchMode,
    /// For the answer to a `send` with `inner`: the forwarded request's answer, decoded from
    /// the Envelope's `ResponseData` (its header's correlation id must be the inner
    /// request's), matched against this pattern (same `match` mode). A null `ResponseData`
    /// fails it.
    #[serde(default)]
    pub inner: Option<Value>,
}

/// The target closes a connection without answering.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectCloseStep {
    /// Connection.
    #[serde(default)]
    pub conn: u32,
}

/// The emulated node(s) a request may go to: one node, or any of a list (`from: 2` or
/// `from: [2, 3]`), for choices the KIP leaves to the client ("a random node").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Nodes {
    /// Exactly this node.
    One(i32),
    /// Any of these nodes.
    AnyOf(Vec<i32>),
}

impl Nodes {
    /// True if `node` is allowed.
    pub fn contains(&self, node: i32) -> bool {
        match self {
            Nodes::One(n) => *n == node,
            Nodes::AnyOf(ns) => ns.contains(&node),
        }
    }

    /// The node, when exactly one is allowed.
    pub fn single(&self) -> Option<i32> {
        match self {
            Nodes::One(n) => Some(*n),
            Nodes::AnyOf(ns) if ns.len() == 1 => Some(ns[0]),
            Nodes::AnyOf(_) => None,
        }
    }
}

impl std::fmt::Display for Nodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Nodes::One(n) => write!(f, "{n}"),
            Nodes::AnyOf(ns) => {
                let list: Vec<String> = ns.iter().map(i32::to_string).collect();
                write!(f, "any of {}", list.join(", "))
            }
        }
    }
}

/// A request the client target sends to an emulated broker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectRequestStep {
    /// Emulated node it goes to: one node or a list of allowed ones (any node when absent).
    #[serde(default)]
    pub from: Option<Nodes>,
    /// API name.
    pub api: String,
    /// Expected version (any when absent).
    #[serde(default)]
    pub version: Option<i16>,
    /// Expected body (pattern).
    #[serde(default)]
    pub body: Option<Value>,
    /// Subset or exact.
    #[serde(default, rename = "match")]
    pub mode: MatchMode,
    /// How long (virtual ms) to wait for it.
    #[serde(default = "default_within")]
    pub within_ms: u64,
    /// Pattern for the virtual time elapsed since the previous step ended (e.g. a backoff
    /// range: `{$range: [80, 120]}`).
    #[serde(default)]
    pub after_ms: Option<Value>,
    /// Bounds on the size of the request as the target encoded it (its own bytes, not a
    /// re-encoding), e.g. the client's `client.config.max.bytes` budget on a PushConfig.
    #[serde(default)]
    pub encoded_size: Option<EncodedSize>,
    /// Keeps the node the request came from as a capture of this name (a number), for
    /// `repeat.distinct` and `$eq_captured`/`$ne_captured`.
    #[serde(default)]
    pub capture_node: Option<String>,
    /// The request may be left out (e.g. the second ApiVersions Java's NetworkClient sends
    /// after SASL authentication): when the client's next request is another API or goes to
    /// a node `from` does not allow, it is left for the next step, and when none comes within
    /// `within_ms` the step passes too. One that comes is judged as usual and answered at once
    /// with the default answer (as `respond` without a body).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// Bounds on a request's encoded size, in bytes under a size measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EncodedSize {
    /// At least this many bytes.
    #[serde(default)]
    pub min: Option<usize>,
    /// At most this many bytes.
    #[serde(default)]
    pub max: Option<usize>,
    /// What is measured: `request_body` (every byte after the request header) or
    /// `configs_array` (PushConfig only: the body less its tagged-field section).
    pub measure: crate::model::SizeMeasure,
}

fn default_within() -> u64 {
    1000
}

/// kipcheck, as an emulated broker, answers the client's last unanswered request from a node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RespondStep {
    /// The node answering.
    pub to: i32,
    /// The body; absent = the default answer (ApiVersions per the node's setup, PushConfig success).
    #[serde(default)]
    pub body: Option<Value>,
}

/// Nothing is sent by the client within a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectNoRequestStep {
    /// Only requests to this node (or these nodes) count (any node when absent).
    #[serde(default)]
    pub from: Option<Nodes>,
    /// Only requests of this API count (any when absent).
    #[serde(default)]
    pub api: Option<String>,
    /// Virtual ms to watch.
    pub within_ms: u64,
    /// Needs no virtual clock even on a target without `real_clock`: `within_ms` (at most
    /// [`MAX_REAL_TIME_WAIT_MS`]) is then a bounded wall-clock wait. On a `real_clock` target
    /// (`client-cmd:`) every `expect_no_request` is a wall-clock watch anyway (scaled, less the
    /// tolerance: docs/live-clients.md); on a virtual-clock target it is a virtual wait as
    /// usual. Only for watches whose outcome does not depend on scheduling (e.g. "an older
    /// client never sends PushConfig").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub real_time: bool,
}

/// Longest `within_ms` of an `expect_no_request` step with `real_time: true`.
pub const MAX_REAL_TIME_WAIT_MS: u64 = 10_000;

/// A user request of the client's application is released (no longer blocked).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectReleasedStep {
    /// The user request id.
    pub id: u64,
    /// Virtual ms to wait at most.
    #[serde(default)]
    pub within_ms: u64,
    /// Pattern for the virtual time elapsed since the previous step ended.
    #[serde(default)]
    pub after_ms: Option<Value>,
}

/// A model event of the target (needs the `events` capability).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectEventStep {
    /// Pattern matched against each event (its `event` field names the kind).
    pub event: Value,
    /// How many matching events (since the previous expect_event) are required; default:
    /// at least one.
    #[serde(default)]
    pub count: Option<usize>,
}

/// An alternative outcome of [`Step::ExpectOneOf`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Outcome {
    /// A response matching the pattern.
    Response(ExpectResponseStep),
    /// The connection is closed.
    Close(ExpectCloseStep),
}

/// One step of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Step {
    /// Send a typed request to the target.
    Send(SendStep),
    /// Send raw frame bytes to the target.
    SendRaw(SendRawStep),
    /// Expect the target's response.
    ExpectResponse(ExpectResponseStep),
    /// Expect the target to close the connection.
    ExpectClose(ExpectCloseStep),
    /// Accept any one of several outcomes.
    ExpectOneOf(Vec<Outcome>),
    /// Start the client instance (it connects to `setup.client.connect`).
    Start,
    /// The client connects to another node.
    Connect {
        /// The node.
        node: i32,
    },
    /// kipcheck's emulated node drops the client's connection.
    Disconnect {
        /// The node.
        node: i32,
    },
    /// The client's in-flight request to a node times out (request.timeout.ms elapsed).
    Timeout {
        /// The node.
        node: i32,
    },
    /// Expect a request from the client target.
    ExpectRequest(ExpectRequestStep),
    /// Answer the client's last request to a node.
    Respond(RespondStep),
    /// Expect no request within a time.
    ExpectNoRequest(ExpectNoRequestStep),
    /// The application issues a request.
    UserRequest {
        /// Its id.
        id: u64,
    },
    /// Expect a user request to be released.
    ExpectReleased(ExpectReleasedStep),
    /// Expect no user request to be released so far (`within_ms: 0`) or within a time: the
    /// application is still waiting for the handshake.
    ExpectNoRelease {
        /// Ms to watch after the previous step (0: only what was released so far).
        #[serde(default)]
        within_ms: u64,
    },
    /// Advance the virtual clock.
    Advance {
        /// Milliseconds.
        ms: u64,
    },
    /// The broker target registers with kipcheck's emulated controller, which supports
    /// BrokerRegistration up to `controller_max_version`.
    Register {
        /// Highest BrokerRegistration version the emulated controller supports.
        controller_max_version: i16,
    },
    /// Fail the controller over: a new controller is built by replaying the metadata log.
    Failover,
    /// Expect a model event.
    ExpectEvent(ExpectEventStep),
    /// Expect no model event matching the pattern so far.
    ExpectNoEvent {
        /// Pattern.
        event: Value,
    },
}

impl Step {
    /// Capabilities this step needs. Observation steps need none: where the target reports
    /// no events they are recorded as not observed (a scenario that only an observation can
    /// judge says `requires: [events]`). On a target with a real clock (`real_clock`) every
    /// timed step runs on the wall clock (waits, sleeps, tolerance windows) and needs no
    /// virtual clock; user requests then need the `user_requests` channel, `connect` steps the
    /// `connect_requests` one.
    pub fn needs(&self, real_clock: bool) -> Vec<Capability> {
        match self {
            Step::Failover => vec![Capability::Failover],
            Step::UserRequest { .. } | Step::ExpectReleased(_) | Step::ExpectNoRelease { .. }
                if real_clock =>
            {
                vec![Capability::UserRequests]
            }
            Step::Connect { .. } if real_clock => vec![Capability::ConnectRequests],
            _ if real_clock => Vec::new(),
            Step::ExpectNoRequest(s) if s.real_time => Vec::new(),
            Step::Advance { .. } | Step::ExpectNoRequest(_) => vec![Capability::VirtualClock],
            Step::ExpectNoRelease { within_ms } if *within_ms > 0 => vec![Capability::VirtualClock],
            Step::ExpectRequest(s) if s.after_ms.is_some() => vec![Capability::VirtualClock],
            Step::ExpectReleased(s) if s.after_ms.is_some() => vec![Capability::VirtualClock],
            Step::Timeout { .. } => vec![Capability::VirtualClock],
            _ => Vec::new(),
        }
    }
}

impl Step {
    /// An observation: judged on the target's reported events, where it reports them.
    pub fn is_observation(&self) -> bool {
        matches!(self, Step::ExpectEvent(_) | Step::ExpectNoEvent { .. })
    }

    /// A step that checks something (on the wire, or an observation): the steps a verdict
    /// rests on. The others (send, start, respond, advance, ...) only act.
    pub fn is_judgement(&self) -> bool {
        matches!(
            self,
            Step::ExpectResponse(_)
                | Step::ExpectClose(_)
                | Step::ExpectOneOf(_)
                | Step::ExpectRequest(_)
                | Step::ExpectNoRequest(_)
                | Step::ExpectReleased(_)
                | Step::ExpectNoRelease { .. }
                | Step::ExpectEvent(_)
                | Step::ExpectNoEvent { .. }
        )
    }

    /// A judgement made on the wire (not an observation).
    pub fn is_wire_judgement(&self) -> bool {
        self.is_judgement() && !self.is_observation()
    }
}
