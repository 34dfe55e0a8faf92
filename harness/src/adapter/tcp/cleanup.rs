//! What kipcheck undoes on a live controller when a session ends ([`clean_up`]): the brokers
//! it registered (UnregisterBroker), the dynamic configs it set, the metadata.version and
//! other features it moved (back to the manifest's `finalized` levels). The configs are deleted so the next
//! scenario starts from the controller's own defaults as it does in-process: every config
//! name an AlterConfigs or IncrementalAlterConfigs request of the session named (not
//! validate-only, whatever the answer) is deleted with one IncrementalAlterConfigs `DELETE`
//! per resource. A scenario that expects a ConfigRecord for a value, or an audit that a
//! leftover value would fail, then sees the same controller state in a full run as alone.
//! What to undo is noted by `controller::RegistrationWatch`; NOT_CONTROLLER is retried by
//! `controller::until_active`. Blocking and bounded; it judges nothing.

use std::time::{Duration, Instant};

use super::controller::{call, until_active, Registered};
use super::level::finalized_feature;
use super::probe::{common_version, Probe};
use super::{IO_TIMEOUT, NOT_CONTROLLER_BACKOFF, TOPIC_PREPARE_TIMEOUT};
use crate::adapter::error::{CallError, CleanupError, LevelError};
use crate::adapter::manifest::Downgrade;
use crate::codec::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use crate::codec::update_features_request::FeatureUpdateKey;
use crate::codec::{
    ApiKey, ApiVersionsRequest, ErrorCode, IncrementalAlterConfigsRequest, ProvisionalNumbers,
    RequestBody, ResponseBody, UnregisterBrokerRequest, UpdateFeaturesRequest,
};

/// The feature a KRaft controller always finalizes, restored first.
const METADATA_VERSION: &str = "metadata.version";

/// `AlterableConfig.ConfigOperation` DELETE (KIP-339).
const DELETE: i8 = 1;

/// Pause before reading metadata.version again after an accepted UpdateFeatures.
const LEVEL_POLL: Duration = NOT_CONTROLLER_BACKOFF;

/// Undoes what the sessions left on the controller, blocking: unregisters their brokers
/// ([`unregister_all`]), deletes the configs they set ([`delete_touched`]), then sets
/// every feature it may move back ([`restore_levels`]). Why it could not, otherwise.
pub(super) fn clean_up(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    kept: &Registered,
) -> Result<(), CleanupError> {
    unregister_all(addr, probe, numbers, kept)?;
    // Configs before the level: a config left behind could fail the restore's audit.
    delete_touched(addr, probe, numbers, kept)?;
    restore_levels(addr, probe, numbers, kept)
}

/// Unregisters every broker id in `registered` (UnregisterBroker; NONE or
/// BROKER_ID_NOT_REGISTERED removes it from the set; NOT_CONTROLLER is retried for up to
/// [`TOPIC_PREPARE_TIMEOUT`]). Why it could not, naming the broker id, otherwise.
fn unregister_all(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    registered: &Registered,
) -> Result<(), CleanupError> {
    let ids: Vec<i32> = registered
        .lock()
        .map_err(|_| CleanupError::Poisoned {
            what: "registered-brokers",
        })?
        .brokers
        .iter()
        .copied()
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let Some(version) = common_version(probe, ApiKey::UNREGISTER_BROKER) else {
        return Err(CleanupError::NoUnregisterBroker { ids });
    };
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    for id in ids {
        let body = RequestBody::UnregisterBroker(UnregisterBrokerRequest {
            broker_id: id,
            ..Default::default()
        });
        let unregister = || call(addr, numbers, (version, &body), IO_TIMEOUT);
        let answer = until_active(deadline, unregister)
            .and_then(|a| match a {
                ResponseBody::UnregisterBroker(r) => Ok(r),
                _ => Err(CallError::OtherApi {
                    api: "UnregisterBroker",
                }),
            })
            .map_err(|e| CleanupError::Unregister {
                id,
                source: Box::new(e),
            })?;
        let code = ErrorCode(answer.error_code);
        if code != ErrorCode::NONE && code != ErrorCode::BROKER_ID_NOT_REGISTERED {
            return Err(CleanupError::UnregisterRefused {
                id,
                code,
                message: answer.error_message.map(|m| m.to_string()),
            });
        }
        if let Ok(mut set) = registered.lock() {
            set.brokers.remove(&id);
        }
    }
    Ok(())
}

/// Deletes every config in `kept`'s `configs`: NOT_CONTROLLER is retried for up to
/// [`TOPIC_PREPARE_TIMEOUT`]; any other answer ends that resource (an error code means the
/// controller does not hold configs there). Why it could not reach the controller, otherwise.
fn delete_touched(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    kept: &Registered,
) -> Result<(), CleanupError> {
    let touched = kept
        .lock()
        .map_err(|_| CleanupError::Poisoned { what: "kept-state" })?
        .configs
        .clone();
    if touched.is_empty() {
        return Ok(());
    }
    let Some(version) = common_version(probe, ApiKey::INCREMENTAL_ALTER_CONFIGS) else {
        return Err(CleanupError::NoIncrementalAlterConfigs);
    };
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    for ((resource_type, resource_name), names) in touched {
        let body = RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
            resources: vec![AlterConfigsResource {
                resource_type,
                resource_name: resource_name.as_str().into(),
                configs: names
                    .iter()
                    .map(|n| AlterableConfig {
                        name: n.as_str().into(),
                        config_operation: DELETE,
                        value: None,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            validate_only: false,
            ..Default::default()
        });
        let delete = || call(addr, numbers, (version, &body), IO_TIMEOUT);
        let answered = until_active(deadline, delete).and_then(|a| match a {
            ResponseBody::IncrementalAlterConfigs(_) => Ok(()),
            _ => Err(CallError::OtherApi {
                api: "IncrementalAlterConfigs",
            }),
        });
        if let Err(e) = answered {
            return Err(CleanupError::DeleteConfigs {
                names,
                resource_type,
                resource_name,
                source: Box::new(e),
            });
        }
        // Any answer is final: a resource the controller refuses to address (another
        // broker's configs, a topic that is gone, a malformed name the scenario sent on
        // purpose) holds nothing the scenario could have set.
        if let Ok(mut k) = kept.lock() {
            k.configs.remove(&(resource_type, resource_name));
        }
    }
    Ok(())
}

/// The level `feature` is finalized at, from the controller's ApiVersions answer (v3
/// `FinalizedFeatures`): absent is 0 (not finalized) for any feature but metadata.version,
/// which a KRaft controller always finalizes.
fn finalized_level(
    addr: &str,
    numbers: &ProvisionalNumbers,
    feature: &str,
) -> Result<i16, LevelError> {
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some("kipcheck".into()),
        client_software_version: Some(env!("CARGO_PKG_VERSION").into()),
        ..Default::default()
    });
    let answer = call(addr, numbers, (3, &body), IO_TIMEOUT)?;
    let ResponseBody::ApiVersions(av) = answer else {
        return Err(CallError::OtherApi { api: "ApiVersions" }.into());
    };
    match finalized_feature(&av, feature) {
        Some(l) => Ok(l),
        None if feature == METADATA_VERSION => Err(LevelError::NotFinalized),
        None => Ok(0),
    }
}

/// Sets every feature kipcheck may move (metadata.version, the manifest's `features`) back to
/// its finalized level when a session sent UpdateFeatures ([`restore_feature`]). Why it could
/// not, naming the feature and levels, otherwise.
fn restore_levels(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    kept: &Registered,
) -> Result<(), CleanupError> {
    let (touched, restore_to) = {
        let k = kept.lock().map_err(|_| CleanupError::Poisoned {
            what: "controller-state",
        })?;
        (k.level_touched, k.restore_to.clone())
    };
    if !touched {
        return Ok(());
    }
    // metadata.version first: another feature's levels may depend on it.
    let order = restore_to
        .iter()
        .filter(|(name, _)| name.as_str() == METADATA_VERSION)
        .chain(
            restore_to
                .iter()
                .filter(|(n, _)| n.as_str() != METADATA_VERSION),
        );
    for (feature, &(finalized, downgrade)) in order {
        restore_feature(addr, probe, numbers, feature, finalized, downgrade).map_err(|e| {
            CleanupError::Level {
                feature: feature.clone(),
                finalized,
                source: Box::new(e),
            }
        })?;
    }
    if let Ok(mut k) = kept.lock() {
        k.level_touched = false;
    }
    Ok(())
}

/// Sets `feature` back to `finalized`: reads its level (ApiVersions), and if it moved, sends
/// UpdateFeatures to `finalized` (UpgradeType 1 up, the manifest's downgrade type down; v0:
/// AllowDowngrade; NOT_CONTROLLER retried), then reads it again until it shows `finalized`;
/// all of it within [`TOPIC_PREPARE_TIMEOUT`].
fn restore_feature(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    feature: &str,
    finalized: i16,
    downgrade: Downgrade,
) -> Result<(), LevelError> {
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    loop {
        let current = finalized_level(addr, numbers, feature)?;
        if current == finalized {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(LevelError::Stuck {
                current,
                after: TOPIC_PREPARE_TIMEOUT,
            });
        }
        let upgrade_type = if finalized > current {
            1
        } else {
            downgrade
                .upgrade_type()
                .ok_or(LevelError::NoDowngrade { current })?
        };
        let version = common_version(probe, ApiKey::UPDATE_FEATURES)
            .ok_or(LevelError::NoUpdateFeatures { current })?;
        let body = RequestBody::UpdateFeatures(UpdateFeaturesRequest {
            timeout_ms: 20_000,
            feature_updates: vec![FeatureUpdateKey {
                feature: feature.into(),
                max_version_level: finalized,
                allow_downgrade: (version == 0).then_some(upgrade_type != 1),
                upgrade_type: (version >= 1).then_some(upgrade_type),
                ..Default::default()
            }],
            validate_only: (version >= 1).then_some(false),
            ..Default::default()
        });
        let update = || call(addr, numbers, (version, &body), TOPIC_PREPARE_TIMEOUT);
        let ResponseBody::UpdateFeatures(r) = until_active(deadline, update)? else {
            return Err(CallError::OtherApi {
                api: "UpdateFeatures",
            }
            .into());
        };
        let refusal = std::iter::once((r.error_code, r.error_message.as_deref()))
            .chain(
                r.results
                    .iter()
                    .flatten()
                    .map(|f| (f.error_code, f.error_message.as_deref())),
            )
            .find(|(code, _)| *code != ErrorCode::NONE.0);
        if let Some((code, message)) = refusal {
            return Err(LevelError::Refused {
                current,
                finalized,
                upgrade_type,
                code: ErrorCode(code),
                message: message.map(str::to_owned),
            });
        }
        // Accepted: read the level again once it has had time to move.
        std::thread::sleep(LEVEL_POLL);
    }
}
