//! The `tcp://HOST:PORT` target: a live broker or controller over a real TCP socket, with
//! kipcheck playing the client (or a broker talking to a controller). Frames go out and come
//! back byte for byte (a response with a bad size prefix or cut short still reaches the
//! runner, whose strict decoder names the field and offset). Capabilities come from the
//! target's ApiVersions answer at construction plus `--capability` flags; a scenario whose
//! setup the live target cannot be put in is unsupported. The clock is real: `advance`
//! sleeps (bounded), every wait is bounded, and connection failures, closes and hangs are
//! reported to the runner (a close as [`ConnOutput::Closed`], a hang as no answer). With
//! `--policy-host`, a broker's policy calls come through [`PolicyHost`] (its verdict set per
//! scenario, its calls reported as `policy_invoked` events). This module judges nothing.
//!
//! This file owns the target (its options, capabilities, binding and session opening); each
//! job has a file below `tcp/`: the ApiVersions probe (`probe.rs`), the session and its
//! connections (`session.rs`), `setup.controller.topics` (`topics.rs`), the metadata-log
//! watch (`log_watch.rs`), the controller's level (`level.rs`), what kipcheck keeps about a
//! controller and how it asks one (`controller.rs`), and what it undoes there (`cleanup.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;

mod cleanup;
mod controller;
mod level;
mod log_watch;
mod probe;
mod session;
mod topics;

pub use self::probe::{probe, AdvertisedApi, Probe};
pub use self::session::TcpSession;
pub use self::topics::prepare_topics;

use self::cleanup::clean_up;
use self::controller::{learn_cluster_id, Kept, Registered, RegistrationWatch};
use self::level::at_wire_level;
use self::log_watch::{LogPosition, LogWatch};
use self::session::Registrations;
use super::binding::{bind, bind_cluster_id, Unbound};
use super::error::{ClusterIdError, Crash, ProbeError, SetupError, Unsupported};
use super::failover::FailoverCommand;
use super::policy_host::PolicyHost;
use super::target::{
    unclaimable_live, AdapterError, Capabilities, Session, SessionConfig, Target, TargetOptions,
};
use crate::codec::ProvisionalNumbers;
use crate::model::SpecProfile;
use crate::scenario::{Capability, Role};

/// Longest single `advance` on a real clock; longer ones are unsupported.
pub const MAX_REAL_ADVANCE_MS: u64 = 60_000;
/// Bound on connecting and on writing one frame.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);
/// Bound on the answer to one DeleteTopics or CreateTopics when a controller session opens.
pub const TOPIC_PREPARE_TIMEOUT: Duration = Duration::from_secs(30);
/// Pause between attempts while a controller answers NOT_CONTROLLER.
const NOT_CONTROLLER_BACKOFF: Duration = Duration::from_millis(250);

/// A live broker or controller at `host:port`.
#[derive(Clone, Debug)]
pub struct TcpTarget {
    addr: String,
    role: Role,
    declared: Vec<Capability>,
    readings: SpecProfile,
    numbers: ProvisionalNumbers,
    probe: Result<Probe, ProbeError>,
    /// Held by each controller session for its whole life: a live controller's state is
    /// shared, so its scenarios (which delete and re-create their topics) run one at a time.
    /// Broker sessions hold it too when a policy host answers for them (one verdict at a time).
    exclusive: Arc<tokio::sync::Mutex<()>>,
    /// `--policy-host`: where the broker's policy bridge reports its calls.
    policy_host: Option<Arc<PolicyHost>>,
    /// `--metadata-log HOST:PORT` (controller role only): where the log is read, and the
    /// position (next offset, epoch of the record before it) the last session reached.
    metadata_log: Option<(String, Arc<std::sync::Mutex<LogPosition>>)>,
    /// `--target-manifest` (controller role only): the definitions scenarios bind to.
    manifest: Option<Arc<crate::adapter::TargetManifest>>,
    /// Controller role: its cluster id (the manifest's `cluster_id`, else its DescribeCluster
    /// answer), which every BrokerRegistration a scenario sends carries; or why it is unknown.
    cluster_id: Result<String, ClusterIdError>,
    /// Controller role: broker ids scenarios registered and kipcheck has not unregistered
    /// yet (each session unregisters its own when it ends; the next one retries leftovers).
    registered: Registered,
}

impl TcpTarget {
    /// Probes `addr` (its ApiVersions) for a target playing `opts.role` (default broker).
    /// An unreachable target still builds: every scenario then errors with the reason.
    pub fn new(addr: &str, opts: &TargetOptions) -> Result<Self, AdapterError> {
        let role = opts.role.unwrap_or(Role::Broker);
        if role == Role::Client {
            return Err(SetupError::Misused {
                option: "tcp://",
                requirement: "drives a broker or controller; drive a live client with client-cmd:",
            }
            .into());
        }
        if opts.metadata_log.is_some() && role != Role::Controller {
            return Err(SetupError::Misused {
                option: "--metadata-log",
                requirement: "reads a KRaft controller's log, so it needs --role controller",
            }
            .into());
        }
        if opts.manifest.is_some() && role != Role::Controller {
            return Err(SetupError::Misused {
                option: "--target-manifest",
                requirement: "declares a controller's definitions, so it needs --role controller",
            }
            .into());
        }
        let readings = opts.readings.clone().unwrap_or_default();
        let numbers = readings.provisional;
        let policy_host = match &opts.policy_host {
            Some(_) if role != Role::Broker => {
                return Err(SetupError::Misused {
                    option: "--policy-host",
                    requirement: "hosts a broker's ClientConfigPolicy, so it needs --role broker",
                }
                .into())
            }
            Some(addr) => Some(Arc::new(
                PolicyHost::bind(addr).map_err(SetupError::PolicyHost)?,
            )),
            None => None,
        };
        let probe = probe(addr, &numbers);
        let cluster_id = match (&opts.manifest, &probe) {
            _ if role != Role::Controller => Err(ClusterIdError::NotController),
            (
                Some(crate::adapter::TargetManifest {
                    cluster_id: Some(id),
                    ..
                }),
                _,
            ) => Ok(id.clone()),
            (_, Ok(p)) => learn_cluster_id(addr, p, &numbers),
            (_, Err(e)) => Err(ClusterIdError::Probe(e.clone())),
        };
        let manifest = match (&opts.manifest, &probe) {
            (Some(m), Ok(p)) => Some(at_wire_level(m, addr, p.finalized_metadata_version)?),
            (m, _) => m.clone(),
        };
        Ok(Self {
            addr: addr.to_owned(),
            role,
            declared: opts.capabilities.clone(),
            readings,
            numbers,
            probe,
            cluster_id,
            registered: Kept::shared(opts.manifest.as_ref()),
            exclusive: Arc::default(),
            policy_host,
            metadata_log: opts.metadata_log.clone().map(|a| (a, Arc::default())),
            manifest: manifest.map(Arc::new),
        })
    }

    /// The policy host, if `--policy-host` was given.
    pub fn policy_host(&self) -> Option<&PolicyHost> {
        self.policy_host.as_deref()
    }

    /// The manifest's `failover:` command (controller role), if it declares one.
    fn failover(&self) -> Option<&FailoverCommand> {
        self.manifest.as_ref().and_then(|m| m.failover.as_ref())
    }

    /// What the probe found (or why it failed).
    pub fn probe(&self) -> &Result<Probe, ProbeError> {
        &self.probe
    }

    /// Whether the target advertised PushConfig under the default provisional key.
    fn advertises_push_config(&self, numbers: &ProvisionalNumbers) -> Option<bool> {
        self.probe.as_ref().ok().map(|p| {
            p.range(numbers.push_config_api_key)
                .is_some_and(|r| r.min_version <= 0 && r.max_version >= 0)
        })
    }

    /// Why the live target cannot be put in the scenario's setup, if it cannot.
    fn setup_mismatch(&self, config: &SessionConfig, needs_policy: bool) -> Option<String> {
        if self.role != Role::Broker {
            return None;
        }
        let broker = config.setup.broker.clone().unwrap_or_default();
        if broker
            .client_config_max_bytes
            .is_some_and(|m| m != config.profile.defaults.client_config_max_bytes)
        {
            return Some(
                "setup.broker.client_config_max_bytes cannot be set on a live broker".into(),
            );
        }
        if broker.throttle_time_ms != 0 {
            return Some("setup.broker.throttle_time_ms cannot be set on a live broker".into());
        }
        if !broker.server_properties.is_empty() || !broker.definitions.is_empty() {
            return Some(
                "setup.broker server properties/definitions cannot be set on a live broker".into(),
            );
        }
        if !needs_policy {
            return None;
        }
        let advertised = self.advertises_push_config(&config.profile.provisional)?;
        match (&broker.policy, advertised) {
            (None, false) => None,
            (None, true) => Some("the live broker advertises PushConfig; this scenario needs one without a policy".into()),
            (Some(_), false) => Some("the live broker does not advertise PushConfig; this scenario needs a policy".into()),
            (Some(_), true) if self.policy_host.is_some() => None,
            (Some(crate::model::PolicyVerdict::Accept), true) if self.declared.contains(&Capability::PolicyControl) => None,
            (Some(_), true) => Some("the live broker's policy verdict is not known (only an accepting policy, declared with --capability policy_control, is; --policy-host sets any verdict)".into()),
        }
    }
}

#[async_trait]
impl Target for TcpTarget {
    fn name(&self) -> String {
        format!("tcp://{}", self.addr)
    }

    fn capabilities(&self) -> Capabilities {
        let mut capabilities = self.declared.clone();
        // A broker that does not advertise PushConfig is known to run without a policy:
        // "older broker" scenarios can run against it.
        // A hosted policy answers each scenario's verdict.
        if self.role == Role::Broker
            && (self.advertises_push_config(&self.numbers) == Some(false)
                || self.policy_host.is_some())
            && !capabilities.contains(&Capability::PolicyControl)
        {
            capabilities.push(Capability::PolicyControl);
        }
        // Never claimable over the wire, whatever was declared.
        capabilities.retain(|c| unclaimable_live(*c).is_none());
        if self.metadata_log.is_some() {
            capabilities.push(Capability::MetadataLog);
        }
        // A manifest stands for the definitions and level a scenario would set: each
        // scenario is bound to it (`bind`), or unsupported with the reason.
        if self.manifest.is_some() {
            capabilities.extend([Capability::MetadataVersion, Capability::StaticConfigs]);
        }
        // Its manifest says how it is made to fail over.
        if self.failover().is_some() {
            capabilities.push(Capability::Failover);
        }
        capabilities.sort();
        capabilities.dedup();
        Capabilities {
            roles: vec![self.role],
            capabilities,
            readings: Some(self.readings.clone()),
        }
    }

    fn bind(
        &self,
        scenario: &crate::scenario::Scenario,
    ) -> Result<Option<crate::scenario::Scenario>, Unbound> {
        if self.role != Role::Controller {
            return Ok(None);
        }
        let bound = bind(scenario, self.manifest.as_deref())?;
        // Why the id is unknown, as the text the unsupported reason shows.
        let why = self
            .cluster_id
            .as_ref()
            .map_or_else(ToString::to_string, |_| String::new());
        let with_id = bind_cluster_id(
            bound.as_ref().unwrap_or(scenario),
            self.cluster_id.as_deref().map_err(|_| why.as_str()),
        )?;
        Ok(with_id.or(bound))
    }

    fn unreachable(&self) -> Option<String> {
        self.probe.as_ref().err().map(ToString::to_string)
    }

    fn observed_events(&self) -> Vec<&'static str> {
        let mut kinds = Vec::new();
        if self.policy_host.is_some() {
            kinds.push("policy_invoked");
        }
        if self.metadata_log.is_some() {
            kinds.push("record_appended");
        }
        kinds
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        if let Err(e) = &self.probe {
            return Err(Crash::ProbeFailed(e.clone()).into());
        }
        let needs_policy = config.setup.broker.is_some();
        if let Some(reason) = self.setup_mismatch(&config, needs_policy) {
            return Err(Unsupported::Setup { reason }.into());
        }
        let mut exclusive = None;
        let mut policy = None;
        if let Some(host) = &self.policy_host {
            exclusive = Some(self.exclusive.clone().lock_owned().await);
            let verdict = config
                .setup
                .broker
                .as_ref()
                .and_then(|b| b.policy.clone())
                .unwrap_or(crate::model::PolicyVerdict::Accept);
            policy = Some(host.begin(verdict));
        }
        if self.role == Role::Controller {
            exclusive = Some(self.exclusive.clone().lock_owned().await);
            let topics = config
                .setup
                .controller
                .as_ref()
                .map(|c| c.topics.as_slice())
                .unwrap_or_default();
            let leftovers = self.registered.lock().map_or(true, |s| !s.is_clean());
            if let (Ok(probe), true) = (&self.probe, leftovers) {
                // Registrations an earlier session could not undo (normally none: each
                // session unregisters its brokers when it ends).
                let (addr, probe2, numbers, registered) = (
                    self.addr.clone(),
                    probe.clone(),
                    self.numbers,
                    self.registered.clone(),
                );
                tokio::task::spawn_blocking(move || {
                    clean_up(&addr, &probe2, &numbers, &registered)
                })
                .await
                .map_err(|_| Crash::Internal {
                    what: "the broker unregistration task",
                })?
                .map_err(SetupError::Cleanup)?;
            }
            if let Ok(probe) = &self.probe {
                prepare_topics(&self.addr, probe, &self.numbers, topics).await?;
            }
        }
        let log = match &self.metadata_log {
            Some((addr, position)) => Some(LogWatch::open(addr, position.clone()).await?),
            None => None,
        };
        let registrations = match (&self.probe, self.role) {
            (Ok(p), Role::Controller) => Some(Registrations {
                probe: p.clone(),
                numbers: self.numbers,
                watch: RegistrationWatch::default(),
                registered: self.registered.clone(),
            }),
            _ => None,
        };
        Ok(Box::new(TcpSession {
            addr: self.addr.clone(),
            start: Instant::now(),
            conns: std::collections::BTreeMap::new(),
            failover: self.failover().map(|f| (f.clone(), self.numbers)),
            policy,
            log,
            registrations,
            exclusive,
        }))
    }
}
