//! [`SpecProfile`]: every number and every contested reading of KIP-1324, KIP-1326 and
//! KIP-1294/KIP-1256 that the model depends on, in one serde type loadable from YAML, with a
//! built-in default that implements kip-notes §6's recommended readings. Holds data only; the
//! model's components read it and never change it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_def::{ClientType, ConfigTypeNumbering};
use kipcheck_codec::{ErrorCode, ProvisionalNumbers};

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

/// The default value of `config.push.allowed.keys` per client type (kip-notes §1.2, §6 A6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DefaultKeyLists {
    /// `KafkaProducer`: empty, the KIP text elides it.
    pub producer: Vec<String>,
    /// `KafkaConsumer`: the newest text's list.
    pub consumer: Vec<String>,
    /// `Admin`: the newest text's list.
    pub admin: Vec<String>,
    /// `KafkaShareConsumer`: the first (client-config) block of the newest text.
    pub share_consumer: Vec<String>,
    /// `KafkaStreams`: empty, the KIP does not give it.
    pub streams: Vec<String>,
}

impl DefaultKeyLists {
    /// The list for `client_type`.
    pub fn for_client(&self, client_type: ClientType) -> &[String] {
        match client_type {
            ClientType::Producer => &self.producer,
            ClientType::Consumer => &self.consumer,
            ClientType::Admin => &self.admin,
            ClientType::ShareConsumer => &self.share_consumer,
            ClientType::Streams => &self.streams,
        }
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

impl Default for DefaultKeyLists {
    fn default() -> Self {
        Self {
            producer: Vec::new(),
            consumer: strings(&[
                "auto.offset.reset",
                "client.id",
                "enable.auto.commit",
                "fetch.max.wait.ms",
                "fetch.min.bytes",
                "group.id",
                "isolation.level",
                "max.poll.interval.ms",
                "max.poll.records",
                "request.timeout.ms",
                "session.timeout.ms",
            ]),
            admin: strings(&["client.id", "request.timeout.ms", "retries"]),
            share_consumer: strings(&[
                "client.id",
                "fetch.max.wait.ms",
                "fetch.min.bytes",
                "group.id",
                "max.poll.interval.ms",
                "max.poll.records",
                "share.acknowledgement.mode",
                "share.acquire.mode",
            ]),
            streams: Vec::new(),
        }
    }
}

/// Client and broker defaults the KIPs and Kafka fix (kip-notes §1.8, §1.10, §6 A4, A7).
/// A client's own configuration overrides the timing values for that client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Defaults {
    /// Broker `client.config.max.bytes` and the client's own budget: 10240 ("10 KB", binary).
    pub client_config_max_bytes: u32,
    /// `retry.backoff.ms`: 100.
    pub retry_backoff_ms: u64,
    /// `retry.backoff.max.ms`: 1000.
    pub retry_backoff_max_ms: u64,
    /// Relative jitter of each backoff: 0.2 (±20 %).
    pub retry_backoff_jitter: f64,
    /// `default.api.timeout.ms`, the handshake deadline of consumer, admin, share consumer and
    /// Streams: 60000.
    pub default_api_timeout_ms: u64,
    /// Producer `max.block.ms`, the producer's handshake deadline: 60000.
    pub producer_max_block_ms: u64,
    /// `request.timeout.ms`, the per-attempt timeout of a PushConfig: 30000.
    pub request_timeout_ms: u64,
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            client_config_max_bytes: 10240,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1000,
            retry_backoff_jitter: 0.2,
            default_api_timeout_ms: 60000,
            producer_max_block_ms: 60000,
            request_timeout_ms: 30000,
        }
    }
}

/// How far a timing measured on a real clock (a `client-cmd:` target) may stray from the
/// scenario's expected value: `tolerance_ms + tolerance_ratio × expected` either way
/// (docs/live-clients.md). Not a reading: no target follows another "timing", and the model
/// never reads it (a virtual clock is exact).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    /// Absolute slack, ms: 25 (scheduling, loopback I/O, reading a pipe).
    pub tolerance_ms: u64,
    /// Relative slack: 0.10 (timer granularity grows with the duration).
    pub tolerance_ratio: f64,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            tolerance_ms: 25,
            tolerance_ratio: 0.10,
        }
    }
}

impl Timing {
    /// The slack allowed around an expected `ms` (rounded up).
    pub fn tolerance(&self, ms: u64) -> u64 {
        self.tolerance_ms
            .saturating_add((ms as f64 * self.tolerance_ratio).ceil() as u64)
    }
}

/// The client configuration keys that set the handshake's timeline (the profile's timing
/// defaults stand for them): the keys a real-clock run scales with `--time-scale`.
pub const TIMELINE_CONFIG_KEYS: [&str; 5] = [
    "retry.backoff.ms",
    "retry.backoff.max.ms",
    "request.timeout.ms",
    "default.api.timeout.ms",
    "max.block.ms",
];

/// The prefix under which a live client's `{config}` carries the scaled defaults of the
/// [`TIMELINE_CONFIG_KEYS`] (`kipcheck.default.request.timeout.ms=3000`): written by
/// `client-cmd:`, read by `kipcheck client`; the keys stay defaults, not user-set.
pub const TIMELINE_DEFAULT_PREFIX: &str = "kipcheck.default.";

/// Every knob of the model. `SpecProfile::default()` is kip-notes' recommended reading.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpecProfile {
    /// PROVISIONAL wire numbers: PushConfig apiKey 95, CONFIG_TOO_LARGE 137 (kip-notes §4.9).
    pub provisional: ProvisionalNumbers,
    /// Numeric defaults.
    pub defaults: Defaults,
    /// What the size limit measures (§6 A3): `request_body` (default), `configs_array` or
    /// `key_value_bytes`.
    pub size_measure: SizeMeasure,
    /// PushConfig `ConfigType` numbering (§6 A2): `config_def_type` (default) or `older_kip_enum`.
    pub config_type_numbering: ConfigTypeNumbering,
    /// Reply to a PushConfig the broker did not advertise (§6 A5): `close` (default) or
    /// `unsupported_version`.
    pub unadvertised_push_config: UnadvertisedPushConfigReply,
    /// A client's connection after a PushConfig request timeout: `keep` (default) or
    /// `disconnect` (Java's NetworkClient); the KIP allows both.
    pub request_timeout: RequestTimeoutAction,
    /// Who refuses CLASS/PASSWORD entries and unparsable values in a PushConfig: `policy`
    /// (default, the KIP text) or `broker` (before the policy).
    pub broker_entry_checks: BrokerEntryChecks,
    /// Error of a failed registration audit (§6 C2): `invalid_registration` (default) or
    /// `invalid_config`.
    pub registration_rejection: RegistrationRejection,
    /// IncrementalAlterConfigs error for a value failing its type or static validator, or an
    /// unknown topic config (§3.4, §6 C5): `invalid_request` (default) or `invalid_config`.
    pub incremental_invalid_value: IncrementalInvalidValue,
    /// Which metadata.version changes are audited (§6 C3): `both` (default) or `upgrade_only`.
    pub audit_direction: AuditDirection,
    /// UpdateFeatures error when both INVALID_UPDATE_VERSION and the audit's INVALID_CONFIG
    /// apply: `invalid_update_version` (default) or `invalid_config`.
    pub update_features_precedence: UpdateFeaturesPrecedence,
    /// UpdateFeatures error when the KIP-1294 audit refuses a metadata.version change:
    /// `invalid_config` (default, KIP-1294) or `invalid_update_version` (Kafka's code for a
    /// refused feature-level change).
    pub audit_rejection: AuditRejection,
    /// Whether MV validators count as "a Validator" for KIP-1326 inclusion (§6 B2):
    /// `static_only` (default) or `counts`.
    pub mv_validator_inclusion: MvValidatorInclusion,
    /// A re-registration's StaticConfigs: `replace` (default) or `merge` the held ones.
    pub reregistration: Reregistration,
    /// Who may push: `none` (no authorization, the KIP's text) or `cluster_action` (the
    /// prototype's CLUSTER_ACTION check).
    pub push_config_authorization: PushConfigAuthorization,
    /// The metadata.version feature level from which a controller persists StaticConfigs in
    /// RegisterBrokerRecord v5 (§6 B5). PROVISIONAL default 35: one above 4.5-IV0 (34), the
    /// newest level known.
    pub static_config_persistence_level: i16,
    /// The first BrokerRegistrationRequest version that carries StaticConfigs (§6 B1): 6.
    pub first_static_configs_version: i16,
    /// Default `config.push.allowed.keys` per client type (§6 A6).
    pub default_keys: DefaultKeyLists,
    /// Tolerance of timings judged on a real clock (not a reading).
    pub timing: Timing,
}

impl Default for SpecProfile {
    fn default() -> Self {
        Self {
            provisional: ProvisionalNumbers::default(),
            defaults: Defaults::default(),
            size_measure: SizeMeasure::default(),
            config_type_numbering: ConfigTypeNumbering::default(),
            unadvertised_push_config: UnadvertisedPushConfigReply::default(),
            request_timeout: RequestTimeoutAction::default(),
            broker_entry_checks: BrokerEntryChecks::default(),
            registration_rejection: RegistrationRejection::default(),
            incremental_invalid_value: IncrementalInvalidValue::default(),
            audit_direction: AuditDirection::default(),
            update_features_precedence: UpdateFeaturesPrecedence::default(),
            audit_rejection: AuditRejection::default(),
            mv_validator_inclusion: MvValidatorInclusion::default(),
            reregistration: Reregistration::default(),
            push_config_authorization: PushConfigAuthorization::default(),
            static_config_persistence_level: 35,
            first_static_configs_version: 6,
            default_keys: DefaultKeyLists::default(),
            timing: Timing::default(),
        }
    }
}

/// A profile that cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The YAML does not parse or does not match the schema.
    #[error("spec profile YAML: {0}")]
    Yaml(#[from] serde_saphyr::Error),
    /// A field holds a value outside its domain.
    #[error("spec profile field {field}: {reason}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// Why it is invalid.
        reason: String,
    },
}

impl SpecProfile {
    /// The built-in default as commented YAML, documenting every field; it loads to
    /// `SpecProfile::default()`.
    pub const DEFAULT_YAML: &'static str = include_str!("default_profile.yaml");

    /// Loads a profile from YAML; absent fields take their defaults, unknown fields are errors.
    pub fn from_yaml(text: &str) -> Result<Self, ProfileError> {
        let p: SpecProfile = serde_saphyr::from_str(text)?;
        p.validate()?;
        Ok(p)
    }

    /// Renders the profile as YAML (loadable again with [`SpecProfile::from_yaml`]).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).expect("a SpecProfile always serializes")
    }

    /// Checks value domains that serde cannot express.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let j = self.defaults.retry_backoff_jitter;
        if !(0.0..1.0).contains(&j) {
            return Err(ProfileError::Invalid {
                field: "defaults.retry_backoff_jitter",
                reason: format!("{j} is not in [0, 1)"),
            });
        }
        let r = self.timing.tolerance_ratio;
        if !(0.0..1.0).contains(&r) {
            return Err(ProfileError::Invalid {
                field: "timing.tolerance_ratio",
                reason: format!("{r} is not in [0, 1)"),
            });
        }
        if self.first_static_configs_version < 0 {
            return Err(ProfileError::Invalid {
                field: "first_static_configs_version",
                reason: "must not be negative".into(),
            });
        }
        Ok(())
    }

    /// The default keys of every client type, by type (for reports).
    pub fn default_key_table(&self) -> BTreeMap<ClientType, Vec<String>> {
        ClientType::ALL
            .into_iter()
            .map(|t| (t, self.default_keys.for_client(t).to_vec()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_profile_values() {
        let p = SpecProfile::default();
        assert_eq!(p.provisional.push_config_api_key.0, 95);
        assert_eq!(p.provisional.config_too_large.0, 137);
        assert_eq!(p.defaults.client_config_max_bytes, 10240);
        assert_eq!(p.first_static_configs_version, 6);
        assert!(p.default_keys.producer.is_empty() && p.default_keys.streams.is_empty());
    }

    #[test]
    fn documented_default_yaml_is_the_default() {
        assert_eq!(
            SpecProfile::from_yaml(SpecProfile::DEFAULT_YAML).unwrap(),
            SpecProfile::default()
        );
    }

    #[test]
    fn yaml_round_trip_and_partial_override() {
        let p = SpecProfile::default();
        assert_eq!(SpecProfile::from_yaml(&p.to_yaml()).unwrap(), p);
        let q =
            SpecProfile::from_yaml("size_measure: configs_array\naudit_direction: upgrade_only\n")
                .unwrap();
        assert_eq!(q.size_measure, SizeMeasure::ConfigsArray);
        assert_eq!(q.audit_direction, AuditDirection::UpgradeOnly);
        assert_eq!(q.defaults, Defaults::default());
    }

    #[test]
    fn size_measure_has_three_readings() {
        for (text, m) in [
            ("request_body", SizeMeasure::RequestBody),
            ("configs_array", SizeMeasure::ConfigsArray),
            ("key_value_bytes", SizeMeasure::KeyValueBytes),
        ] {
            let p = SpecProfile::from_yaml(&format!("size_measure: {text}\n")).unwrap();
            assert_eq!(p.size_measure, m);
            assert_eq!(SpecProfile::from_yaml(&p.to_yaml()).unwrap(), p);
        }
        assert_eq!(
            SpecProfile::default().size_measure,
            SizeMeasure::RequestBody
        );
        assert!(SpecProfile::from_yaml("size_measure: key_value\n").is_err());
    }

    #[test]
    fn broker_entry_checks_default_to_the_policy_and_load_from_yaml() {
        assert_eq!(
            SpecProfile::default().broker_entry_checks,
            BrokerEntryChecks::Policy
        );
        let p = SpecProfile::from_yaml("broker_entry_checks: broker\n").unwrap();
        assert_eq!(p.broker_entry_checks, BrokerEntryChecks::Broker);
        assert!(SpecProfile::from_yaml("broker_entry_checks: both\n").is_err());
    }

    #[test]
    fn incremental_invalid_value_defaults_to_invalid_request() {
        let d = SpecProfile::default().incremental_invalid_value;
        assert_eq!(d.code(), ErrorCode::INVALID_REQUEST);
        let p = SpecProfile::from_yaml("incremental_invalid_value: invalid_config\n").unwrap();
        assert_eq!(
            p.incremental_invalid_value.code(),
            ErrorCode::INVALID_CONFIG
        );
    }

    #[test]
    fn request_timeout_defaults_to_keep_and_loads_disconnect() {
        assert_eq!(
            SpecProfile::default().request_timeout,
            RequestTimeoutAction::Keep
        );
        let p = SpecProfile::from_yaml("request_timeout: disconnect\n").unwrap();
        assert_eq!(p.request_timeout, RequestTimeoutAction::Disconnect);
    }

    #[test]
    fn open_kip_1326_and_kip_1294_orderings_have_documented_defaults() {
        let d = SpecProfile::default();
        assert_eq!(
            (
                d.update_features_precedence,
                d.mv_validator_inclusion,
                d.reregistration
            ),
            (
                UpdateFeaturesPrecedence::InvalidUpdateVersion,
                MvValidatorInclusion::StaticOnly,
                Reregistration::Replace
            )
        );
        let p = SpecProfile::from_yaml(
            "update_features_precedence: invalid_config\nmv_validator_inclusion: counts\nreregistration: merge\n",
        )
        .unwrap();
        assert_eq!(
            (
                p.update_features_precedence,
                p.mv_validator_inclusion,
                p.reregistration
            ),
            (
                UpdateFeaturesPrecedence::InvalidConfig,
                MvValidatorInclusion::Counts,
                Reregistration::Merge
            )
        );
    }

    #[test]
    fn audit_rejection_defaults_to_invalid_config_and_loads_invalid_update_version() {
        let d = SpecProfile::default().audit_rejection;
        assert_eq!(
            (d, d.code()),
            (AuditRejection::InvalidConfig, ErrorCode::INVALID_CONFIG)
        );
        let p = SpecProfile::from_yaml("audit_rejection: invalid_update_version\n").unwrap();
        assert_eq!(p.audit_rejection.code(), ErrorCode::INVALID_UPDATE_VERSION);
        assert_eq!(SpecProfile::from_yaml(&p.to_yaml()).unwrap(), p);
        assert!(SpecProfile::from_yaml("audit_rejection: invalid_request\n").is_err());
    }

    #[test]
    fn timing_tolerance_defaults_to_25_ms_and_10_percent() {
        let t = SpecProfile::default().timing;
        assert_eq!((t.tolerance_ms, t.tolerance_ratio), (25, 0.10));
        assert_eq!(
            [
                t.tolerance(0),
                t.tolerance(100),
                t.tolerance(101),
                t.tolerance(3000)
            ],
            [25, 35, 36, 325]
        );
        let p = SpecProfile::from_yaml("timing: { tolerance_ms: 5 }\n").unwrap();
        assert_eq!((p.timing.tolerance_ms, p.timing.tolerance_ratio), (5, 0.10));
        assert!(matches!(
            SpecProfile::from_yaml("timing: { tolerance_ratio: 1.0 }\n"),
            Err(ProfileError::Invalid {
                field: "timing.tolerance_ratio",
                ..
            })
        ));
    }

    #[test]
    fn unknown_fields_and_bad_jitter_are_rejected() {
        assert!(SpecProfile::from_yaml("no_such_field: 1\n").is_err());
        assert!(matches!(
            SpecProfile::from_yaml("defaults:\n  retry_backoff_jitter: 1.5\n"),
            Err(ProfileError::Invalid { .. })
        ));
    }
}
