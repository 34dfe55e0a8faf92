//! The `exec:"COMMAND"` target: an implementation in any language, run as a subprocess and
//! driven through the JSON-lines adapter protocol of `docs/adapter-protocol.md` (version
//! [`PROTOCOL_VERSION`]). It translates each [`Session`] call into one protocol message and
//! the one reply into queued outputs, requests, releases and events; it converts Kafka frames
//! to and from JSON bodies with kipcheck's codec when the implementation asks for `json`.
//! Every way the process can misbehave (dying, garbage, a wrong message, an over-long line,
//! silence) is an [`AdapterError`], never a panic or a hang. It judges nothing.
//!
//! One process per scenario: a fresh process cannot carry state from one scenario into the
//! next, a crash is attributed to the scenario that caused it, the stderr tail in an error
//! belongs to that scenario alone, and `--jobs` runs scenarios in parallel with no
//! multiplexing in the protocol. The price is one process start per scenario (tens of ms for
//! Python). The `hello` is also read once when the target is built (from a probe process),
//! because capabilities are needed before any scenario opens.

use std::collections::{BTreeMap, VecDeque};

use async_trait::async_trait;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::error::{Crash, SetupError, Unsupported, Violation};
use super::exec_process::{ExecOptions, ExecProcess};
use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, Outbound, PeerAction, Session,
    SessionConfig, Target,
};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, ApiKey, ProvisionalNumbers, RequestBody, RequestHeader,
    ResponseBody, ResponseHeader,
};
use crate::scenario::typed_body;
use crate::scenario::{Capability, Role};

/// The adapter protocol version this kipcheck speaks.
pub const PROTOCOL_VERSION: u64 = 1;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// How Kafka frames travel between kipcheck and the implementation, as its `hello` chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameEncoding {
    /// Decoded bodies with Kafka's field names (kipcheck's codec converts).
    Json,
    /// Whole frames, size prefix included, in standard base64.
    Base64,
}

/// The implementation's first message.
#[derive(Clone, Debug, PartialEq, Deserialize)]
struct Hello {
    protocol: u64,
    roles: Vec<Role>,
    #[serde(default)]
    capabilities: Vec<Capability>,
    encoding: FrameEncoding,
}

/// An `error` reply to a step.
fn crashed(message: String) -> AdapterError {
    Crash::Reported { message }.into()
}

/// Reads and checks a `hello`.
async fn read_hello(p: &mut ExecProcess) -> Result<Hello, AdapterError> {
    let v = p.read().await?;
    if v.get("type").and_then(Value::as_str) != Some("hello") {
        return Err(p.protocol_error(Violation::NoHello { got: v.to_string() }));
    }
    match v.get("protocol").and_then(Value::as_u64) {
        Some(PROTOCOL_VERSION) => {}
        theirs => {
            return Err(p.protocol_error(Violation::Version {
                theirs,
                ours: PROTOCOL_VERSION,
            }))
        }
    }
    serde_json::from_value(v).map_err(|e| p.protocol_error(Violation::InvalidHello(e)))
}

/// A subprocess implementation under test.
#[derive(Clone, Debug)]
pub struct ExecTarget {
    command: String,
    opts: ExecOptions,
    hello: Hello,
}

impl ExecTarget {
    /// Starts `command` once to read its `hello` (then kills it). Callable from synchronous
    /// code and from inside a Tokio runtime: the probe runs on a thread of its own.
    pub fn start(command: &str, opts: ExecOptions) -> Result<Self, AdapterError> {
        let cmd = command.to_owned();
        let o = opts.clone();
        let probe = std::thread::spawn(move || -> Result<Hello, AdapterError> {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async {
                let mut p = ExecProcess::spawn(&cmd, &o)?;
                read_hello(&mut p).await
            })
        });
        let hello = probe.join().map_err(|_| Crash::Internal {
            what: "the hello probe thread",
        })??;
        Ok(Self {
            command: command.to_owned(),
            opts,
            hello,
        })
    }

    /// The frame encoding the implementation chose.
    pub fn encoding(&self) -> FrameEncoding {
        self.hello.encoding
    }
}

#[async_trait]
impl Target for ExecTarget {
    fn name(&self) -> String {
        format!("exec:{}", self.command)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            roles: self.hello.roles.clone(),
            capabilities: self.hello.capabilities.clone(),
            readings: None,
        }
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        let mut process = ExecProcess::spawn(&self.command, &self.opts)?;
        let hello = read_hello(&mut process).await?;
        if hello != self.hello {
            return Err(process.protocol_error(Violation::HelloChanged {
                first: format!("{:?}", self.hello),
                now: format!("{hello:?}"),
            }));
        }
        let mut session = ExecSession {
            process,
            encoding: hello.encoding,
            numbers: config.profile.provisional,
            now: 0,
            conns: BTreeMap::new(),
            requests: VecDeque::new(),
            releases: VecDeque::new(),
            events: Vec::new(),
            pending: BTreeMap::new(),
        };
        // The broker's effective definitions (the built-in subset of Kafka's plus the
        // scenario's), so that what a broker reports at registration can be judged exactly.
        let broker_definitions = config
            .setup
            .broker
            .clone()
            .unwrap_or_default()
            .settings(0)
            .defs
            .broker;
        let open = json!({
            "type": "open",
            "protocol": PROTOCOL_VERSION,
            "seed": config.seed,
            "roles": config.roles,
            "setup": config.setup,
            "profile": config.profile,
            "broker_definitions": broker_definitions,
        });
        session
            .call(open, |message| SetupError::Refused { message }.into())
            .await?;
        Ok(Box::new(session))
    }
}

/// A frame in a reply: base64 bytes, or a JSON body kipcheck encodes.
#[derive(Debug, Default, Deserialize)]
struct WireFrame {
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    api_key: Option<i16>,
    #[serde(default)]
    version: Option<i16>,
    #[serde(default)]
    correlation_id: Option<i32>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    body: Option<Value>,
}

/// What the implementation did on one of kipcheck's connections.
#[derive(Debug, Deserialize)]
struct OutputMsg {
    conn: u32,
    #[serde(default)]
    close: bool,
    #[serde(flatten)]
    wire: WireFrame,
}

/// A request the implementation sent to an emulated node.
#[derive(Debug, Deserialize)]
struct RequestMsg {
    node: i32,
    #[serde(flatten)]
    wire: WireFrame,
}

/// A user request the client released.
#[derive(Debug, Deserialize)]
struct ReleaseMsg {
    id: u64,
}

/// The `ok` reply.
#[derive(Debug, Deserialize)]
struct OkReply {
    #[serde(default)]
    now_ms: Option<u64>,
    #[serde(default)]
    outputs: Vec<OutputMsg>,
    #[serde(default)]
    requests: Vec<RequestMsg>,
    #[serde(default)]
    releases: Vec<ReleaseMsg>,
    #[serde(default)]
    events: Vec<Map<String, Value>>,
}

/// A request header and the length of the body after it, read without decoding the body.
struct HeaderPeek {
    header: RequestHeader,
    api_key: ApiKey,
    body_size: usize,
}

fn peek_request(frame: &[u8], numbers: &ProvisionalNumbers) -> Option<HeaderPeek> {
    let (header, api_key, body) =
        codec::split_request_head(frame, DEFAULT_MAX_FRAME_SIZE, numbers)?;
    Some(HeaderPeek {
        header,
        api_key,
        body_size: body.len(),
    })
}

/// One scenario's conversation with one process.
pub struct ExecSession {
    process: ExecProcess,
    encoding: FrameEncoding,
    numbers: ProvisionalNumbers,
    now: u64,
    conns: BTreeMap<u32, VecDeque<ConnOutput>>,
    requests: VecDeque<OutRequest>,
    releases: VecDeque<(u64, u64)>,
    events: Vec<Value>,
    /// Requests the implementation sent per node that await kipcheck's answer
    /// (canonical key, version), so `respond` can give a decoded body. Kept as the runner
    /// keeps its own: a request joins when it is handed out by `next_request`, `timeout`
    /// drops the node's oldest, `disconnect` drops them all (the connection lost them).
    pending: BTreeMap<i32, VecDeque<(ApiKey, i16)>>,
}

impl ExecSession {
    /// Sends one message and absorbs its one reply. `on_error` turns an `error` reply's
    /// message into the error kind fitting the call.
    async fn call(
        &mut self,
        message: Value,
        on_error: fn(String) -> AdapterError,
    ) -> Result<(), AdapterError> {
        let sent_type = message["type"].as_str().unwrap_or("?").to_owned();
        self.process.write(&message).await?;
        let reply = self.process.read().await?;
        match reply.get("type").and_then(Value::as_str) {
            Some("ok") => {}
            Some("unsupported") => {
                let reason = reply.get("reason").and_then(Value::as_str).unwrap_or("");
                let reason = reason.to_owned();
                return Err(Unsupported::Declared { reason }.into());
            }
            Some("error") => {
                let m = reply.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(on_error(m.to_owned()));
            }
            _ => {
                return Err(self.process.protocol_error(Violation::UnexpectedReply {
                    sent: sent_type,
                    reply: reply.to_string(),
                }))
            }
        }
        let ok: OkReply = serde_json::from_value(reply).map_err(|source| {
            self.process.protocol_error(Violation::InvalidOk {
                sent: sent_type.clone(),
                source,
            })
        })?;
        self.absorb(&sent_type, ok)
    }

    fn absorb(&mut self, sent_type: &str, ok: OkReply) -> Result<(), AdapterError> {
        if let Some(t) = ok.now_ms {
            if t < self.now {
                return Err(self.process.protocol_error(Violation::ClockBackwards {
                    sent: sent_type.to_owned(),
                    now: t,
                    before: self.now,
                }));
            }
            self.now = t;
        }
        for o in ok.outputs {
            let out = if o.close {
                ConnOutput::Closed
            } else {
                ConnOutput::Frame(self.response_frame(&o.wire)?)
            };
            self.conns.entry(o.conn).or_default().push_back(out);
        }
        for r in ok.requests {
            let frame = self.request_frame(&r.wire)?;
            self.requests.push_back(OutRequest {
                node: r.node,
                frame,
                at_ms: self.now,
            });
        }
        for r in ok.releases {
            self.releases.push_back((r.id, self.now));
        }
        for mut e in ok.events {
            if !e.contains_key("at") {
                e.insert("at".into(), Value::from(self.now));
            }
            self.events.push(Value::Object(e));
        }
        Ok(())
    }

    fn base64_frame(&self, text: &str) -> Result<Vec<u8>, AdapterError> {
        B64.decode(text)
            .map_err(|e| self.process.protocol_error(Violation::Base64(e)))
    }

    /// The (key, version, correlation id, body) of a JSON-form frame, or an error naming
    /// the missing field.
    fn json_parts<'a>(
        &self,
        w: &'a WireFrame,
        what: &'static str,
    ) -> Result<(ApiKey, i16, i32, &'a Value), AdapterError> {
        match (w.api_key, w.version, w.correlation_id, &w.body) {
            (Some(k), Some(v), Some(c), Some(b)) => {
                Ok((self.numbers.canonical_api_key(ApiKey(k)), v, c, b))
            }
            _ => Err(self
                .process
                .protocol_error(Violation::IncompleteFrame { what })),
        }
    }

    fn response_frame(&self, w: &WireFrame) -> Result<Vec<u8>, AdapterError> {
        if let Some(f) = &w.frame {
            return self.base64_frame(f);
        }
        let (key, version, correlation_id, body) = self.json_parts(w, "response")?;
        let name = ResponseBody::info(key).map(|i| i.name).ok_or_else(|| {
            self.process.protocol_error(Violation::UnknownApiKey {
                what: "response",
                key: key.0,
            })
        })?;
        let body = typed_body::<ResponseBody>(name, Some(body), &self.numbers)
            .map_err(|e| self.process.protocol_error(Violation::Body(e)))?;
        let header = ResponseHeader {
            correlation_id,
            ..Default::default()
        };
        codec::encode_response_frame(&header, &body, version).map_err(|source| {
            self.process.protocol_error(Violation::Encode {
                api: name,
                version,
                what: "response",
                source,
            })
        })
    }

    fn request_frame(&self, w: &WireFrame) -> Result<Vec<u8>, AdapterError> {
        if let Some(f) = &w.frame {
            return self.base64_frame(f);
        }
        let (key, version, correlation_id, body) = self.json_parts(w, "request")?;
        let name = RequestBody::info(key).map(|i| i.name).ok_or_else(|| {
            self.process.protocol_error(Violation::UnknownApiKey {
                what: "request",
                key: key.0,
            })
        })?;
        let body = typed_body::<RequestBody>(name, Some(body), &self.numbers)
            .map_err(|e| self.process.protocol_error(Violation::Body(e)))?;
        let header = RequestHeader {
            request_api_version: version,
            correlation_id,
            client_id: w.client_id.clone().map(Into::into),
            ..Default::default()
        };
        codec::encode_request_frame(&header, &body, &self.numbers).map_err(|source| {
            self.process.protocol_error(Violation::Encode {
                api: name,
                version,
                what: "request",
                source,
            })
        })
    }

    /// The `send` message for a request frame kipcheck sends.
    fn send_message(&self, conn: u32, frame: &[u8]) -> Value {
        let mut m = json!({ "type": "send", "conn": conn, "frame": B64.encode(frame) });
        if self.encoding == FrameEncoding::Base64 {
            return m;
        }
        let Some(peek) = peek_request(frame, &self.numbers) else {
            m["error"] = Value::from("the frame's size prefix or request header does not decode");
            return m;
        };
        m["api_key"] = Value::from(peek.header.request_api_key);
        m["version"] = Value::from(peek.header.request_api_version);
        m["correlation_id"] = Value::from(peek.header.correlation_id);
        m["client_id"] = json!(peek.header.client_id);
        m["body_size"] = Value::from(peek.body_size);
        if let Some(info) = RequestBody::info(peek.api_key) {
            m["api"] = Value::from(info.name);
        }
        match codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers) {
            Ok(d) => m["body"] = serde_json::to_value(&d.body).unwrap_or(Value::Null),
            Err(e) => m["error"] = Value::from(e.to_string()),
        }
        m
    }

    /// The `respond` message for a response frame kipcheck sends as node `node`.
    fn respond_message(&mut self, node: i32, frame: &[u8]) -> Value {
        let mut m = json!({ "type": "respond", "node": node, "frame": B64.encode(frame) });
        let pending = self.pending.get_mut(&node).and_then(VecDeque::pop_front);
        if self.encoding == FrameEncoding::Base64 {
            return m;
        }
        let Some((key, version)) = pending else {
            m["error"] = Value::from("kipcheck has no record of the request this answers");
            return m;
        };
        m["api_key"] = Value::from(self.numbers.wire_api_key(key).0);
        m["version"] = Value::from(version);
        if let Some(info) = ResponseBody::info(key) {
            m["api"] = Value::from(info.name);
        }
        match codec::decode_response_frame(frame, DEFAULT_MAX_FRAME_SIZE, key, version) {
            Ok(d) => {
                m["version"] = Value::from(d.version);
                m["correlation_id"] = Value::from(d.header.correlation_id);
                m["body"] = serde_json::to_value(&d.body).unwrap_or(Value::Null);
            }
            Err(e) => m["error"] = Value::from(e.to_string()),
        }
        m
    }

    /// Advances the clock by up to `ms`, stopping early at the first output of kind `until`.
    async fn advance_until(&mut self, ms: u64, until: Option<&str>) -> Result<(), AdapterError> {
        let start = self.now;
        let target = start.saturating_add(ms);
        let mut m = json!({ "type": "advance", "ms": ms });
        if let Some(u) = until {
            m["until"] = Value::from(u);
        }
        self.call(m, crashed).await?;
        if self.now > target {
            return Err(self.process.protocol_error(Violation::Overshot {
                ms,
                start,
                now: self.now,
            }));
        }
        let stopped_early = match until {
            Some("request") => !self.requests.is_empty(),
            Some(_) => !self.releases.is_empty(),
            None => false,
        };
        if !stopped_early {
            self.now = target;
        }
        Ok(())
    }
}

fn peer_message(action: &PeerAction) -> Value {
    match action {
        PeerAction::Start => json!({ "type": "peer", "action": "start" }),
        PeerAction::Connect(n) => json!({ "type": "peer", "action": "connect", "node": n }),
        PeerAction::Disconnect(n) => json!({ "type": "peer", "action": "disconnect", "node": n }),
        PeerAction::Timeout(n) => json!({ "type": "peer", "action": "timeout", "node": n }),
        PeerAction::UserRequest(id) => {
            json!({ "type": "peer", "action": "user_request", "id": id })
        }
        PeerAction::Register {
            controller_max_version,
        } => json!({
            "type": "peer",
            "action": "register",
            "node": super::target::EMULATED_CONTROLLER_NODE,
            "controller_max_version": controller_max_version,
        }),
        PeerAction::Failover => json!({ "type": "peer", "action": "failover" }),
    }
}

#[async_trait]
impl Session for ExecSession {
    async fn send(&mut self, conn: u32, out: Outbound) -> Result<(), AdapterError> {
        let m = self.send_message(conn, &out.frame);
        self.call(m, crashed).await
    }

    async fn recv(&mut self, conn: u32, _wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        Ok(self.conns.get_mut(&conn).and_then(VecDeque::pop_front))
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match action {
            PeerAction::Disconnect(node) => {
                self.pending.remove(&node);
            }
            PeerAction::Timeout(node) => {
                self.pending.get_mut(&node).and_then(VecDeque::pop_front);
            }
            _ => {}
        }
        self.call(peer_message(&action), crashed).await
    }

    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        if self.requests.is_empty() {
            self.advance_until(within_ms, Some("request")).await?;
        }
        let request = self.requests.pop_front();
        if let Some(r) = &request {
            if let Some(p) = peek_request(&r.frame, &self.numbers) {
                self.pending
                    .entry(r.node)
                    .or_default()
                    .push_back((p.api_key, p.header.request_api_version));
            }
        }
        Ok(request)
    }

    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let m = self.respond_message(node, &frame);
        self.call(m, crashed).await
    }

    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        if self.releases.is_empty() {
            self.advance_until(within_ms, Some("release")).await?;
        }
        Ok(self.releases.pop_front())
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        self.advance_until(ms, None).await
    }

    fn now_ms(&self) -> u64 {
        self.now
    }

    fn events(&self) -> Vec<Value> {
        self.events.clone()
    }
}
