//! Pairing a scenario's body patterns with the message and version each will be compared
//! with, in step order and as the runner pairs them, and checking each pattern against that
//! message's schema (`body_schema.rs`). Reads no file, compiles nothing and judges no target.

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use super::body_schema::{check_body, check_body_at, Against, BodyError, Seg};
use super::types::{Nodes, Outcome, Step};
use crate::codec::schema::{message_schema, MessageSchema};
use crate::codec::{BodyInfo, RequestBody, ResponseBody};

/// A request whose answer a later expectation judges.
#[derive(Clone, Copy)]
struct Pending {
    /// The response's schema.
    schema: &'static MessageSchema,
    /// The request's version.
    version: i16,
    /// Index of the step that sent it.
    step: usize,
    /// An Envelope's forwarded request: the schema of its answer and its version.
    inner: Option<(&'static MessageSchema, i16)>,
}

/// Pairs body patterns with the message and version they will be compared with, in step
/// order and exactly as the runner pairs them: per connection, each expectation takes the
/// oldest unanswered `send` (or `send_raw` naming `api` and `version`); per emulated node,
/// each `respond` answers the oldest request taken by an `expect_request` for that node (one
/// without `from` counts for the first node answered).
#[derive(Default)]
pub(super) struct Pairing {
    sent: BTreeMap<u32, VecDeque<Pending>>,
    /// The requests `expect_request` took, oldest first: node (`None` = not said), the
    /// response's schema, the step.
    asked: VecDeque<(Option<i32>, &'static MessageSchema, usize)>,
    /// A request may have been taken whose API the file does not say (a filtered
    /// `expect_no_request`): later `respond` bodies are not checked.
    asked_unknown: bool,
}

/// The schema of the message `info` names; every dispatched body has one.
fn schema_of(info: &BodyInfo) -> Option<&'static MessageSchema> {
    message_schema(info.message)
}

/// Prefixes a body error's path with the step's own keys.
fn under(kind: &str, inner: &[Seg], e: BodyError) -> BodyError {
    let mut at = vec![Seg::Key(kind.to_owned())];
    at.extend_from_slice(inner);
    at.extend(e.at);
    BodyError {
        at,
        message: format!("{kind}: {}", e.message),
    }
}

impl Pairing {
    fn response(&mut self, conn: u32) -> Option<Pending> {
        self.sent.get_mut(&conn).and_then(VecDeque::pop_front)
    }

    /// Takes the oldest request the client sent to `node`.
    fn answered(&mut self, node: i32) -> Option<(&'static MessageSchema, usize)> {
        let i = self
            .asked
            .iter()
            .position(|(n, _, _)| n.is_none_or(|n| n == node))?;
        self.asked.remove(i).map(|(_, schema, step)| (schema, step))
    }

    pub(super) fn step(&mut self, i: usize, step: &Step) -> Result<(), BodyError> {
        let body = [Seg::Key("body".into())];
        match step {
            Step::Send(s) => {
                check_sent(&s.api, s.version, s.body.as_ref(), &body)?;
                let inner = match &s.inner {
                    Some(r) => {
                        let at = [Seg::Key("inner".into()), Seg::Key("body".into())];
                        check_sent(&r.api, r.version, r.body.as_ref(), &at)?;
                        let answer = ResponseBody::info_by_name(&r.api).and_then(schema_of);
                        answer.map(|schema| (schema, r.version))
                    }
                    None => None,
                };
                if let Some(schema) = ResponseBody::info_by_name(&s.api).and_then(schema_of) {
                    self.sent.entry(s.conn).or_default().push_back(Pending {
                        schema,
                        version: s.version,
                        step: i,
                        inner,
                    });
                }
            }
            Step::SendRaw(s) => {
                if let (Some(api), Some(version)) = (&s.api, s.version) {
                    if let Some(schema) = ResponseBody::info_by_name(api).and_then(schema_of) {
                        self.sent.entry(s.conn).or_default().push_back(Pending {
                            schema,
                            version,
                            step: i,
                            inner: None,
                        });
                    }
                }
            }
            Step::ExpectResponse(e) => {
                let answered = self.response(e.conn);
                if let (Some(p), Some(b)) = (answered, &e.body) {
                    check_response(b, p, "body").map_err(|x| under("expect_response", &body, x))?;
                }
                if let (Some(p), Some(b)) = (answered, &e.inner) {
                    if let Some((schema, version)) = p.inner {
                        let inner = Pending {
                            schema,
                            version,
                            inner: None,
                            ..p
                        };
                        let at = [Seg::Key("inner".into())];
                        check_response(b, inner, "inner")
                            .map_err(|x| under("expect_response", &at, x))?;
                    }
                }
            }
            Step::ExpectClose(c) => {
                self.response(c.conn);
            }
            Step::ExpectOneOf(outcomes) => {
                let conn = match outcomes.first() {
                    Some(Outcome::Response(r)) => r.conn,
                    Some(Outcome::Close(c)) => c.conn,
                    None => return Ok(()),
                };
                let Some(p) = self.response(conn) else {
                    return Ok(());
                };
                for (j, o) in outcomes.iter().enumerate() {
                    if let Outcome::Response(r) = o {
                        if let Some(b) = &r.body {
                            let inner =
                                [Seg::Index(j), Seg::Key("response".into()), body[0].clone()];
                            check_response(b, p, "body")
                                .map_err(|x| under("expect_one_of", &inner, x))?;
                        }
                    }
                }
            }
            Step::ExpectRequest(e) => {
                let Some(info) = RequestBody::info_by_name(&e.api) else {
                    return Ok(());
                };
                if let (Some(schema), Some(b)) = (schema_of(info), &e.body) {
                    let pinned = e.version.map(|v| [v]);
                    let to = Against {
                        message: schema,
                        versions: pinned.as_ref().map(|v| v.as_slice()),
                        what: "request",
                        note: None,
                        literal: false,
                    };
                    check_body(b, &to).map_err(|x| under("expect_request", &body, x))?;
                }
                match ResponseBody::info(info.api_key).and_then(schema_of) {
                    // An optional request is answered by its own step.
                    _ if e.optional => {}
                    Some(schema) => {
                        self.asked
                            .push_back((e.from.as_ref().and_then(Nodes::single), schema, i))
                    }
                    None => self.asked_unknown = true,
                }
            }
            Step::ExpectNoRequest(e) if e.api.is_some() || e.from.is_some() => {
                self.asked_unknown = true;
            }
            Step::Timeout { node } => {
                self.answered(*node);
            }
            Step::Disconnect { node } => {
                self.asked.retain(|(n, _, _)| *n != Some(*node));
            }
            Step::Respond(r) => {
                let asked = self.answered(r.to);
                if let (Some((schema, from)), Some(b), false) = (asked, &r.body, self.asked_unknown)
                {
                    let note = format!("the answer to the request of step {}", from + 1);
                    let to = Against {
                        message: schema,
                        versions: None,
                        what: "response",
                        note: Some(&note),
                        literal: true,
                    };
                    check_body(b, &to).map_err(|x| under("respond", &body, x))?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Checks a body `send` sends as written (at `at`: `body`, `inner.body`) against the request
/// of `api` at `version`.
fn check_sent(api: &str, version: i16, b: Option<&Value>, at: &[Seg]) -> Result<(), BodyError> {
    let request = RequestBody::info_by_name(api).and_then(schema_of);
    let (Some(schema), Some(b)) = (request, b) else {
        return Ok(());
    };
    let version = [version];
    let to = Against {
        message: schema,
        versions: Some(&version),
        what: "request",
        note: None,
        literal: true,
    };
    let root: Vec<String> = at
        .iter()
        .filter_map(|s| match s {
            Seg::Key(k) => Some(k.clone()),
            _ => None,
        })
        .collect();
    check_body_at(b, &to, &root.join(".")).map_err(|x| under("send", at, x))
}

/// Checks an expected response body against the answer to `p`.
fn check_response(body: &Value, p: Pending, root: &str) -> Result<(), BodyError> {
    let key = crate::codec::ApiKey(p.schema.api_key.unwrap_or(-1));
    let versions = crate::codec::response_body_versions(key, p.version);
    if versions.is_empty() {
        return Ok(());
    }
    let note = format!("the answer to step {}", p.step + 1);
    let to = Against {
        message: p.schema,
        versions: Some(&versions),
        what: "response",
        note: Some(&note),
        literal: false,
    };
    check_body_at(body, &to, root)
}
