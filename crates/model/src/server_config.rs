//! Broker and topic configuration definitions as data, for KIP-1326 (which static configs a
//! broker reports) and KIP-1294 (which validators the controller applies, at which
//! metadata.version): name, type, default, static validator, MV-aware validators and
//! `ControllerReportPolicy`. Also the `ConfigResource.Type` numbers. Judges values; never
//! stores them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_def::{ConfigType, ConfigValue};
use super::validators::{MvValidators, ValidationFailure, Validator};

/// KIP-1326's `ConfigDef.ControllerReportPolicy`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReportPolicy {
    /// Report if the key has a validator and is not PASSWORD.
    #[default]
    Default,
    /// Never report (`defineSecurity`).
    Never,
}

/// One key of a broker or topic `ConfigDef`.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfigKey {
    /// Its type.
    pub ty: ConfigType,
    /// Its default as `convertToString` renders it; `None` for a null default.
    #[serde(default)]
    pub default: Option<String>,
    /// The static `ConfigDef` validator.
    #[serde(default)]
    pub validator: Option<Validator>,
    /// KIP-1294 MV-aware validators.
    #[serde(default)]
    pub mv_validators: MvValidators,
    /// KIP-1326 report policy.
    #[serde(default)]
    pub report_policy: ReportPolicy,
}

impl ServerConfigKey {
    /// A key with a type, default and optional static validator, policy DEFAULT.
    pub fn new(ty: ConfigType, default: Option<&str>, validator: Option<Validator>) -> Self {
        Self {
            ty,
            default: default.map(str::to_string),
            validator,
            mv_validators: MvValidators::default(),
            report_policy: ReportPolicy::Default,
        }
    }

    /// The same key with report policy NEVER.
    pub fn never_reported(mut self) -> Self {
        self.report_policy = ReportPolicy::Never;
        self
    }

    /// What KIP-1326's inclusion rule reads of this definition (the rule itself is a broker
    /// decision, `BrokerDecisions::reports_static_config`). `mv_validators_count`: KIP-1294 MV
    /// validators count as "a Validator" (profile `mv_validator_inclusion: counts`).
    pub fn report_facts(&self, mv_validators_count: bool) -> ReportFacts {
        ReportFacts {
            has_validator: self.validator.is_some()
                || (mv_validators_count && !self.mv_validators.is_empty()),
            never_reported: self.report_policy == ReportPolicy::Never,
            is_password: self.ty == ConfigType::Password,
        }
    }
}

/// What KIP-1326's inclusion rule reads of a broker config definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportFacts {
    /// It has a validator (MV validators included where the profile counts them).
    pub has_validator: bool,
    /// Its report policy is NEVER.
    pub never_reported: bool,
    /// Its type is PASSWORD.
    pub is_password: bool,
}

/// A value the definitions reject.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigCheckFailure {
    /// The value does not parse as the key's type.
    #[error("Invalid value {value} for configuration {name}: not a valid {ty}")]
    Unparsable {
        /// The key.
        name: String,
        /// The value.
        value: String,
        /// The declared type.
        ty: ConfigType,
    },
    /// The static validator rejects it.
    #[error("{0}")]
    Static(ValidationFailure),
    /// The MV-aware validator in force at `level` (registered at `threshold`) rejects it.
    #[error("{failure} (metadata.version constraint registered at level {threshold})")]
    MetadataVersion {
        /// The level the check ran at.
        level: i16,
        /// The key of the validator's floor entry.
        threshold: i16,
        /// The failure.
        failure: ValidationFailure,
    },
}

/// `ConfigResource.Type` numbers.
pub mod resource_type {
    /// UNKNOWN.
    pub const UNKNOWN: i8 = 0;
    /// TOPIC.
    pub const TOPIC: i8 = 2;
    /// BROKER.
    pub const BROKER: i8 = 4;
    /// BROKER_LOGGER.
    pub const BROKER_LOGGER: i8 = 8;
    /// CLIENT_METRICS.
    pub const CLIENT_METRICS: i8 = 16;
    /// GROUP.
    pub const GROUP: i8 = 32;
    /// Every known type except UNKNOWN.
    pub const KNOWN: [i8; 5] = [TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP];
}

/// Broker (`KafkaConfig`) and topic (`LogConfig`) definitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfigDefs {
    /// Broker configs by name.
    pub broker: BTreeMap<String, ServerConfigKey>,
    /// Topic configs by name.
    pub topic: BTreeMap<String, ServerConfigKey>,
}

impl Default for ServerConfigDefs {
    /// A subset of Kafka 4.x's real definitions. Kafka has no MV-aware validators yet, so
    /// none are defined here; tests and scenarios add them with
    /// [`ServerConfigDefs::with_mv_validator`].
    fn default() -> Self {
        use ConfigType::*;
        let n = |x: f64| Some(Validator::AtLeast(x));
        let vs = |v: &[&str]| {
            Some(Validator::ValidString(
                v.iter().map(|s| s.to_string()).collect(),
            ))
        };
        let cleanup = || {
            Some(Validator::ValidList {
                valid: vec!["compact".into(), "delete".into()],
                allow_empty: true,
            })
        };
        let compression = ["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];
        let broker: BTreeMap<std::string::String, ServerConfigKey> = [
            (
                "auto.create.topics.enable",
                ServerConfigKey::new(Boolean, Some("true"), None),
            ),
            ("broker.id", ServerConfigKey::new(Int, Some("-1"), None)),
            (
                "client.config.policy.class.name",
                ServerConfigKey::new(Class, None, None).never_reported(),
            ),
            (
                "compression.type",
                ServerConfigKey::new(String, Some("producer"), vs(&compression)),
            ),
            (
                "log.cleanup.policy",
                ServerConfigKey::new(List, Some("delete"), cleanup()),
            ),
            ("log.dirs", ServerConfigKey::new(String, None, None)),
            (
                "log.retention.bytes",
                ServerConfigKey::new(Long, Some("-1"), None),
            ),
            (
                "log.segment.bytes",
                ServerConfigKey::new(Int, Some("1073741824"), n(1048576.0)),
            ),
            (
                "message.max.bytes",
                ServerConfigKey::new(Int, Some("1048588"), n(0.0)),
            ),
            (
                "min.insync.replicas",
                ServerConfigKey::new(Int, Some("1"), n(1.0)),
            ),
            (
                "num.io.threads",
                ServerConfigKey::new(Int, Some("8"), n(1.0)),
            ),
            (
                "num.network.threads",
                ServerConfigKey::new(Int, Some("3"), n(1.0)),
            ),
            (
                "num.partitions",
                ServerConfigKey::new(Int, Some("1"), n(1.0)),
            ),
            (
                "ssl.key.password",
                ServerConfigKey::new(Password, None, None).never_reported(),
            ),
            (
                "ssl.keystore.password",
                ServerConfigKey::new(Password, None, None).never_reported(),
            ),
            (
                "ssl.protocol",
                ServerConfigKey::new(String, Some("TLSv1.3"), Some(Validator::NonEmptyString))
                    .never_reported(),
            ),
            (
                "unclean.leader.election.enable",
                ServerConfigKey::new(Boolean, Some("false"), None),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let topic: BTreeMap<std::string::String, ServerConfigKey> = [
            (
                "cleanup.policy",
                ServerConfigKey::new(List, Some("delete"), cleanup()),
            ),
            (
                "compression.type",
                ServerConfigKey::new(String, Some("producer"), vs(&compression)),
            ),
            (
                "max.message.bytes",
                ServerConfigKey::new(Int, Some("1048588"), n(0.0)),
            ),
            (
                "min.insync.replicas",
                ServerConfigKey::new(Int, Some("1"), n(1.0)),
            ),
            (
                "retention.ms",
                ServerConfigKey::new(Long, Some("604800000"), n(-1.0)),
            ),
            (
                "segment.bytes",
                ServerConfigKey::new(Int, Some("1073741824"), n(14.0)),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        Self { broker, topic }
    }
}

impl ServerConfigDefs {
    /// Adds (or replaces) an MV-aware validator for `name` at `level` in both the broker and
    /// topic definitions that define `name`.
    pub fn with_mv_validator(mut self, name: &str, level: i16, validator: Validator) -> Self {
        for defs in [&mut self.broker, &mut self.topic] {
            if let Some(key) = defs.get_mut(name) {
                key.mv_validators.0.insert(level, validator.clone());
            }
        }
        self
    }

    /// The definitions for a `ConfigResource.Type`, if the model validates that type.
    pub fn for_resource(&self, resource_type: i8) -> Option<&BTreeMap<String, ServerConfigKey>> {
        match resource_type {
            resource_type::TOPIC => Some(&self.topic),
            resource_type::BROKER => Some(&self.broker),
            _ => None,
        }
    }

    /// Parses `value` as `key`'s type and runs the static validator.
    pub fn check_static(
        name: &str,
        key: &ServerConfigKey,
        value: &str,
    ) -> Result<ConfigValue, ConfigCheckFailure> {
        let parsed =
            ConfigValue::parse(key.ty, value).map_err(|_| ConfigCheckFailure::Unparsable {
                name: name.to_string(),
                value: value.to_string(),
                ty: key.ty,
            })?;
        if let Some(v) = &key.validator {
            v.ensure_valid(name, &parsed)
                .map_err(ConfigCheckFailure::Static)?;
        }
        Ok(parsed)
    }

    /// Parses `value` and runs `chosen`, the MV-aware validators in force at `level` (which
    /// ones is a controller decision, `ControllerDecisions::mv_validators_in_force`: the floor
    /// entry only). Nothing is parsed when none is in force.
    pub fn check_mv_validators(
        name: &str,
        key: &ServerConfigKey,
        value: &str,
        level: i16,
        chosen: Vec<(i16, &Validator)>,
    ) -> Result<(), ConfigCheckFailure> {
        if chosen.is_empty() {
            return Ok(());
        }
        let parsed =
            ConfigValue::parse(key.ty, value).map_err(|_| ConfigCheckFailure::Unparsable {
                name: name.to_string(),
                value: value.to_string(),
                ty: key.ty,
            })?;
        for (threshold, validator) in chosen {
            validator.ensure_valid(name, &parsed).map_err(|failure| {
                ConfigCheckFailure::MetadataVersion {
                    level,
                    threshold,
                    failure,
                }
            })?;
        }
        Ok(())
    }
}
