//! Steps where kipcheck plays the brokers (and controller) a client or registering broker
//! target talks to: it takes the requests the target sends, judges them (API, node, version,
//! body, timing since the previous step), answers them, and watches for requests that must
//! not come and for user requests the client releases.

use std::collections::VecDeque;

use serde_json::Value;

use super::exchange::Peer;
use super::failure::{mismatch_fail, StepFail, StepFailure};
use super::redact::yaml;
use super::scenario::{Exec, Received};
use super::timing::{STARTUP_ALLOWANCE_MS, STARTUP_NOT_JUDGED};
use crate::adapter::client_cmd::MAX_REAL_WAIT_MS;
use crate::adapter::EMULATED_CONTROLLER_NODE;
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, to_hex, ApiKey, Message, PushConfigRequest, RequestBody,
    ResponseBody, ResponseHeader,
};
use crate::model::broker::measure;
use crate::model::SizeMeasure;
use crate::runner::events::{Direction, Mismatch, TimingCheck};
use crate::scenario::matcher::{compare, compare_with};
use crate::scenario::{
    typed_body, EncodedSize, ExpectNoRequestStep, ExpectReleasedStep, ExpectRequestStep, MatchMode,
    RespondStep,
};

/// The canonical API key of a request frame (size prefix included), read from its header
/// alone; `None` when the header does not decode.
fn request_api(frame: &[u8], numbers: &codec::ProvisionalNumbers) -> Option<ApiKey> {
    let payload = frame.get(4..).unwrap_or_default();
    codec::decode_request_header(payload, 4, numbers)
        .ok()
        .map(|(_, _, key, _)| key)
}

impl Exec<'_> {
    /// `expect_request`: the client target sends the expected request.
    pub(super) async fn expect_request(&mut self, e: &ExpectRequestStep) -> Result<(), StepFail> {
        let wait = match &self.real {
            Some(t) if self.awaiting_first_request => {
                t.deadline(e.within_ms).max(STARTUP_ALLOWANCE_MS)
            }
            Some(t) => t.deadline(e.within_ms) + self.ahead_ms(),
            None => e.within_ms,
        };
        let got = self.next_request_from(e.from.as_ref(), wait).await?;
        if e.optional {
            match got {
                None => return Ok(()),
                Some(r) if !self.is_expected(&r, e) => {
                    self.held.push_front(r);
                    return Ok(());
                }
                Some(_) => {}
            }
        }
        let measured = got
            .as_ref()
            .map(|r| r.at_ms.saturating_sub(self.last_step_end));
        self.record_within(e.within_ms, wait, measured);
        let Some(req) = got else {
            let waited = if wait == e.within_ms {
                String::new()
            } else {
                format!(", waited {wait} ms on the real clock")
            };
            return Err(StepFailure::msg(format!(
                "no request within {} ms (expected {}{waited})",
                e.within_ms, e.api
            )));
        };
        let first = std::mem::take(&mut self.awaiting_first_request);
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
        if let Some(from) = &e.from {
            if !from.contains(node) {
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
            if first {
                // On a real clock the client's first request comes after its process started
                // (an interpreter, a JVM): that time is not on the scenario's timeline.
                self.record("after_ms", p, STARTUP_NOT_JUDGED.into(), Some(after), true);
            } else {
                mismatches.extend(self.after_ms(p, after));
            }
        }
        if let Some(bounds) = &e.encoded_size {
            mismatches.extend(self.size_mismatch(&req.frame, bounds));
        }
        if let Some(p) = &e.body {
            mismatches.extend(compare_with(
                p,
                Some(&body_json),
                e.mode,
                &self.numbers,
                "body",
                &mut self.captures,
            ));
        }
        if !mismatches.is_empty() {
            return Err(mismatch_fail(
                &self.numbers,
                mismatches,
                e.body.as_ref(),
                &body_json,
            ));
        }
        if let Some(name) = &e.capture_node {
            self.captures.insert(name, serde_json::Value::from(node));
        }
        if e.optional {
            let taken = self.received.get_mut(&node).and_then(VecDeque::pop_back);
            if let Some(req) = taken {
                self.answer(node, req, None).await?;
            }
        }
        Ok(())
    }

    /// Whether `req` is of the step's API and to a node it allows (an optional request that
    /// is not is left for the next step).
    fn is_expected(&self, req: &crate::adapter::OutRequest, e: &ExpectRequestStep) -> bool {
        e.from.as_ref().is_none_or(|f| f.contains(req.node))
            && RequestBody::info_by_name(&e.api).map(|i| i.api_key)
                == request_api(&req.frame, &self.numbers)
    }

    /// `respond`: kipcheck, as an emulated node, answers the oldest unanswered request.
    pub(super) async fn respond(&mut self, r: &RespondStep) -> Result<(), StepFail> {
        let Some(req) = self.received.get_mut(&r.to).and_then(VecDeque::pop_front) else {
            return Err(StepFailure::msg(format!(
                "respond: the target has no unanswered request to node {}",
                r.to
            )));
        };
        self.answer(r.to, req, r.body.as_ref()).await
    }

    /// Node `node` answers `req` with `body` (the default answer when `None`).
    async fn answer(
        &mut self,
        node: i32,
        req: Received,
        body: Option<&Value>,
    ) -> Result<(), StepFail> {
        let info = ResponseBody::info(req.api_key)
            .ok_or_else(|| StepFailure::msg("respond: unknown API"))?;
        let body = match body {
            Some(b) => {
                // Time values kipcheck sends run on the client's (scaled) timeline too.
                let b = match &self.real {
                    Some(t) => t.scale_body(b),
                    None => b.clone(),
                };
                typed_body::<ResponseBody>(info.name, Some(&b), &self.numbers)
                    .map_err(|e| StepFailure::msg(e.to_string()))?
            }
            None => self.default_response(node, req.api_key),
        };
        let header = ResponseHeader {
            correlation_id: req.correlation_id,
            ..Default::default()
        };
        let frame = codec::encode_response_frame(&header, &body, req.version)
            .map_err(|e| StepFailure::msg(format!("respond: cannot encode: {e}")))?;
        let now = self.session.now_ms();
        // The log decodes kipcheck's own answer as it is on the wire, to show it.
        let _ = self.log.response(
            now,
            Direction::Sent,
            Peer::Node(node),
            &frame,
            Some((req.api_key, req.version)),
        );
        self.session.respond(node, frame).await?;
        Ok(())
    }
    /// `expect_no_request`: nothing (of that API, to that node) is sent within the time.
    pub(super) async fn expect_no_request(
        &mut self,
        e: &ExpectNoRequestStep,
    ) -> Result<(), StepFail> {
        let watch = self
            .real
            .as_ref()
            .map_or(e.within_ms, |t| t.quiet(e.within_ms));
        if self.real.is_some() {
            self.pace.quiet(watch);
        }
        let started = self.session.now_ms();
        let deadline = started + watch;
        let outcome = self.watch_no_request(e, deadline).await;
        self.pace.resume();
        if let Some(t) = &self.real {
            self.nominal_step_end = Some(started + t.scaled(e.within_ms));
        }
        let measured = match &outcome {
            Err(_) => Some(self.session.now_ms().saturating_sub(self.last_step_end)),
            Ok(()) => None,
        };
        self.record(
            "no_request_within_ms",
            &Value::from(e.within_ms),
            watch.to_string(),
            measured,
            outcome.is_ok(),
        );
        outcome
    }

    async fn watch_no_request(
        &mut self,
        e: &ExpectNoRequestStep,
        deadline: u64,
    ) -> Result<(), StepFail> {
        // A held request (real clock: it came out of turn) the watch forbids is judged first.
        let numbers = self.numbers;
        let forbidden = |r: &crate::adapter::OutRequest| {
            e.from.as_ref().is_none_or(|f| f.contains(r.node))
                && e.api.as_ref().is_none_or(|a| {
                    RequestBody::info_by_name(a).map(|i| i.api_key)
                        == request_api(&r.frame, &numbers)
                })
        };
        let mut held = self
            .held
            .iter()
            .position(forbidden)
            .and_then(|i| self.held.remove(i));
        loop {
            let left = deadline.saturating_sub(self.session.now_ms());
            let next = match held.take() {
                Some(r) => Some(r),
                None => self.session.next_request(left).await?,
            };
            let Some(req) = next else {
                break;
            };
            let (node, api_key, _, body_json) = self.take_request(&req)?;
            let api_ok = e
                .api
                .as_ref()
                .is_none_or(|a| RequestBody::info_by_name(a).map(|i| i.api_key) == Some(api_key));
            if api_ok && e.from.as_ref().is_none_or(|f| f.contains(node)) {
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
        Ok(())
    }
    /// `expect_no_release`: no user request is released so far, or within `within_ms`.
    pub(super) async fn expect_no_release(&mut self, within_ms: u64) -> Result<(), StepFail> {
        let watch = self.real.as_ref().map_or(within_ms, |t| t.quiet(within_ms));
        if self.real.is_some() {
            self.pace.quiet(watch);
        }
        let early = self.early_releases.pop_first();
        let got = match early {
            Some(r) => Some(r),
            None => self.session.next_release(watch).await?,
        };
        self.pace.resume();
        let measured = got.map(|(_, at)| at.saturating_sub(self.last_step_end));
        self.record(
            "no_release_within_ms",
            &Value::from(within_ms),
            watch.to_string(),
            measured,
            got.is_none(),
        );
        if let Some((id, at)) = got {
            let mut fail = StepFailure::msg(format!(
                "expected no user request released yet, but user request {id} was released at {at} ms"
            ));
            fail.expected = Some("no release\n".into());
            fail.actual = Some(format!("user request {id} released at {at} ms\n"));
            return Err(fail);
        }
        Ok(())
    }

    /// `expect_released`: the user request is released in time.
    pub(super) async fn expect_released(&mut self, e: &ExpectReleasedStep) -> Result<(), StepFail> {
        let wait = self
            .real
            .as_ref()
            .map_or(e.within_ms, |t| t.deadline(e.within_ms) + self.ahead_ms());
        let got = self.release_of(e.id, wait).await?;
        let measured = got.map(|at| at.saturating_sub(self.last_step_end));
        self.record_within(e.within_ms, wait, measured);
        let Some(at) = got else {
            let others: Vec<String> = self.early_releases.keys().map(u64::to_string).collect();
            let others = if others.is_empty() {
                String::new()
            } else {
                format!(" (released instead: {})", others.join(", "))
            };
            return Err(StepFailure::msg(format!(
                "user request {} not released within {} ms{others}",
                e.id, e.within_ms
            )));
        };
        let mut mismatches = Vec::new();
        if let Some(p) = &e.after_ms {
            let after = at.saturating_sub(self.last_step_end);
            mismatches.extend(self.after_ms(p, after));
        }
        if !mismatches.is_empty() {
            return Err(mismatch_fail(&self.numbers, mismatches, None, &Value::Null));
        }
        Ok(())
    }

    /// When user request `id` is released, waiting at most `wait` ms: a release seen earlier
    /// counts; others that come first are kept for the steps that name them.
    async fn release_of(&mut self, id: u64, wait: u64) -> Result<Option<u64>, StepFail> {
        if let Some(at) = self.early_releases.remove(&id) {
            return Ok(Some(at));
        }
        let start = self.session.now_ms();
        loop {
            let left = wait.saturating_sub(self.session.now_ms().saturating_sub(start));
            match self.session.next_release(left).await? {
                Some((got, at)) if got == id => return Ok(Some(at)),
                Some((got, at)) => {
                    self.early_releases.insert(got, at);
                }
                None => return Ok(None),
            }
        }
    }

    /// `after_ms` against the elapsed `after`: exact on a virtual clock, widened on a real one
    /// (and recorded).
    fn after_ms(&mut self, p: &Value, after: u64) -> Vec<Mismatch> {
        let accepted = match &self.real {
            Some(t) => t.widen(p),
            None => p.clone(),
        };
        let found = compare(
            &accepted,
            Some(&Value::from(after)),
            MatchMode::Subset,
            &self.numbers,
            "after_ms",
        );
        self.record(
            "after_ms",
            p,
            accepted.to_string(),
            Some(after),
            found.is_empty(),
        );
        found
    }

    /// Records a wait for something due within `within_ms` that lasted `wait` ms on this clock.
    fn record_within(&mut self, within_ms: u64, wait: u64, measured: Option<u64>) {
        let ok = measured.is_some();
        self.record(
            "within_ms",
            &Value::from(within_ms),
            wait.to_string(),
            measured,
            ok,
        );
    }

    /// Records a timing judged on the real clock (nothing on a virtual one).
    fn record(
        &mut self,
        check: &str,
        expected: &Value,
        accepted: String,
        measured_ms: Option<u64>,
        ok: bool,
    ) {
        if self.real.is_some() {
            self.timings.push(TimingCheck {
                step: self.step_index,
                check: check.to_owned(),
                expected: expected.to_string(),
                accepted,
                measured_ms,
                ok,
            });
        }
    }

    /// `timeout` on a real clock: the client's own `request.timeout.ms` (its `{config}` value,
    /// or the profile's default, scaled as written) expires, counted from when the oldest
    /// unanswered request to `node` was sent; kipcheck waits for that moment.
    pub(super) async fn wait_for_request_timeout(&mut self, node: i32) -> Result<(), StepFail> {
        let Some(t) = &self.real else {
            return Ok(());
        };
        let Some(sent) = self.received.get(&node).and_then(VecDeque::front) else {
            return Ok(());
        };
        let configured = self
            .scenario
            .file
            .setup
            .client
            .as_ref()
            .and_then(|c| c.config.get("request.timeout.ms"))
            .and_then(|v| v.trim().parse::<u64>().ok());
        let rto = configured.unwrap_or(self.scenario.profile.defaults.request_timeout_ms);
        let due = sent.at_ms.saturating_add(t.scaled(rto));
        let wait = due.saturating_sub(self.session.now_ms());
        if wait > MAX_REAL_WAIT_MS {
            return Err(StepFail::from(crate::adapter::AdapterError::from(
                crate::adapter::Unsupported::RealClock {
                    what: "waiting for request.timeout.ms:",
                    ms: wait,
                    limit: MAX_REAL_WAIT_MS,
                    hint: "; try --time-scale",
                },
            )));
        }
        self.session.advance(wait).await?;
        Ok(())
    }

    /// Decodes a request the target sent and records it as awaiting an answer.
    /// The next request for `expect_request`. On a real clock, requests on different
    /// connections reach kipcheck in no guaranteed order (one reader per socket), so one from
    /// a node the step does not name is held for a later step instead of judged out of turn;
    /// a held request is taken first when its node is asked for.
    async fn next_request_from(
        &mut self,
        from: Option<&crate::scenario::Nodes>,
        wait: u64,
    ) -> Result<Option<crate::adapter::OutRequest>, StepFail> {
        let wanted = |node: i32| from.is_none_or(|f| f.contains(node));
        if let Some(i) = self.held.iter().position(|r| wanted(r.node)) {
            return Ok(self.held.remove(i));
        }
        if self.real.is_none() {
            return Ok(self.session.next_request(wait).await?);
        }
        let deadline = self.session.now_ms() + wait;
        loop {
            let left = deadline.saturating_sub(self.session.now_ms());
            match self.session.next_request(left).await? {
                Some(r) if !wanted(r.node) && left > 0 => self.held.push_back(r),
                other => return Ok(other),
            }
        }
    }

    /// How far the timeline's last step end lies ahead of now (a real-clock
    /// `expect_no_request` watches less than its window): a wait counts from that end.
    fn ahead_ms(&self) -> u64 {
        self.last_step_end.saturating_sub(self.session.now_ms())
    }

    fn take_request(
        &mut self,
        req: &crate::adapter::OutRequest,
    ) -> Result<(i32, ApiKey, i16, Value), StepFail> {
        let decoded = self
            .log
            .request(
                req.at_ms,
                Direction::Received,
                Peer::Node(req.node),
                &req.frame,
            )
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
                at_ms: req.at_ms,
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
        use crate::emulate::{
            emulated_api_versions, sasl_authenticate_answer, sasl_handshake_answer,
        };
        use crate::model::uses_sasl;
        let setup = &self.scenario.file.setup;
        match api_key {
            ApiKey::API_VERSIONS => {
                let push = setup
                    .emulated_brokers
                    .get(&node)
                    .is_none_or(|b| b.push_config);
                let sasl = setup.client.as_ref().is_some_and(|c| uses_sasl(&c.config));
                ResponseBody::ApiVersions(emulated_api_versions(
                    push.then_some(self.numbers.push_config_api_key),
                    sasl,
                ))
            }
            ApiKey::SASL_HANDSHAKE => ResponseBody::SaslHandshake(sasl_handshake_answer()),
            ApiKey::SASL_AUTHENTICATE => ResponseBody::SaslAuthenticate(sasl_authenticate_answer()),
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

    /// The request's own encoded size under `bounds.measure`, checked against the bounds.
    fn size_mismatch(&self, frame: &[u8], bounds: &EncodedSize) -> Option<Mismatch> {
        let (_, api_key, body) =
            codec::split_request_head(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers)?;
        let size = match (bounds.measure, api_key) {
            (SizeMeasure::RequestBody, _) => body.len(),
            (m, ApiKey::PUSH_CONFIG) => {
                let req = PushConfigRequest::from_bytes(body, 0).ok()?;
                measure(m, &req, body.len())
            }
            _ => body.len(),
        };
        let unit = crate::scenario::types::serde_name(&bounds.measure);
        let below = bounds.min.is_some_and(|m| size < m);
        let above = bounds.max.is_some_and(|m| size > m);
        (below || above).then(|| Mismatch {
            path: "encoded_size".into(),
            expected: match (bounds.min, bounds.max) {
                (Some(lo), Some(hi)) => format!("{lo} to {hi} bytes of {unit}"),
                (Some(lo), None) => format!("at least {lo} bytes of {unit}"),
                (None, Some(hi)) => format!("at most {hi} bytes of {unit}"),
                (None, None) => String::new(),
            },
            actual: format!("{size} bytes of {unit}"),
        })
    }
}
