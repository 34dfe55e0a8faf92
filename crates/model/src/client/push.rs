//! Sending PushConfig and judging its answer: which connected, authenticated node is eligible,
//! the sticky node and seeded choice among them, the request built from the selection, and the
//! reaction to each error code (retriable or not) and to a disconnect. It schedules no timer
//! itself (see `timers`).

use super::interface::{ClientOutput, HandshakeState};
use super::state::{Auth, ClientModel, InFlight};
use crate::events::{Event, NodeId, RetryCause, UnblockReason};
use crate::selection::request_size;
use crate::time::Millis;
use kipcheck_codec::{ErrorCode, PushConfigResponse, RequestBody};

impl ClientModel {
    pub(super) fn on_push_response(
        &mut self,
        now: Millis,
        node: NodeId,
        body: &PushConfigResponse,
        out: &mut Vec<ClientOutput>,
    ) {
        let ours = self.state == HandshakeState::Pending
            && self.in_flight.as_ref().is_some_and(|f| f.node == node);
        if !ours {
            self.emit(now, Event::ResponseIgnored { node }, out);
            return;
        }
        if self.decisions.honours_throttle(body.throttle_time_ms) {
            let until = now.plus(body.throttle_time_ms as u64);
            self.nodes.entry(node).or_default().throttled_until = until;
            self.emit(now, Event::ThrottleApplied { node, until }, out);
        }
        let code = self
            .profile
            .provisional
            .canonical_error(ErrorCode(body.error_code));
        if code.is_ok() {
            self.in_flight = None;
            self.successes += 1;
            self.state = HandshakeState::Completed { node };
            self.emit(now, Event::HandshakeCompleted { node }, out);
            self.release(now, UnblockReason::Completed, out);
        } else if self.decisions.retries_push_error(code) {
            self.schedule_retry(now, RetryCause::RetriableError(code), out);
        } else if let Some(next) = self
            .selection
            .request
            .as_ref()
            .and_then(|sent| self.decisions.retry_request_after(code, sent))
        {
            self.selection.request = Some(next);
            self.schedule_retry(now, RetryCause::RetriableError(code), out);
        } else {
            self.in_flight = None;
            self.state = HandshakeState::Rejected { error_code: code };
            let error_message = body.error_message.as_ref().map(|m| m.to_string());
            self.emit(
                now,
                Event::PushRejected {
                    node,
                    error_code: code,
                    error_message,
                },
                out,
            );
            self.release(now, UnblockReason::Rejected, out);
        }
    }

    /// The node's connection is gone: no ApiVersions answer, no sticky node.
    pub(super) fn mark_disconnected(&mut self, node: NodeId) {
        let st = self.nodes.entry(node).or_default();
        st.connected = false;
        st.push_config = None;
        st.auth = Auth::NotStarted;
        st.api_versions_deferred = false;
        if self.sticky == Some(node) {
            self.sticky = None;
        }
    }
}

impl ClientModel {
    pub(super) fn eligible(&self, node: NodeId) -> bool {
        self.nodes.get(&node).is_some_and(|s| {
            s.connected
                && self.decisions.may_push_to(
                    s.auth == Auth::Done,
                    s.push_config,
                    s.push_config.is_none() && !s.api_versions_deferred,
                )
        })
    }

    pub(super) fn try_push(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        if self.state != HandshakeState::Pending
            || self.in_flight.is_some()
            || now < self.next_attempt_at
        {
            return;
        }
        let Some(request) = self.selection.request.clone() else {
            return;
        };
        let node = match self.sticky.filter(|n| self.eligible(*n)) {
            Some(n) => {
                if self.nodes[&n].throttled_until > now {
                    return;
                }
                n
            }
            None => {
                let candidates: Vec<NodeId> = self
                    .nodes
                    .iter()
                    .filter(|(n, s)| self.eligible(**n) && s.throttled_until <= now)
                    .map(|(n, _)| *n)
                    .collect();
                if candidates.is_empty() {
                    return;
                }
                let n = self.decisions.choose_node(&candidates, &mut self.rng);
                self.sticky = Some(n);
                self.emit(
                    now,
                    Event::NodeChosen {
                        node: n,
                        candidates,
                    },
                    out,
                );
                n
            }
        };
        if !self.eligible(node) {
            self.pushes_to_non_advertising += 1;
        }
        self.attempts += 1;
        self.in_flight = Some(InFlight {
            node,
            timeout_at: now.plus(self.request_timeout_ms),
        });
        let size = request_size(self.profile.size_measure, &request);
        self.emit(
            now,
            Event::PushConfigSent {
                node,
                attempt: self.attempts,
                entries: request.configs.len(),
                size,
            },
            out,
        );
        out.push(ClientOutput::Send {
            node,
            api_key: self.profile.provisional.push_config_api_key,
            api_version: 0,
            body: RequestBody::PushConfig(request),
        });
    }
}
