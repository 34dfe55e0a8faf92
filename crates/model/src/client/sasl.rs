//! The SASL step of a client that [`uses_sasl`]: the mechanism and token from the user
//! configuration, SaslHandshake then SaslAuthenticate on each connection after its ApiVersions
//! answer, and the failure of either. It never sends PushConfig itself.

use std::collections::BTreeMap;

use super::interface::{ClientOutput, SASL_AUTHENTICATE_VERSION, SASL_HANDSHAKE_VERSION};
use super::state::{Auth, ClientModel};
use crate::config_def::ClientDefinitions;
use crate::events::{Event, NodeId};
use crate::faults::Fault;
use crate::profile::SpecProfile;
use crate::selection::{self};
use crate::time::Millis;
use kipcheck_codec::{
    ApiKey, Bytes, ErrorCode, RequestBody, SaslAuthenticateRequest, SaslAuthenticateResponse,
    SaslHandshakeRequest, SaslHandshakeResponse,
};

/// Whether a client with this user configuration authenticates with SASL on every connection:
/// `security.protocol` is `SASL_PLAINTEXT` or `SASL_SSL` (case-insensitive, as Kafka's
/// `SecurityProtocol.forName`). The one test of it: the client model and the emulated brokers
/// that answer it.
pub fn uses_sasl(user: &BTreeMap<String, String>) -> bool {
    user.get("security.protocol")
        .is_some_and(|p| p.trim().to_ascii_uppercase().starts_with("SASL_"))
}

/// The SASL exchange of a client that [`uses_sasl`]: its `sasl.mechanism` and the one token it
/// sends (PLAIN: `NUL username NUL password` from the `username="…"` and `password="…"` of
/// `sasl.jaas.config`; other mechanisms are not spoken, the same token goes out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sasl {
    pub(crate) mechanism: String,
    pub(crate) token: Vec<u8>,
}

impl Sasl {
    pub(super) fn from_config(
        defs: &ClientDefinitions,
        user: &BTreeMap<String, String>,
        p: &SpecProfile,
    ) -> Self {
        let mechanism = selection::effective_value(defs, user, p, "sasl.mechanism")
            .and_then(|(v, _)| v)
            .unwrap_or_default();
        let jaas = user.get("sasl.jaas.config").map_or("", String::as_str);
        let option = |name: &str| {
            let start = jaas.find(&format!("{name}=\""))? + name.len() + 2;
            let len = jaas[start..].find('"')?;
            Some(&jaas[start..start + len])
        };
        let mut token = vec![0];
        token.extend_from_slice(option("username").unwrap_or_default().as_bytes());
        token.push(0);
        token.extend_from_slice(option("password").unwrap_or_default().as_bytes());
        Self { mechanism, token }
    }
}

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
        if code != ErrorCode::NONE && !self.faults.has(Fault::PushAfterFailedAuthentication) {
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
