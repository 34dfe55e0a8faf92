//! `kipcheck serve --role controller`: the reference KRaft controller
//! ([`ControllerModel`]) behind the server's one accept loop. Each request frame is decoded
//! once by the codec and answered through the emulated controller's one dispatch
//! ([`emulate::controller::handle_request`](crate::emulate::controller::handle_request): the
//! model, plus the Kafka APIs the KIPs leave alone); what a real controller does at its edge
//! and the in-process one does not is done here: the cluster id it was formatted with
//! (DescribeCluster reports it, a BrokerRegistration carrying another is
//! INCONSISTENT_CLUSTER_ID), the listener it really listens on, the metadata.version range it
//! supports (UpdateFeatures outside it is INVALID_UPDATE_VERSION), Fetch of
//! `__cluster_metadata` (its metadata log as record batches, as a KRaft leader answers an
//! observer), DeleteTopics in its ApiVersions and the KIP-511 ApiVersions fallback.
//!
//! It owns no socket and no clock: the server hands it a frame and the time. It must not
//! judge what peers send; the model and the emulation decide every answer but the edge ones
//! above.

use crate::faulty::Faulty;
use crate::faulty::{Fault, Faults};
use std::sync::Mutex;

use crate::adapter::metadata_log::METADATA_TOPIC_ID;
use crate::codec::api_versions_response::ApiVersion;
use crate::codec::broker_registration_request::Feature;
use crate::codec::fetch_response::{FetchableTopicResponse, LeaderIdAndEpoch, PartitionData};
use crate::codec::{
    self, ApiKey, BrokerRegistrationRequest, BrokerRegistrationResponse, Bytes, ErrorCode,
    FetchRequest, FetchResponse, Message, ProvisionalNumbers, RequestBody, ResponseBody,
    ResponseHeader, UpdateFeaturesRequest, UpdateFeaturesResponse,
};
use crate::emulate::{controller as emulated, read_request};
use crate::model::controller::METADATA_VERSION;
use crate::model::{ControllerModel, Millis, ReplayError, ServerConfigDefs, SpecProfile};

/// The leader epoch of every batch the served controller writes: it is the only voter and was
/// elected once (Kafka's first elected epoch is 1).
pub const LEADER_EPOCH: i32 = 1;

/// The lowest `metadata.version` level the served controller supports.
pub const MIN_METADATA_VERSION: i16 = 1;
/// The highest `metadata.version` level the served controller supports.
pub const MAX_METADATA_VERSION: i16 = 50;

/// The broker id of the broker that shares the served controller's process (combined mode),
/// registered at bootstrap: a KRaft controller creates a topic only when at least as many
/// brokers are registered as its replication factor. Chosen far from the ids scenarios use.
pub const COLOCATED_BROKER_ID: i32 = 100;

/// The BrokerRegistration version the colocated broker registers with (no StaticConfigs).
const COLOCATED_REGISTRATION_VERSION: i16 = 4;

/// The lowest Fetch version served: the first with topic ids (KRaft's `__cluster_metadata`
/// is fetched by topic id).
const MIN_FETCH_VERSION: i16 = 13;

/// How the served controller is set up.
#[derive(Clone, Debug)]
pub struct ControllerOptions {
    /// The bootstrap `metadata.version` (the first record of its log).
    pub metadata_version: i16,
    /// A built-in faulty variant, or `None` for the reference.
    pub fault: Option<Fault>,
    /// The cluster id it was formatted with.
    pub cluster_id: String,
    /// The config definitions it validates with ([`super::definitions::served_definitions`]).
    pub defs: ServerConfigDefs,
}

impl Default for ControllerOptions {
    fn default() -> Self {
        Self {
            metadata_version: super::definitions::DEFAULT_METADATA_VERSION,
            fault: None,
            cluster_id: emulated::CLUSTER_ID.into(),
            defs: super::definitions::served_definitions(),
        }
    }
}

/// Why a served controller cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum ControllerSetupError {
    /// The bootstrap level is outside the supported range.
    #[error("metadata.version {level} is outside the supported range {MIN_METADATA_VERSION}..={MAX_METADATA_VERSION}")]
    Level {
        /// The level asked for.
        level: i16,
    },
    /// The colocated broker's registration was refused.
    #[error("the colocated broker {COLOCATED_BROKER_ID} could not register: error {code}")]
    Colocated {
        /// The error code.
        code: i16,
    },
    /// The fault is not a controller's.
    #[error("{name} is not a controller fault ({bug})")]
    NotControllerFault {
        /// The fault's name.
        name: &'static str,
        /// Its bug.
        bug: &'static str,
    },
}

/// Why the served controller could not fail over (it keeps serving as it was).
#[derive(Debug, thiserror::Error)]
pub enum FailoverFailed {
    /// The server serves the broker, not a controller.
    #[error("the server is not a controller (--role controller)")]
    NotController,
    /// Its metadata log did not replay.
    #[error("its metadata log does not replay: {0}")]
    Replay(#[from] ReplayError),
    /// A request handler panicked while holding the model.
    #[error("the controller state is poisoned")]
    Poisoned,
}

/// True if `fault` is one of the controller's built-in bugs.
pub fn is_controller_fault(fault: Fault) -> bool {
    fault.bug().starts_with("Controller:")
}

/// The served controller: the model under a mutex, and its edge facts.
pub(super) struct ServedController {
    model: Mutex<ControllerModel>,
    cluster_id: String,
    numbers: ProvisionalNumbers,
}

/// What the server does with a frame: answer it or close the connection.
pub(super) enum Answer {
    /// Write this frame.
    Frame(Vec<u8>),
    /// Close, with the reason.
    Close(String),
}

impl ServedController {
    /// The controller bootstrapped at `opts.metadata_version` (at time 0 of the server's clock).
    pub(super) fn new(
        opts: &ControllerOptions,
        profile: &SpecProfile,
        node_id: i32,
    ) -> Result<Self, ControllerSetupError> {
        let level = opts.metadata_version;
        if !(MIN_METADATA_VERSION..=MAX_METADATA_VERSION).contains(&level) {
            return Err(ControllerSetupError::Level { level });
        }
        let faults = match opts.fault {
            Some(f) if !is_controller_fault(f) => {
                return Err(ControllerSetupError::NotControllerFault {
                    name: f.name(),
                    bug: f.bug(),
                })
            }
            Some(f) => Faults::one(f),
            None => Faults::none(),
        };
        let mut model = ControllerModel::new(profile, opts.defs.clone(), level, Millis::ZERO)
            .with_node_id(node_id)
            .with_decisions(Faulty::controller(&faults));
        let colocated = BrokerRegistrationRequest {
            broker_id: COLOCATED_BROKER_ID,
            cluster_id: opts.cluster_id.as_str().into(),
            incarnation_id: codec::Uuid(*b"kipcheck-colocat"),
            features: vec![Feature {
                name: METADATA_VERSION.into(),
                min_supported_version: MIN_METADATA_VERSION,
                max_supported_version: MAX_METADATA_VERSION,
                ..Default::default()
            }],
            ..Default::default()
        }
        .project(COLOCATED_REGISTRATION_VERSION);
        let code = model
            .handle_broker_registration(Millis::ZERO, COLOCATED_REGISTRATION_VERSION, &colocated)
            .error_code;
        if code != 0 {
            return Err(ControllerSetupError::Colocated { code });
        }
        Ok(Self {
            model: Mutex::new(model),
            cluster_id: opts.cluster_id.clone(),
            numbers: profile.provisional,
        })
    }

    /// Fails over: the model is replaced by its successor rebuilt from its own metadata log
    /// ([`ControllerModel::failover`]: same decisions, so a faulty replay stays faulty). Its
    /// cluster id, listener and log (the successor's is the same records) are kept.
    pub(super) fn fail_over(&self) -> Result<(), FailoverFailed> {
        let mut model = self.model.lock().map_err(|_| FailoverFailed::Poisoned)?;
        *model = model.failover()?;
        Ok(())
    }

    /// Answers one request frame (size prefix included) at `now`; `listener` is the host and
    /// port it listens on (what DescribeCluster reports).
    pub(super) fn handle(&self, now: Millis, frame: &[u8], listener: (&str, i32)) -> Answer {
        let Ok(mut model) = self.model.lock() else {
            return Answer::Close("controller state poisoned".into());
        };
        let payload = frame.get(4..).unwrap_or_default();
        let peek = codec::peek_request(payload);
        if peek.api_key == Some(ApiKey::API_VERSIONS)
            && peek
                .api_version
                .is_some_and(|v| !codec::ApiVersionsRequest::VALID_VERSIONS.contains(v))
        {
            // KIP-511: an ApiVersions newer than it speaks is answered in the v0 layout.
            return match read_request(frame, &self.numbers)
                .and_then(|r| r.answer_unspoken_api_versions(advertised(&model)))
            {
                Ok(f) => Answer::Frame(f),
                Err(e) => Answer::Close(e.to_string()),
            };
        }
        let req = match codec::decode_request(payload, 4, &self.numbers) {
            Ok(r) => r,
            Err(e) => return Answer::Close(format!("request does not decode: {e}")),
        };
        let version = req.header.request_api_version;
        let body = match &req.body {
            RequestBody::Fetch(f) => ResponseBody::Fetch(fetch(&model, f, version)),
            RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(advertised(&model)),
            RequestBody::BrokerRegistration(r) if r.cluster_id.as_str() != self.cluster_id => {
                ResponseBody::BrokerRegistration(BrokerRegistrationResponse {
                    error_code: ErrorCode::INCONSISTENT_CLUSTER_ID.0,
                    broker_epoch: -1,
                    ..Default::default()
                })
            }
            RequestBody::UpdateFeatures(u) if out_of_range(u).is_some() => {
                let level = out_of_range(u).unwrap_or_default();
                ResponseBody::UpdateFeatures(
                    UpdateFeaturesResponse {
                        error_code: ErrorCode::INVALID_UPDATE_VERSION.0,
                        error_message: Some(
                            format!(
                                "Invalid update version {level} for feature {METADATA_VERSION}: \
                                 this controller supports {MIN_METADATA_VERSION}-{MAX_METADATA_VERSION}"
                            )
                            .into(),
                        ),
                        results: Some(Vec::new()),
                        ..Default::default()
                    }
                    .project(version),
                )
            }
            other => match emulated::handle_request(&mut model, now, version, other) {
                Some(ResponseBody::DescribeCluster(mut d)) => {
                    if d.error_code == 0 {
                        d.cluster_id = self.cluster_id.as_str().into();
                        for b in &mut d.brokers {
                            b.host = listener.0.into();
                            b.port = listener.1;
                        }
                    }
                    ResponseBody::DescribeCluster(d)
                }
                Some(body) => body,
                None => {
                    return Answer::Close(format!(
                        "API {} is not served by the controller",
                        req.api_key.0
                    ))
                }
            },
        };
        let h = ResponseHeader {
            correlation_id: req.header.correlation_id,
            ..Default::default()
        };
        match codec::encode_response_frame(&h, &body, version) {
            Ok(f) => Answer::Frame(f),
            Err(e) => Answer::Close(format!("cannot encode the response: {e}")),
        }
    }
}

/// The metadata.version level an UpdateFeatures asks for outside the supported range, if any
/// (a level below 1 is the model's to refuse, as a downgrade request).
fn out_of_range(u: &UpdateFeaturesRequest) -> Option<i16> {
    u.feature_updates
        .iter()
        .filter(|f| f.feature.as_str() == METADATA_VERSION)
        .map(|f| f.max_version_level)
        .find(|l| *l >= 1 && !(MIN_METADATA_VERSION..=MAX_METADATA_VERSION).contains(l))
}

/// The emulated controller's ApiVersions answer plus DeleteTopics and Fetch (from v13: by
/// topic id).
fn advertised(model: &ControllerModel) -> codec::ApiVersionsResponse {
    let mut av = emulated::api_versions(model);
    for (key, min) in [
        (ApiKey::FETCH, MIN_FETCH_VERSION),
        (ApiKey::DELETE_TOPICS, 0),
    ] {
        if let Some(info) = RequestBody::info(key) {
            av.api_keys.push(ApiVersion {
                api_key: key.0,
                min_version: min.max(info.valid.min),
                max_version: info.valid.max,
                ..Default::default()
            });
        }
    }
    av.api_keys.sort_by_key(|k| k.api_key);
    av
}

/// Fetch as a KRaft leader answers it for `__cluster_metadata` partition 0: its log from the
/// fetch offset as record batches (one per record, leader epoch [`LEADER_EPOCH`]) up to the
/// partition's byte budget (at least one batch), the high watermark at the log end, and
/// CurrentLeader. A stale leader epoch is FENCED_LEADER_EPOCH, a newer one
/// UNKNOWN_LEADER_EPOCH, an offset past the end OFFSET_OUT_OF_RANGE, a last fetched epoch the
/// log never had DivergingEpoch (its end: the start). Any other topic id: UNKNOWN_TOPIC_ID.
fn fetch(model: &ControllerModel, req: &FetchRequest, version: i16) -> FetchResponse {
    let log = model.metadata_log();
    let end = log.len() as i64;
    let leader = LeaderIdAndEpoch {
        leader_id: model.node_id(),
        leader_epoch: LEADER_EPOCH,
        ..Default::default()
    };
    // One byte budget for the whole answer (`MaxBytes`), so a request naming the partition
    // many times cannot make the answer larger than it asked for.
    let mut left = usize::try_from(req.max_bytes).unwrap_or(0);
    let responses = req
        .topics
        .iter()
        .map(|t| {
            let partitions = t
                .partitions
                .iter()
                .map(|p| {
                    let mut out = PartitionData {
                        partition_index: p.partition,
                        high_watermark: end,
                        last_stable_offset: end,
                        log_start_offset: Some(0),
                        current_leader: Some(leader.clone()),
                        ..Default::default()
                    };
                    let code = if t.topic_id != Some(METADATA_TOPIC_ID) {
                        ErrorCode::UNKNOWN_TOPIC_ID
                    } else if p.partition != 0 {
                        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
                    } else {
                        match p.current_leader_epoch.unwrap_or(-1) {
                            e if (0..LEADER_EPOCH).contains(&e) => ErrorCode::FENCED_LEADER_EPOCH,
                            e if e > LEADER_EPOCH => ErrorCode::UNKNOWN_LEADER_EPOCH,
                            _ if !(0..=end).contains(&p.fetch_offset) => {
                                ErrorCode::OFFSET_OUT_OF_RANGE
                            }
                            _ => ErrorCode::NONE,
                        }
                    };
                    out.error_code = code.0;
                    if code != ErrorCode::NONE {
                        out.records = Some(Bytes(Vec::new()));
                        return out;
                    }
                    let last = p.last_fetched_epoch.unwrap_or(-1);
                    if p.fetch_offset > 0 && last >= 0 && last != LEADER_EPOCH {
                        // Every record has epoch LEADER_EPOCH: an earlier epoch ended at 0.
                        out.diverging_epoch = Some(codec::fetch_response::EpochEndOffset {
                            epoch: last.min(LEADER_EPOCH - 1),
                            end_offset: 0,
                            ..Default::default()
                        });
                        out.records = Some(Bytes(Vec::new()));
                        return out;
                    }
                    let budget = usize::try_from(p.partition_max_bytes)
                        .unwrap_or(0)
                        .min(left);
                    let bytes = batches(log, p.fetch_offset, budget);
                    left = left.saturating_sub(bytes.len());
                    out.records = Some(Bytes(bytes));
                    out
                })
                .collect();
            FetchableTopicResponse {
                topic_id: t.topic_id,
                partitions,
                ..Default::default()
            }
        })
        .collect();
    FetchResponse {
        responses,
        ..Default::default()
    }
    .project(version)
}

/// The log from `from` as record batches, one record each, within `budget` bytes (the first
/// batch even when larger, as Kafka answers, unless the budget is 0). A record the codec
/// cannot encode ends the answer before it.
fn batches(log: &[crate::model::MetadataRecord], from: i64, budget: usize) -> Vec<u8> {
    if budget == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for r in log.iter().skip(usize::try_from(from).unwrap_or(usize::MAX)) {
        let record = codec::MetadataRecord {
            version: r.version,
            body: r.body.clone(),
        };
        let Ok(value) = record.to_bytes() else { break };
        let offset = i64::try_from(r.offset).unwrap_or(i64::MAX);
        let batch = codec::encode_record_batch(offset, LEADER_EPOCH, 0, &[(None, Some(&value))]);
        if !out.is_empty() && out.len() + batch.len() > budget {
            break;
        }
        out.extend_from_slice(&batch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::fetch_request::{FetchPartition, FetchTopic};

    fn served() -> ServedController {
        ServedController::new(&ControllerOptions::default(), &SpecProfile::default(), 1).unwrap()
    }

    fn ask(c: &ServedController, epoch: i32, offset: i64, last: i32, max: i32) -> PartitionData {
        let req = FetchRequest {
            max_bytes: max,
            topics: vec![FetchTopic {
                topic_id: Some(METADATA_TOPIC_ID),
                partitions: vec![FetchPartition {
                    partition: 0,
                    current_leader_epoch: Some(epoch),
                    fetch_offset: offset,
                    last_fetched_epoch: Some(last),
                    partition_max_bytes: max,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let model = c.model.lock().unwrap();
        let mut resp = fetch(&model, &req, 17);
        resp.responses.remove(0).partitions.remove(0)
    }

    #[test]
    fn a_fetch_is_answered_as_a_kraft_leader_answers_an_observer() {
        let c = served();
        // A stale epoch is fenced and told the current leader.
        let p = ask(&c, 0, 0, 0, 1 << 20);
        assert_eq!(p.error_code, ErrorCode::FENCED_LEADER_EPOCH.0);
        assert_eq!(
            p.current_leader.map(|l| (l.leader_id, l.leader_epoch)),
            Some((1, 1))
        );
        assert_eq!(
            ask(&c, 2, 0, 0, 1 << 20).error_code,
            ErrorCode::UNKNOWN_LEADER_EPOCH.0
        );
        assert_eq!(
            ask(&c, 1, 3, 1, 1 << 20).error_code,
            ErrorCode::OFFSET_OUT_OF_RANGE.0
        );
        // The whole log: the bootstrap level and the colocated broker, one batch each.
        let p = ask(&c, 1, 0, 0, 1 << 20);
        assert_eq!((p.error_code, p.high_watermark), (0, 2));
        let (records, last) =
            crate::adapter::metadata_log::records_of(&p.records.unwrap().0).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(last, Some((2, LEADER_EPOCH)));
        // A budget of one byte still gets the first batch, and only it.
        let p = ask(&c, 1, 0, 0, 1);
        let (records, _) = crate::adapter::metadata_log::records_of(&p.records.unwrap().0).unwrap();
        assert_eq!(records.len(), 1);
        // An epoch the log never had, after offset 0: diverging at the start.
        let p = ask(&c, 1, 2, 0, 1 << 20);
        assert_eq!(
            p.diverging_epoch.map(|d| (d.epoch, d.end_offset)),
            Some((0, 0))
        );
    }

    #[test]
    fn another_cluster_id_is_refused_and_describe_cluster_reports_the_listener() {
        let opts = ControllerOptions {
            cluster_id: "MkU3OEVBNTcwNTJENDM2Qg".into(),
            ..ControllerOptions::default()
        };
        let c = ServedController::new(&opts, &SpecProfile::default(), 1).unwrap();
        let frame = |api: ApiKey, version: i16, body: RequestBody| {
            let h = codec::RequestHeader {
                request_api_key: api.0,
                request_api_version: version,
                correlation_id: 7,
                client_id: Some("t".into()),
                ..Default::default()
            };
            codec::encode_request_frame(&h, &body, &ProvisionalNumbers::default()).unwrap()
        };
        let answer = |f: Vec<u8>, api: ApiKey, version: i16| match c.handle(
            Millis(1),
            &f,
            ("10.0.0.1", 9093),
        ) {
            Answer::Frame(a) => {
                codec::decode_response_frame(&a, a.len(), api, version)
                    .unwrap()
                    .body
            }
            Answer::Close(why) => panic!("{why}"),
        };
        let reg = BrokerRegistrationRequest {
            broker_id: 1,
            cluster_id: "kipcheck-cluster".into(),
            ..Default::default()
        };
        let f = frame(
            ApiKey::BROKER_REGISTRATION,
            4,
            RequestBody::BrokerRegistration(reg),
        );
        let ResponseBody::BrokerRegistration(r) = answer(f, ApiKey::BROKER_REGISTRATION, 4) else {
            panic!()
        };
        assert_eq!(r.error_code, ErrorCode::INCONSISTENT_CLUSTER_ID.0);
        let d = codec::DescribeClusterRequest {
            endpoint_type: Some(2),
            ..Default::default()
        };
        let f = frame(ApiKey::DESCRIBE_CLUSTER, 1, RequestBody::DescribeCluster(d));
        let ResponseBody::DescribeCluster(d) = answer(f, ApiKey::DESCRIBE_CLUSTER, 1) else {
            panic!()
        };
        assert_eq!(d.cluster_id.as_str(), "MkU3OEVBNTcwNTJENDM2Qg");
        assert_eq!(
            (d.brokers[0].host.as_str(), d.brokers[0].port),
            ("10.0.0.1", 9093)
        );
    }
}
