//! Runs a real client program against a loopback relay in front of a real broker and decodes
//! every request frame the client sends: the request header always, the body whenever kipcheck's
//! codec knows the API and version. Metadata responses are rewritten so that every broker is the
//! relay (the client's later connections come through it too); other responses pass through
//! untouched. Bounded: the client gets a deadline and is killed after it; relay sockets time
//! out. It judges through [`ClientFacts`] and never panics on what either side sends.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::child;
use crate::codec::{
    decode_request, decode_response, encode_response_frame, peek_request,
    peek_response_correlation_id, ApiKey, DecodeError, DecodeErrorKind, KString,
    ProvisionalNumbers, ResponseBody,
};
use crate::net::{BlockingFrames, NetError};

use super::env::ClientPeer;
use super::error::InteropError;
use super::verdict::{Fact, Verdict};

const MAX_FRAME: usize = 64 * 1024 * 1024;
const IO_TIMEOUT: Duration = Duration::from_millis(200);

/// One request frame a client sent, as decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedFrame {
    /// The API key on the wire.
    pub api_key: i16,
    /// The request version.
    pub version: i16,
    /// `Ok(true)`: header and body decoded strictly; `Ok(false)`: header decoded, body not
    /// checked (API or version unknown to kipcheck's codec); `Err`: a decode error.
    pub decoded: Result<bool, DecodeError>,
}

/// Everything observed while one client ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCapture {
    /// Every request frame, in arrival order across connections.
    pub frames: Vec<CapturedFrame>,
    /// The client's exit status (`None`: killed at the deadline).
    pub exit_code: Option<i32>,
    /// The last lines of its output, for the report.
    pub output: String,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// The facts a capture establishes.
pub trait ClientFacts {
    /// The client-suite facts: it bootstrapped and finished its operation, every frame decodes,
    /// it never sent PushConfig.
    fn facts(&self) -> Vec<Fact>;
}

impl ClientFacts for ClientCapture {
    fn facts(&self) -> Vec<Fact> {
        let push_key = ProvisionalNumbers::default()
            .wire_api_key(ApiKey::PUSH_CONFIG)
            .0;
        let fact = |id: &'static str, verdict, detail| Fact {
            id: id.into(),
            suite: "client",
            verdict,
            detail,
        };
        let mut keys: BTreeMap<i16, (i16, i16)> = BTreeMap::new();
        for f in &self.frames {
            let e = keys.entry(f.api_key).or_insert((f.version, f.version));
            e.0 = e.0.min(f.version);
            e.1 = e.1.max(f.version);
        }
        let apis = keys
            .iter()
            .map(|(k, (lo, hi))| {
                let name = ApiKey(*k).name().unwrap_or("?");
                if lo == hi {
                    format!("{name} v{lo}")
                } else {
                    format!("{name} v{lo}-{hi}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let strict = self.frames.iter().filter(|f| f.decoded == Ok(true)).count();
        let bad: Vec<&CapturedFrame> = self.frames.iter().filter(|f| f.decoded.is_err()).collect();
        let mut out = Vec::new();
        out.push(match self.exit_code {
            Some(0) if !self.frames.is_empty() => fact(
                "client-bootstraps",
                Verdict::Pass,
                format!(
                    "exit 0 in {:.1} s: {}",
                    self.elapsed.as_secs_f64(),
                    self.output.trim()
                ),
            ),
            code => fact(
                "client-bootstraps",
                Verdict::finding(
                    "the client bootstraps through the relay and its operation succeeds (exit 0)",
                    format!(
                        "exit {code:?} after {} frames: {}",
                        self.frames.len(),
                        self.output.trim()
                    ),
                ),
                String::new(),
            ),
        });
        out.push(if bad.is_empty() && !self.frames.is_empty() {
            fact(
                "client-frames-decode",
                Verdict::Pass,
                format!(
                    "{} frames ({strict} bodies decoded strictly): {apis}",
                    self.frames.len()
                ),
            )
        } else if self.frames.is_empty() {
            fact(
                "client-frames-decode",
                Verdict::Unsupported("no frame captured".into()),
                String::new(),
            )
        } else {
            fact(
                "client-frames-decode",
                Verdict::finding(
                    "every request frame decodes strictly",
                    bad.iter()
                        .map(|f| {
                            format!(
                                "{} v{}: {}",
                                ApiKey(f.api_key).name().unwrap_or("?"),
                                f.version,
                                f.decoded
                                    .as_ref()
                                    .err()
                                    .map(ToString::to_string)
                                    .unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                ),
                String::new(),
            )
        });
        out.push(if keys.contains_key(&push_key) {
            fact(
                "client-no-push-config",
                Verdict::finding(
                    "an older client never sends PushConfig",
                    format!("sent PushConfig: {apis}"),
                ),
                String::new(),
            )
        } else if self.frames.is_empty() {
            fact(
                "client-no-push-config",
                Verdict::Unsupported("no frame captured".into()),
                String::new(),
            )
        } else {
            fact(
                "client-no-push-config",
                Verdict::Pass,
                format!("APIs used: {apis}"),
            )
        });
        out
    }
}

/// Runs `client` with `{bootstrap}` pointing at a relay in front of `upstream` and returns what
/// it sent. The client is killed after `deadline`.
pub fn capture_client(
    client: &ClientPeer,
    upstream: &str,
    deadline: Duration,
) -> Result<ClientCapture, InteropError> {
    let err = |message: String| InteropError::Client {
        client: client.name.to_string(),
        message,
    };
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| err(format!("bind relay: {e}")))?;
    let relay = listener
        .local_addr()
        .map_err(|e| err(format!("relay address: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| err(format!("relay: {e}")))?;
    let frames = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));

    let acceptor = {
        let (frames, stop, upstream) = (frames.clone(), stop.clone(), upstream.to_string());
        let relay_port = i32::from(relay.port());
        thread::spawn(move || {
            let mut conns = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((down, _)) => {
                        let (frames, stop, upstream) =
                            (frames.clone(), stop.clone(), upstream.clone());
                        conns.push(thread::spawn(move || {
                            relay_connection(down, &upstream, relay_port, &frames, &stop)
                        }));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(20)),
                }
            }
            for c in conns {
                let _ = c.join();
            }
        })
    };

    let command = client.command.replace("{bootstrap}", &relay.to_string());
    let started = Instant::now();
    let mut cmd = child::shell(&format!("exec {command}"));
    cmd.env(
        "KIPCHECK_CLIENT_DEADLINE_MS",
        deadline.as_millis().to_string(),
    );
    let (mut proc, pgid) = child::spawn_blocking(cmd, Stdio::null(), Stdio::piped())
        .map_err(|e| err(format!("start {command:?}: {e}")))?;
    let out = child::drain(proc.stdout.take());
    let errs = child::drain(proc.stderr.take());
    let hard = deadline + Duration::from_secs(5);
    let exit_code = loop {
        match proc.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if started.elapsed() < hard => thread::sleep(Duration::from_millis(50)),
            _ => {
                // The whole group: whatever the client started goes too (and so the pipes
                // the drain threads wait on close).
                if let Some(pgid) = pgid {
                    child::kill_group(pgid);
                }
                let _ = proc.kill();
                let _ = proc.wait();
                break None;
            }
        }
    };
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let _ = acceptor.join();
    let stdout = out.join().unwrap_or_default();
    let stderr = errs.join().unwrap_or_default();
    let output = if exit_code == Some(0) {
        last_lines(&stdout, 1)
    } else {
        last_lines(&format!("{stdout}{stderr}"), 3)
    };
    let frames = std::mem::take(&mut *frames.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(ClientCapture {
        frames,
        exit_code,
        output,
        elapsed,
    })
}

fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// A frame's size prefix + payload, or `None` when the stream ended or broke. A read that
/// times out is tried again until `stop` is set.
fn read_frame(s: &mut BlockingFrames, stop: &AtomicBool) -> Option<Vec<u8>> {
    loop {
        match s.next(IO_TIMEOUT) {
            Ok(frame) => return Some(frame),
            Err(NetError::TimedOut { .. }) if !stop.load(Ordering::Relaxed) => {}
            Err(_) => return None,
        }
    }
}

type Pending = Arc<Mutex<BTreeMap<i32, (ApiKey, i16)>>>;

fn relay_connection(
    down: TcpStream,
    upstream: &str,
    relay_port: i32,
    frames: &Mutex<Vec<CapturedFrame>>,
    stop: &Arc<AtomicBool>,
) {
    let Ok(mut up) = TcpStream::connect(upstream) else {
        return;
    };
    for s in [&down, &up] {
        let _ = s.set_nonblocking(false);
        let _ = s.set_read_timeout(Some(IO_TIMEOUT));
        let _ = s.set_nodelay(true);
    }
    let pending: Pending = Arc::new(Mutex::new(BTreeMap::new()));
    let (Ok(up_r), Ok(mut down_w)) = (up.try_clone(), down.try_clone()) else {
        return;
    };
    let mut up_r = BlockingFrames::new(up_r, upstream, MAX_FRAME);
    let mut down = BlockingFrames::new(down, "the relayed client", MAX_FRAME);
    let back = {
        let (pending, stop) = (pending.clone(), stop.clone());
        thread::spawn(move || {
            while let Some(frame) = read_frame(&mut up_r, &stop) {
                let frame = rewrite_metadata(frame, &pending, relay_port);
                if down_w.write_all(&frame).is_err() {
                    break;
                }
            }
            let _ = down_w.shutdown(Shutdown::Both);
        })
    };
    let numbers = ProvisionalNumbers::default();
    while let Some(frame) = read_frame(&mut down, stop) {
        let peek = peek_request(&frame[4..]);
        let api_key = peek.api_key.map_or(-1, |k| k.0);
        let version = peek.api_version.unwrap_or(-1);
        let decoded = match decode_request(&frame[4..], 4, &numbers) {
            Ok(d) => {
                lock(&pending).insert(d.header.correlation_id, (d.api_key, version));
                Ok(true)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    DecodeErrorKind::UnknownApiKey { .. }
                        | DecodeErrorKind::UnsupportedVersion { .. }
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        };
        lock(frames).push(CapturedFrame {
            api_key,
            version,
            decoded,
        });
        if up.write_all(&frame).is_err() {
            break;
        }
    }
    let _ = up.shutdown(Shutdown::Both);
    let _ = back.join();
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Points every broker of a Metadata response at the relay; any other frame is returned as is.
fn rewrite_metadata(frame: Vec<u8>, pending: &Pending, relay_port: i32) -> Vec<u8> {
    let Some(cid) = frame.get(4..).and_then(peek_response_correlation_id) else {
        return frame;
    };
    let Some((key, version)) = lock(pending).remove(&cid) else {
        return frame;
    };
    if key != ApiKey::METADATA {
        return frame;
    }
    match decode_response(&frame[4..], 4, key, version) {
        Ok(mut d) => {
            if let ResponseBody::Metadata(m) = &mut d.body {
                for b in &mut m.brokers {
                    b.host = KString::from("127.0.0.1");
                    b.port = relay_port;
                }
            }
            encode_response_frame(&d.header, &d.body, version).unwrap_or(frame)
        }
        Err(_) => frame,
    }
}
