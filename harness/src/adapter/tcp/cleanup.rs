//! What kipcheck undoes on a live controller when a session ends ([`clean_up`]): the brokers
//! it registered, the dynamic configs it set, the metadata.version it moved. The configs are
//! deleted here, so the next scenario starts from the controller's own defaults as it does
//! in-process: every config name an
//! AlterConfigs or IncrementalAlterConfigs request of the session named (not validate-only,
//! whatever the answer) is deleted with one IncrementalAlterConfigs `DELETE` per resource.
//! A scenario that expects a ConfigRecord for a value, or an audit that a leftover value
//! would fail, then sees the same controller state in a full run as alone. Blocking and
//! bounded; it judges nothing.

use std::time::Instant;

use super::controller::{call, restore_level, unregister_all, Registered};
use super::{common_version, Probe, IO_TIMEOUT, NOT_CONTROLLER_BACKOFF, TOPIC_PREPARE_TIMEOUT};
use crate::codec::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use crate::codec::{
    ApiKey, ErrorCode, IncrementalAlterConfigsRequest, ProvisionalNumbers, RequestBody,
    ResponseBody,
};

/// Undoes what the sessions left on the controller, blocking: unregisters their brokers
/// (`unregister_all`), deletes the configs they set ([`delete_touched`]), then sets
/// metadata.version back (`restore_level`). Why it could
/// not, otherwise.
pub(super) fn clean_up(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    kept: &Registered,
) -> Result<(), String> {
    unregister_all(addr, probe, numbers, kept)?;
    // Configs before the level: a config left behind could fail the restore's audit.
    delete_touched(addr, probe, numbers, kept)?;
    restore_level(addr, probe, numbers, kept)
}

/// `AlterableConfig.ConfigOperation` DELETE (KIP-339).
const DELETE: i8 = 1;

/// Deletes every config in `kept`'s `configs`: NOT_CONTROLLER is retried for up to
/// [`TOPIC_PREPARE_TIMEOUT`]; any other answer ends that resource (an error code means the
/// controller does not hold configs there). Why it could not reach the controller, otherwise.
fn delete_touched(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    kept: &Registered,
) -> Result<(), String> {
    let touched = kept
        .lock()
        .map_err(|_| "the kept-state lock is poisoned".to_owned())?
        .configs
        .clone();
    if touched.is_empty() {
        return Ok(());
    }
    let Some(version) = common_version(probe, ApiKey::INCREMENTAL_ALTER_CONFIGS) else {
        return Err(
            "configs set by an earlier scenario cannot be deleted: the controller does not \
             advertise IncrementalAlterConfigs"
                .into(),
        );
    };
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    for ((resource_type, resource_name), names) in touched {
        let resource = AlterConfigsResource {
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
        };
        let what = format!("deleting configs {names:?} of resource {resource_type}/{resource_name:?} (set by a scenario)");
        loop {
            let body = RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
                resources: vec![resource.clone()],
                validate_only: false,
                ..Default::default()
            });
            let answer = call(
                addr,
                numbers,
                ApiKey::INCREMENTAL_ALTER_CONFIGS,
                version,
                body,
                IO_TIMEOUT,
            )
            .map_err(|e| format!("{what}: {e}"))?;
            let ResponseBody::IncrementalAlterConfigs(r) = answer else {
                return Err(format!(
                    "{what}: IncrementalAlterConfigs answered as another API"
                ));
            };
            let code = r
                .responses
                .first()
                .map_or(ErrorCode::NONE, |x| ErrorCode(x.error_code));
            if code == ErrorCode::NOT_CONTROLLER && Instant::now() < deadline {
                std::thread::sleep(NOT_CONTROLLER_BACKOFF);
                continue;
            }
            // Any other answer is final too: a resource the controller refuses to address
            // (another broker's configs, a topic that is gone, a malformed name the scenario
            // sent on purpose) holds nothing the scenario could have set.
            if let Ok(mut k) = kept.lock() {
                k.configs.remove(&(resource_type, resource_name.clone()));
            }
            break;
        }
    }
    Ok(())
}
