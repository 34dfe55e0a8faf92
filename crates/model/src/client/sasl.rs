//! The SASL step of a client that [`uses_sasl`](super::uses_sasl): the mechanism and token from the user
//! configuration, SaslHandshake then SaslAuthenticate on each connection after its ApiVersions
//! answer, and the failure of either. It never sends PushConfig itself.

use super::interface::{ClientOutput, SASL_AUTHENTICATE_VERSION, SASL_HANDSHAKE_VERSION};
use super::state::{Auth, ClientModel};

use crate::events::{Event, NodeId};
use crate::time::Millis;
use kipcheck_codec::{
    ApiKey, Bytes, ErrorCode, RequestBody, SaslAuthenticateRequest, SaslAuthenticateResponse,
    SaslHandshakeRequest, SaslHandshakeResponse,
};

impl ClientModel {
    /// A SASL client authenticates each connection once ApiVersions is answered: SaslHandshake
    /// with its mechanism first.
    pub(super) fn start_sasl(&mut self, node: NodeId, out: &mut Vec<ClientOutput>) {
        let Some(sasl) = &self.sasl else {
            return;
        };
        let Some(st) = self
            .nodes
            .get_mut(&node)
            .filter(|s| s.auth == Auth::NotStarted)
        else {
            return;
        };
        st.auth = Auth::Handshake;
        out.push(ClientOutput::Send {
            node,
            api_key: ApiKey::SASL_HANDSHAKE,
            api_version: SASL_HANDSHAKE_VERSION,
            body: RequestBody::SaslHandshake(SaslHandshakeRequest {
                mechanism: sasl.mechanism.clone().into(),
            }),
        });
    }

    /// Whether `node`'s connection is at SASL step `step` (else the answer is ignored).
    pub(super) fn at_auth_step(
        &mut self,
        now: Millis,
        node: NodeId,
        step: Auth,
        out: &mut Vec<ClientOutput>,
    ) -> bool {
        let at = self
            .nodes
            .get(&node)
            .is_some_and(|s| s.connected && s.auth == step);
        if !at {
            self.emit(now, Event::ResponseIgnored { node }, out);
        }
        at
    }

    pub(super) fn on_sasl_handshake(
        &mut self,
        now: Millis,
        node: NodeId,
        body: &SaslHandshakeResponse,
        out: &mut Vec<ClientOutput>,
    ) {
        if !self.at_auth_step(now, node, Auth::Handshake, out) {
            return;
        }
        let Some(sasl) = &self.sasl else {
            return;
        };
        let enabled = body.mechanisms.iter().any(|m| **m == *sasl.mechanism);
        let code = match ErrorCode(body.error_code) {
            ErrorCode::NONE if !enabled => ErrorCode::UNSUPPORTED_SASL_MECHANISM,
            code => code,
        };
        if code != ErrorCode::NONE {
            return self.authentication_failed(now, node, code, out);
        }
        let token = sasl.token.clone();
        if let Some(st) = self.nodes.get_mut(&node) {
            st.auth = Auth::Authenticate;
        }
        out.push(ClientOutput::Send {
            node,
            api_key: ApiKey::SASL_AUTHENTICATE,
            api_version: SASL_AUTHENTICATE_VERSION,
            body: RequestBody::SaslAuthenticate(SaslAuthenticateRequest {
                auth_bytes: Bytes(token),
                ..Default::default()
            }),
        });
    }

    pub(super) fn on_sasl_authenticate(
        &mut self,
        now: Millis,
        node: NodeId,
        body: &SaslAuthenticateResponse,
        out: &mut Vec<ClientOutput>,
    ) {
        if !self.at_auth_step(now, node, Auth::Authenticate, out) {
            return;
        }
        let code = ErrorCode(body.error_code);
        if !self.decisions.authentication_succeeded(code) {
            return self.authentication_failed(now, node, code, out);
        }
        if let Some(st) = self.nodes.get_mut(&node) {
            st.auth = Auth::Done;
        }
        self.emit(now, Event::Authenticated { node }, out);
    }

    /// Authentication on `node`'s connection failed: the client closes it (no PushConfig
    /// goes there) and connects to it again only when told to.
    pub(super) fn authentication_failed(
        &mut self,
        now: Millis,
        node: NodeId,
        error_code: ErrorCode,
        out: &mut Vec<ClientOutput>,
    ) {
        self.mark_disconnected(node);
        self.emit(now, Event::AuthenticationFailed { node, error_code }, out);
    }
}
