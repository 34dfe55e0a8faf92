//! Sending PushConfig and judging its answer: which connected, authenticated node is eligible,
//! the sticky node and seeded choice among them, the request built from the selection, and the
//! reaction to each error code (retriable or not) and to a disconnect. It schedules no timer
//! itself (see `timers`).

use super::interface::{ClientOutput, HandshakeState};
use super::state::{Auth, ClientModel, InFlight};
use crate::events::{Event, NodeId, RetryCause, UnblockReason};
use crate::faults::Fault;
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
        if body.throttle_time_ms > 0 && !self.faults.has(Fault::IgnoresThrottle) {
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
        } else if (self.retriable(code)
            && code != ErrorCode::CONFIG_TOO_LARGE
            && code != ErrorCode::INVALID_CONFIG
            && !self.faults.has(Fault::RetriableErrorsNotRetried))
            || (code == ErrorCode::CONFIG_TOO_LARGE
                && self.faults.has(Fault::RetriesConfigTooLarge))
            || (code == ErrorCode::INVALID_CONFIG && self.faults.has(Fault::RetriesInvalidConfig))
        {
            self.schedule_retry(now, RetryCause::RetriableError(code), out);
        } else if code == ErrorCode::CONFIG_TOO_LARGE
            && self.faults.has(Fault::ShrinksAfterConfigTooLarge)
            && self
                .selection
                .request
                .as_ref()
                .is_some_and(|r| r.configs.len() > 1)
        {
            if let Some(r) = self.selection.request.as_mut() {
                r.configs.truncate(r.configs.len() / 2);
            }
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
            if !self.faults.has(Fault::RejectionKeepsRequestsHeld) {
                self.release(now, UnblockReason::Rejected, out);
            }
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
    /// Whether `code` is retried as a transient PushConfig error (`ErrorCode::retriable`).
    pub(super) fn retriable(&self, code: ErrorCode) -> bool {
        if self.faults.has(Fault::RetriesEveryOtherCode) {
            return true;
        }
        if self.faults.has(Fault::HardCodedRetriableSet) {
            return matches!(
                code,
                ErrorCode::REQUEST_TIMED_OUT
                    | ErrorCode::NETWORK_EXCEPTION
                    | ErrorCode::COORDINATOR_LOAD_IN_PROGRESS
                    | ErrorCode::COORDINATOR_NOT_AVAILABLE
            );
        }
        code.retriable()
    }

    pub(super) fn eligible(&self, node: NodeId) -> bool {
        let any_answer = self.faults.has(Fault::PushToUnadvertisingBroker);
        let unanswered = self.faults.has(Fault::PushBeforeApiVersionsAnswer);
        let before_auth = self.faults.has(Fault::PushBeforeAuthentication);
        self.nodes.get(&node).is_some_and(|s| {
            s.connected
                && (s.auth == Auth::Done || before_auth)
                && (s.push_config == Some(true)
                    || (any_answer && s.push_config.is_some())
                    || (unanswered && s.push_config.is_none() && !s.api_versions_deferred))
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
                let n = if self.faults.has(Fault::FixedNodeChoice) {
                    candidates[0]
                } else {
                    candidates[self.rng.below(candidates.len() as u64) as usize]
                };
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
