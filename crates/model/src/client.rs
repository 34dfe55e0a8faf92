//! The KIP-1324 client as a sans-IO state machine: the configuration handshake
//! (connect → ApiVersions → PushConfig → ready), once per client instance, on a node chosen
//! with the seeded RNG among nodes that advertise PushConfig; retries with exponential backoff
//! and jitter; ThrottleTimeMs; the deadline; and user requests held until the handshake ends.
//! With `security.protocol=SASL_*` each connection authenticates first (SaslHandshake, then
//! SaslAuthenticate, after the ApiVersions answer) and carries PushConfig only once that
//! succeeded (KIP-1324: "after authentication (if any)").
//! Inputs come in with the time they happen at and outputs say what to send and when to wake
//! the client; it never performs I/O, reads a clock or uses thread randomness.

use std::collections::BTreeMap;

use super::backoff::ExponentialBackoff;
use super::config_def::{client_definitions, ClientDefinitions, ClientType, ConfigType};
use super::events::{Event, LoggedEvent, NodeId, RetryCause, SkipReason, UnblockReason};
use super::faults::{Fault, Faults};
use super::profile::{RequestTimeoutAction, SpecProfile};
use super::rng::ModelRng;
use super::selection::{self, request_size, Selection, ENABLE_CONFIG_PUSH};
use super::time::Millis;
use kipcheck_codec::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, Bytes, ErrorCode, PushConfigRequest,
    PushConfigResponse, RequestBody, ResponseBody, SaslAuthenticateRequest,
    SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
};

/// ClientSoftwareName the model puts in ApiVersions.
pub const CLIENT_SOFTWARE_NAME: &str = "kipcheck-model";
/// ClientSoftwareVersion the model puts in ApiVersions.
pub const CLIENT_SOFTWARE_VERSION: &str = "0.1.0";
/// The ApiVersions request version the model sends.
pub const API_VERSIONS_VERSION: i16 = 3;
/// The SaslHandshake version the model sends (v1: the tokens then travel in SaslAuthenticate).
pub const SASL_HANDSHAKE_VERSION: i16 = 1;
/// The SaslAuthenticate version the model sends.
pub const SASL_AUTHENTICATE_VERSION: i16 = 2;

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
pub(super) struct Sasl {
    pub(super) mechanism: String,
    pub(super) token: Vec<u8>,
}

impl Sasl {
    fn from_config(
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

/// Something that happened to the client.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientInput {
    /// The client instance was created (the handshake clock starts).
    Start,
    /// A connection to `node` is established (TCP; SASL, if any, follows ApiVersions).
    Connected {
        /// The node.
        node: NodeId,
    },
    /// The ApiVersions response from `node`.
    ApiVersionsResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: ApiVersionsResponse,
    },
    /// The SaslHandshake response from `node`.
    SaslHandshakeResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: SaslHandshakeResponse,
    },
    /// The SaslAuthenticate response from `node`.
    SaslAuthenticateResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: SaslAuthenticateResponse,
    },
    /// The PushConfig response from `node` (error codes as on the wire).
    PushConfigResponse {
        /// The node.
        node: NodeId,
        /// The body.
        body: PushConfigResponse,
    },
    /// The connection to `node` closed.
    Disconnected {
        /// The node.
        node: NodeId,
    },
    /// The runner declares the in-flight request to `node` timed out.
    RequestTimedOut {
        /// The node.
        node: NodeId,
    },
    /// The application issues a request (e.g. `send()`, `poll()`, an admin call).
    UserRequest {
        /// The runner's id for it.
        id: u64,
    },
    /// Time passed; only timers run.
    Tick,
}

impl ClientInput {
    /// The input that carries `body`, `node`'s answer to one of the client's requests
    /// (ApiVersions, SaslHandshake, SaslAuthenticate, PushConfig); `None` for any other API.
    pub fn answer(node: NodeId, body: ResponseBody) -> Option<Self> {
        Some(match body {
            ResponseBody::ApiVersions(body) => Self::ApiVersionsResponse { node, body },
            ResponseBody::SaslHandshake(body) => Self::SaslHandshakeResponse { node, body },
            ResponseBody::SaslAuthenticate(body) => Self::SaslAuthenticateResponse { node, body },
            ResponseBody::PushConfig(body) => Self::PushConfigResponse { node, body },
            _ => return None,
        })
    }
}

/// Something the client wants done.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientOutput {
    /// Send a request.
    Send {
        /// The node.
        node: NodeId,
        /// The API key on the wire (PushConfig's is the profile's provisional number).
        api_key: ApiKey,
        /// The version.
        api_version: i16,
        /// The body.
        body: RequestBody,
    },
    /// The application's request may go ahead now.
    ReleaseUserRequest {
        /// Its id.
        id: u64,
    },
    /// Call [`ClientModel::handle`] again at this time (with [`ClientInput::Tick`]).
    WakeAt(Millis),
    /// A decision (also kept in [`ClientModel::events`]).
    Event(Event),
}

/// Where the handshake stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandshakeState {
    /// `Start` not yet received.
    NotStarted,
    /// No handshake for this client.
    Skipped(SkipReason),
    /// In progress.
    Pending,
    /// The broker accepted the configuration.
    Completed {
        /// The node that accepted it.
        node: NodeId,
    },
    /// A non-retriable error ended it (logged, not retried).
    Rejected {
        /// The canonical code.
        error_code: ErrorCode,
    },
    /// The deadline passed first.
    Abandoned,
}

/// A user configuration the client refuses (Kafka throws ConfigException in the constructor).
#[derive(Debug, thiserror::Error)]
pub enum ClientConfigError {
    /// A defined key's value does not parse as its type.
    #[error("invalid value {value:?} for configuration {key}: expected {ty}")]
    InvalidValue {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// Its type.
        ty: ConfigType,
    },
}

/// Where a connection's SASL authentication stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Auth {
    /// Nothing sent yet (a SASL client, before the ApiVersions answer).
    #[default]
    NotStarted,
    /// SaslHandshake sent, unanswered.
    Handshake,
    /// SaslAuthenticate sent, unanswered.
    Authenticate,
    /// Authenticated, or a plaintext connection: it may carry PushConfig.
    Done,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct NodeState {
    pub(super) connected: bool,
    pub(super) auth: Auth,
    pub(super) push_config: Option<bool>,
    pub(super) throttled_until: Millis,
    pub(super) api_versions_deferred: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct InFlight {
    pub(super) node: NodeId,
    pub(super) timeout_at: Millis,
}

/// The client model.
#[derive(Clone, Debug)]
pub struct ClientModel {
    pub(super) client_type: ClientType,
    pub(super) embedded: bool,
    pub(super) enabled: bool,
    pub(super) profile: SpecProfile,
    pub(super) defs: ClientDefinitions,
    pub(super) user: BTreeMap<String, String>,
    pub(super) selection: Selection,
    pub(super) rng: ModelRng,
    pub(super) backoff: ExponentialBackoff,
    pub(super) deadline_ms: u64,
    pub(super) request_timeout_ms: u64,
    /// `Some` when the client authenticates with SASL ([`uses_sasl`]).
    pub(super) sasl: Option<Sasl>,
    pub(super) state: HandshakeState,
    pub(super) deadline: Millis,
    pub(super) attempts: u32,
    pub(super) in_flight: Option<InFlight>,
    pub(super) next_attempt_at: Millis,
    pub(super) sticky: Option<NodeId>,
    pub(super) nodes: BTreeMap<NodeId, NodeState>,
    pub(super) released: bool,
    /// Held user requests with the time each stops waiting at the latest.
    pub(super) blocked: Vec<(u64, Millis)>,
    pub(super) events: Vec<LoggedEvent>,
    pub(super) successes: u32,
    pub(super) pushes_to_non_advertising: u32,
    pub(super) faults: Faults,
}

fn user_num(
    defs: &ClientDefinitions,
    user: &BTreeMap<String, String>,
    key: &str,
    default: u64,
) -> u64 {
    if defs.get(key).is_none() {
        return default;
    }
    user.get(key)
        .and_then(|v| v.trim().parse::<i64>().ok())
        .map(|v| v.max(0) as u64)
        .unwrap_or(default)
}

impl ClientModel {
    /// A standalone client of `client_type` with the user's configuration (key → text as in a
    /// `Properties` file), the profile, and the RNG seed.
    pub fn new(
        client_type: ClientType,
        user_config: BTreeMap<String, String>,
        profile: &SpecProfile,
        seed: u64,
    ) -> Result<Self, ClientConfigError> {
        Self::build(client_type, user_config, profile, seed, false)
    }

    /// A producer, consumer or admin embedded in Kafka Streams: it performs no handshake of
    /// its own (the Streams application does one).
    pub fn new_embedded(
        client_type: ClientType,
        user_config: BTreeMap<String, String>,
        profile: &SpecProfile,
        seed: u64,
    ) -> Result<Self, ClientConfigError> {
        Self::build(client_type, user_config, profile, seed, true)
    }

    fn build(
        client_type: ClientType,
        user: BTreeMap<String, String>,
        profile: &SpecProfile,
        seed: u64,
        embedded: bool,
    ) -> Result<Self, ClientConfigError> {
        let defs = client_definitions(client_type);
        for (key, value) in &user {
            selection::parse_user_value(&defs, key, value).map_err(|e| {
                ClientConfigError::InvalidValue {
                    key: key.clone(),
                    value: value.clone(),
                    ty: e.ty,
                }
            })?;
        }
        let enabled = user
            .get(ENABLE_CONFIG_PUSH)
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
            .unwrap_or(true);
        let d = &profile.defaults;
        let deadline_ms = match client_type {
            ClientType::Producer => user_num(&defs, &user, "max.block.ms", d.producer_max_block_ms),
            _ => user_num(
                &defs,
                &user,
                "default.api.timeout.ms",
                d.default_api_timeout_ms,
            ),
        };
        let backoff = ExponentialBackoff {
            initial_ms: user_num(&defs, &user, "retry.backoff.ms", d.retry_backoff_ms),
            max_ms: user_num(&defs, &user, "retry.backoff.max.ms", d.retry_backoff_max_ms),
            jitter: d.retry_backoff_jitter,
        };
        let request_timeout_ms = user_num(&defs, &user, "request.timeout.ms", d.request_timeout_ms);
        let selection = selection::select(&defs, &user, profile);
        let sasl = uses_sasl(&user).then(|| Sasl::from_config(&defs, &user, profile));
        Ok(Self {
            user,
            client_type,
            embedded,
            enabled,
            profile: profile.clone(),
            defs,
            selection,
            rng: ModelRng::new(seed),
            backoff,
            deadline_ms,
            request_timeout_ms,
            sasl,
            state: HandshakeState::NotStarted,
            deadline: Millis::ZERO,
            attempts: 0,
            in_flight: None,
            next_attempt_at: Millis::ZERO,
            sticky: None,
            nodes: BTreeMap::new(),
            released: false,
            blocked: Vec::new(),
            events: Vec::new(),
            successes: 0,
            pushes_to_non_advertising: 0,
            faults: Faults::none(),
        })
    }

    /// The same client with `faults` (a faulty variant; [`Faults::none`] is the reference).
    /// Key selection is redone with them.
    pub fn with_faults(mut self, faults: Faults) -> Self {
        self.selection = selection::select_with(&self.defs, &self.user, &self.profile, &faults);
        self.faults = faults;
        self
    }

    /// The client type.
    pub fn client_type(&self) -> ClientType {
        self.client_type
    }

    /// The effective configuration: every key the client defines → its value as
    /// `convertToString` renders it (user value, else default; `None` for null).
    pub fn effective_config(&self) -> BTreeMap<&'static str, Option<String>> {
        self.defs
            .keys()
            .map(|d| {
                let value =
                    selection::effective_value(&self.defs, &self.user, &self.profile, d.name)
                        .and_then(|(v, _)| v);
                (d.name, value)
            })
            .collect()
    }

    /// The PushConfig this client sends, if any (the result of key selection).
    pub fn selected_request(&self) -> Option<&PushConfigRequest> {
        self.selection.request.as_ref()
    }

    /// The handshake state.
    pub fn state(&self) -> &HandshakeState {
        &self.state
    }

    /// True while user requests are held back.
    pub fn is_blocking(&self) -> bool {
        self.state == HandshakeState::Pending && !self.released
    }

    /// PushConfig requests sent so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The handshake deadline (meaningful once started): start + the deadline setting, for a
    /// producer extended to each held user request's call + `max.block.ms`.
    pub fn deadline(&self) -> Millis {
        self.deadline
    }

    /// Every decision so far, in order.
    pub fn events(&self) -> &[LoggedEvent] {
        &self.events
    }

    fn emit(&mut self, now: Millis, event: Event, out: &mut Vec<ClientOutput>) {
        self.events.push(LoggedEvent {
            at: now,
            event: event.clone(),
        });
        out.push(ClientOutput::Event(event));
    }

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
                if self.is_blocking() && !self.faults.has(Fault::DoesNotBlockUserRequests) {
                    // A producer's send() "Blocks up to max.block.ms", counted from the call;
                    // the handshake goes on at least that long. Other clients' requests wait
                    // for the handshake deadline counted from start.
                    let until = if self.client_type == ClientType::Producer
                        && !self.faults.has(Fault::ProducerDeadlineFromStart)
                    {
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

    fn on_start(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        if self.state != HandshakeState::NotStarted {
            return;
        }
        let skip = if self.embedded && !self.faults.has(Fault::EmbeddedClientsHandshake) {
            Some(SkipReason::EmbeddedInStreams)
        } else if !self.enabled && !self.faults.has(Fault::IgnoresEnableSwitch) {
            Some(SkipReason::Disabled)
        } else {
            for e in self.selection.events.clone() {
                self.emit(now, e, out);
            }
            self.selection
                .request
                .is_none()
                .then_some(SkipReason::NothingToSend)
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

    fn send_api_versions(&mut self, now: Millis, node: NodeId, out: &mut Vec<ClientOutput>) {
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

    fn on_api_versions(
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
                    && (k.min_version <= 0 || self.faults.has(Fault::IgnoresMinVersion))
                    && 0 <= k.max_version
            });
        if let Some(st) = self.nodes.get_mut(&node) {
            st.push_config = Some(supports);
        }
        let again = match self.state {
            HandshakeState::Completed { .. } => self.faults.has(Fault::HandshakePerConnection),
            HandshakeState::Rejected { .. } => self.faults.has(Fault::RehandshakeAfterRejection),
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

    /// A SASL client authenticates each connection once ApiVersions is answered: SaslHandshake
    /// with its mechanism first.
    fn start_sasl(&mut self, node: NodeId, out: &mut Vec<ClientOutput>) {
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
    fn at_auth_step(
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

    fn on_sasl_handshake(
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

    fn on_sasl_authenticate(
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
    fn authentication_failed(
        &mut self,
        now: Millis,
        node: NodeId,
        error_code: ErrorCode,
        out: &mut Vec<ClientOutput>,
    ) {
        self.mark_disconnected(node);
        self.emit(now, Event::AuthenticationFailed { node, error_code }, out);
    }

    /// Releases user requests when every connected node has answered ApiVersions without
    /// PushConfig (old brokers): the push may still happen later, without blocking anyone.
    fn release_if_no_node_supports(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
        let mut connected = self.nodes.values().filter(|s| s.connected).peekable();
        let any = connected.peek().is_some();
        let none_supports = connected.all(|s| s.push_config == Some(false));
        if self.is_blocking() && any && none_supports {
            self.release(now, UnblockReason::NoNodeSupportsPushConfig, out);
        }
    }

    fn on_push_response(
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
    fn mark_disconnected(&mut self, node: NodeId) {
        let st = self.nodes.entry(node).or_default();
        st.connected = false;
        st.push_config = None;
        st.auth = Auth::NotStarted;
        st.api_versions_deferred = false;
        if self.sticky == Some(node) {
            self.sticky = None;
        }
    }

    /// The in-flight PushConfig timed out: retry after the backoff, on the same connection or
    /// (profile `request_timeout: disconnect`) after closing it.
    fn on_request_timeout(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
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

    fn schedule_retry(&mut self, now: Millis, cause: RetryCause, out: &mut Vec<ClientOutput>) {
        let Some(failed) = self.in_flight.take() else {
            return;
        };
        let mut backoff = self.backoff;
        if self.faults.has(Fault::NoBackoffCap) {
            backoff.max_ms = u64::MAX >> 16;
        }
        if self.faults.has(Fault::JitterOutOfBounds) {
            backoff.jitter *= 2.0;
        }
        let exponent = if self.faults.has(Fault::BackoffExponentOffByOne) {
            self.attempts
        } else {
            self.attempts.saturating_sub(1)
        };
        let backoff_ms = backoff.delay(exponent, &mut self.rng);
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

    fn release(&mut self, now: Millis, reason: UnblockReason, out: &mut Vec<ClientOutput>) {
        if self.released {
            return;
        }
        self.released = true;
        self.emit(now, Event::UserRequestsUnblocked { reason }, out);
        for (id, _) in std::mem::take(&mut self.blocked) {
            self.emit(now, Event::UserRequestReleased { id }, out);
            out.push(ClientOutput::ReleaseUserRequest { id });
        }
    }

    fn run_timers(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
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
            if !self.faults.has(Fault::BlocksPastDeadline) {
                self.release(now, UnblockReason::DeadlineExceeded, out);
            }
        }
        if !self.faults.has(Fault::BlocksPastDeadline) {
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

    /// Whether `code` is retried as a transient PushConfig error (`ErrorCode::retriable`).
    fn retriable(&self, code: ErrorCode) -> bool {
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

    fn eligible(&self, node: NodeId) -> bool {
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

    fn try_push(&mut self, now: Millis, out: &mut Vec<ClientOutput>) {
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

    fn next_wake(&self, now: Millis) -> Option<Millis> {
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
