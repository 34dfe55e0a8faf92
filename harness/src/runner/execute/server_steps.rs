//! Steps where kipcheck is the client of a broker or controller target: it sends requests
//! (typed, filled to a size, or raw) and judges the answers (decoded strictly; an undecodable
//! answer is a finding naming field and byte offset) or the closing of the connection.

use std::collections::VecDeque;

use super::exchange::Peer;
use super::failure::{mismatch_fail, StepFail, StepFailure};
use super::redact::yaml;
use super::scenario::{Exec, Forwarded, Sent};
use crate::adapter::{ConnOutput, Outbound};
use crate::codec::{
    self, to_hex, ApiKey, Bytes, DecodeError, DecodedResponse, RequestBody, RequestHeader,
    ResponseBody,
};
use crate::runner::events::{Direction, Mismatch};
use crate::scenario::matcher::compare_with;
use crate::scenario::{
    Compiled, ExpectCloseStep, ExpectResponseStep, MatchMode, Outcome, SendRawStep, SendStep,
};
use serde_json::Value;

/// The target's next output on a connection, its frame decoded once ([`Exec::recv_logged`]).
pub(super) struct Came {
    out: Option<ConnOutput>,
    /// The frame as the answer to the oldest request sent on the connection (`None`: no
    /// frame, or no request sent).
    decoded: Option<Result<DecodedResponse, DecodeError>>,
}

impl Exec<'_> {
    /// `send`: a typed (or filled) request to the target.
    pub(super) async fn send(&mut self, i: usize, s: &SendStep) -> Result<(), StepFail> {
        let (body, inner) = match self.scenario.compiled.get(i) {
            Some(Compiled::Request(body)) => (body.as_ref().clone(), None),
            Some(Compiled::Enveloped {
                envelope,
                header,
                inner,
            }) => self.envelope(envelope, header, inner)?,
            _ => {
                return Err(StepFailure::msg(
                    "send: the loader prepared no request body",
                ))
            }
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
            inner,
        });
        self.next_correlation += 1;
        let now = self.session.now_ms();
        let _ = self
            .log
            .request(now, Direction::Sent, Peer::Conn(s.conn), &frame);
        let out = Outbound {
            frame,
            request: Some(Box::new((header, body))),
        };
        self.session.send(s.conn, out).await?;
        Ok(())
    }
    /// The Envelope body with `inner` encoded (header and body, under the next correlation id)
    /// as its `RequestData`, and what its answer is decoded with.
    fn envelope(
        &mut self,
        envelope: &RequestBody,
        (api_key, version, client_id): &(ApiKey, i16, String),
        inner: &RequestBody,
    ) -> Result<(RequestBody, Option<Forwarded>), StepFail> {
        let header = RequestHeader {
            request_api_key: self.wire(*api_key).0,
            request_api_version: *version,
            correlation_id: self.next_correlation,
            client_id: Some(client_id.as_str().into()),
            ..Default::default()
        };
        let frame = codec::encode_request_frame(&header, inner, &self.numbers)
            .map_err(|e| StepFailure::msg(format!("cannot encode the forwarded request: {e}")))?;
        let sent = (*api_key, *version, self.next_correlation);
        self.next_correlation += 1;
        let mut body = envelope.clone();
        if let RequestBody::Envelope(e) = &mut body {
            e.request_data = Bytes(frame[4..].to_vec());
        }
        Ok((body, Some(sent)))
    }
    /// `send_raw`: raw frame bytes to the target.
    pub(super) async fn send_raw(&mut self, i: usize, s: &SendRawStep) -> Result<(), StepFail> {
        let Some(Compiled::Raw(frame)) = self.scenario.compiled.get(i) else {
            return Err(StepFailure::msg("send_raw: the loader prepared no frame"));
        };
        let frame = frame.clone();
        if let (Some(api), Some(version)) = (&s.api, s.version) {
            let info = ResponseBody::info_by_name(api)
                .ok_or_else(|| StepFailure::msg(format!("unknown API {api}")))?;
            let corr = frame
                .get(4..)
                .and_then(|p| codec::peek_request(p).correlation_id)
                .unwrap_or(-1);
            self.sent.entry(s.conn).or_default().push_back(Sent {
                api_key: info.api_key,
                version,
                correlation_id: corr,
                inner: None,
            });
        }
        let now = self.session.now_ms();
        let _ = self
            .log
            .request(now, Direction::Sent, Peer::Conn(s.conn), &frame);
        self.session.send(s.conn, Outbound::raw(frame)).await?;
        Ok(())
    }
    /// `expect_response`: the target's answer matches the pattern.
    pub(super) async fn expect_response(&mut self, e: &ExpectResponseStep) -> Result<(), StepFail> {
        let came = self.recv_logged(e.conn).await?;
        self.check_response(e.conn, &came, e.body.as_ref(), e.mode, e.inner.as_ref())?;
        Ok(())
    }
    /// `expect_close`: the target closes the connection without answering.
    pub(super) async fn expect_close(&mut self, e: &ExpectCloseStep) -> Result<(), StepFail> {
        let came = self.recv_logged(e.conn).await?;
        match &came.out {
            // The close answers the oldest request on the connection, as the loader pairs
            // them: one expectation consumes one sent request.
            Some(ConnOutput::Closed) => self.consume_sent(e.conn),
            Some(ConnOutput::Frame(f)) => {
                let actual = self.describe(e.conn, &came);
                let mut fail =
                    StepFailure::msg("expected the connection to close, but the target answered");
                fail.expected = Some("connection closed\n".into());
                fail.actual = Some(actual);
                fail.raw_hex = Some(to_hex(f));
                return Err(fail);
            }
            None => {
                return Err(StepFailure::msg(
                    "expected the connection to close, but it stayed open with no answer",
                ))
            }
        }
        Ok(())
    }
    /// The target's next output on `conn` (waiting up to a second), logged with the request
    /// it answers and decoded once, as the answer to the oldest request sent on `conn` (the
    /// one the step that reads it consumes).
    async fn recv_logged(&mut self, conn: u32) -> Result<Came, StepFail> {
        let out = self.session.recv(conn, 1000).await?;
        let now = self.session.now_ms();
        let mut decoded = None;
        match &out {
            Some(ConnOutput::Frame(f)) => {
                let request = self
                    .sent
                    .get(&conn)
                    .and_then(VecDeque::front)
                    .map(|s| (s.api_key, s.version));
                decoded = self
                    .log
                    .response(now, Direction::Received, Peer::Conn(conn), f, request);
            }
            Some(ConnOutput::Closed) => self.log.close(now, Peer::Conn(conn)),
            None => {}
        }
        Ok(Came { out, decoded })
    }

    /// The oldest request sent on `conn` is answered (by a close).
    fn consume_sent(&mut self, conn: u32) {
        if let Some(q) = self.sent.get_mut(&conn) {
            q.pop_front();
        }
    }

    /// `expect_one_of`: any one of the alternative outcomes.
    pub(super) async fn expect_one_of(&mut self, outcomes: &[Outcome]) -> Result<(), StepFail> {
        // Outcomes are alternatives for one answer: read the connection they name.
        let conn = match outcomes.first() {
            Some(Outcome::Response(r)) => r.conn,
            Some(Outcome::Close(c)) => c.conn,
            None => 0,
        };
        let came = self.recv_logged(conn).await?;
        let mut reasons = Vec::new();
        for o in outcomes {
            match (o, &came.out) {
                (Outcome::Close(_), Some(ConnOutput::Closed)) => {
                    self.consume_sent(conn);
                    return Ok(());
                }
                (Outcome::Response(r), Some(ConnOutput::Frame(_))) => {
                    let saved = (self.sent.clone(), self.captures.clone());
                    match self.check_response(r.conn, &came, r.body.as_ref(), r.mode, None) {
                        Ok(()) => return Ok(()),
                        Err(f) => {
                            (self.sent, self.captures) = saved;
                            reasons.push(f.message)
                        }
                    }
                }
                (Outcome::Close(_), _) => reasons.push("not closed".into()),
                (Outcome::Response(_), _) => reasons.push("no response".into()),
            }
        }
        let mut fail = StepFailure::msg(format!("no acceptable outcome: {}", reasons.join("; ")));
        if let Some(ConnOutput::Frame(f)) = &came.out {
            fail.actual = Some(self.describe(conn, &came));
            fail.raw_hex = Some(to_hex(f));
        }
        fail.expected = Some(yaml(&outcomes));
        Err(fail)
    }

    fn check_response(
        &mut self,
        conn: u32,
        came: &Came,
        pattern: Option<&Value>,
        mode: MatchMode,
        inner: Option<&Value>,
    ) -> Result<(), StepFail> {
        let frame = match &came.out {
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
        let sent = self.sent.get_mut(&conn).and_then(VecDeque::pop_front);
        let (Some(sent), Some(decoded)) = (sent, &came.decoded) else {
            let mut f = StepFailure::msg("the target answered a request kipcheck did not send");
            f.raw_hex = Some(to_hex(frame));
            return Err(f);
        };
        let decoded = decoded.as_ref().map_err(|e| {
            let mut f = StepFailure::msg(format!("the response does not decode: {e}"));
            f.raw_hex = Some(to_hex(frame));
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
            mismatches.extend(compare_with(
                p,
                Some(&actual),
                mode,
                &self.numbers,
                "body",
                &mut self.captures,
            ));
        }
        if let (Some(p), Some(forwarded)) = (inner, sent.inner) {
            mismatches.extend(self.forwarded_answer(p, mode, &decoded.body, forwarded));
        }
        if mismatches.is_empty() {
            Ok(())
        } else {
            let mut f = mismatch_fail(&self.numbers, mismatches, pattern, &actual);
            f.raw_hex = Some(to_hex(frame));
            Err(f)
        }
    }

    /// What came on `conn`, for a failure's `actual`: the answer to the oldest request sent
    /// there (which it consumes), as YAML, or why it is not one.
    fn describe(&mut self, conn: u32, came: &Came) -> String {
        let sent = self.sent.get_mut(&conn).and_then(VecDeque::pop_front);
        match (sent, &came.decoded, &came.out) {
            (Some(_), Some(Ok(d)), _) => yaml(&d.body),
            (Some(_), Some(Err(e)), _) => format!("an undecodable frame: {e}\n"),
            (_, _, Some(ConnOutput::Frame(f))) => {
                format!("an unexpected frame of {} bytes\n", f.len())
            }
            _ => "nothing\n".into(),
        }
    }
}

impl Exec<'_> {
    /// The Envelope answer's `ResponseData` decoded as the answer to the forwarded request
    /// `(api, version, correlation id)` and matched against `p` (path `inner`).
    fn forwarded_answer(
        &mut self,
        p: &Value,
        mode: MatchMode,
        outer: &ResponseBody,
        (api_key, version, correlation_id): Forwarded,
    ) -> Vec<Mismatch> {
        let mismatch = |expected: &str, actual: String| Mismatch {
            path: "inner".into(),
            expected: expected.into(),
            actual,
        };
        let data = match outer {
            ResponseBody::Envelope(e) => e.response_data.as_ref(),
            _ => None,
        };
        let Some(data) = data else {
            return vec![mismatch("a forwarded answer", "ResponseData null".into())];
        };
        let decoded = match codec::decode_response(&data.0, 0, api_key, version) {
            Ok(d) => d,
            Err(e) => {
                return vec![mismatch(
                    "a forwarded answer that decodes",
                    format!("{e} in {}", to_hex(&data.0)),
                )]
            }
        };
        let mut found = Vec::new();
        if decoded.header.correlation_id != correlation_id {
            found.push(Mismatch {
                path: "inner.header.CorrelationId".into(),
                expected: correlation_id.to_string(),
                actual: decoded.header.correlation_id.to_string(),
            });
        }
        let actual = serde_json::to_value(&decoded.body).unwrap_or(Value::Null);
        found.extend(compare_with(
            p,
            Some(&actual),
            mode,
            &self.numbers,
            "inner",
            &mut self.captures,
        ));
        found
    }
}
