//! The event vocabulary: every decision the client, broker and controller models make is
//! recorded as one [`Event`] with the simulated time it happened at. Scenarios and oracles
//! assert on these; the models never read them back to decide anything.

use serde::Serialize;

use super::config_def::{ConfigType, ConfigValue};
use super::sensitivity::SensitivityRule;
use super::time::Millis;
use kipcheck_codec::{ErrorCode, MetadataRecordBody};

/// A broker's node id.
pub type NodeId = i32;

/// An event and when it happened.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoggedEvent {
    /// Simulated time of the decision.
    pub at: Millis,
    /// The decision.
    pub event: Event,
}

/// Why a client performs no configuration handshake at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// `enable.config.push=false`.
    Disabled,
    /// A producer, consumer or admin embedded in Kafka Streams (the application pushes once).
    EmbeddedInStreams,
    /// Every selected key was sensitive, null or over budget: no request with an empty array.
    NothingToSend,
}

/// Why a PushConfig attempt is retried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryCause {
    /// The response carried a retriable error code.
    RetriableError(ErrorCode),
    /// The connection to the node closed with the request in flight.
    Disconnected,
    /// No response within `request.timeout.ms`.
    RequestTimedOut,
}

/// Why a client's user requests stop waiting for the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnblockReason {
    /// The handshake is not performed.
    Skipped,
    /// The broker accepted the configuration.
    Completed,
    /// The broker rejected it with a non-retriable error (logged, not retried).
    Rejected,
    /// The deadline passed.
    DeadlineExceeded,
    /// Every connected node answered ApiVersions without PushConfig (old brokers).
    NoNodeSupportsPushConfig,
}

/// One entry as the broker hands it to `ClientConfigPolicy` (Java `ClientConfig` record).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyConfig {
    /// `key`.
    pub key: String,
    /// `value`, typed.
    pub value: ConfigValue,
    /// `type`.
    pub ty: ConfigType,
    /// `isDefault`.
    pub is_default: bool,
}

/// A decision of one of the models.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    // ----- client (KIP-1324) -----
    /// A key will be sent with this rendered value.
    KeySelected {
        /// The key.
        key: String,
        /// `convertToString` of the effective value.
        value: String,
        /// The wire `ConfigType`.
        config_type: i8,
        /// True if the user did not set the key.
        is_default: bool,
    },
    /// Warning: a sensitive key is not sent.
    SensitiveKeyDropped {
        /// The key.
        key: String,
        /// The first rule that matched.
        rule: SensitivityRule,
    },
    /// A key whose effective value is null is not sent (ConfigValue is not nullable).
    NullValueOmitted {
        /// The key.
        key: String,
    },
    /// A key is dropped so that the request fits `client.config.max.bytes`.
    KeyDroppedForBudget {
        /// The key.
        key: String,
        /// The request size (profile measure) before dropping it.
        size_before: usize,
        /// The budget.
        budget: u32,
    },
    /// No handshake will be performed.
    HandshakeSkipped {
        /// Why.
        reason: SkipReason,
    },
    /// The handshake is pending; user requests wait until `deadline` at the latest.
    HandshakeStarted {
        /// When the client gives up.
        deadline: Millis,
    },
    /// An ApiVersions request is sent on a new connection.
    ApiVersionsSent {
        /// The node.
        node: NodeId,
    },
    /// A new connection's ApiVersions waits for the node's throttle to end.
    ApiVersionsDeferred {
        /// The node.
        node: NodeId,
        /// When it will be sent.
        until: Millis,
    },
    /// A node's ApiVersions answer was read.
    NodeSupport {
        /// The node.
        node: NodeId,
        /// True if it advertises PushConfig with version 0 in range.
        push_config: bool,
    },
    /// SASL authentication on the connection to `node` succeeded (SaslAuthenticate answered
    /// without error): the connection may now carry the PushConfig (KIP-1324: "after
    /// authentication (if any)").
    Authenticated {
        /// The node.
        node: NodeId,
    },
    /// SASL authentication on the connection to `node` failed (an error in the SaslHandshake
    /// or SaslAuthenticate answer, or the broker does not enable the mechanism): the client
    /// closes that connection and sends nothing more on it.
    AuthenticationFailed {
        /// The node.
        node: NodeId,
        /// The canonical code (UNSUPPORTED_SASL_MECHANISM when the mechanism is not listed).
        error_code: ErrorCode,
    },
    /// The RNG chose the node for the handshake among the candidates.
    NodeChosen {
        /// The node.
        node: NodeId,
        /// Connected nodes that advertise PushConfig, ascending.
        candidates: Vec<NodeId>,
    },
    /// A PushConfig request is sent.
    PushConfigSent {
        /// The node.
        node: NodeId,
        /// 1 for the first attempt.
        attempt: u32,
        /// Number of entries.
        entries: usize,
        /// Size under the profile's measure.
        size: usize,
    },
    /// A response carried ThrottleTimeMs > 0: nothing goes to the node before `until`.
    ThrottleApplied {
        /// The node.
        node: NodeId,
        /// End of the throttle.
        until: Millis,
    },
    /// A retry is scheduled.
    RetryScheduled {
        /// When it will be sent at the earliest.
        at: Millis,
        /// The attempt that failed (1 = first).
        failed_attempt: u32,
        /// The backoff drawn.
        backoff_ms: u64,
        /// Why.
        cause: RetryCause,
    },
    /// The broker rejected the configuration; logged with its ErrorMessage, never retried.
    PushRejected {
        /// The node.
        node: NodeId,
        /// Canonical error code (CONFIG_TOO_LARGE, INVALID_CONFIG, or another non-retriable).
        error_code: ErrorCode,
        /// The response's ErrorMessage.
        error_message: Option<String>,
    },
    /// The broker accepted the configuration.
    HandshakeCompleted {
        /// The node.
        node: NodeId,
    },
    /// The deadline passed before success; the client continues without the handshake.
    HandshakeAbandoned {
        /// Attempts sent.
        attempts: u32,
    },
    /// A response arrived that the client no longer waits for.
    ResponseIgnored {
        /// The node.
        node: NodeId,
    },
    /// A user request waits for the handshake.
    UserRequestBlocked {
        /// The runner's id for it.
        id: u64,
    },
    /// A user request may proceed.
    UserRequestReleased {
        /// The runner's id for it.
        id: u64,
    },
    /// User requests stop waiting for the handshake.
    UserRequestsUnblocked {
        /// Why.
        reason: UnblockReason,
    },

    // ----- broker (KIP-1324, KIP-1326) -----
    /// The broker closed the connection instead of answering, or (profile `request_timeout:
    /// disconnect`) the client closed its connection after a request timeout.
    ConnectionClosed {
        /// Why.
        reason: String,
    },
    /// An ApiVersions request was answered.
    ApiVersionsAnswered {
        /// The response version.
        version: i16,
        /// True if PushConfig was advertised (a policy is configured).
        push_config_advertised: bool,
    },
    /// A PushConfig was received and measured.
    PushConfigReceived {
        /// The size under the profile's measure.
        size: usize,
        /// `client.config.max.bytes`.
        max_bytes: u32,
    },
    /// A PushConfig was answered with an error; the policy was not called unless
    /// `policy_called`.
    PushConfigRejected {
        /// Canonical error code.
        error_code: ErrorCode,
        /// ErrorMessage.
        message: String,
        /// True if the policy rejected it.
        policy_called: bool,
    },
    /// `ClientConfigPolicy.process` was invoked.
    PolicyInvoked {
        /// `ClientConfigData.configs`.
        configs: Vec<PolicyConfig>,
        /// `ClientConfigData.timestamp`: the broker's clock.
        timestamp: Millis,
    },
    /// A PushConfig was accepted.
    PushConfigAccepted {
        /// ThrottleTimeMs returned.
        throttle_time_ms: i32,
    },

    // ----- controller (KIP-1326, KIP-1294, KIP-1256) -----
    /// A record was appended to the metadata log.
    RecordAppended {
        /// Its offset.
        offset: u64,
        /// Its version.
        version: i16,
        /// The record as written (projected onto `version`).
        record: MetadataRecordBody,
    },
    /// A broker registered.
    BrokerRegistered {
        /// The broker.
        broker_id: i32,
        /// Its epoch.
        epoch: i64,
        /// Number of static configs reported.
        static_configs: usize,
        /// True if they were written to the RegisterBrokerRecord.
        persisted: bool,
    },
    /// A registration was refused.
    RegistrationRejected {
        /// The broker.
        broker_id: i32,
        /// The code.
        error_code: ErrorCode,
        /// Why.
        message: String,
    },
    /// An AlterConfigs or IncrementalAlterConfigs resource was refused.
    AlterConfigsRejected {
        /// `ConfigResource.Type`.
        resource_type: i8,
        /// Resource name.
        resource_name: String,
        /// The code.
        error_code: ErrorCode,
        /// Why.
        message: String,
    },
    /// An AlterConfigs or IncrementalAlterConfigs resource passed every check.
    AlterConfigsAccepted {
        /// `ConfigResource.Type`.
        resource_type: i8,
        /// Resource name.
        resource_name: String,
        /// True if nothing was written (ValidateOnly).
        validate_only: bool,
    },
    /// The metadata.version audit ran.
    MetadataVersionAudit {
        /// Current level.
        from: i16,
        /// Target level.
        to: i16,
        /// Violations found (empty = passed).
        violations: Vec<String>,
    },
    /// An UpdateFeatures request passed every check.
    FeatureUpdateAccepted {
        /// (feature, target level) pairs, in request order.
        updates: Vec<(String, i16)>,
        /// True if nothing was written (ValidateOnly).
        validate_only: bool,
    },
    /// An UpdateFeatures request was refused.
    FeatureUpdateRejected {
        /// The code.
        error_code: ErrorCode,
        /// Why.
        message: String,
    },
}
