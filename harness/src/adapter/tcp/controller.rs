//! What kipcheck keeps about a live KRaft controller across scenarios (`tcp://` in the
//! controller role): its cluster id, learnt once from DescribeCluster when the target is
//! built, and the brokers the scenarios registered with it. A real controller keeps every
//! registration until it is unregistered, so each broker id a scenario registered
//! successfully is unregistered (UnregisterBroker) when the scenario's session ends, and the
//! next session starts with none: scenarios that check "this id is not registered" pass in a
//! full run as they do alone. All I/O here is blocking and bounded.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{common_version, Probe, IO_TIMEOUT, NOT_CONTROLLER_BACKOFF, TOPIC_PREPARE_TIMEOUT};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, DescribeClusterRequest, ErrorCode,
    ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody, UnregisterBrokerRequest,
};
use crate::net::{self, Exchange};

/// `DescribeCluster`'s `EndpointType` for controllers (KIP-919).
const CONTROLLER_ENDPOINTS: i8 = 2;

/// Broker ids kipcheck registered with the controller and has not unregistered yet.
pub(super) type Registered = Arc<Mutex<BTreeSet<i32>>>;

/// One request on a connection of its own, blocking: its decoded answer, or why there is none.
fn call(
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
    /// Notes a request frame kipcheck sends on `conn`, if it is a BrokerRegistration that
    /// decodes (a malformed one registers nobody).
    pub(super) fn sent(&mut self, conn: u32, frame: &[u8], numbers: &ProvisionalNumbers) {
        if frame.get(4..6) != Some(&ApiKey::BROKER_REGISTRATION.0.to_be_bytes()[..]) {
            return;
        }
        let Ok(req) = codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, numbers) else {
            return;
        };
        if let RequestBody::BrokerRegistration(r) = &req.body {
            self.pending.insert(
                (conn, req.header.correlation_id),
                (req.header.request_api_version, r.broker_id),
            );
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
                    set.insert(broker);
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
                    set.remove(&id);
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
