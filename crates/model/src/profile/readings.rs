//! The contested readings of KIP-1324, KIP-1326 and KIP-1294/KIP-1256, one enum each (size
//! measure, unadvertised PushConfig reply, entry checks, request timeout, MV validator
//! inclusion, re-registration, authorization, UpdateFeatures precedence, audit and registration
//! rejections), with the error code a reading implies. Data only: the model decides with them.

use serde::{Deserialize, Serialize};

use kipcheck_codec::ErrorCode;

/// What counts as "the size of the PushConfig request" (kip-notes §6 A3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(schemars::JsonSchema)]
pub enum SizeMeasure {
    /// The encoded request body: the bytes after the request header, without the frame size.
    #[default]
    RequestBody,
    /// Only the encoded `Configs` array (the body minus its top-level tagged-field section).
    ConfigsArray,
    /// The sum of the UTF-8 byte lengths of `ConfigKey` and `ConfigValue` over the entries,
    /// de-duplicated by key (a repeated key counts once; the reference counts its last value,
    /// as a Java map's `put` keeps it, and scenarios repeat only identical entries); length
    /// prefixes, `ConfigType`, `IsDefault` and tagged fields are not counted. What a KIP-1324
    /// prototype broker measures.
    KeyValueBytes,
}

/// How a broker without a policy answers a PushConfig it never advertised (kip-notes §6 A5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnadvertisedPushConfigReply {
    /// Close the connection without a response (what Java does for a disabled API).
    #[default]
    Close,
    /// Answer with a PushConfigResponse carrying UNSUPPORTED_VERSION (35).
    UnsupportedVersion,
}

/// Who refuses PushConfig entries typed CLASS/PASSWORD or whose value does not parse as its
/// ConfigType (KIP-1324: "Whenever a client sends a PushConfig request, the broker calls the
/// policy"; rejecting "the wrong type …, an un-parseable value" is what "the
/// ClientConfigPolicy implementation" does, and sensitive-config detection is something the
/// policy "may" do). An unknown ConfigType number is refused by the broker under either
/// reading: it cannot be turned into the `ConfigDef.Type` of the policy's `ClientConfig`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerEntryChecks {
    /// The broker hands every entry to the policy (an unparsable value as its raw text);
    /// only the policy's verdict decides (the KIP text).
    #[default]
    Policy,
    /// The broker itself answers INVALID_CONFIG naming the entry, without calling the policy.
    Broker,
}

/// What a client does with the connection when a PushConfig times out (`request.timeout.ms`).
/// KIP-1324 only says retries follow "retry.backoff.ms, retry.backoff.max.ms, and
/// default.api.timeout.ms, similar to ApiVersions"; Java's NetworkClient disconnects on a
/// request timeout. Both are allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestTimeoutAction {
    /// Keep the connection; the retry goes on it after the backoff.
    #[default]
    Keep,
    /// Close the connection (as Java's NetworkClient does); the retry waits for a new one.
    Disconnect,
}

/// Whether a KIP-1294 MV-aware validator counts as "a Validator" for KIP-1326's inclusion
/// rule ("iff (a) it has a Validator defined in ConfigDef, and (b) its ControllerReportPolicy
/// is not NEVER"). The KIP-1294 `ConfigKey` keeps `mvValidators` as a field of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MvValidatorInclusion {
    /// Only the static `validator` counts (the rule's words, §6 B2).
    #[default]
    StaticOnly,
    /// A key with MV validators only is reported too (the controller can enforce them).
    Counts,
}

/// What a broker's re-registration does to the StaticConfigs the controller holds for it
/// (unstated in KIP-1326).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reregistration {
    /// The new list replaces the old one (the prototype's `brokerStaticConfigs.put`).
    #[default]
    Replace,
    /// The new list is merged over the old one (names it lacks keep their old value).
    Merge,
}

/// Whether a broker authorizes PushConfig (KIP-1324 names no ACL for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushConfigAuthorization {
    /// Any client that may connect may push (the KIP's text: no operation is named).
    #[default]
    None,
    /// The principal needs CLUSTER_ACTION on the cluster, as the KIP-CFG prototype's broker
    /// checks; without it the answer is CLUSTER_AUTHORIZATION_FAILED (31) and the policy is
    /// not called.
    ClusterAction,
}

/// Which error an UpdateFeatures on metadata.version returns when it is both an invalid
/// update (INVALID_UPDATE_VERSION: a downgrade without a downgrade type) and fails the
/// KIP-1294 audit (INVALID_CONFIG). Neither KIP orders them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateFeaturesPrecedence {
    /// The update is validated first (Kafka's FeatureControlManager; §3.2: failures
    /// unrelated to configs keep INVALID_UPDATE_VERSION).
    #[default]
    InvalidUpdateVersion,
    /// The config audit runs first.
    InvalidConfig,
}

/// The error a controller returns when it refuses a metadata.version change because the
/// KIP-1294 audit found a config that violates the target level. KIP-1294's Compatibility
/// section: "it will return InvalidConfigError"; Kafka answers every other refused
/// feature-level change INVALID_UPDATE_VERSION (95), and a controller may keep that code
/// for the audit too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditRejection {
    /// INVALID_CONFIG (40), the KIP-1294 text.
    #[default]
    InvalidConfig,
    /// INVALID_UPDATE_VERSION (95), Kafka's code for a refused feature-level change.
    InvalidUpdateVersion,
}

impl AuditRejection {
    /// The error code this reading returns.
    pub fn code(self) -> ErrorCode {
        match self {
            AuditRejection::InvalidConfig => ErrorCode::INVALID_CONFIG,
            AuditRejection::InvalidUpdateVersion => ErrorCode::INVALID_UPDATE_VERSION,
        }
    }
}

/// The error a controller returns when the registration audit fails (kip-notes §6 C2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegistrationRejection {
    /// INVALID_REGISTRATION (119).
    #[default]
    InvalidRegistration,
    /// INVALID_CONFIG (40).
    InvalidConfig,
}

impl RegistrationRejection {
    /// The error code this reading returns.
    pub fn code(self) -> ErrorCode {
        match self {
            RegistrationRejection::InvalidRegistration => ErrorCode::INVALID_REGISTRATION,
            RegistrationRejection::InvalidConfig => ErrorCode::INVALID_CONFIG,
        }
    }
}

/// The error IncrementalAlterConfigs returns for a value that fails its type or static
/// validator, or an unknown topic config name (kip-notes §3.4, §6 C5). KIP-1256 aligns the
/// controller with the broker, which "uses the INVALID_REQUEST error code"; KIP-1294 asks for
/// INVALID_CONFIG only for a failing MV-aware validator (which stays INVALID_CONFIG under both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IncrementalInvalidValue {
    /// INVALID_REQUEST (42), as the broker answers (KIP-1256).
    #[default]
    InvalidRequest,
    /// INVALID_CONFIG (40), as the controller's own validation answers today.
    InvalidConfig,
}

impl IncrementalInvalidValue {
    /// The error code this reading returns.
    pub fn code(self) -> ErrorCode {
        match self {
            IncrementalInvalidValue::InvalidRequest => ErrorCode::INVALID_REQUEST,
            IncrementalInvalidValue::InvalidConfig => ErrorCode::INVALID_CONFIG,
        }
    }
}

/// Which metadata.version changes run the KIP-1294 config audit (kip-notes §6 C3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditDirection {
    /// Upgrades and downgrades (the KIP text).
    #[default]
    Both,
    /// Upgrades only (the prototype).
    UpgradeOnly,
}
