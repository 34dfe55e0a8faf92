//! The client's clock-driven decisions: the PushConfig request timeout, retries after the
//! exponential backoff, the handshake deadline, releasing held user requests, and the next time
//! the client wants to be woken. It reads no clock: time comes in with each input.

use super::interface::{ClientOutput, HandshakeState};
use super::state::ClientModel;
use crate::events::{Event, NodeId, RetryCause, UnblockReason};
use crate::profile::RequestTimeoutAction;
use crate::time::Millis;

impl ClientModel {
    /// The in-flight PushConfig timed out: retry after the backoff, on the same connection or
    /// (profile `request_timeout: disconnect`) after closing it.
    pub(super) fn on_request_timeout(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        let node = self.in_flight.as_ref().map(|f| f.node);
        self.schedule_retry(now, RetryCause::RequestTimedOut, out);
        if let (Some(node), RequestTimeoutAction::Disconnect) = (node, self.profile.request_timeout)
        {
            self.mark_disconnected(node);
            self.emit(
                now,
                Event::ConnectionClosed {
                    reason: format!("PushConfig to node {node} timed out"),
                },
                out,
            );
        }
    }

    pub(super) fn schedule_retry(
        &mut self,
        now: Millis,
        cause: RetryCause,
        out: &mut Vec<ClientOutput>,
    ) {
        let Some(failed) = self.in_flight.take() else {
            return;
        };
        let backoff_ms =
            self.decisions
                .retry_backoff_ms(&self.backoff, self.attempts, &mut self.rng);
        let mut at = now.plus(backoff_ms);
        if self.sticky == Some(failed.node) {
            at = at.max(
                self.nodes
                    .get(&failed.node)
                    .map_or(at, |s| s.throttled_until),
            );
        }
        self.next_attempt_at = at;
        self.emit(
            now,
            Event::RetryScheduled {
                at,
                failed_attempt: self.attempts,
                backoff_ms,
                cause,
            },
            out,
        );
    }

    pub(super) fn release(
        &mut self,
        now: Millis,
        reason: UnblockReason,
        out: &mut Vec<ClientOutput>,
    ) {
        if self.released || !self.decisions.releases_held_requests(reason) {
            return;
        }
        self.released = true;
        self.emit(now, Event::UserRequestsUnblocked { reason }, out);
        for (id, _) in std::mem::take(&mut self.blocked) {
            self.emit(now, Event::UserRequestReleased { id }, out);
            out.push(ClientOutput::ReleaseUserRequest { id });
        }
    }

    pub(super) fn run_timers(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        if self.state == HandshakeState::Pending && now >= self.deadline {
            self.in_flight = None;
            self.state = HandshakeState::Abandoned;
            self.emit(
                now,
                Event::HandshakeAbandoned {
                    attempts: self.attempts,
                },
                out,
            );
            self.release(now, UnblockReason::DeadlineExceeded, out);
        }
        if self
            .decisions
            .releases_held_requests(UnblockReason::DeadlineExceeded)
        {
            let (due, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.blocked)
                .into_iter()
                .partition(|(_, until)| *until <= now);
            self.blocked = waiting;
            for (id, _) in due {
                self.emit(now, Event::UserRequestReleased { id }, out);
                out.push(ClientOutput::ReleaseUserRequest { id });
            }
        }
        if self.in_flight.as_ref().is_some_and(|f| now >= f.timeout_at) {
            self.on_request_timeout(now, out);
        }
        let due: Vec<NodeId> = self
            .nodes
            .iter()
            .filter(|(_, s)| s.connected && s.api_versions_deferred && s.throttled_until <= now)
            .map(|(n, _)| *n)
            .collect();
        for node in due {
            self.send_api_versions(now, node, out);
        }
    }
}

impl ClientModel {
    pub(super) fn next_wake(&self, now: Millis) -> Option<Millis> {
        let mut t: Vec<Millis> = Vec::new();
        if self.state == HandshakeState::Pending {
            t.push(self.deadline);
            match &self.in_flight {
                Some(f) => t.push(f.timeout_at),
                None => {
                    t.push(self.next_attempt_at);
                    if let Some(s) = self.sticky.and_then(|n| self.nodes.get(&n)) {
                        t.push(s.throttled_until);
                    }
                }
            }
        }
        t.extend(self.blocked.iter().map(|(_, until)| *until));
        for s in self.nodes.values() {
            if s.connected && s.api_versions_deferred {
                t.push(s.throttled_until);
            }
        }
        t.into_iter().filter(|x| *x > now).min()
    }
}
