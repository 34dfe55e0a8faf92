//! [`BrokerDecisions`]: the decisions the broker model takes, each with the reference's answer as
//! its default body.

use std::fmt::Debug;

use crate::config_def::{ConfigType, ConfigTypeNumbering, ConfigValue};
use crate::events::PolicyConfig;
use crate::profile::BrokerEntryChecks;
use crate::server_config::ReportFacts;
use kipcheck_codec::ErrorCode;

/// The decisions of the broker model; every default is the reference (see the module docs of
/// `decisions`).
// The default bodies are the reference, which ignores some of what a faulty variant reads.
#[allow(unused_variables)]
pub trait BrokerDecisions: Debug + Send + Sync {
    /// Whether ApiVersions advertises PushConfig, given whether a `ClientConfigPolicy` is
    /// configured. KIP-1324: the broker advertises PushConfig then and only then.
    fn advertises_push_config(&self, policy_configured: bool) -> bool {
        policy_configured
    }

    /// The size of a PushConfig compared with `client.config.max.bytes`: `measured` is the
    /// request under the profile's size measure, `header_len` the length of the request
    /// header it came with (0 when there is none) and `frame_prefix_len` the length of the
    /// frame's size prefix. KIP-1324 limits the request itself: neither the header nor the
    /// size prefix counts.
    fn push_size(&self, measured: usize, header_len: usize, frame_prefix_len: usize) -> usize {
        measured
    }

    /// True if a PushConfig of `size` bytes exceeds `client.config.max.bytes` = `max`.
    /// KIP-1324: a request larger than the limit is refused with CONFIG_TOO_LARGE; one of
    /// exactly the limit is accepted.
    fn exceeds_max_bytes(&self, size: usize, max: u32) -> bool {
        size > max as usize
    }

    /// True if the size limit is checked before the entries are checked and the policy is
    /// called. KIP-1324: an oversized request is refused without calling the policy.
    fn checks_size_before_policy(&self) -> bool {
        true
    }

    /// How PushConfig's ConfigType numbers are read, given the numbering the profile says is
    /// in force. The broker reads them as the profile (the KIP reading under test) says.
    fn config_type_numbering(&self, profile: ConfigTypeNumbering) -> ConfigTypeNumbering {
        profile
    }

    /// True if a PushConfig with an empty Configs array goes on to the policy. KIP-1324 sets
    /// no lower bound on the array: the broker calls the policy whatever it holds.
    fn admits_empty_configs(&self) -> bool {
        true
    }

    /// True if the broker itself refuses an entry of type `ty` as sensitive, under the
    /// profile's `checks`. Only the broker-checks reading refuses CLASS and PASSWORD entries
    /// before the policy; under the policy reading the policy decides.
    fn refuses_sensitive_type(&self, checks: BrokerEntryChecks, ty: ConfigType) -> bool {
        checks == BrokerEntryChecks::Broker
            && matches!(ty, ConfigType::Class | ConfigType::Password)
    }

    /// True if the broker itself refuses an entry whose value does not parse as its type,
    /// under the profile's `checks`; otherwise the raw text reaches the policy. Only the
    /// broker-checks reading refuses it.
    fn refuses_unparsable_value(&self, checks: BrokerEntryChecks) -> bool {
        checks == BrokerEntryChecks::Broker
    }

    /// True if an entry the broker accepted is among what the policy receives. KIP-1324: the
    /// policy receives every entry of the request.
    fn hands_to_policy(&self, entry: &PolicyConfig) -> bool {
        true
    }

    /// The ThrottleTimeMs a PushConfig response carries, given the broker's throttle now.
    /// KIP-1324's response carries the throttle in force.
    fn response_throttle_ms(&self, throttle_ms: i32) -> i32 {
        throttle_ms
    }

    /// The error a refused PushConfig is answered with, given the refusal's `code`.
    /// KIP-1324: an invalid config (a policy rejection included) is INVALID_CONFIG, an
    /// oversized request CONFIG_TOO_LARGE, a failing policy UNKNOWN_SERVER_ERROR.
    fn push_error_code(&self, code: ErrorCode) -> ErrorCode {
        code
    }

    /// True if the response to a policy rejection carries the policy's message as its
    /// ErrorMessage. KIP-1324: the policy's description of the violation reaches the client.
    fn keeps_policy_message(&self) -> bool {
        true
    }

    /// True if the broker closes the connection after a PushConfig response with the wire
    /// error code `error_code`. KIP-1324: an error response leaves the connection open.
    fn closes_after_push_response(&self, error_code: i16) -> bool {
        false
    }

    /// True if a broker config definition goes into BrokerRegistration's StaticConfigs, given
    /// what KIP-1326's inclusion rule reads of it ([`ReportFacts`]). KIP-1326: reported iff it
    /// has a validator, its policy is not NEVER and its type is not PASSWORD.
    fn reports_static_config(&self, facts: ReportFacts) -> bool {
        facts.has_validator && !facts.never_reported && !facts.is_password
    }

    /// True if a reported definition of type `ty` goes into StaticConfigs with a null Value
    /// instead of its effective value. KIP-1326's values are `convertToString` renderings:
    /// a conforming broker sends no null (kip-notes §6 B3).
    fn reports_null_value(&self, ty: ConfigType) -> bool {
        false
    }

    /// The effective value of a reported definition, from its server.properties value
    /// (`explicit`) and its `default`; `None` leaves the key out. KIP-1326: the value in
    /// force, which is the default when server.properties does not set it.
    fn effective_static_value(
        &self,
        explicit: Option<String>,
        default: Option<String>,
    ) -> Option<String> {
        explicit.or(default)
    }

    /// How a reported value is rendered into StaticConfigs. KIP-1326: with
    /// `ConfigDef.convertToString`.
    fn render_static_value(&self, value: &ConfigValue) -> String {
        value.convert_to_string()
    }
}
