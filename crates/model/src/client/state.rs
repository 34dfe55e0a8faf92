//! [`ClientModel`]: its fields (per-node connection state, the in-flight PushConfig, held
//! user requests, the event log), its construction from the user configuration and profile, and
//! read-only accessors. Builds state; it does not react to inputs (see `handshake`, `push`,
//! `timers`).

use std::collections::BTreeMap;

use super::interface::{ClientConfigError, ClientOutput, HandshakeState};
use super::sasl_config::{uses_sasl, Sasl};
use crate::backoff::ExponentialBackoff;
use crate::config_def::{client_definitions, ClientDefinitions, ClientType};
use crate::decisions::ClientDecisions;
use crate::events::{Event, LoggedEvent, NodeId};
use crate::profile::SpecProfile;
use crate::rng::ModelRng;
use crate::selection::{self, Selection, ENABLE_CONFIG_PUSH};
use crate::time::Millis;
use std::sync::Arc;

/// Where a connection's SASL authentication stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Auth {
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
pub(crate) struct NodeState {
    pub(crate) connected: bool,
    pub(crate) auth: Auth,
    pub(crate) push_config: Option<bool>,
    pub(crate) throttled_until: Millis,
    pub(crate) api_versions_deferred: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InFlight {
    pub(crate) node: NodeId,
    pub(crate) timeout_at: Millis,
}

/// The client model.
#[derive(Clone, Debug)]
pub struct ClientModel {
    pub(crate) client_type: ClientType,
    pub(crate) embedded: bool,
    pub(crate) enabled: bool,
    pub(crate) profile: SpecProfile,
    pub(crate) defs: ClientDefinitions,
    pub(crate) user: BTreeMap<String, String>,
    pub(crate) selection: Selection,
    pub(crate) rng: ModelRng,
    pub(crate) backoff: ExponentialBackoff,
    pub(crate) deadline_ms: u64,
    pub(crate) request_timeout_ms: u64,
    /// `Some` when the client authenticates with SASL ([`uses_sasl`]).
    pub(crate) sasl: Option<Sasl>,
    pub(crate) state: HandshakeState,
    pub(crate) deadline: Millis,
    pub(crate) attempts: u32,
    pub(crate) in_flight: Option<InFlight>,
    pub(crate) next_attempt_at: Millis,
    pub(crate) sticky: Option<NodeId>,
    pub(crate) nodes: BTreeMap<NodeId, NodeState>,
    pub(crate) released: bool,
    /// Held user requests with the time each stops waiting at the latest.
    pub(crate) blocked: Vec<(u64, Millis)>,
    pub(crate) events: Vec<LoggedEvent>,
    pub(crate) successes: u32,
    pub(crate) pushes_to_non_advertising: u32,
    /// The decisions it takes ([`Reference`](crate::decisions::Reference) unless a caller
    /// plugs in others with [`ClientModel::with_decisions`]).
    pub(crate) decisions: Arc<dyn ClientDecisions>,
}

pub(super) fn user_num(
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

    pub(super) fn build(
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
            decisions: crate::decisions::reference_client(),
        })
    }

    /// The same client taking `decisions` (a faulty variant's; the reference's by default).
    /// Key selection is redone with them.
    pub fn with_decisions(mut self, decisions: Arc<dyn ClientDecisions>) -> Self {
        self.selection =
            selection::select_with(&self.defs, &self.user, &self.profile, decisions.as_ref());
        self.decisions = decisions;
        self
    }

    /// The client type.
    pub fn client_type(&self) -> ClientType {
        self.client_type
    }

    /// The handshake state.
    pub fn state(&self) -> &HandshakeState {
        &self.state
    }

    /// True while user requests are held back.
    pub fn is_blocking(&self) -> bool {
        self.state == HandshakeState::Pending && !self.released
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

    pub(super) fn emit(&mut self, now: Millis, event: Event, out: &mut Vec<ClientOutput>) {
        self.events.push(LoggedEvent {
            at: now,
            event: event.clone(),
        });
        out.push(ClientOutput::Event(event));
    }
}
