//! What kipcheck keeps about a live KRaft controller across scenarios (`tcp://` in the
//! controller role): its cluster id, learnt once from DescribeCluster when the target is
//! built, the brokers the scenarios registered with it, and whether a scenario may have moved
//! its metadata.version. A real controller keeps every registration until it is
//! unregistered, so each broker id a scenario registered successfully is unregistered
//! (UnregisterBroker) when the scenario's session ends, and the next session starts with
//! none: scenarios that check "this id is not registered" pass in a full run as they do
//! alone. Likewise a session that sent UpdateFeatures ends by setting metadata.version back
//! to the manifest's `finalized` level (the one every scenario is bound to); when that fails
//! the next sessions retry it and are errored with the reason, never run at another level.
//! All I/O here is blocking and bounded.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{common_version, Probe, IO_TIMEOUT, NOT_CONTROLLER_BACKOFF, TOPIC_PREPARE_TIMEOUT};
use crate::adapter::manifest::{Downgrade, TargetManifest};
use crate::codec::update_features_request::FeatureUpdateKey;
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ApiVersionsRequest, DescribeClusterRequest,
    ErrorCode, ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody,
    UnregisterBrokerRequest, UpdateFeaturesRequest,
};
use crate::net::{self, Exchange};

/// `DescribeCluster`'s `EndpointType` for controllers (KIP-919).
const CONTROLLER_ENDPOINTS: i8 = 2;

/// The feature kipcheck restores.
const METADATA_VERSION: &str = "metadata.version";

/// What kipcheck keeps about the controller between sessions.
pub(super) type Registered = Arc<Mutex<Kept>>;

/// The brokers kipcheck registered with the controller and has not unregistered yet, and the
/// metadata.version level it keeps the controller at.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// Registered broker ids.
    pub(super) brokers: BTreeSet<i32>,
    /// Configs a session's AlterConfigs or IncrementalAlterConfigs may have set (not
    /// validate-only, whatever the answer): (resource type, resource name) → config names.
    /// They are deleted when the session ends (`super::cleanup`).
    pub(super) configs: BTreeMap<(i8, String), BTreeSet<String>>,
    /// A session sent UpdateFeatures and the level has not been checked back since.
    level_touched: bool,
    /// The manifest's finalized level and how the controller can be moved down (no
    /// manifest with moves: no scenario that moves the level is bound, nothing to restore).
    restore_to: Option<(i16, Downgrade)>,
}

impl Kept {
    /// What kipcheck keeps for a controller declared by `manifest`.
    pub(super) fn shared(manifest: Option<&TargetManifest>) -> Registered {
        let restore_to = manifest.and_then(|m| {
            let moves = m.metadata_version.moves.as_ref()?;
            Some((m.metadata_version.finalized, moves.downgrade))
        });
        Arc::new(Mutex::new(Kept {
            restore_to,
            ..Kept::default()
        }))
    }

    /// Nothing to undo: no broker registered, no config set, the level untouched.
    pub(super) fn is_clean(&self) -> bool {
        self.brokers.is_empty() && self.configs.is_empty() && !self.level_touched
    }
}

/// One request on a connection of its own, blocking: its decoded answer, or why there is none.
pub(super) fn call(
    addr: &str,
    numbers: &ProvisionalNumbers,
    key: ApiKey,
    version: i16,
    body: RequestBody,
    timeout: Duration,
) -> Result<ResponseBody, String> {
    let api = key.name().unwrap_or("request");
    let header = RequestHeader {
        request_api_key: key.0,
        request_api_version: version,
        correlation_id: 1,
        client_id: Some("kipcheck-setup".into()),
        ..Default::default()
    };
    let frame = codec::encode_request_frame(&header, &body, numbers)
        .map_err(|e| format!("{api} v{version} does not encode: {e}"))?;
    match net::exchange(addr, &frame, timeout).map_err(|e| e.to_string())? {
        Exchange::Response(answer) => {
            codec::decode_response_frame(&answer, DEFAULT_MAX_FRAME_SIZE, key, version)
                .map(|d| d.body)
                .map_err(|e| format!("the {api} answer does not decode: {e}"))
        }
        Exchange::Closed(_) => Err(format!(
            "{addr} closed the connection instead of answering {api}"
        )),
        Exchange::TimedOut(_) => Err(format!("{addr} did not answer {api} within {timeout:?}")),
        Exchange::Oversized(size) => Err(format!(
            "{addr} answered {api} with a frame of {size} bytes"
        )),
    }
}

/// The controller's cluster id, from its DescribeCluster answer (controller endpoints), or
/// why it cannot be learnt.
pub(super) fn learn_cluster_id(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
) -> Result<String, String> {
    let Some(version) = common_version(probe, ApiKey::DESCRIBE_CLUSTER) else {
        return Err("the controller does not advertise DescribeCluster".into());
    };
    let body = RequestBody::DescribeCluster(DescribeClusterRequest {
        endpoint_type: (version >= 1).then_some(CONTROLLER_ENDPOINTS),
        include_fenced_brokers: (version >= 2).then_some(false),
        ..Default::default()
    });
    let answer = call(
        addr,
        numbers,
        ApiKey::DESCRIBE_CLUSTER,
        version,
        body,
        IO_TIMEOUT,
    )?;
    let ResponseBody::DescribeCluster(d) = answer else {
        return Err("DescribeCluster answered as another API".into());
    };
    if d.error_code != ErrorCode::NONE.0 {
        return Err(format!(
            "DescribeCluster answered {}: {}",
            ErrorCode(d.error_code),
            d.error_message.as_deref().unwrap_or("no message")
        ));
    }
    Ok(d.cluster_id.to_string())
}

/// One session's BrokerRegistration requests whose answers have not been read yet:
/// (connection, correlation id) → (version, broker id).
#[derive(Debug, Default)]
pub(super) struct RegistrationWatch {
    pending: BTreeMap<(u32, i32), (i16, i32)>,
}

impl RegistrationWatch {
    /// Notes a request frame kipcheck sends on `conn`: an UpdateFeatures (whatever its
    /// answer, even none) marks the level to be checked back; a BrokerRegistration that
    /// decodes is awaited (a malformed one registers nobody).
    pub(super) fn sent(
        &mut self,
        conn: u32,
        frame: &[u8],
        numbers: &ProvisionalNumbers,
        kept: &Registered,
    ) {
        if frame.get(4..6) == Some(&ApiKey::UPDATE_FEATURES.0.to_be_bytes()[..]) {
            if let Ok(mut k) = kept.lock() {
                k.level_touched = k.restore_to.is_some();
            }
            return;
        }
        let watched = [
            ApiKey::BROKER_REGISTRATION,
            ApiKey::ALTER_CONFIGS,
            ApiKey::INCREMENTAL_ALTER_CONFIGS,
        ];
        if !watched
            .iter()
            .any(|k| frame.get(4..6) == Some(&k.0.to_be_bytes()[..]))
        {
            return;
        }
        let Ok(req) = codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, numbers) else {
            return;
        };
        // (resource type, resource name, config names) of an alter that may write.
        let touched: Vec<(i8, String, Vec<String>)> = match &req.body {
            RequestBody::BrokerRegistration(r) => {
                self.pending.insert(
                    (conn, req.header.correlation_id),
                    (req.header.request_api_version, r.broker_id),
                );
                return;
            }
            RequestBody::AlterConfigs(r) if !r.validate_only => r
                .resources
                .iter()
                .map(|x| {
                    (
                        x.resource_type,
                        x.resource_name.to_string(),
                        x.configs.iter().map(|c| c.name.to_string()).collect(),
                    )
                })
                .collect(),
            RequestBody::IncrementalAlterConfigs(r) if !r.validate_only => r
                .resources
                .iter()
                .map(|x| {
                    (
                        x.resource_type,
                        x.resource_name.to_string(),
                        x.configs.iter().map(|c| c.name.to_string()).collect(),
                    )
                })
                .collect(),
            _ => return,
        };
        if let Ok(mut k) = kept.lock() {
            for (ty, name, keys) in touched {
                k.configs.entry((ty, name)).or_default().extend(keys);
            }
        }
    }

    /// Reads a response frame that came on `conn`: a BrokerRegistration answered NONE adds
    /// its broker id to `registered`.
    pub(super) fn answered(&mut self, conn: u32, frame: &[u8], registered: &Registered) {
        let Some(corr) = frame.get(4..8) else {
            return;
        };
        let corr = i32::from_be_bytes([corr[0], corr[1], corr[2], corr[3]]);
        let Some((version, broker)) = self.pending.remove(&(conn, corr)) else {
            return;
        };
        let decoded = codec::decode_response_frame(
            frame,
            DEFAULT_MAX_FRAME_SIZE,
            ApiKey::BROKER_REGISTRATION,
            version,
        );
        if let Ok(ResponseBody::BrokerRegistration(r)) = decoded.map(|d| d.body) {
            if r.error_code == ErrorCode::NONE.0 {
                if let Ok(mut set) = registered.lock() {
                    set.brokers.insert(broker);
                }
            }
        }
    }
}

/// Unregisters every broker id in `registered` (UnregisterBroker; NONE or
/// BROKER_ID_NOT_REGISTERED removes it from the set; NOT_CONTROLLER is retried for up to
/// [`TOPIC_PREPARE_TIMEOUT`]), blocking. Why it could not, naming the broker id, otherwise.
pub(super) fn unregister_all(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    registered: &Registered,
) -> Result<(), String> {
    let ids: Vec<i32> = registered
        .lock()
        .map_err(|_| "the registered-brokers lock is poisoned".to_owned())?
        .brokers
        .iter()
        .copied()
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let Some(version) = common_version(probe, ApiKey::UNREGISTER_BROKER) else {
        return Err(format!(
            "brokers {ids:?} registered by an earlier scenario cannot be unregistered: the \
             controller does not advertise UnregisterBroker"
        ));
    };
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    for id in ids {
        loop {
            let body = RequestBody::UnregisterBroker(UnregisterBrokerRequest {
                broker_id: id,
                ..Default::default()
            });
            let answer = call(
                addr,
                numbers,
                ApiKey::UNREGISTER_BROKER,
                version,
                body,
                IO_TIMEOUT,
            )
            .map_err(|e| format!("unregistering broker {id} (registered by a scenario): {e}"))?;
            let ResponseBody::UnregisterBroker(r) = answer else {
                return Err(format!(
                    "unregistering broker {id}: UnregisterBroker answered as another API"
                ));
            };
            let code = ErrorCode(r.error_code);
            if code == ErrorCode::NONE || code == ErrorCode::BROKER_ID_NOT_REGISTERED {
                if let Ok(mut set) = registered.lock() {
                    set.brokers.remove(&id);
                }
                break;
            }
            if code == ErrorCode::NOT_CONTROLLER && Instant::now() < deadline {
                std::thread::sleep(NOT_CONTROLLER_BACKOFF);
                continue;
            }
            return Err(format!(
                "UnregisterBroker of broker {id} (registered by a scenario) answered {code}: {}",
                r.error_message.as_deref().unwrap_or("no message")
            ));
        }
    }
    Ok(())
}

/// The controller's finalized metadata.version, from its ApiVersions answer (v3
/// `FinalizedFeatures`).
fn finalized_level(addr: &str, numbers: &ProvisionalNumbers) -> Result<i16, String> {
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some("kipcheck".into()),
        client_software_version: Some(env!("CARGO_PKG_VERSION").into()),
        ..Default::default()
    });
    let answer = call(addr, numbers, ApiKey::API_VERSIONS, 3, body, IO_TIMEOUT)?;
    let ResponseBody::ApiVersions(av) = answer else {
        return Err("ApiVersions answered as another API".into());
    };
    av.finalized_features
        .iter()
        .flatten()
        .find(|f| f.name.as_str() == METADATA_VERSION)
        .map(|f| f.max_version_level)
        .ok_or_else(|| "its ApiVersions answer gives no finalized metadata.version".into())
}

/// Sets metadata.version back to the manifest's `finalized` level when a session sent
/// UpdateFeatures: reads the level (ApiVersions), and if it moved, sends UpdateFeatures to
/// `finalized` (UpgradeType 1 up, the manifest's downgrade type down; v0: AllowDowngrade),
/// then reads it again until it shows `finalized`; NOT_CONTROLLER is retried; all of it
/// within [`TOPIC_PREPARE_TIMEOUT`]. Why it could not, naming the levels, otherwise.
pub(super) fn restore_level(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    kept: &Registered,
) -> Result<(), String> {
    let (touched, restore_to) = {
        let k = kept
            .lock()
            .map_err(|_| "the controller-state lock is poisoned".to_owned())?;
        (k.level_touched, k.restore_to)
    };
    let Some((finalized, downgrade)) = restore_to.filter(|_| touched) else {
        return Ok(());
    };
    let fail = |why: String| {
        format!(
            "an earlier scenario changed metadata.version and kipcheck could not set it back to \
             {finalized} (the manifest's finalized level): {why}"
        )
    };
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    loop {
        let current = finalized_level(addr, numbers).map_err(fail)?;
        if current == finalized {
            if let Ok(mut k) = kept.lock() {
                k.level_touched = false;
            }
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(fail(format!(
                "it is still {current} after {TOPIC_PREPARE_TIMEOUT:?}"
            )));
        }
        let upgrade_type = if finalized > current {
            1
        } else {
            downgrade.upgrade_type().ok_or_else(|| {
                fail(format!(
                    "it is {current}, and the manifest declares no downgrade \
                     (metadata_version.moves.downgrade)"
                ))
            })?
        };
        let version = common_version(probe, ApiKey::UPDATE_FEATURES).ok_or_else(|| {
            fail(format!(
                "it is {current}, and the controller does not advertise UpdateFeatures"
            ))
        })?;
        let body = RequestBody::UpdateFeatures(UpdateFeaturesRequest {
            timeout_ms: 20_000,
            feature_updates: vec![FeatureUpdateKey {
                feature: METADATA_VERSION.into(),
                max_version_level: finalized,
                allow_downgrade: (version == 0).then_some(upgrade_type != 1),
                upgrade_type: (version >= 1).then_some(upgrade_type),
                ..Default::default()
            }],
            validate_only: (version >= 1).then_some(false),
            ..Default::default()
        });
        let answer = call(
            addr,
            numbers,
            ApiKey::UPDATE_FEATURES,
            version,
            body,
            TOPIC_PREPARE_TIMEOUT,
        )
        .map_err(fail)?;
        let ResponseBody::UpdateFeatures(r) = answer else {
            return Err(fail("UpdateFeatures answered as another API".into()));
        };
        let refusal = std::iter::once((r.error_code, r.error_message.as_deref()))
            .chain(
                r.results
                    .iter()
                    .flatten()
                    .map(|f| (f.error_code, f.error_message.as_deref())),
            )
            .find(|(code, _)| *code != ErrorCode::NONE.0);
        match refusal {
            Some((code, _)) if code == ErrorCode::NOT_CONTROLLER.0 => {}
            Some((code, message)) => {
                return Err(fail(format!(
                    "it is {current}; UpdateFeatures to {finalized} (UpgradeType {upgrade_type}) \
                     answered {}: {}",
                    ErrorCode(code),
                    message.unwrap_or("no message")
                )))
            }
            None => {}
        }
        std::thread::sleep(NOT_CONTROLLER_BACKOFF);
    }
}
