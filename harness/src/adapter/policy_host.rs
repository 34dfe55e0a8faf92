//! The policy host: kipcheck's end of the KIP-1324 policy bridge (docs/policy-bridge.md). A
//! live broker configured with `client.config.policy.class.name` set to the bridge class
//! (interop/policy-bridge/) connects to it; every `ClientConfigPolicy.process()` call arrives
//! here as one JSON line and is answered with the verdict of the scenario running now
//! (`setup.broker.policy`: accept, or reject with a message), and recorded as a
//! `policy_invoked` observation shaped like the reference model's event. One JSON object per
//! line each way, on loopback TCP; every line is bounded in length; a bridge that breaks the
//! protocol is told why and disconnected. Blocking I/O on threads (one per bridge): the host
//! starts while the target is built, before any runtime exists. This module judges nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::model::PolicyVerdict;

/// The protocol version the host speaks (the bridge's `hello` must name it).
pub const POLICY_PROTOCOL_VERSION: u32 = 1;
/// The longest line accepted from a bridge (a PushConfig is bounded by the broker's
/// `client.config.max.bytes`; this only bounds what the host buffers).
pub const MAX_BRIDGE_LINE_BYTES: usize = 16 * 1024 * 1024;
/// How far the broker's `ClientConfigData.timestamp` may be from the broker's own clock at the
/// call (the bridge reads `System.currentTimeMillis()` on entering `process`) and still count
/// as "its current timestamp": the observation then carries the call's scenario time.
pub const TIMESTAMP_WINDOW_MS: i64 = 5_000;
/// Bound on writing one answer to a bridge.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
pub enum PolicyHostError {
    /// The address does not resolve.
    #[error("--policy-host {addr}: cannot resolve: {source}")]
    Resolve {
        /// The address given.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing could be bound there.
    #[error("--policy-host {addr}: cannot listen: {source}")]
    Bind {
        /// The address given.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Why a bridge's line was refused (sent back as `{"error": ...}` before disconnecting).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BridgeError {
    /// A line over [`MAX_BRIDGE_LINE_BYTES`].
    #[error("line longer than {max} bytes")]
    TooLong {
        /// The bound.
        max: usize,
    },
    /// The connection ended inside a line.
    #[error("connection closed inside a line")]
    Truncated,
    /// Not a JSON object of the protocol.
    #[error("not a protocol line: {detail}")]
    Malformed {
        /// serde's reason.
        detail: String,
    },
    /// A `process` call before the `hello`.
    #[error("the first line must be a hello")]
    NoHello,
    /// A `hello` with another protocol version.
    #[error("protocol {got} is not supported (the host speaks {POLICY_PROTOCOL_VERSION})")]
    Version {
        /// The version the bridge named.
        got: u32,
    },
}

/// One line from a bridge.
#[derive(Debug, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case", deny_unknown_fields)]
enum BridgeLine {
    /// The bridge connected.
    Hello {
        /// Its protocol version.
        protocol: u32,
        /// Its name and version, for the record.
        bridge: String,
    },
    /// `ClientConfigPolicy.process(context, data)` was invoked.
    Process(ProcessCall),
}

/// A `process` call as the bridge reports it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProcessCall {
    /// The bridge's call number (echoed in the answer).
    id: u64,
    /// `ClientConfigData.timestamp()`.
    timestamp: i64,
    /// The broker's clock (`System.currentTimeMillis()`) when `process` was entered.
    clock_ms: i64,
    /// The `AuthorizableRequestContext`, as the bridge read it.
    context: serde_json::Map<String, Value>,
    /// `ClientConfigData.configs()`, in order.
    configs: Vec<CallConfig>,
}

/// One `ClientConfig` record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CallConfig {
    key: Option<String>,
    /// The value by its Java class: `{"int": 5}`, `{"list": [...]}`, ... or `null`.
    value: Value,
    /// `ConfigDef.Type.name()`, or null.
    #[serde(rename = "type")]
    ty: Option<String>,
    is_default: bool,
}

/// The scenario the host answers for now.
#[derive(Debug)]
struct Slot {
    generation: u64,
    verdict: PolicyVerdict,
    /// The scenario's time: the sum of its `advance` steps so far.
    nominal_ms: u64,
    events: Vec<Value>,
}

/// What the bridge threads and the sessions share.
#[derive(Debug, Default)]
struct Board {
    slot: Option<Slot>,
    generation: u64,
    /// Calls that arrived while no scenario was running (answered accept, not recorded).
    unattributed: u64,
    /// The names of the bridges that said hello and are still connected.
    bridges: Vec<String>,
}

fn lock(board: &Mutex<Board>) -> MutexGuard<'_, Board> {
    board.lock().unwrap_or_else(|e| e.into_inner())
}

/// The listening host. Dropping it stops accepting and disconnects every bridge.
#[derive(Debug)]
pub struct PolicyHost {
    addr: SocketAddr,
    board: Arc<Mutex<Board>>,
    stop: Arc<AtomicBool>,
    conns: Arc<Mutex<Vec<TcpStream>>>,
}

impl PolicyHost {
    /// Listens on `addr` (`HOST:PORT`; port 0 picks one, see [`PolicyHost::local_addr`]).
    pub fn bind(addr: &str) -> Result<Self, PolicyHostError> {
        let resolved = addr
            .to_socket_addrs()
            .map_err(|source| PolicyHostError::Resolve {
                addr: addr.to_owned(),
                source,
            })?
            .collect::<Vec<_>>();
        let listener =
            TcpListener::bind(&resolved[..]).map_err(|source| PolicyHostError::Bind {
                addr: addr.to_owned(),
                source,
            })?;
        let local = listener
            .local_addr()
            .map_err(|source| PolicyHostError::Bind {
                addr: addr.to_owned(),
                source,
            })?;
        let host = Self {
            addr: local,
            board: Arc::default(),
            stop: Arc::default(),
            conns: Arc::default(),
        };
        let (board, stop, conns) = (host.board.clone(), host.stop.clone(), host.conns.clone());
        std::thread::Builder::new()
            .name("kipcheck-policy-host".into())
            .spawn(move || accept_loop(listener, board, stop, conns))
            .map_err(|source| PolicyHostError::Bind {
                addr: addr.to_owned(),
                source,
            })?;
        Ok(host)
    }

    /// The address bridges connect to.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bridges connected now (each said hello), by the name they gave.
    pub fn bridges(&self) -> Vec<String> {
        lock(&self.board).bridges.clone()
    }

    /// Calls answered while no scenario was running.
    pub fn unattributed(&self) -> u64 {
        lock(&self.board).unattributed
    }

    /// From now until the scope is dropped, calls are answered with `verdict` and recorded
    /// in the scope (a newer scope replaces an older one).
    pub fn begin(&self, verdict: PolicyVerdict) -> PolicyScope {
        let mut b = lock(&self.board);
        b.generation += 1;
        let generation = b.generation;
        b.slot = Some(Slot {
            generation,
            verdict,
            nominal_ms: 0,
            events: Vec::new(),
        });
        PolicyScope {
            board: self.board.clone(),
            generation,
        }
    }
}

impl Drop for PolicyHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        for c in self
            .conns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            let _ = c.shutdown(Shutdown::Both);
        }
    }
}

/// One scenario's hold on the host: its verdict, its clock and the calls it saw.
#[derive(Debug)]
pub struct PolicyScope {
    board: Arc<Mutex<Board>>,
    generation: u64,
}

impl PolicyScope {
    /// The scenario's time moved on by `ms` (an `advance` step).
    pub fn advance(&self, ms: u64) {
        if let Some(s) = lock(&self.board)
            .slot
            .as_mut()
            .filter(|s| s.generation == self.generation)
        {
            s.nominal_ms = s.nominal_ms.saturating_add(ms);
        }
    }

    /// Every `policy_invoked` observation so far, in arrival order.
    pub fn events(&self) -> Vec<Value> {
        lock(&self.board)
            .slot
            .as_ref()
            .filter(|s| s.generation == self.generation)
            .map(|s| s.events.clone())
            .unwrap_or_default()
    }
}

impl Drop for PolicyScope {
    fn drop(&mut self) {
        let mut b = lock(&self.board);
        if b.slot.as_ref().map(|s| s.generation) == Some(self.generation) {
            b.slot = None;
        }
    }
}

fn accept_loop(
    listener: TcpListener,
    board: Arc<Mutex<Board>>,
    stop: Arc<AtomicBool>,
    conns: Arc<Mutex<Vec<TcpStream>>>,
) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if let Ok(clone) = stream.try_clone() {
            conns.lock().unwrap_or_else(|e| e.into_inner()).push(clone);
        }
        let board = board.clone();
        let _ = std::thread::Builder::new()
            .name("kipcheck-policy-bridge".into())
            .spawn(move || serve_bridge(stream, &board));
    }
}

/// Reads one line of at most `max` bytes (without its `\n`); `Ok(None)` at a clean end.
fn read_line(r: &mut impl BufRead, max: usize) -> Result<Option<Vec<u8>>, BridgeError> {
    let mut line = Vec::new();
    let n = r
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|_| BridgeError::Truncated)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(if line.len() > max {
            BridgeError::TooLong { max }
        } else {
            BridgeError::Truncated
        });
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(line))
}

fn serve_bridge(stream: TcpStream, board: &Mutex<Board>) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut said_hello: Option<String> = None;
    let result = loop {
        let line = match read_line(&mut reader, MAX_BRIDGE_LINE_BYTES) {
            Ok(Some(l)) => l,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        let parsed =
            serde_json::from_slice::<BridgeLine>(&line).map_err(|e| BridgeError::Malformed {
                detail: e.to_string(),
            });
        let answer = match parsed {
            Err(e) => break Err(e),
            Ok(BridgeLine::Hello { protocol, .. }) if protocol != POLICY_PROTOCOL_VERSION => {
                break Err(BridgeError::Version { got: protocol })
            }
            Ok(BridgeLine::Hello { bridge, .. }) => {
                if said_hello.is_none() {
                    lock(board).bridges.push(bridge.clone());
                    said_hello = Some(bridge);
                }
                json!({"hello": "kipcheck-policy-host", "protocol": POLICY_PROTOCOL_VERSION})
            }
            Ok(BridgeLine::Process(_)) if said_hello.is_none() => break Err(BridgeError::NoHello),
            Ok(BridgeLine::Process(call)) => record(&mut lock(board), call),
        };
        if write_line(&mut out, &answer).is_err() {
            break Ok(());
        }
    };
    if let Err(e) = result {
        let _ = write_line(&mut out, &json!({ "error": e.to_string() }));
    }
    if let Some(name) = said_hello {
        let mut b = lock(board);
        if let Some(i) = b.bridges.iter().position(|n| *n == name) {
            b.bridges.remove(i);
        }
    }
    let _ = out.shutdown(Shutdown::Both);
}

fn write_line(out: &mut TcpStream, v: &Value) -> std::io::Result<()> {
    let mut line = v.to_string().into_bytes();
    line.push(b'\n');
    out.write_all(&line)
}

/// Records `call` in the running scenario and returns the answer to send.
fn record(board: &mut Board, call: ProcessCall) -> Value {
    let Some(slot) = board.slot.as_mut() else {
        board.unattributed += 1;
        return json!({"id": call.id, "verdict": "accept"});
    };
    slot.events.push(observation(slot.nominal_ms, &call));
    match &slot.verdict {
        PolicyVerdict::Accept => json!({"id": call.id, "verdict": "accept"}),
        PolicyVerdict::Reject { message } => {
            json!({"id": call.id, "verdict": "reject", "message": message})
        }
        PolicyVerdict::Fail { message } => {
            json!({"id": call.id, "verdict": "fail", "message": message})
        }
    }
}

/// The `policy_invoked` observation of a call at scenario time `at`: the reference model's
/// event fields (`at`, `timestamp`, `configs` of `key`/`value`/`ty`/`is_default`) plus what a
/// live broker adds (`broker_timestamp`, `broker_clock_ms`, `context`). `timestamp` is `at`
/// when the broker's timestamp is within [`TIMESTAMP_WINDOW_MS`] of its own clock at the
/// call, else `at` shifted by the difference (so a zero or seconds timestamp shows as such).
fn observation(at: u64, call: &ProcessCall) -> Value {
    let skew = i128::from(call.timestamp) - i128::from(call.clock_ms);
    let timestamp = if skew.abs() <= i128::from(TIMESTAMP_WINDOW_MS) {
        i128::from(at)
    } else {
        i128::from(at) + skew
    };
    let timestamp = i64::try_from(timestamp).unwrap_or(if skew < 0 { i64::MIN } else { i64::MAX });
    let configs: Vec<Value> = call
        .configs
        .iter()
        .map(|c| json!({"key": c.key, "value": c.value, "ty": c.ty, "is_default": c.is_default}))
        .collect();
    json!({
        "event": "policy_invoked",
        "at": at,
        "timestamp": timestamp,
        "configs": configs,
        "broker_timestamp": call.timestamp,
        "broker_clock_ms": call.clock_ms,
        "context": call.context,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(timestamp: i64, clock_ms: i64) -> ProcessCall {
        ProcessCall {
            id: 1,
            timestamp,
            clock_ms,
            context: serde_json::Map::new(),
            configs: vec![CallConfig {
                key: Some("a".into()),
                value: json!({"int": 5}),
                ty: Some("INT".into()),
                is_default: true,
            }],
        }
    }

    #[test]
    fn a_timestamp_from_the_brokers_clock_is_the_calls_scenario_time() {
        let now = 1_764_600_000_000;
        for ts in [now, now - TIMESTAMP_WINDOW_MS, now + TIMESTAMP_WINDOW_MS] {
            let ev = observation(1234, &call(ts, now));
            assert_eq!(ev["timestamp"], json!(1234), "{ts}");
            assert_eq!(ev["broker_timestamp"], json!(ts));
        }
    }

    #[test]
    fn a_timestamp_off_the_brokers_clock_shows_the_difference() {
        let now = 1_764_600_000_000;
        assert_eq!(
            observation(1234, &call(0, now))["timestamp"],
            json!(1234 - now)
        );
        let seconds = now / 1000;
        assert_eq!(
            observation(10, &call(seconds, now))["timestamp"],
            json!(10 + seconds - now)
        );
        let late = now + TIMESTAMP_WINDOW_MS + 1;
        assert_eq!(
            observation(0, &call(late, now))["timestamp"],
            json!(TIMESTAMP_WINDOW_MS + 1)
        );
        assert_eq!(
            observation(0, &call(i64::MIN, i64::MAX))["timestamp"],
            json!(i64::MIN)
        );
    }

    #[test]
    fn lines_are_bounded_and_cut_lines_refused() {
        let mut r = BufReader::new(&b"abc\r\nlonger line\nend"[..]);
        assert_eq!(read_line(&mut r, 5), Ok(Some(b"abc".to_vec())));
        assert_eq!(read_line(&mut r, 5), Err(BridgeError::TooLong { max: 5 }));
        let mut r = BufReader::new(&b"end"[..]);
        assert_eq!(read_line(&mut r, 5), Err(BridgeError::Truncated));
        let mut r = BufReader::new(&b""[..]);
        assert_eq!(read_line(&mut r, 5), Ok(None));
    }
}
