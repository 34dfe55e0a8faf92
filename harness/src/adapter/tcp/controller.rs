//! What kipcheck keeps about a live KRaft controller across scenarios (`tcp://` in the
//! controller role), and the one way it asks one for its own purposes. Kept: its cluster id,
//! learnt once from DescribeCluster when the target is built, the brokers the scenarios
//! registered with it, the configs they set and whether they may have moved its
//! metadata.version ([`RegistrationWatch`] notes them; `cleanup.rs` undoes them when the
//! session ends, so the next session starts clean and a scenario passes in a full run as it
//! does alone). Asking: [`Link`] and [`call`] (one request, its decoded answer or a
//! `CallError`), and [`until_active`], the one loop that retries while the controller
//! answers NOT_CONTROLLER. All I/O here is blocking and bounded; it must not judge an answer
//! to a scenario's own request (the runner does).

use std::collections::{BTreeMap, BTreeSet};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::probe::{common_version, Probe};
use super::{IO_TIMEOUT, NOT_CONTROLLER_BACKOFF};
use crate::adapter::error::{CallError, ClusterIdError};
use crate::adapter::manifest::{Downgrade, TargetManifest};
use crate::adapter::target::Outbound;
use crate::codec::{
    self,
    limits::{DEFAULT_MAX_FRAME_SIZE, PEER_MAX_FRAME_SIZE},
    ApiKey, DescribeClusterRequest, ErrorCode, ProvisionalNumbers, RequestBody, RequestHeader,
    ResponseBody,
};
use crate::net::{self, BlockingFrames, NetError};

/// `DescribeCluster`'s `EndpointType` for controllers (KIP-919).
const CONTROLLER_ENDPOINTS: i8 = 2;

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
    /// A session sent UpdateFeatures and the levels have not been checked back since.
    pub(super) level_touched: bool,
    /// Each feature kipcheck may move, with the manifest's finalized level and how the
    /// controller can move it down: metadata.version when the manifest declares moves, and
    /// every entry of its `features` (none: no scenario that moves a level is bound).
    pub(super) restore_to: BTreeMap<String, (i16, Downgrade)>,
}

impl Kept {
    /// What kipcheck keeps for a controller declared by `manifest`.
    pub(super) fn shared(manifest: Option<&TargetManifest>) -> Registered {
        let mut restore_to = BTreeMap::new();
        if let Some(m) = manifest {
            if let Some(moves) = &m.metadata_version.moves {
                let mv = (m.metadata_version.finalized, moves.downgrade);
                restore_to.insert("metadata.version".to_owned(), mv);
            }
            for (name, f) in &m.features {
                restore_to.insert(name.clone(), (f.finalized, f.downgrade));
            }
        }
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

/// A blocking connection to the controller for kipcheck's own requests, one at a time; every
/// answer is read up to [`PEER_MAX_FRAME_SIZE`].
pub(super) struct Link {
    addr: String,
    numbers: ProvisionalNumbers,
    frames: BlockingFrames,
    correlation_id: i32,
}

impl Link {
    /// Connects to `addr` (`api`: the first request, for the error) within `timeout`, which
    /// also bounds each write; requests are encoded with `numbers`.
    pub(super) fn open(
        addr: &str,
        numbers: &ProvisionalNumbers,
        api: &'static str,
        timeout: Duration,
    ) -> Result<Self, CallError> {
        let unreachable = |e: std::io::Error| CallError::Net {
            api,
            source: NetError::Connect {
                addr: addr.to_owned(),
                source: Arc::new(e),
            },
        };
        let sock = addr
            .to_socket_addrs()
            .map_err(unreachable)?
            .next()
            .ok_or_else(|| unreachable(std::io::ErrorKind::NotFound.into()))?;
        let s = TcpStream::connect_timeout(&sock, timeout).map_err(unreachable)?;
        s.set_write_timeout(Some(timeout)).map_err(unreachable)?;
        let _ = s.set_nodelay(true);
        Ok(Link {
            addr: addr.to_owned(),
            numbers: *numbers,
            frames: BlockingFrames::new(s, addr, PEER_MAX_FRAME_SIZE),
            correlation_id: 0,
        })
    }

    /// One request (`body` at `version`) and its decoded answer (each read bounded by
    /// `timeout`), or why there is none.
    pub(super) fn call(
        &mut self,
        version: i16,
        body: &RequestBody,
        timeout: Duration,
    ) -> Result<ResponseBody, CallError> {
        let key = body.api_key();
        let api = api_name(key);
        self.correlation_id += 1;
        let header = RequestHeader {
            request_api_key: key.0,
            request_api_version: version,
            correlation_id: self.correlation_id,
            client_id: Some("kipcheck-setup".into()),
            ..Default::default()
        };
        let frame =
            codec::encode_request_frame(&header, body, &self.numbers).map_err(|source| {
                CallError::Encode {
                    api,
                    version,
                    source,
                }
            })?;
        let net = |source| CallError::Net { api, source };
        net::write_frame_blocking(self.frames.get_mut(), &self.addr, &frame).map_err(net)?;
        let answer = self.frames.next(timeout).map_err(net)?;
        codec::decode_response_frame(&answer, DEFAULT_MAX_FRAME_SIZE, key, version)
            .map(|d| d.body)
            .map_err(|source| CallError::Undecodable { api, source })
    }
}

/// One request (`body` at `version`) on a connection of its own, blocking (every step
/// bounded by `timeout`): its decoded answer, or why there is none.
pub(super) fn call(
    addr: &str,
    numbers: &ProvisionalNumbers,
    (version, body): (i16, &RequestBody),
    timeout: Duration,
) -> Result<ResponseBody, CallError> {
    let api = api_name(body.api_key());
    Link::open(addr, numbers, api, timeout)?.call(version, body, timeout)
}

/// The name errors give the API `key`.
fn api_name(key: ApiKey) -> &'static str {
    key.name().unwrap_or("request")
}

/// Asks again (`ask`: one request, e.g. [`call`]), [`NOT_CONTROLLER_BACKOFF`] apart, while
/// the answer says NOT_CONTROLLER and `deadline` has not passed: the controller asked is not
/// (or no longer) the active one (a KRaft controller that hit an internal error renounces
/// leadership until it is elected again; a failover moves it). The first other answer, or
/// the last one at the deadline, is returned as it came: the caller names the refusal.
pub(super) fn until_active<E>(
    deadline: Instant,
    mut ask: impl FnMut() -> Result<ResponseBody, E>,
) -> Result<ResponseBody, E> {
    loop {
        let answer = ask()?;
        if !says_not_controller(&answer) || Instant::now() >= deadline {
            return Ok(answer);
        }
        std::thread::sleep(NOT_CONTROLLER_BACKOFF);
    }
}

/// Whether any error code of `answer` (of the APIs kipcheck sends on its own) is
/// NOT_CONTROLLER.
fn says_not_controller(answer: &ResponseBody) -> bool {
    let nc = |code: i16| code == ErrorCode::NOT_CONTROLLER.0;
    match answer {
        ResponseBody::UnregisterBroker(r) => nc(r.error_code),
        ResponseBody::IncrementalAlterConfigs(r) => r.responses.iter().any(|x| nc(x.error_code)),
        ResponseBody::UpdateFeatures(r) => {
            nc(r.error_code) || r.results.iter().flatten().any(|f| nc(f.error_code))
        }
        ResponseBody::DeleteTopics(r) => r.responses.iter().any(|x| nc(x.error_code)),
        ResponseBody::CreateTopics(r) => r.topics.iter().any(|x| nc(x.error_code)),
        _ => false,
    }
}

/// The controller's cluster id, from its DescribeCluster answer (controller endpoints), or
/// why it cannot be learnt.
pub(super) fn learn_cluster_id(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
) -> Result<String, ClusterIdError> {
    let Some(version) = common_version(probe, ApiKey::DESCRIBE_CLUSTER) else {
        return Err(ClusterIdError::NoDescribeCluster);
    };
    let body = RequestBody::DescribeCluster(DescribeClusterRequest {
        endpoint_type: (version >= 1).then_some(CONTROLLER_ENDPOINTS),
        include_fenced_brokers: (version >= 2).then_some(false),
        ..Default::default()
    });
    let answer = call(addr, numbers, (version, &body), IO_TIMEOUT)?;
    let ResponseBody::DescribeCluster(d) = answer else {
        return Err(CallError::OtherApi {
            api: "DescribeCluster",
        }
        .into());
    };
    if d.error_code != ErrorCode::NONE.0 {
        return Err(ClusterIdError::Refused {
            code: ErrorCode(d.error_code),
            message: d.error_message.map(|m| m.to_string()),
        });
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
    /// Notes a request kipcheck sends on `conn`: an UpdateFeatures (whatever its answer, even
    /// none) marks the level to be checked back; a BrokerRegistration is awaited. A typed send
    /// is read as built; a `send_raw` frame is decoded here (a malformed one registers nobody).
    pub(super) fn sent(
        &mut self,
        conn: u32,
        out: &Outbound,
        numbers: &ProvisionalNumbers,
        kept: &Registered,
    ) {
        let frame = &out.frame;
        if frame.get(4..6) == Some(&ApiKey::UPDATE_FEATURES.0.to_be_bytes()[..]) {
            if let Ok(mut k) = kept.lock() {
                k.level_touched = !k.restore_to.is_empty();
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
        let decoded;
        let (header, body) = match out.request.as_deref() {
            Some((header, body)) => (header, body),
            None => {
                let Ok(d) = codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, numbers)
                else {
                    return;
                };
                decoded = d;
                (&decoded.header, &decoded.body)
            }
        };
        // (resource type, resource name, config names) of an alter that may write.
        let touched: Vec<(i8, String, Vec<String>)> = match body {
            RequestBody::BrokerRegistration(r) => {
                self.pending.insert(
                    (conn, header.correlation_id),
                    (header.request_api_version, r.broker_id),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{
        encode_response_frame, BrokerRegistrationRequest, BrokerRegistrationResponse, ResponseBody,
        ResponseHeader,
    };

    /// A registration kipcheck built (typed) and the controller's NONE answer to it, on
    /// connection 3 under correlation id 11.
    fn registration(broker_id: i32) -> (RequestHeader, RequestBody, Vec<u8>) {
        let header = RequestHeader {
            request_api_key: ApiKey::BROKER_REGISTRATION.0,
            request_api_version: 6,
            correlation_id: 11,
            client_id: Some("kipcheck".into()),
            ..Default::default()
        };
        let body = RequestBody::BrokerRegistration(BrokerRegistrationRequest {
            broker_id,
            ..Default::default()
        });
        let answer = encode_response_frame(
            &ResponseHeader {
                correlation_id: 11,
                ..Default::default()
            },
            &ResponseBody::BrokerRegistration(BrokerRegistrationResponse::default()),
            6,
        )
        .unwrap();
        (header, body, answer)
    }

    #[test]
    fn a_typed_registration_is_read_as_built_and_a_raw_one_is_decoded() {
        let numbers = ProvisionalNumbers::default();
        let (header, body, answer) = registration(42);
        let frame = codec::encode_request_frame(&header, &body, &numbers).unwrap();
        // The frame cut after the API key: it no longer decodes, so only the typed request
        // tells the watch who registers.
        let cut = frame[..8].to_vec();

        let registered = Registered::default();
        let mut watch = RegistrationWatch::default();
        let typed = Outbound {
            frame: cut.clone(),
            request: Some(Box::new((header, body))),
        };
        watch.sent(3, &typed, &numbers, &registered);
        watch.answered(3, &answer, &registered);
        assert_eq!(registered.lock().unwrap().brokers, BTreeSet::from([42]));

        let registered = Registered::default();
        let mut watch = RegistrationWatch::default();
        watch.sent(3, &Outbound::raw(cut), &numbers, &registered);
        watch.answered(3, &answer, &registered);
        assert!(registered.lock().unwrap().brokers.is_empty());

        let (header, body, answer) = registration(7);
        let whole = codec::encode_request_frame(&header, &body, &numbers).unwrap();
        watch.sent(3, &Outbound::raw(whole), &numbers, &registered);
        watch.answered(3, &answer, &registered);
        assert_eq!(registered.lock().unwrap().brokers, BTreeSet::from([7]));
    }
}
