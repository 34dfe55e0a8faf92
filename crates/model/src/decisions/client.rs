//! [`ClientDecisions`]: the decisions the client model takes, each with the reference's answer as
//! its default body.
//!
//! Key selection (`selection`, `sensitivity`) asks the first seven; the client's state machine
//! (`client::*`) the rest. A method decides; it keeps no state and sends nothing.

use std::fmt::Debug;

use crate::backoff::ExponentialBackoff;
use crate::client::HandshakeState;
use crate::config_def::{ClientType, ConfigKeyDef, ConfigType, ConfigTypeNumbering};
use crate::events::{NodeId, SkipReason, UnblockReason};
use crate::rng::ModelRng;
use crate::sensitivity::{classify, SensitivityRule};
use kipcheck_codec::push_config_request::Config;
use kipcheck_codec::{ErrorCode, PushConfigRequest};

/// The decisions of the client model; every default is the reference (see the module docs of
/// `decisions`).
// The default bodies are the reference, which ignores some of what a faulty variant reads.
#[allow(unused_variables)]
pub trait ClientDecisions: Debug + Send + Sync {
    /// The sensitivity rule that keeps `key` (declared type `defined`, `None` if the client
    /// does not define it) out of the request, or `None` if it may be sent. KIP-1324: the
    /// first of the six rules, in the KIP's order, that holds ([`classify`]).
    fn sensitivity(&self, key: &str, defined: Option<ConfigType>) -> Option<SensitivityRule> {
        classify(key, defined)
    }

    /// The keys the client considers sending, from the `allowed` list
    /// (`config.push.allowed.keys` if set, else the default list). KIP-1324: exactly that
    /// list; the list key itself only when it is listed.
    fn considered_keys(&self, allowed: Vec<String>) -> Vec<String> {
        allowed
    }

    /// The ConfigType number sent for a value of type `ty`, or `None` if it has none under the
    /// profile's `numbering` (the key is then left out). KIP-1324: the numbering the profile
    /// follows (the `ConfigDef.Type` ordinal in the newest text).
    fn wire_config_type(&self, ty: ConfigType, numbering: ConfigTypeNumbering) -> Option<i8> {
        numbering.to_wire(ty)
    }

    /// The entry sent for `key`, which the client does not define and the user set to `raw`,
    /// once the sensitivity decision has let it through. KIP-1324: none (rule 6 keeps an
    /// undefined key out, so the reference never gets here).
    fn undefined_key_entry(
        &self,
        key: &str,
        raw: &str,
        numbering: ConfigTypeNumbering,
    ) -> Option<Config> {
        None
    }

    /// The ConfigValue text sent for a value of type `ty` that `convertToString` renders as
    /// `converted` (`None` for null); `None` leaves the key out. KIP-1324: the
    /// `convertToString` text, and a null value is not sent.
    fn config_value_text(&self, ty: ConfigType, converted: Option<String>) -> Option<String> {
        converted
    }

    /// The IsDefault flag sent for the key of `def` rendered as `value`; `user_set` is true
    /// when the user configured it. KIP-1324: true exactly when the user did not set it.
    fn reports_default(&self, def: &ConfigKeyDef, value: &str, user_set: bool) -> bool {
        !user_set
    }

    /// True if a request of `size` (under the profile's size measure) fits the client's
    /// `budget` (`client.config.max.bytes`), so no further entry is dropped. KIP-1324: the
    /// client keeps its request within the budget.
    fn fits_budget(&self, size: usize, budget: u32) -> bool {
        size <= budget as usize
    }

    /// True if a PushConfig is sent with `entries` entries left after selection. KIP-1324:
    /// never with an empty Configs array.
    fn sends_request(&self, entries: usize) -> bool {
        entries > 0
    }

    /// Why a client that is `embedded` in Kafka Streams, or with `enable.config.push`
    /// `enabled` or not, performs no handshake; `None` if it performs one. KIP-1324: embedded
    /// clients leave it to the Streams application, and `enable.config.push=false` turns it off.
    fn skips_handshake(&self, embedded: bool, enabled: bool) -> Option<SkipReason> {
        if embedded {
            Some(SkipReason::EmbeddedInStreams)
        } else if !enabled {
            Some(SkipReason::Disabled)
        } else {
            None
        }
    }

    /// True if user requests wait while the handshake is pending. KIP-1324: they do, up to the
    /// deadline.
    fn holds_user_requests(&self) -> bool {
        true
    }

    /// True if a held user request of a `client_type` client waits its own deadline counted
    /// from its call (which may extend the handshake's), rather than the handshake deadline
    /// counted from start. KIP-1324 with the producer's `send()` contract: a producer's
    /// request "blocks up to `max.block.ms`" from the call; other clients' from start.
    fn waits_from_call(&self, client_type: ClientType) -> bool {
        client_type == ClientType::Producer
    }

    /// True if held user requests are released for `reason` (the handshake skipped,
    /// completed or rejected, no node supporting PushConfig, or a wait that ended). KIP-1324:
    /// every one of these ends the wait.
    fn releases_held_requests(&self, reason: UnblockReason) -> bool {
        true
    }

    /// True if a node advertising PushConfig versions `min_version..=max_version` supports the
    /// v0 the client sends. KIP-1324: the range must include v0.
    fn supports_push_config(&self, min_version: i16, max_version: i16) -> bool {
        min_version <= 0 && 0 <= max_version
    }

    /// True if a new connection advertising PushConfig starts the handshake again after it
    /// ended in `state` (completed or rejected). KIP-1324: the handshake happens once per
    /// client instance.
    fn handshakes_again(&self, state: &HandshakeState) -> bool {
        false
    }

    /// True if a connected node may get the PushConfig: `authenticated` (SASL done, or
    /// plaintext), `advertises` as its ApiVersions answer said (`None`: no answer yet), and
    /// `awaiting_api_versions` when that ApiVersions request is out unanswered. KIP-1324: only
    /// an authenticated node whose answer advertises PushConfig.
    fn may_push_to(
        &self,
        authenticated: bool,
        advertises: Option<bool>,
        awaiting_api_versions: bool,
    ) -> bool {
        authenticated && advertises == Some(true)
    }

    /// The node the handshake goes to among the eligible `candidates` (non-empty, ascending).
    /// KIP-1324: any of them; the reference draws one with `rng`.
    fn choose_node(&self, candidates: &[NodeId], rng: &mut ModelRng) -> NodeId {
        candidates[rng.below(candidates.len() as u64) as usize]
    }

    /// True if the SaslAuthenticate answer's `code` authenticates the connection. Only
    /// `NONE` does; a failed authentication closes it before any PushConfig.
    fn authentication_succeeded(&self, code: ErrorCode) -> bool {
        code == ErrorCode::NONE
    }

    /// True if a PushConfig answer's `throttle_time_ms` holds the next request to that node
    /// back. KIP-1324 (KIP-219 throttling): any positive value does.
    fn honours_throttle(&self, throttle_time_ms: i32) -> bool {
        throttle_time_ms > 0
    }

    /// True if a PushConfig answered with the error `code` is retried after the backoff.
    /// KIP-1324: retriable codes are; CONFIG_TOO_LARGE and INVALID_CONFIG never are (they can
    /// not succeed, the policy's verdict is final).
    fn retries_push_error(&self, code: ErrorCode) -> bool {
        code.retriable() && code != ErrorCode::CONFIG_TOO_LARGE && code != ErrorCode::INVALID_CONFIG
    }

    /// A request to retry with instead of ending the handshake when `sent` was answered with
    /// the non-retried error `code`, or `None`. KIP-1324: none; the client logs the error and
    /// stops.
    fn retry_request_after(
        &self,
        code: ErrorCode,
        sent: &PushConfigRequest,
    ) -> Option<PushConfigRequest> {
        None
    }

    /// The wait before the retry that follows failed attempt number `failed_attempts`
    /// (1-based) under the client's configured `backoff`, drawing jitter from `rng`. KIP-1324
    /// with KIP-580: `retry.backoff.ms × 2^(failed_attempts − 1)`, jittered within the profile's
    /// bounds, capped at `retry.backoff.max.ms` ([`ExponentialBackoff::delay`]).
    fn retry_backoff_ms(
        &self,
        backoff: &ExponentialBackoff,
        failed_attempts: u32,
        rng: &mut ModelRng,
    ) -> u64 {
        backoff.delay(failed_attempts.saturating_sub(1), rng)
    }
}
