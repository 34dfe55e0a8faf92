//! Executes one scenario's steps against a target session and judges what comes back:
//! frames are decoded strictly (an undecodable answer is a finding naming field and byte
//! offset), bodies and events are compared with the scenario's patterns, timings are read
//! off the target's clock. The outcome is a verdict with a located, redacted failure.

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::events::{Failure, Mismatch, Verdict};
use crate::adapter::{
    AdapterError, ConnOutput, PeerAction, Session, SessionConfig, Target, EMULATED_CONTROLLER_NODE,
};
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, push_config_request, to_hex, ApiKey, ErrorCode, Message,
    ProvisionalNumbers, PushConfigRequest, RequestBody, RequestHeader, ResponseBody,
    ResponseHeader,
};
use crate::model::{classify, client_definitions, SpecProfile};
use crate::scenario::load::{request_body, response_body};
use crate::scenario::matcher::{compare, render};
use crate::scenario::{Fill, MatchMode, Outcome, Scenario, Step};

/// How a scenario ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioOutcome {
    /// Passed, Failed, Unsupported or Errored.
    pub verdict: Verdict,
    /// Why unsupported.
    pub unsupported_reason: Option<String>,
    /// Failure details.
    pub failure: Option<Failure>,
    /// Target time covered, ms.
    pub simulated_ms: u64,
}

/// Replaces every secret (values of sensitive keys in the setup) in `text` with
/// `<redacted:sha256-prefix>`.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    secrets: Vec<(String, String)>,
}

impl Redactor {
    /// The secrets of a scenario: values of client keys the sensitivity rules match, and
    /// broker server.properties values of keys that look secret.
    pub fn for_scenario(s: &Scenario) -> Self {
        let mut secrets = Vec::new();
        if let Some(c) = &s.file.setup.client {
            let defs = client_definitions(c.client_type);
            for (k, v) in &c.config {
                if classify(k, defs.get(k).map(|d| d.ty)).is_some() && v.len() >= 3 {
                    secrets.push(v.clone());
                }
            }
        }
        if let Some(b) = &s.file.setup.broker {
            for (k, v) in &b.server_properties {
                if (k.contains("password") || k.contains("secret") || k.contains("sasl.jaas"))
                    && v.len() >= 3
                {
                    secrets.push(v.clone());
                }
            }
        }
        // Longest first, so a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let secrets = secrets
            .into_iter()
            .map(|s| {
                let digest = Sha256::digest(s.as_bytes());
                let tag = format!("<redacted:{}>", to_hex(&digest[..4]));
                (s, tag)
            })
            .collect();
        Self { secrets }
    }

    /// `text` with secrets replaced.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (secret, tag) in &self.secrets {
            out = out.replace(secret.as_str(), tag);
        }
        out
    }

    fn failure(&self, mut f: Failure) -> Failure {
        f.message = self.apply(&f.message);
        f.step_yaml = self.apply(&f.step_yaml);
        f.expected = f.expected.map(|x| self.apply(&x));
        f.actual = f.actual.map(|x| self.apply(&x));
        for m in &mut f.mismatches {
            m.expected = self.apply(&m.expected);
            m.actual = self.apply(&m.actual);
        }
        f
    }
}

fn yaml(v: &impl serde::Serialize) -> String {
    serde_saphyr::to_string(v).unwrap_or_else(|e| format!("<unrenderable: {e}>"))
}

/// A request kipcheck sent that awaits the target's answer.
#[derive(Clone, Copy, Debug)]
struct Sent {
    api_key: ApiKey,
    version: i16,
    correlation_id: i32,
}

/// A request the target sent to an emulated node.
#[derive(Clone, Debug)]
struct Received {
    api_key: ApiKey,
    version: i16,
    correlation_id: i32,
}

/// A step's failure before location and redaction are added (boxed: it is large and only
/// built on the failure path).
type StepFail = Box<StepFailure>;

/// The contents of a [`StepFail`].
struct StepFailure {
    message: String,
    expected: Option<String>,
    actual: Option<String>,
    mismatches: Vec<Mismatch>,
    raw_hex: Option<String>,
    errored: bool,
}

impl StepFailure {
    fn msg(message: impl Into<String>) -> StepFail {
        Box::new(Self {
            message: message.into(),
            expected: None,
            actual: None,
            mismatches: Vec::new(),
            raw_hex: None,
            errored: false,
        })
    }
}

impl From<AdapterError> for StepFail {
    fn from(e: AdapterError) -> Self {
        let mut f = StepFailure::msg(e.to_string());
        f.errored = true;
        f
    }
}

struct Exec<'a> {
    scenario: &'a Scenario,
    profile: &'a SpecProfile,
    numbers: ProvisionalNumbers,
    session: Box<dyn Session>,
    sent: BTreeMap<u32, VecDeque<Sent>>,
    received: BTreeMap<i32, VecDeque<Received>>,
    next_correlation: i32,
    last_step_end: u64,
    event_cursor: usize,
}

/// Runs `scenario` on `target` with `seed`.
pub async fn execute(target: &dyn Target, scenario: &Scenario, seed: u64) -> ScenarioOutcome {
    let caps = target.capabilities();
    let mut needs = scenario.file.requires.clone();
    for s in &scenario.file.steps {
        needs.extend(s.value.needs());
    }
    needs.sort();
    needs.dedup();
    if let Some(reason) = caps.missing(&scenario.file.roles, &needs) {
        return ScenarioOutcome {
            verdict: Verdict::Unsupported,
            unsupported_reason: Some(reason),
            failure: None,
            simulated_ms: 0,
        };
    }
    let redactor = Redactor::for_scenario(scenario);
    let config = SessionConfig {
        setup: scenario.file.setup.clone(),
        profile: scenario.profile.clone(),
        seed,
        roles: scenario.file.roles.clone(),
    };
    let session = match target.open(config).await {
        Ok(s) => s,
        Err(AdapterError::Unsupported(reason)) => {
            return ScenarioOutcome {
                verdict: Verdict::Unsupported,
                unsupported_reason: Some(reason),
                failure: None,
                simulated_ms: 0,
            }
        }
        Err(e) => {
            return ScenarioOutcome {
                verdict: Verdict::Errored,
                unsupported_reason: None,
                failure: Some(redactor.failure(Failure {
                    step: None,
                    location: format!("{}:1:1", scenario.path.display()),
                    step_yaml: yaml(&scenario.file.setup),
                    message: e.to_string(),
                    expected: None,
                    actual: None,
                    mismatches: Vec::new(),
                    raw_hex: None,
                })),
                simulated_ms: 0,
            }
        }
    };
    let mut ex = Exec {
        scenario,
        profile: &scenario.profile,
        numbers: scenario.profile.provisional,
        session,
        sent: BTreeMap::new(),
        received: BTreeMap::new(),
        next_correlation: 1,
        last_step_end: 0,
        event_cursor: 0,
    };
    for (i, step) in scenario.file.steps.iter().enumerate() {
        if let Err(f) = ex.step(&step.value).await {
            let verdict = if f.errored {
                Verdict::Errored
            } else {
                Verdict::Failed
            };
            let failure = Failure {
                step: Some(i),
                location: scenario.step_location(i),
                step_yaml: yaml(&step.value),
                message: f.message,
                expected: f.expected,
                actual: f.actual,
                mismatches: f.mismatches,
                raw_hex: f.raw_hex,
            };
            return ScenarioOutcome {
                verdict,
                unsupported_reason: None,
                failure: Some(redactor.failure(failure)),
                simulated_ms: ex.session.now_ms(),
            };
        }
        ex.last_step_end = ex.session.now_ms();
    }
    ScenarioOutcome {
        verdict: Verdict::Passed,
        unsupported_reason: None,
        failure: None,
        simulated_ms: ex.session.now_ms(),
    }
}

/// Builds a PushConfig body whose size under the fill's measure is exactly `fill.size`.
pub fn fill_push_config(fill: &Fill) -> Result<PushConfigRequest, String> {
    let entry = |key: String, len: usize| push_config_request::Config {
        config_key: key.into(),
        config_value: "x".repeat(len).into(),
        config_type: 1,
        is_default: false,
        ..Default::default()
    };
    let size = |req: &PushConfigRequest| -> usize {
        let body = req.encoded_len(0).unwrap_or(usize::MAX);
        crate::model::broker::measure(fill.measure, req, body)
    };
    if fill.size > crate::scenario::MAX_FILL_BYTES {
        return Err(format!(
            "fill.size {} is over the {} bytes kipcheck builds",
            fill.size,
            crate::scenario::MAX_FILL_BYTES
        ));
    }
    let mut req = PushConfigRequest::default();
    // Whole entries of up to 8000 value bytes, then one entry tuned to hit the size exactly.
    // Each entry adds over 8000 bytes under either measure, so this many always suffice.
    let max_entries = fill.size / 8000 + 1;
    while req.configs.len() < max_entries {
        let mut trial = req.clone();
        trial
            .configs
            .push(entry(format!("kipcheck.fill.{}", req.configs.len()), 8000));
        if size(&trial).saturating_add(64) > fill.size {
            break;
        }
        req = trial;
    }
    for key_pad in 0..4usize {
        let key = format!("kipcheck.fill.{}{}", req.configs.len(), "k".repeat(key_pad));
        let mut base = req.clone();
        base.configs.push(entry(key.clone(), 0));
        let s0 = size(&base);
        if s0 > fill.size {
            continue;
        }
        let mut n = fill.size - s0;
        for _ in 0..4 {
            let mut t = req.clone();
            t.configs.push(entry(key.clone(), n));
            let s = size(&t);
            if s == fill.size {
                return Ok(t);
            }
            if s > fill.size {
                n = n.saturating_sub(s - fill.size);
            } else {
                n += fill.size - s;
            }
        }
    }
    if req.configs.is_empty() && size(&req) == fill.size {
        return Ok(req);
    }
    Err(format!(
        "cannot build a PushConfig of exactly {} bytes",
        fill.size
    ))
}

impl Exec<'_> {
    fn wire(&self, canonical: ApiKey) -> ApiKey {
        self.numbers.wire_api_key(canonical)
    }

    async fn step(&mut self, step: &Step) -> Result<(), StepFail> {
        match step {
            Step::Send(s) => {
                let body = match &s.fill {
                    Some(fill) => {
                        RequestBody::PushConfig(fill_push_config(fill).map_err(StepFailure::msg)?)
                    }
                    None => request_body(&s.api, s.body.as_ref(), &self.numbers)
                        .map_err(StepFailure::msg)?,
                };
                let header = RequestHeader {
                    request_api_key: self.wire(body.api_key()).0,
                    request_api_version: s.version,
                    correlation_id: self.next_correlation,
                    client_id: Some(s.client_id.as_deref().unwrap_or("kipcheck").into()),
                    ..Default::default()
                };
                let frame = codec::encode_request_frame(&header, &body, &self.numbers)
                    .map_err(|e| StepFailure::msg(format!("cannot encode the request: {e}")))?;
                self.sent.entry(s.conn).or_default().push_back(Sent {
                    api_key: body.api_key(),
                    version: s.version,
                    correlation_id: self.next_correlation,
                });
                self.next_correlation += 1;
                self.session.send(s.conn, frame).await?;
            }
            Step::SendRaw(s) => {
                let frame = codec::from_hex(&s.hex).ok_or_else(|| StepFailure::msg("bad hex"))?;
                if let (Some(api), Some(version)) = (&s.api, s.version) {
                    let info = ResponseBody::info_by_name(api)
                        .ok_or_else(|| StepFailure::msg(format!("unknown API {api}")))?;
                    let corr = frame
                        .get(8..12)
                        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                        .unwrap_or(-1);
                    self.sent.entry(s.conn).or_default().push_back(Sent {
                        api_key: info.api_key,
                        version,
                        correlation_id: corr,
                    });
                }
                self.session.send(s.conn, frame).await?;
            }
            Step::ExpectResponse(e) => {
                let out = self.session.recv(e.conn, 1000).await?;
                self.check_response(e.conn, out, e.body.as_ref(), e.mode)?;
            }
            Step::ExpectClose(e) => {
                let out = self.session.recv(e.conn, 1000).await?;
                match out {
                    Some(ConnOutput::Closed) => {}
                    Some(ConnOutput::Frame(f)) => {
                        let actual = self.describe_frame(e.conn, &f);
                        let mut fail = StepFailure::msg(
                            "expected the connection to close, but the target answered",
                        );
                        fail.expected = Some("connection closed\n".into());
                        fail.actual = Some(actual);
                        fail.raw_hex = Some(to_hex(&f));
                        return Err(fail);
                    }
                    None => {
                        return Err(StepFailure::msg(
                            "expected the connection to close, but it stayed open with no answer",
                        ))
                    }
                }
            }
            Step::ExpectOneOf(outcomes) => {
                // Outcomes are alternatives for one answer: read the connection they name.
                let conn = match outcomes.first() {
                    Some(Outcome::Response(r)) => r.conn,
                    Some(Outcome::Close(c)) => c.conn,
                    None => 0,
                };
                let out = self.session.recv(conn, 1000).await?;
                let mut reasons = Vec::new();
                for o in outcomes {
                    match (o, &out) {
                        (Outcome::Close(_), Some(ConnOutput::Closed)) => return Ok(()),
                        (Outcome::Response(r), Some(ConnOutput::Frame(_))) => {
                            let saved = self.sent.clone();
                            match self.check_response(r.conn, out.clone(), r.body.as_ref(), r.mode)
                            {
                                Ok(()) => return Ok(()),
                                Err(f) => {
                                    self.sent = saved;
                                    reasons.push(f.message)
                                }
                            }
                        }
                        (Outcome::Close(_), _) => reasons.push("not closed".into()),
                        (Outcome::Response(_), _) => reasons.push("no response".into()),
                    }
                }
                let mut fail =
                    StepFailure::msg(format!("no acceptable outcome: {}", reasons.join("; ")));
                if let Some(ConnOutput::Frame(f)) = &out {
                    fail.actual = Some(self.describe_frame(conn, f));
                    fail.raw_hex = Some(to_hex(f));
                }
                fail.expected = Some(yaml(outcomes));
                return Err(fail);
            }
            Step::Start => self.session.act(PeerAction::Start).await?,
            Step::Connect { node } => self.session.act(PeerAction::Connect(*node)).await?,
            Step::Disconnect { node } => {
                self.received.remove(node);
                self.session.act(PeerAction::Disconnect(*node)).await?
            }
            Step::Timeout { node } => {
                if let Some(q) = self.received.get_mut(node) {
                    q.pop_front();
                }
                self.session.act(PeerAction::Timeout(*node)).await?
            }
            Step::UserRequest { id } => self.session.act(PeerAction::UserRequest(*id)).await?,
            Step::Register {
                controller_max_version,
            } => {
                self.session
                    .act(PeerAction::Register {
                        controller_max_version: *controller_max_version,
                    })
                    .await?
            }
            Step::Failover => self.session.act(PeerAction::Failover).await?,
            Step::Advance { ms } => self.session.advance(*ms).await?,
            Step::ExpectRequest(e) => {
                let Some(req) = self.session.next_request(e.within_ms).await? else {
                    return Err(StepFailure::msg(format!(
                        "no request within {} ms (expected {})",
                        e.within_ms, e.api
                    )));
                };
                let (node, api_key, version, body_json) = self.take_request(&req)?;
                let want = RequestBody::info_by_name(&e.api).map(|i| i.api_key);
                if Some(api_key) != want {
                    let mut fail = StepFailure::msg(format!(
                        "expected a {} request, the target sent {} to node {node}",
                        e.api,
                        RequestBody::info(api_key).map_or("an unknown API", |i| i.name)
                    ));
                    fail.actual = Some(yaml(&body_json));
                    return Err(fail);
                }
                let mut mismatches = Vec::new();
                if let Some(from) = e.from {
                    if from != node {
                        mismatches.push(Mismatch {
                            path: "node".into(),
                            expected: from.to_string(),
                            actual: node.to_string(),
                        });
                    }
                }
                if let Some(v) = e.version {
                    if v != version {
                        mismatches.push(Mismatch {
                            path: "version".into(),
                            expected: v.to_string(),
                            actual: version.to_string(),
                        });
                    }
                }
                if let Some(p) = &e.after_ms {
                    let after = req.at_ms.saturating_sub(self.last_step_end);
                    mismatches.extend(compare(
                        p,
                        Some(&Value::from(after)),
                        MatchMode::Subset,
                        &self.numbers,
                        "after_ms",
                    ));
                }
                if let Some(p) = &e.body {
                    mismatches.extend(compare(p, Some(&body_json), e.mode, &self.numbers, "body"));
                }
                if !mismatches.is_empty() {
                    return Err(self.mismatch_fail(mismatches, e.body.as_ref(), &body_json));
                }
            }
            Step::Respond(r) => {
                let Some(req) = self.received.get_mut(&r.to).and_then(VecDeque::pop_front) else {
                    return Err(StepFailure::msg(format!(
                        "respond: the target has no unanswered request to node {}",
                        r.to
                    )));
                };
                let info = ResponseBody::info(req.api_key)
                    .ok_or_else(|| StepFailure::msg("respond: unknown API"))?;
                let body = match &r.body {
                    Some(b) => response_body(info.name, Some(b), &self.numbers)
                        .map_err(StepFailure::msg)?,
                    None => self.default_response(r.to, req.api_key),
                };
                let header = ResponseHeader {
                    correlation_id: req.correlation_id,
                    ..Default::default()
                };
                let frame = codec::encode_response_frame(&header, &body, req.version)
                    .map_err(|e| StepFailure::msg(format!("respond: cannot encode: {e}")))?;
                self.session.respond(r.to, frame).await?;
            }
            Step::ExpectNoRequest(e) => {
                let deadline = self.session.now_ms() + e.within_ms;
                loop {
                    let left = deadline.saturating_sub(self.session.now_ms());
                    let Some(req) = self.session.next_request(left).await? else {
                        break;
                    };
                    let (node, api_key, _, body_json) = self.take_request(&req)?;
                    let api_ok = e.api.as_ref().is_none_or(|a| {
                        RequestBody::info_by_name(a).map(|i| i.api_key) == Some(api_key)
                    });
                    if api_ok && e.from.is_none_or(|f| f == node) {
                        let mut fail = StepFailure::msg(format!(
                            "expected no request, but the target sent {} to node {node} after {} ms",
                            RequestBody::info(api_key).map_or("?", |i| i.name),
                            req.at_ms.saturating_sub(self.last_step_end)
                        ));
                        fail.actual = Some(yaml(&body_json));
                        return Err(fail);
                    }
                    if left == 0 {
                        break;
                    }
                }
            }
            Step::ExpectReleased(e) => {
                let Some((id, at)) = self.session.next_release(e.within_ms).await? else {
                    return Err(StepFailure::msg(format!(
                        "user request {} not released within {} ms",
                        e.id, e.within_ms
                    )));
                };
                let mut mismatches = Vec::new();
                if id != e.id {
                    mismatches.push(Mismatch {
                        path: "id".into(),
                        expected: e.id.to_string(),
                        actual: id.to_string(),
                    });
                }
                if let Some(p) = &e.after_ms {
                    let after = at.saturating_sub(self.last_step_end);
                    mismatches.extend(compare(
                        p,
                        Some(&Value::from(after)),
                        MatchMode::Subset,
                        &self.numbers,
                        "after_ms",
                    ));
                }
                if !mismatches.is_empty() {
                    return Err(self.mismatch_fail(mismatches, None, &Value::Null));
                }
            }
            Step::ExpectEvent(e) => {
                let events = self.session.events();
                let mut matched = Vec::new();
                for (i, ev) in events.iter().enumerate().skip(self.event_cursor) {
                    if compare(
                        &e.event,
                        Some(ev),
                        MatchMode::Subset,
                        &self.numbers,
                        "event",
                    )
                    .is_empty()
                    {
                        matched.push(i);
                    }
                }
                let ok = match e.count {
                    Some(n) => matched.len() == n,
                    None => !matched.is_empty(),
                };
                if !ok {
                    let kind = e.event.get("event").map(render).unwrap_or_default();
                    let mut fail = StepFailure::msg(format!(
                        "expected {} event(s) matching {}, found {}",
                        e.count
                            .map_or("at least one".to_string(), |n| n.to_string()),
                        render(&e.event),
                        matched.len()
                    ));
                    fail.expected = Some(yaml(&e.event));
                    let same_kind: Vec<&Value> = events
                        .iter()
                        .skip(self.event_cursor)
                        .filter(|ev| ev.get("event").map(render) == Some(kind.clone()))
                        .collect();
                    fail.actual = Some(yaml(&same_kind));
                    // The closest event of that kind, for a field-by-field diff.
                    if let Some(first) = same_kind.first() {
                        fail.mismatches = compare(
                            &e.event,
                            Some(first),
                            MatchMode::Subset,
                            &self.numbers,
                            "event",
                        );
                    }
                    return Err(fail);
                }
                if let Some(last) = matched.last() {
                    self.event_cursor = last + 1;
                }
            }
            Step::ExpectNoEvent { event } => {
                let events = self.session.events();
                if let Some(ev) = events.iter().find(|ev| {
                    compare(event, Some(ev), MatchMode::Subset, &self.numbers, "event").is_empty()
                }) {
                    let mut fail =
                        StepFailure::msg(format!("an event matching {} occurred", render(event)));
                    fail.expected = Some("no such event\n".into());
                    fail.actual = Some(yaml(ev));
                    return Err(fail);
                }
            }
        }
        Ok(())
    }

    /// Decodes a request the target sent and records it as awaiting an answer.
    fn take_request(
        &mut self,
        req: &crate::adapter::OutRequest,
    ) -> Result<(i32, ApiKey, i16, Value), StepFail> {
        let decoded =
            codec::decode_request_frame(&req.frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers)
                .map_err(|e| {
                    let mut f = StepFailure::msg(format!(
                        "the target sent a request that does not decode: {e}"
                    ));
                    f.raw_hex = Some(to_hex(&req.frame));
                    f
                })?;
        self.received
            .entry(req.node)
            .or_default()
            .push_back(Received {
                api_key: decoded.api_key,
                version: decoded.header.request_api_version,
                correlation_id: decoded.header.correlation_id,
            });
        let json = serde_json::to_value(&decoded.body).unwrap_or(Value::Null);
        Ok((
            req.node,
            decoded.api_key,
            decoded.header.request_api_version,
            json,
        ))
    }

    fn default_response(&self, node: i32, api_key: ApiKey) -> ResponseBody {
        use crate::model::emulated_api_versions;
        match api_key {
            ApiKey::API_VERSIONS => {
                let push = self
                    .scenario
                    .file
                    .setup
                    .emulated_brokers
                    .get(&node)
                    .is_none_or(|b| b.push_config);
                ResponseBody::ApiVersions(emulated_api_versions(
                    push.then_some(self.numbers.push_config_api_key),
                ))
            }
            ApiKey::BROKER_REGISTRATION if node == EMULATED_CONTROLLER_NODE => {
                ResponseBody::BrokerRegistration(codec::BrokerRegistrationResponse {
                    broker_epoch: 1,
                    ..Default::default()
                })
            }
            other => ResponseBody::default_for(other)
                .unwrap_or(ResponseBody::PushConfig(Default::default())),
        }
    }

    fn describe_frame(&mut self, conn: u32, frame: &[u8]) -> String {
        let Some(sent) = self.sent.get_mut(&conn).and_then(VecDeque::pop_front) else {
            return format!("an unexpected frame of {} bytes\n", frame.len());
        };
        match codec::decode_response_frame(
            frame,
            DEFAULT_MAX_FRAME_SIZE,
            sent.api_key,
            sent.version,
        ) {
            Ok(d) => yaml(&d.body),
            Err(e) => format!("an undecodable frame: {e}\n"),
        }
    }

    fn check_response(
        &mut self,
        conn: u32,
        out: Option<ConnOutput>,
        pattern: Option<&Value>,
        mode: MatchMode,
    ) -> Result<(), StepFail> {
        let frame = match out {
            Some(ConnOutput::Frame(f)) => f,
            Some(ConnOutput::Closed) => {
                let mut f =
                    StepFailure::msg("expected a response, but the target closed the connection");
                f.expected = pattern.map(yaml);
                f.actual = Some("connection closed\n".into());
                return Err(f);
            }
            None => return Err(StepFailure::msg("expected a response, but none came")),
        };
        let Some(sent) = self.sent.get_mut(&conn).and_then(VecDeque::pop_front) else {
            let mut f = StepFailure::msg("the target answered a request kipcheck did not send");
            f.raw_hex = Some(to_hex(&frame));
            return Err(f);
        };
        let decoded = codec::decode_response_frame(
            &frame,
            DEFAULT_MAX_FRAME_SIZE,
            sent.api_key,
            sent.version,
        )
        .map_err(|e| {
            let mut f = StepFailure::msg(format!("the response does not decode: {e}"));
            f.raw_hex = Some(to_hex(&frame));
            f
        })?;
        let actual = serde_json::to_value(&decoded.body).unwrap_or(Value::Null);
        let mut mismatches = Vec::new();
        if decoded.header.correlation_id != sent.correlation_id {
            mismatches.push(Mismatch {
                path: "header.CorrelationId".into(),
                expected: sent.correlation_id.to_string(),
                actual: decoded.header.correlation_id.to_string(),
            });
        }
        if let Some(p) = pattern {
            mismatches.extend(compare(p, Some(&actual), mode, &self.numbers, "body"));
        }
        if mismatches.is_empty() {
            Ok(())
        } else {
            let mut f = self.mismatch_fail(mismatches, pattern, &actual);
            f.raw_hex = Some(to_hex(&frame));
            Err(f)
        }
    }

    fn mismatch_fail(
        &self,
        mismatches: Vec<Mismatch>,
        pattern: Option<&Value>,
        actual: &Value,
    ) -> StepFail {
        let first = &mismatches[0];
        let mut f = StepFailure::msg(format!(
            "{}: expected {}, got {}",
            first.path,
            first.expected,
            self.name_code(&first.path, &first.actual)
        ));
        match pattern {
            Some(p) => {
                f.expected = Some(yaml(p));
                f.actual = if actual.is_null() {
                    None
                } else {
                    Some(yaml(actual))
                };
            }
            None => {
                // Only scalar checks (node, version, timing): show just those.
                let lines = |pick: fn(&Mismatch) -> &str| {
                    mismatches
                        .iter()
                        .map(|m| format!("{}: {}\n", m.path, pick(m)))
                        .collect::<String>()
                };
                f.expected = Some(lines(|m| m.expected.as_str()));
                f.actual = Some(lines(|m| m.actual.as_str()));
            }
        }
        f.mismatches = mismatches;
        f
    }

    /// Adds the error-code name to a number under an `ErrorCode` path.
    fn name_code(&self, path: &str, actual: &str) -> String {
        if path.ends_with("ErrorCode") {
            if let Ok(n) = actual.parse::<i16>() {
                let canonical = self.numbers.canonical_error(ErrorCode(n));
                if let Some(name) = canonical.name() {
                    return format!("{actual} ({name})");
                }
            }
        }
        let _ = self.profile;
        actual.to_owned()
    }
}
