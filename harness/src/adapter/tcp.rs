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

use std::collections::{btree_map, BTreeMap};
use std::io::Write;
use std::net::ToSocketAddrs;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

mod cleanup;
mod controller;
mod level;

use self::cleanup::clean_up;
use self::controller::{learn_cluster_id, Kept, Registered, RegistrationWatch};
use self::level::{at_wire_level, finalized_metadata_version};
use super::binding::{bind, bind_cluster_id, Unbound};
use super::error::{Crash, ProbeError, ProbeStage, SetupError, TimedOut, Unsupported};
use super::failover::{fail_over, FailoverCommand};
use super::metadata_log::MetadataLogReader;
use super::policy_host::{PolicyHost, PolicyScope};
use super::target::{
    unclaimable_live, AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, Session,
    SessionConfig, Target, TargetOptions,
};
use crate::codec::create_topics_request::CreatableTopic;
use crate::codec::delete_topics_request::DeleteTopicState;
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ApiVersionsRequest, CreateTopicsRequest,
    DeleteTopicsRequest, ErrorCode, ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody,
    Uuid,
};
use crate::model::SpecProfile;
use crate::net::{BlockingFrames, FrameStream, NetError};
use crate::scenario::{Capability, Role};

/// Longest single `advance` on a real clock; longer ones are unsupported.
pub const MAX_REAL_ADVANCE_MS: u64 = 60_000;
/// Bound on connecting and on writing one frame.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);
/// Bound on the answer to one DeleteTopics or CreateTopics when a controller session opens.
pub const TOPIC_PREPARE_TIMEOUT: Duration = Duration::from_secs(30);
/// The `TimeoutMs` those requests carry (below [`TOPIC_PREPARE_TIMEOUT`]).
const TOPIC_REQUEST_TIMEOUT_MS: i32 = 20_000;
/// Pause between attempts while a controller answers NOT_CONTROLLER.
const NOT_CONTROLLER_BACKOFF: Duration = Duration::from_millis(250);

/// One API the target advertised: key (wire), min and max version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdvertisedApi {
    /// API key on the wire.
    pub api_key: i16,
    /// Lowest version.
    pub min_version: i16,
    /// Highest version.
    pub max_version: i16,
}

/// What the probe learned from the target's ApiVersions answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The ApiVersions version the answer was read at.
    pub version: i16,
    /// Every advertised API.
    pub apis: Vec<AdvertisedApi>,
    /// The `metadata.version` level the answer says is finalized (ApiVersions v3+
    /// `FinalizedFeatures`, valid only with `FinalizedFeaturesEpoch` >= 0): the level a live
    /// controller runs at, which overrides its manifest's `finalized`.
    pub finalized_metadata_version: Option<i16>,
}

impl Probe {
    /// The advertised range of `wire_key`, if any.
    pub fn range(&self, wire_key: ApiKey) -> Option<AdvertisedApi> {
        self.apis.iter().copied().find(|a| a.api_key == wire_key.0)
    }
}

/// Asks the target at `addr` for its ApiVersions (v3, then v0 after a KIP-511 fallback),
/// blocking, every step bounded by [`IO_TIMEOUT`].
pub fn probe(addr: &str, numbers: &ProvisionalNumbers) -> Result<Probe, ProbeError> {
    let at = || addr.to_owned();
    let sock = addr
        .to_socket_addrs()
        .map_err(|e| ProbeError::Resolve {
            addr: at(),
            source: Arc::new(e),
        })?
        .next()
        .ok_or_else(|| ProbeError::NoAddress { addr: at() })?;
    let io = |stage, e| ProbeError::Io {
        stage,
        addr: at(),
        source: Arc::new(e),
    };
    let mut version = 3;
    loop {
        let mut s = std::net::TcpStream::connect_timeout(&sock, IO_TIMEOUT)
            .map_err(|e| io(ProbeStage::Connect, e))?;
        s.set_read_timeout(Some(IO_TIMEOUT))
            .map_err(|e| io(ProbeStage::Socket, e))?;
        s.set_write_timeout(Some(IO_TIMEOUT))
            .map_err(|e| io(ProbeStage::Socket, e))?;
        let body = RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: Some("kipcheck".into()),
            client_software_version: Some(env!("CARGO_PKG_VERSION").into()),
            ..Default::default()
        });
        let header = RequestHeader {
            request_api_key: ApiKey::API_VERSIONS.0,
            request_api_version: version,
            correlation_id: 1,
            client_id: Some("kipcheck-probe".into()),
            ..Default::default()
        };
        let frame =
            codec::encode_request_frame(&header, &body, numbers).map_err(ProbeError::Encode)?;
        s.write_all(&frame).map_err(|e| io(ProbeStage::Write, e))?;
        let resp = BlockingFrames::new(s, at(), 1 << 20)
            .next(IO_TIMEOUT)
            .map_err(|source| match source {
                NetError::OverCap { claimed, .. } => ProbeError::Oversize {
                    addr: at(),
                    claimed,
                },
                e if e.mid_frame() => ProbeError::CutShort {
                    addr: at(),
                    source: e,
                },
                e => ProbeError::NoAnswer {
                    addr: at(),
                    source: e,
                },
            })?;
        let decoded = codec::decode_response_frame(
            &resp,
            DEFAULT_MAX_FRAME_SIZE,
            ApiKey::API_VERSIONS,
            version,
        )
        .map_err(|source| ProbeError::Decode { addr: at(), source })?;
        let ResponseBody::ApiVersions(av) = decoded.body else {
            return Err(ProbeError::OtherApi);
        };
        if decoded.fallback_v0 && version > 0 {
            version = 0;
            continue;
        }
        if av.error_code != 0 {
            return Err(ProbeError::ErrorCode {
                error_code: av.error_code,
            });
        }
        return Ok(Probe {
            version,
            apis: av
                .api_keys
                .iter()
                .map(|k| AdvertisedApi {
                    api_key: k.api_key,
                    min_version: k.min_version,
                    max_version: k.max_version,
                })
                .collect(),
            finalized_metadata_version: finalized_metadata_version(&av),
        });
    }
}

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
    exclusive: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// `--policy-host`: where the broker's policy bridge reports its calls.
    policy_host: Option<std::sync::Arc<PolicyHost>>,
    /// `--metadata-log HOST:PORT` (controller role only): where the log is read, and the
    /// position (next offset, epoch of the record before it) the last session reached.
    metadata_log: Option<(String, std::sync::Arc<std::sync::Mutex<LogPosition>>)>,
    /// `--target-manifest` (controller role only): the definitions scenarios bind to.
    manifest: Option<std::sync::Arc<crate::adapter::TargetManifest>>,
    /// Controller role: its cluster id (the manifest's `cluster_id`, else its DescribeCluster
    /// answer), which every BrokerRegistration a scenario sends carries; or why it is unknown.
    cluster_id: Result<String, String>,
    /// Controller role: broker ids scenarios registered and kipcheck has not unregistered
    /// yet (each session unregisters its own when it ends; the next one retries leftovers).
    registered: Registered,
}

/// Where the metadata log was last read up to: the next offset and the epoch of the record
/// before it (`(0, 0)`: the start).
type LogPosition = (i64, i32);

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
            Some(addr) => Some(std::sync::Arc::new(
                PolicyHost::bind(addr).map_err(SetupError::PolicyHost)?,
            )),
            None => None,
        };
        let probe = probe(addr, &numbers);
        let cluster_id = match (&opts.manifest, &probe) {
            _ if role != Role::Controller => Err("not a controller".to_owned()),
            (
                Some(crate::adapter::TargetManifest {
                    cluster_id: Some(id),
                    ..
                }),
                _,
            ) => Ok(id.clone()),
            (_, Ok(p)) => learn_cluster_id(addr, p, &numbers),
            (_, Err(e)) => Err(e.to_string()),
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
            exclusive: std::sync::Arc::default(),
            policy_host,
            metadata_log: opts
                .metadata_log
                .clone()
                .map(|a| (a, std::sync::Arc::default())),
            manifest: manifest.map(std::sync::Arc::new),
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
        let with_id = bind_cluster_id(
            bound.as_ref().unwrap_or(scenario),
            self.cluster_id.as_deref().map_err(String::as_str),
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
                .map_err(|message| SetupError::Refused { message })?;
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
            conns: BTreeMap::new(),
            failover: self.failover().map(|f| (f.clone(), self.numbers)),
            policy,
            log,
            registrations,
            exclusive,
        }))
    }
}

/// The highest version of `key` both kipcheck's codec and the target speak.
fn common_version(probe: &Probe, key: ApiKey) -> Option<i16> {
    let ours = RequestBody::info(key)?.valid;
    let theirs = probe.range(key)?;
    let v = ours.max.min(theirs.max_version);
    (v >= ours.min.max(theirs.min_version)).then_some(v)
}

/// Sends one request on `stream` and reads its answer, every step bounded.
async fn exchange(
    stream: &mut TcpStream,
    numbers: &ProvisionalNumbers,
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    body: RequestBody,
) -> Result<ResponseBody, AdapterError> {
    let api = key.name().unwrap_or("request");
    let header = RequestHeader {
        request_api_key: key.0,
        request_api_version: version,
        correlation_id,
        client_id: Some("kipcheck-setup".into()),
        ..Default::default()
    };
    let frame = codec::encode_request_frame(&header, &body, numbers).map_err(|source| {
        SetupError::Encode {
            api,
            version,
            source,
        }
    })?;
    tokio::time::timeout(IO_TIMEOUT, stream.write_all(&frame))
        .await
        .map_err(|_| TimedOut::Write { api })??;
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "the controller".to_owned(), |a| a.to_string());
    let mut frames = FrameStream::new(stream, peer, 1 << 20);
    let resp = tokio::time::timeout(TOPIC_PREPARE_TIMEOUT, frames.next(None))
        .await
        .map_err(|_| TimedOut::Answer { api })?
        .map_err(|source| SetupError::AnswerUnread { api, source })?;
    codec::decode_response_frame(&resp, DEFAULT_MAX_FRAME_SIZE, key, version)
        .map(|d| d.body)
        .map_err(|source| SetupError::AnswerUndecodable { api, source }.into())
}

/// Puts a live controller in the state `setup.controller.topics` declares: every listed
/// topic is deleted if it exists (DeleteTopics: success or UNKNOWN_TOPIC_OR_PARTITION) and
/// created fresh (CreateTopics: 1 partition, default replication factor; success or
/// TOPIC_ALREADY_EXISTS), so values a previous scenario stored do not leak in. Any other
/// answer is a setup failure naming the topic, code and message: the scenario is errored,
/// not failed.
pub async fn prepare_topics(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    topics: &[String],
) -> Result<(), AdapterError> {
    if topics.is_empty() {
        return Ok(());
    }
    let (Some(delete_v), Some(create_v)) = (
        common_version(probe, ApiKey::DELETE_TOPICS),
        common_version(probe, ApiKey::CREATE_TOPICS),
    ) else {
        return Err(Unsupported::NoTopicApis.into());
    };
    let mut stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| TimedOut::Connect {
            addr: addr.to_owned(),
        })?
        .map_err(|source| Crash::Unreachable {
            addr: addr.to_owned(),
            source,
        })?;
    let _ = stream.set_nodelay(true);
    // A KRaft controller that hit an internal error renounces leadership and answers
    // NOT_CONTROLLER until it is elected again (about a second for a single node): retry,
    // bounded, so a scenario starts on a leader.
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    let mut correlation_id = 0;
    loop {
        correlation_id += 2;
        match prepare_once(
            &mut stream,
            numbers,
            topics,
            delete_v,
            create_v,
            correlation_id,
        )
        .await
        {
            Err(Refusal::NotController(_)) if Instant::now() < deadline => {
                tokio::time::sleep(NOT_CONTROLLER_BACKOFF).await;
            }
            Err(Refusal::NotController(e) | Refusal::Other(e)) => return Err(e),
            Ok(()) => return Ok(()),
        }
    }
}

/// Why one round of topic preparation failed.
enum Refusal {
    /// The controller is not (or no longer) the active one: worth retrying.
    NotController(AdapterError),
    /// Anything else.
    Other(AdapterError),
}

impl From<AdapterError> for Refusal {
    fn from(e: AdapterError) -> Self {
        Refusal::Other(e)
    }
}

/// One DeleteTopics then one CreateTopics of every topic.
async fn prepare_once(
    stream: &mut TcpStream,
    numbers: &ProvisionalNumbers,
    topics: &[String],
    delete_v: i16,
    create_v: i16,
    correlation_id: i32,
) -> Result<(), Refusal> {
    let delete = DeleteTopicsRequest {
        topics: (delete_v >= 6).then(|| {
            topics
                .iter()
                .map(|t| DeleteTopicState {
                    name: Some(t.as_str().into()),
                    topic_id: Uuid::ZERO,
                    ..Default::default()
                })
                .collect()
        }),
        topic_names: (delete_v < 6).then(|| topics.iter().map(|t| t.as_str().into()).collect()),
        timeout_ms: TOPIC_REQUEST_TIMEOUT_MS,
        ..Default::default()
    };
    let answer = exchange(
        stream,
        numbers,
        ApiKey::DELETE_TOPICS,
        delete_v,
        correlation_id,
        RequestBody::DeleteTopics(delete),
    )
    .await?;
    let ResponseBody::DeleteTopics(deleted) = answer else {
        return Err(AdapterError::from(SetupError::OtherApi {
            api: "DeleteTopics",
        })
        .into());
    };
    check_topic_results(
        "DeleteTopics",
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
        deleted.responses.iter().map(|r| {
            let message = r.error_message.as_ref().and_then(|m| m.as_deref());
            (r.name.as_deref().unwrap_or("?"), r.error_code, message)
        }),
    )?;
    let create = CreateTopicsRequest {
        topics: topics
            .iter()
            .map(|t| CreatableTopic {
                name: t.as_str().into(),
                num_partitions: 1,
                replication_factor: -1,
                ..Default::default()
            })
            .collect(),
        timeout_ms: TOPIC_REQUEST_TIMEOUT_MS,
        validate_only: false,
        ..Default::default()
    };
    let answer = exchange(
        stream,
        numbers,
        ApiKey::CREATE_TOPICS,
        create_v,
        correlation_id + 1,
        RequestBody::CreateTopics(create),
    )
    .await?;
    let ResponseBody::CreateTopics(created) = answer else {
        return Err(AdapterError::from(SetupError::OtherApi {
            api: "CreateTopics",
        })
        .into());
    };
    check_topic_results(
        "CreateTopics",
        ErrorCode::TOPIC_ALREADY_EXISTS,
        created
            .topics
            .iter()
            .map(|r| (r.name.as_str(), r.error_code, r.error_message.as_deref())),
    )
}

/// Every per-topic answer (name, code, message) of `api` is success or `also_fine`.
fn check_topic_results<'a>(
    api: &'static str,
    also_fine: ErrorCode,
    results: impl Iterator<Item = (&'a str, i16, Option<&'a str>)>,
) -> Result<(), Refusal> {
    for (topic, code, message) in results {
        let code = ErrorCode(code);
        if code != ErrorCode::NONE && code != also_fine {
            return Err(topic_refusal(code, api, topic, message));
        }
    }
    Ok(())
}

fn topic_refusal(
    code: ErrorCode,
    api: &'static str,
    topic: &str,
    message: Option<&str>,
) -> Refusal {
    let e = AdapterError::from(SetupError::Topic {
        api,
        topic: topic.to_owned(),
        code,
        message: message.map(str::to_owned),
    });
    if code == ErrorCode::NOT_CONTROLLER {
        Refusal::NotController(e)
    } else {
        Refusal::Other(e)
    }
}

/// Bound on reading the metadata log up to its high watermark once.
const LOG_READ_DEADLINE: Duration = Duration::from_secs(30);

/// A session's view of the live controller's metadata log: the records appended since the
/// session opened, as `record_appended` events.
struct LogWatch {
    addr: String,
    /// Shared with the target, so the next session starts where this one ended.
    position: std::sync::Arc<std::sync::Mutex<LogPosition>>,
    events: Vec<Value>,
}

impl LogWatch {
    /// Reads the log up to its end (from where the previous session stopped): what follows is
    /// this session's.
    async fn open(
        addr: &str,
        position: std::sync::Arc<std::sync::Mutex<LogPosition>>,
    ) -> Result<Self, AdapterError> {
        let mut watch = LogWatch {
            addr: addr.to_owned(),
            position,
            events: Vec::new(),
        };
        watch.read().await?;
        watch.events.clear();
        Ok(watch)
    }

    /// Reads every record after the current position (blocking I/O, off the runtime).
    async fn read(&mut self) -> Result<(), AdapterError> {
        let addr = self.addr.clone();
        let from = *self.position.lock().map_err(|_| Crash::Internal {
            what: "the metadata log position lock",
        })?;
        let read = tokio::task::spawn_blocking(move || {
            MetadataLogReader::connect(&addr)?.read_from(from.0, from.1, LOG_READ_DEADLINE)
        })
        .await
        .map_err(|_| Crash::Internal {
            what: "the metadata log reader task",
        })?
        .map_err(SetupError::MetadataLog)?;
        let last_epoch = read.records.last().map_or(from.1, |r| r.leader_epoch);
        self.events
            .extend(read.records.iter().map(|r| r.to_event()));
        if let Ok(mut p) = self.position.lock() {
            *p = (read.next_offset, last_epoch);
        }
        Ok(())
    }
}

/// One open connection: its write half and the frames its reader task delivers.
struct Conn {
    write: OwnedWriteHalf,
    rx: mpsc::UnboundedReceiver<ConnOutput>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// One scenario's connections to the live target (opened on first use, closed on drop).
pub struct TcpSession {
    addr: String,
    start: Instant,
    conns: BTreeMap<u32, Conn>,
    /// The hosted policy's verdict, clock and calls for this scenario (`--policy-host`).
    policy: Option<PolicyScope>,
    log: Option<LogWatch>,
    /// Controller role: the brokers this session registers, unregistered when it ends.
    registrations: Option<Registrations>,
    /// The manifest's `failover:` command, for a `failover` step.
    failover: Option<(FailoverCommand, ProvisionalNumbers)>,
    exclusive: Option<tokio::sync::OwnedMutexGuard<()>>,
}

/// A controller session's view of the brokers its scenario registers.
struct Registrations {
    probe: Probe,
    numbers: ProvisionalNumbers,
    watch: RegistrationWatch,
    registered: Registered,
}

impl Drop for TcpSession {
    /// Unregisters every broker the scenario registered (passed, failed or errored) and sets
    /// metadata.version back if it sent UpdateFeatures, holding the controller until done so
    /// the next session starts clean. On a multi-threaded
    /// runtime (`kipcheck run`) this waits for the unregistration; elsewhere the next
    /// session waits for it (it holds the lock).
    fn drop(&mut self) {
        let Some(mut r) = self.registrations.take() else {
            return;
        };
        // Answers the runner did not read (a step failed first) may still register a broker.
        for (id, c) in &mut self.conns {
            while let Ok(ConnOutput::Frame(f)) = c.rx.try_recv() {
                r.watch.answered(*id, &f, &r.registered);
            }
        }
        if r.registered.lock().map_or(true, |s| s.is_clean()) {
            return;
        }
        let addr = self.addr.clone();
        let guard = self.exclusive.take();
        let job = std::thread::spawn(move || {
            // A failure is retried when the next session opens (and reported there).
            let _ = clean_up(&addr, &r.probe, &r.numbers, &r.registered);
            drop(guard);
        });
        let multi = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi {
            tokio::task::block_in_place(|| {
                let _ = job.join();
            });
        }
    }
}

/// Reads frames as they are (size prefix included) until the peer closes. A size prefix
/// that is negative or over the codec's limit is delivered alone, a frame cut short as far
/// as it came; both then count as a close.
async fn read_frames(
    r: tokio::net::tcp::OwnedReadHalf,
    addr: String,
    tx: mpsc::UnboundedSender<ConnOutput>,
) {
    let mut frames = FrameStream::new(r, addr, DEFAULT_MAX_FRAME_SIZE);
    loop {
        match frames.next(None).await {
            Ok(frame) => {
                let _ = tx.send(ConnOutput::Frame(frame));
            }
            Err(_) => {
                let partial = frames.take_partial();
                if !partial.is_empty() {
                    let _ = tx.send(ConnOutput::Frame(partial));
                }
                let _ = tx.send(ConnOutput::Closed);
                return;
            }
        }
    }
}

impl TcpSession {
    /// After a failover: the connections opened before it may have been closed by it (a
    /// restarted controller drops them), so each is dropped, its unread answers noted first
    /// (a registration they confirm is still unregistered at the end); a later `send` on the
    /// same connection number opens a new connection to the controller.
    fn forget_connections(&mut self) {
        for (id, mut c) in std::mem::take(&mut self.conns) {
            while let Ok(ConnOutput::Frame(f)) = c.rx.try_recv() {
                if let Some(r) = &mut self.registrations {
                    r.watch.answered(id, &f, &r.registered);
                }
            }
        }
    }

    async fn conn(&mut self, id: u32) -> Result<&mut Conn, AdapterError> {
        let vacant = match self.conns.entry(id) {
            btree_map::Entry::Occupied(o) => return Ok(o.into_mut()),
            btree_map::Entry::Vacant(v) => v,
        };
        let addr = &self.addr;
        let stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(addr))
            .await
            .map_err(|_| Crash::ConnectTimedOut { addr: addr.clone() })?
            .map_err(|source| Crash::Unreachable {
                addr: addr.clone(),
                source,
            })?;
        let _ = stream.set_nodelay(true);
        let (r, w) = stream.into_split();
        let (tx, rx) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_frames(r, addr.clone(), tx));
        Ok(vacant.insert(Conn {
            write: w,
            rx,
            reader,
        }))
    }
}

fn unsupported(step: &str) -> AdapterError {
    Unsupported::NoLiveForm {
        step: step.to_owned(),
        on: "against a live tcp:// target",
    }
    .into()
}

#[async_trait]
impl Session for TcpSession {
    async fn send(&mut self, conn: u32, frame: Vec<u8>) -> Result<(), AdapterError> {
        if let Some(r) = &mut self.registrations {
            r.watch.sent(conn, &frame, &r.numbers, &r.registered);
        }
        let c = self.conn(conn).await?;
        match tokio::time::timeout(IO_TIMEOUT, c.write.write_all(&frame)).await {
            // A write into a connection the peer closed: the reader reports the close.
            Ok(_) => Ok(()),
            Err(_) => Err(Crash::StoppedReading.into()),
        }
    }

    async fn recv(&mut self, conn: u32, wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        let Some(c) = self.conns.get_mut(&conn) else {
            return Ok(None);
        };
        match tokio::time::timeout(Duration::from_millis(wait_ms), c.rx.recv()).await {
            Ok(Some(out)) => {
                if let (Some(r), ConnOutput::Frame(f)) = (&mut self.registrations, &out) {
                    r.watch.answered(conn, f, &r.registered);
                }
                Ok(Some(out))
            }
            Ok(None) => Ok(Some(ConnOutput::Closed)),
            Err(_) => Ok(None),
        }
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match (action, &self.failover) {
            (PeerAction::Failover, Some((f, numbers))) => {
                let (addr, numbers) = (self.addr.clone(), *numbers);
                let ready = move || probe(&addr, &numbers).map(drop).map_err(|e| e.to_string());
                fail_over(f, &self.addr, ready)
                    .await
                    .map_err(SetupError::Failover)?;
                self.forget_connections();
                Ok(())
            }
            (action, _) => Err(unsupported(&format!("{action:?}"))),
        }
    }

    async fn next_request(&mut self, _within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        Err(unsupported("waiting for a request from the target"))
    }

    async fn respond(&mut self, _node: i32, _frame: Vec<u8>) -> Result<(), AdapterError> {
        Err(unsupported("answering the target"))
    }

    async fn next_release(&mut self, _within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        Err(unsupported("observing user requests"))
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        if ms > MAX_REAL_ADVANCE_MS {
            return Err(Unsupported::RealClock {
                what: "an advance of",
                ms,
                limit: MAX_REAL_ADVANCE_MS,
                hint: "",
            }
            .into());
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        if let Some(p) = &self.policy {
            p.advance(ms);
        }
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    async fn refresh_events(&mut self) -> Result<(), AdapterError> {
        match &mut self.log {
            Some(log) => log.read().await,
            None => Ok(()),
        }
    }

    fn events(&self) -> Vec<Value> {
        let mut events = self
            .policy
            .as_ref()
            .map(PolicyScope::events)
            .unwrap_or_default();
        events.extend(
            self.log
                .as_ref()
                .map_or_else(Vec::new, |l| l.events.clone()),
        );
        events
    }
}
