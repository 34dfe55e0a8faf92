//! The `tcp://HOST:PORT` target: a live broker or controller over a real TCP socket, with
//! kipcheck playing the client (or a broker talking to a controller). Frames go out and come
//! back byte for byte (a response with a bad size prefix or cut short still reaches the
//! runner, whose strict decoder names the field and offset). Capabilities come from the
//! target's ApiVersions answer at construction plus `--capability` flags; a scenario whose
//! setup the live target cannot be put in is unsupported. The clock is real: `advance`
//! sleeps (bounded), every wait is bounded, and connection failures, closes and hangs are
//! reported to the runner (a close as [`ConnOutput::Closed`], a hang as no answer). This
//! module judges nothing.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::ToSocketAddrs;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::registry::TargetOptions;
use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, Session, SessionConfig, Target,
};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ApiVersionsRequest, ProvisionalNumbers,
    RequestBody, RequestHeader, ResponseBody,
};
use crate::model::SpecProfile;
use crate::scenario::{Capability, Role};

/// Longest single `advance` on a real clock; longer ones are unsupported.
pub const MAX_REAL_ADVANCE_MS: u64 = 60_000;
/// Bound on connecting and on writing one frame.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);

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
}

impl Probe {
    /// The advertised range of `wire_key`, if any.
    pub fn range(&self, wire_key: ApiKey) -> Option<AdvertisedApi> {
        self.apis.iter().copied().find(|a| a.api_key == wire_key.0)
    }
}

/// Asks the target at `addr` for its ApiVersions (v3, then v0 after a KIP-511 fallback),
/// blocking, every step bounded by [`IO_TIMEOUT`].
pub fn probe(addr: &str, numbers: &ProvisionalNumbers) -> Result<Probe, String> {
    let sock = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr} resolves to nothing"))?;
    let mut version = 3;
    loop {
        let mut s = std::net::TcpStream::connect_timeout(&sock, IO_TIMEOUT)
            .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        s.set_read_timeout(Some(IO_TIMEOUT))
            .map_err(|e| e.to_string())?;
        s.set_write_timeout(Some(IO_TIMEOUT))
            .map_err(|e| e.to_string())?;
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
        let frame = codec::encode_request_frame(&header, &body, numbers)
            .map_err(|e| format!("probe request: {e}"))?;
        s.write_all(&frame)
            .map_err(|e| format!("probe write to {addr}: {e}"))?;
        let mut size = [0u8; 4];
        s.read_exact(&mut size)
            .map_err(|e| format!("no ApiVersions answer from {addr}: {e}"))?;
        let n = i32::from_be_bytes(size);
        if !(0..=1 << 20).contains(&n) {
            return Err(format!("ApiVersions answer from {addr} claims {n} bytes"));
        }
        let mut resp = size.to_vec();
        resp.resize(4 + n as usize, 0);
        s.read_exact(&mut resp[4..])
            .map_err(|e| format!("ApiVersions answer from {addr} cut short: {e}"))?;
        let decoded = codec::decode_response_frame(
            &resp,
            DEFAULT_MAX_FRAME_SIZE,
            ApiKey::API_VERSIONS,
            version,
        )
        .map_err(|e| format!("ApiVersions answer from {addr} does not decode: {e}"))?;
        let ResponseBody::ApiVersions(av) = decoded.body else {
            return Err("ApiVersions answer of another API".into());
        };
        if decoded.fallback_v0 && version > 0 {
            version = 0;
            continue;
        }
        if av.error_code != 0 {
            return Err(format!("ApiVersions answered error {}", av.error_code));
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
    probe: Result<Probe, String>,
}

impl TcpTarget {
    /// Probes `addr` (its ApiVersions) for a target playing `opts.role` (default broker).
    /// An unreachable target still builds: every scenario then errors with the reason.
    pub fn new(addr: &str, opts: &TargetOptions) -> Result<Self, AdapterError> {
        let role = opts.role.unwrap_or(Role::Broker);
        if role == Role::Client {
            return Err(AdapterError::Setup(
                "tcp:// drives a broker or controller; drive a live client with client-cmd:".into(),
            ));
        }
        let readings = opts.readings.clone().unwrap_or_default();
        let numbers = readings.provisional;
        Ok(Self {
            addr: addr.to_owned(),
            role,
            declared: opts.capabilities.clone(),
            readings,
            numbers,
            probe: probe(addr, &numbers),
        })
    }

    /// What the probe found (or why it failed).
    pub fn probe(&self) -> &Result<Probe, String> {
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
            (Some(crate::model::PolicyVerdict::Accept), true) if self.declared.contains(&Capability::PolicyControl) => None,
            (Some(_), true) => Some("the live broker's policy verdict is not known (only an accepting policy, declared with --capability policy_control, is)".into()),
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
        if self.role == Role::Broker
            && self.advertises_push_config(&self.numbers) == Some(false)
            && !capabilities.contains(&Capability::PolicyControl)
        {
            capabilities.push(Capability::PolicyControl);
        }
        // Never claimable over the wire, whatever was declared.
        capabilities.retain(|c| !matches!(c, Capability::VirtualClock | Capability::Events));
        capabilities.sort();
        capabilities.dedup();
        Capabilities {
            roles: vec![self.role],
            capabilities,
            readings: Some(self.readings.clone()),
        }
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        if let Err(e) = &self.probe {
            return Err(AdapterError::Crashed(format!("target unreachable: {e}")));
        }
        let needs_policy = config.setup.broker.is_some();
        if let Some(reason) = self.setup_mismatch(&config, needs_policy) {
            return Err(AdapterError::Unsupported(reason));
        }
        Ok(Box::new(TcpSession {
            addr: self.addr.clone(),
            start: Instant::now(),
            conns: BTreeMap::new(),
        }))
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
}

/// Reads frames as they are (size prefix included) until the peer closes. A size prefix
/// that is negative or over the codec's limit is delivered alone, a frame cut short as far
/// as it came; both then count as a close.
async fn read_frames(mut r: tokio::net::tcp::OwnedReadHalf, tx: mpsc::UnboundedSender<ConnOutput>) {
    loop {
        let mut size = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match r.read(&mut size[got..]).await {
                Ok(0) | Err(_) => {
                    if got > 0 {
                        let _ = tx.send(ConnOutput::Frame(size[..got].to_vec()));
                    }
                    let _ = tx.send(ConnOutput::Closed);
                    return;
                }
                Ok(n) => got += n,
            }
        }
        let n = i32::from_be_bytes(size);
        if n < 0 || n as usize > DEFAULT_MAX_FRAME_SIZE {
            let _ = tx.send(ConnOutput::Frame(size.to_vec()));
            let _ = tx.send(ConnOutput::Closed);
            return;
        }
        let mut frame = Vec::with_capacity(4 + (n as usize).min(64 * 1024));
        frame.extend_from_slice(&size);
        let mut body = (&mut r).take(n as u64);
        let complete = body.read_to_end(&mut frame).await.is_ok() && frame.len() == 4 + n as usize;
        let _ = tx.send(ConnOutput::Frame(frame));
        if !complete {
            let _ = tx.send(ConnOutput::Closed);
            return;
        }
    }
}

impl TcpSession {
    async fn conn(&mut self, id: u32) -> Result<&mut Conn, AdapterError> {
        if !self.conns.contains_key(&id) {
            let stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(&self.addr))
                .await
                .map_err(|_| {
                    AdapterError::Crashed(format!("connecting to {} timed out", self.addr))
                })?
                .map_err(|e| {
                    AdapterError::Crashed(format!("cannot connect to {}: {e}", self.addr))
                })?;
            let _ = stream.set_nodelay(true);
            let (r, w) = stream.into_split();
            let (tx, rx) = mpsc::unbounded_channel();
            let reader = tokio::spawn(read_frames(r, tx));
            self.conns.insert(
                id,
                Conn {
                    write: w,
                    rx,
                    reader,
                },
            );
        }
        self.conns
            .get_mut(&id)
            .ok_or_else(|| AdapterError::Crashed("connection vanished".into()))
    }
}

fn unsupported(what: &str) -> AdapterError {
    AdapterError::Unsupported(format!(
        "{what} is not possible against a live tcp:// target"
    ))
}

#[async_trait]
impl Session for TcpSession {
    async fn send(&mut self, conn: u32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let c = self.conn(conn).await?;
        match tokio::time::timeout(IO_TIMEOUT, c.write.write_all(&frame)).await {
            // A write into a connection the peer closed: the reader reports the close.
            Ok(_) => Ok(()),
            Err(_) => Err(AdapterError::Crashed(
                "the target stopped reading (write timed out)".into(),
            )),
        }
    }

    async fn recv(&mut self, conn: u32, wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        let Some(c) = self.conns.get_mut(&conn) else {
            return Ok(None);
        };
        match tokio::time::timeout(Duration::from_millis(wait_ms), c.rx.recv()).await {
            Ok(Some(out)) => Ok(Some(out)),
            Ok(None) => Ok(Some(ConnOutput::Closed)),
            Err(_) => Ok(None),
        }
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        Err(unsupported(&format!("{action:?}")))
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
            return Err(AdapterError::Unsupported(format!(
                "advance of {ms} ms on a real clock (limit {MAX_REAL_ADVANCE_MS} ms)"
            )));
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn events(&self) -> Vec<Value> {
        Vec::new()
    }
}
