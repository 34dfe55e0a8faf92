//! The one interface through which the runner drives any implementation under test: a
//! [`Target`] declares what it can do and opens a [`Session`] per scenario; the session
//! moves Kafka wire frames between kipcheck (playing the roles the target does not) and the
//! target, and exposes the target's clock and events where it can. This module owns no
//! comparison logic: judging what comes back is the runner's job.

use async_trait::async_trait;
use serde_json::Value;

use super::binding::Unbound;
pub use super::error::AdapterError;
use super::manifest::TargetManifest;
use crate::codec::{RequestBody, RequestHeader};
use crate::model::SpecProfile;
use crate::scenario::{Capability, Role, Scenario, Setup};

/// The node id kipcheck's emulated controller uses when a broker target registers.
pub const EMULATED_CONTROLLER_NODE: i32 = 3000;

/// What a target can do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Capabilities {
    /// Roles it plays.
    pub roles: Vec<Role>,
    /// Knobs, observability and clock control it offers.
    pub capabilities: Vec<Capability>,
    /// The spec readings the target follows, for a target that cannot be told a scenario's
    /// profile (`tcp://`, `client-cmd:`): a scenario whose profile differs is unsupported.
    /// `None`: the target is handed each scenario's profile (reference, `exec:`).
    pub readings: Option<SpecProfile>,
}

/// What a target specification cannot say by itself: the role a live peer plays, the
/// capabilities that cannot be discovered over the wire, and the `exec:` process limits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TargetOptions {
    /// The role a live target plays (`--role`), where the specification is ambiguous.
    pub role: Option<Role>,
    /// Capabilities the user declares for a live target (`--capability`).
    pub capabilities: Vec<Capability>,
    /// `exec:` only: wall-clock limit for one message exchange (`--exec-call-timeout-ms`;
    /// default [`ExecOptions::default`](super::ExecOptions)'s 10 s).
    pub exec_call_timeout: Option<std::time::Duration>,
    /// `exec:` only: longest line accepted from the process (`--exec-max-line-bytes`; default
    /// 16 MiB).
    pub exec_max_line_bytes: Option<usize>,
    /// `tcp://` and `client-cmd:` only: the spec readings the live target follows
    /// (`--profile FILE`; default: the built-in default profile). Such a target is never
    /// told a scenario's profile, so a scenario that sets a reading differently is
    /// unsupported with that reason.
    pub readings: Option<crate::model::SpecProfile>,
    /// `client-cmd:` only: `--time-scale F` (0 < F <= 1, default 1): timing keys of the
    /// client's `{config}` and every timing window the runner checks are multiplied by F.
    pub time_scale: Option<f64>,
    /// `tcp://` broker only: `--policy-host HOST:PORT`, where kipcheck listens for the
    /// broker's policy bridge (docs/policy-bridge.md): the target then has `policy_control`
    /// and reports each `ClientConfigPolicy.process()` call as a `policy_invoked` event.
    pub policy_host: Option<String>,
    /// `tcp://` in the controller role only: the address (`HOST:PORT`, normally the
    /// controller listener itself) whose KRaft metadata log kipcheck reads as an observer
    /// (`--metadata-log`): `record_appended` observations (docs/live-targets.md).
    pub metadata_log: Option<String>,
    /// `tcp://` in the controller role only: `--target-manifest FILE`, the controller's own
    /// definitions (docs/live-targets.md): scenarios that inject definitions or set a
    /// metadata.version are bound to them ([`super::binding`]) instead of being unsupported.
    pub manifest: Option<TargetManifest>,
}

/// What the target did on one of kipcheck's connections to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnOutput {
    /// A response frame (size prefix included).
    Frame(Vec<u8>),
    /// The target closed the connection.
    Closed,
}

/// A request the target (a client, or a broker registering) sent to a node kipcheck emulates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutRequest {
    /// The emulated node it went to.
    pub node: i32,
    /// The request frame (size prefix included).
    pub frame: Vec<u8>,
    /// Target time it was sent at (ms since the session started).
    pub at_ms: u64,
}

/// Something kipcheck, as the target's peer or environment, does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerAction {
    /// The client instance is created and connects to its bootstrap nodes.
    Start,
    /// The client connects to a node.
    Connect(i32),
    /// An emulated node drops the client's connection.
    Disconnect(i32),
    /// The client's in-flight request to a node times out.
    Timeout(i32),
    /// The application issues a request with this id.
    UserRequest(u64),
    /// The broker target registers with the emulated controller, which supports
    /// BrokerRegistration up to this version.
    Register {
        /// Highest version the emulated controller supports.
        controller_max_version: i16,
    },
    /// The controller fails over (rebuilt from its metadata log).
    Failover,
}

/// Everything a session is created from.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The scenario's id.
    pub id: String,
    /// Scenario setup.
    pub setup: Setup,
    /// The spec profile in force.
    pub profile: SpecProfile,
    /// The scenario's seed.
    pub seed: u64,
    /// Roles the target plays in this scenario.
    pub roles: Vec<Role>,
}

/// An implementation under test.
#[async_trait]
pub trait Target: Send + Sync {
    /// How the target is named in reports (`reference`, `mutant:no-size-check`, `tcp://…`).
    fn name(&self) -> String;
    /// What it can do.
    fn capabilities(&self) -> Capabilities;
    /// The `--time-scale` factor a real-clock target runs at (docs/live-clients.md): the
    /// runner multiplies every timing window by it. 1 for every other target.
    fn time_scale(&self) -> f64 {
        1.0
    }
    /// The real-clock tolerance the run sets for every scenario (`--profile FILE`'s `timing`
    /// on a `client-cmd:` target), overriding each scenario profile's; `None`: the scenario's.
    fn timing(&self) -> Option<crate::model::Timing> {
        None
    }
    /// The kinds of model event (`event` names) the target reports although it lacks the
    /// `events` capability: a live broker with a policy host reports `policy_invoked`. The
    /// runner judges the observation steps about these kinds and skips the others.
    fn observed_events(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// `scenario` as this target can run it: `Ok(None)` unchanged, `Ok(Some(bound))` with
    /// what the target declares substituted for what the scenario injects (a live
    /// controller's `--target-manifest`), or why it cannot be put in the scenario's setup
    /// at all. Default: unchanged.
    fn bind(&self, _scenario: &Scenario) -> Result<Option<Scenario>, Unbound> {
        Ok(None)
    }
    /// Which endpoint runs the scenario with this id, for a target that routes each scenario
    /// to one of several (a run with several `--target`s, [`super::routed::Routed`]) once
    /// `bind` chose it; `None` for a target that is one endpoint (its [`Target::name`]).
    fn endpoint(&self, _scenario_id: &str) -> Option<String> {
        None
    }
    /// Opens a session set up for one scenario.
    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError>;
    /// Why the target cannot be reached at all, when that is known before any scenario runs
    /// (a `tcp://` target whose ApiVersions probe failed): `kipcheck run` then stops with
    /// "target unreachable" instead of erroring scenario after scenario.
    fn unreachable(&self) -> Option<String> {
        None
    }
}

/// Why a live peer (`tcp://`, `client-cmd:`) can never have capability `c`, whatever the
/// user declares: its model events are not observable and its clock is real.
pub fn unclaimable_live(c: Capability) -> Option<&'static str> {
    match c {
        Capability::Events => {
            Some("a live peer reports no model events (only what it sends is judged)")
        }
        Capability::VirtualClock => Some("a live peer's clock is real and cannot be advanced"),
        Capability::MetadataLog => Some(
            "a live controller's metadata log is read when --metadata-log HOST:PORT names it, not declared",
        ),
        Capability::Authorization => {
            Some("a live broker's ACLs cannot be granted or revoked per scenario")
        }
        _ => None,
    }
}

/// A request frame kipcheck sends to the target, with the request it encodes when kipcheck
/// built it from a typed body: a session that needs to know what it forwards reads that
/// instead of decoding kipcheck's own frame again.
#[derive(Clone, Debug, PartialEq)]
pub struct Outbound {
    /// The whole frame, size prefix included, as it goes on the wire.
    pub frame: Vec<u8>,
    /// The header and body `frame` encodes; `None` for a `send_raw` step's bytes, which may be
    /// malformed on purpose.
    pub request: Option<Box<(RequestHeader, RequestBody)>>,
}

impl Outbound {
    /// Raw bytes: what they are is unknown until somebody decodes them.
    pub fn raw(frame: Vec<u8>) -> Self {
        Self {
            frame,
            request: None,
        }
    }
}

/// One scenario's conversation with the target.
#[async_trait]
pub trait Session: Send {
    /// kipcheck sends a request frame to the target on connection `conn`.
    async fn send(&mut self, conn: u32, out: Outbound) -> Result<(), AdapterError>;
    /// The target's next output on connection `conn`, waiting at most `wait_ms` (target time
    /// where the clock is virtual); `None` if nothing came.
    async fn recv(&mut self, conn: u32, wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError>;
    /// A peer or environment action.
    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError>;
    /// The next request the target sent to an emulated node, waiting at most `within_ms`;
    /// `None` if none came. With a virtual clock, time advances only as far as needed.
    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError>;
    /// kipcheck, as emulated node `node`, sends a response frame to the target.
    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError>;
    /// The next user request the client released: `(id, at_ms)`, waiting at most `within_ms`.
    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError>;
    /// The scenario's steps are done (not called when a step failed: the session is then just
    /// dropped). A `client-cmd:` client's stdin is closed and it is given 2 s to exit; an
    /// error if it exited before.
    async fn finish(&mut self) -> Result<(), AdapterError> {
        Ok(())
    }
    /// Advances the target's clock (virtual clock only).
    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError>;
    /// Target time now, ms since the session started.
    fn now_ms(&self) -> u64;
    /// Brings [`Session::events`] up to date where events are fetched from the target (a live
    /// controller's metadata log); called before every observation step. Default: nothing.
    async fn refresh_events(&mut self) -> Result<(), AdapterError> {
        Ok(())
    }
    /// Every model event so far, as JSON objects with an `event` kind and an `at` time
    /// (empty if the target is not observable).
    fn events(&self) -> Vec<Value>;
}
