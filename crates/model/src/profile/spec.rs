//! [`SpecProfile`]: every knob of the model in one serde type, its built-in default (and the
//! commented `default_profile.yaml` that documents it), loading from YAML and validation
//! ([`ProfileError`]). It holds data and never changes what the model reads.

use serde::{Deserialize, Serialize};

use super::defaults::{DefaultKeyLists, Defaults, Timing};
use super::readings::{
    AuditDirection, AuditRejection, BrokerEntryChecks, IncrementalInvalidValue,
    MvValidatorInclusion, PushConfigAuthorization, RegistrationRejection, RequestTimeoutAction,
    Reregistration, SizeMeasure, UnadvertisedPushConfigReply, UpdateFeaturesPrecedence,
};
use crate::config_def::ConfigTypeNumbering;
use kipcheck_codec::ProvisionalNumbers;

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
    pub const DEFAULT_YAML: &'static str = include_str!("../default_profile.yaml");

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
}
