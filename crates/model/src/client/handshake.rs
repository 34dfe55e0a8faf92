//! The client's input dispatcher ([`ClientModel::handle`]), the start of each connection and
//! the ApiVersions step (which nodes advertise PushConfig; releasing held requests when none
//! does). It does not choose the push target or retry (see `push` and `timers`).

use super::interface::{
    ClientInput, ClientOutput, HandshakeState, API_VERSIONS_VERSION, CLIENT_SOFTWARE_NAME,
    CLIENT_SOFTWARE_VERSION,
};
use super::state::{Auth, ClientModel};
use crate::events::{Event, NodeId, RetryCause, SkipReason, UnblockReason};
use crate::time::Millis;
use kipcheck_codec::{ApiKey, ApiVersionsRequest, ApiVersionsResponse, RequestBody};

impl ClientModel {
    /// Feeds one input at time `now` (non-decreasing across calls) and returns what to do.
    pub fn handle(&mut self, now: Millis, input: ClientInput) -> Vec<ClientOutput> {
        let mut out = Vec::new();
        self.run_timers(now, &mut out);
        match input {
            ClientInput::Start => self.on_start(now, &mut out),
            ClientInput::Connected { node } => {
                let plaintext = self.sasl.is_none();
                let st = self.nodes.entry(node).or_default();
                st.connected = true;
                st.push_config = None;
                st.auth = if plaintext {
                    Auth::Done
                } else {
                    Auth::NotStarted
                };
                if st.throttled_until > now {
                    st.api_versions_deferred = true;
                    let until = st.throttled_until;
                    self.emit(now, Event::ApiVersionsDeferred { node, until }, &mut out);
                } else {
                    self.send_api_versions(now, node, &mut out);
                }
            }
            ClientInput::ApiVersionsResponse { node, body } => {
                self.on_api_versions(now, node, &body, &mut out)
            }
            ClientInput::SaslHandshakeResponse { node, body } => {
                self.on_sasl_handshake(now, node, &body, &mut out)
            }
            ClientInput::SaslAuthenticateResponse { node, body } => {
                self.on_sasl_authenticate(now, node, &body, &mut out)
            }
            ClientInput::PushConfigResponse { node, body } => {
                self.on_push_response(now, node, &body, &mut out)
            }
            ClientInput::Disconnected { node } => {
                self.mark_disconnected(node);
                if self.in_flight.as_ref().is_some_and(|f| f.node == node) {
                    self.schedule_retry(now, RetryCause::Disconnected, &mut out);
                }
            }
            ClientInput::RequestTimedOut { node } => {
                if self.in_flight.as_ref().is_some_and(|f| f.node == node) {
                    self.on_request_timeout(now, &mut out);
                }
            }
            ClientInput::UserRequest { id } => {
                if self.is_blocking() && self.decisions.holds_user_requests() {
                    // A producer's send() "Blocks up to max.block.ms", counted from the call;
                    // the handshake goes on at least that long. Other clients' requests wait
                    // for the handshake deadline counted from start.
                    let until = if self.decisions.waits_from_call(self.client_type) {
                        let until = now.plus(self.deadline_ms);
                        self.deadline = self.deadline.max(until);
                        until
                    } else {
                        self.deadline
                    };
                    self.blocked.push((id, until));
                    self.emit(now, Event::UserRequestBlocked { id }, &mut out);
                } else {
                    self.emit(now, Event::UserRequestReleased { id }, &mut out);
                    out.push(ClientOutput::ReleaseUserRequest { id });
                }
            }
            ClientInput::Tick => {}
        }
        self.try_push(now, &mut out);
        if let Some(at) = self.next_wake(now) {
            out.push(ClientOutput::WakeAt(at));
        }
        out
    }

    pub(super) fn on_start(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        if self.state != HandshakeState::NotStarted {
            return;
        }
        let skip = match self.decisions.skips_handshake(self.embedded, self.enabled) {
            Some(reason) => Some(reason),
            None => {
                for e in self.selection.events.clone() {
                    self.emit(now, e, out);
                }
                self.selection
                    .request
                    .is_none()
                    .then_some(SkipReason::NothingToSend)
            }
        };
        match skip {
            Some(reason) => {
                self.state = HandshakeState::Skipped(reason);
                self.emit(now, Event::HandshakeSkipped { reason }, out);
                self.release(now, UnblockReason::Skipped, out);
            }
            None => {
                self.state = HandshakeState::Pending;
                self.deadline = now.plus(self.deadline_ms);
                self.emit(
                    now,
                    Event::HandshakeStarted {
                        deadline: self.deadline,
                    },
                    out,
                );
                self.release_if_no_node_supports(now, out);
            }
        }
    }

    pub(super) fn send_api_versions(
        &mut self,
        now: Millis,
        node: NodeId,
        out: &mut Vec<ClientOutput>,
    ) {
        if let Some(st) = self.nodes.get_mut(&node) {
            st.api_versions_deferred = false;
        }
        self.emit(now, Event::ApiVersionsSent { node }, out);
        out.push(ClientOutput::Send {
            node,
            api_key: ApiKey::API_VERSIONS,
            api_version: API_VERSIONS_VERSION,
            body: RequestBody::ApiVersions(ApiVersionsRequest {
                client_software_name: Some(CLIENT_SOFTWARE_NAME.into()),
                client_software_version: Some(CLIENT_SOFTWARE_VERSION.into()),
                ..Default::default()
            }),
        });
    }

    pub(super) fn on_api_versions(
        &mut self,
        now: Millis,
        node: NodeId,
        body: &ApiVersionsResponse,
        out: &mut Vec<ClientOutput>,
    ) {
        if !self.nodes.get(&node).is_some_and(|s| s.connected) {
            self.emit(now, Event::ResponseIgnored { node }, out);
            return;
        }
        let key = self.profile.provisional.push_config_api_key.0;
        let supports = body.error_code == 0
            && body.api_keys.iter().any(|k| {
                k.api_key == key
                    && self
                        .decisions
                        .supports_push_config(k.min_version, k.max_version)
            });
        if let Some(st) = self.nodes.get_mut(&node) {
            st.push_config = Some(supports);
        }
        let again = match self.state {
            HandshakeState::Completed { .. } | HandshakeState::Rejected { .. } => {
                self.decisions.handshakes_again(&self.state)
            }
            _ => false,
        };
        if supports && again {
            self.state = HandshakeState::Pending;
            self.deadline = now.plus(self.deadline_ms);
            self.sticky = Some(node);
            self.next_attempt_at = now;
            let deadline = self.deadline;
            self.emit(now, Event::HandshakeStarted { deadline }, out);
        }
        self.emit(
            now,
            Event::NodeSupport {
                node,
                push_config: supports,
            },
            out,
        );
        self.release_if_no_node_supports(now, out);
        self.start_sasl(node, out);
    }
}

impl ClientModel {
    /// Releases user requests when every connected node has answered ApiVersions without
    /// PushConfig (old brokers): the push may still happen later, without blocking anyone.
    pub(super) fn release_if_no_node_supports(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        let mut connected = self.nodes.values().filter(|s| s.connected).peekable();
        let any = connected.peek().is_some();
        let none_supports = connected.all(|s| s.push_config == Some(false));
        if self.is_blocking() && any && none_supports {
            self.release(now, UnblockReason::NoNodeSupportsPushConfig, out);
        }
    }
}
