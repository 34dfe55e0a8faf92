//! KIP-1326 on the broker: the StaticConfigs it reports (definitions with a validator, policy
//! not NEVER, not PASSWORD) and the BrokerRegistrationRequest at the version it shares with a
//! controller. It sends nothing and talks to no controller.

use super::state::BrokerModel;
use crate::config_def::ConfigValue;
use crate::profile::MvValidatorInclusion;
use kipcheck_codec::broker_registration_request::{Feature, Listener, StaticConfig};
use kipcheck_codec::{BrokerRegistrationRequest, Message, Uuid};

impl BrokerModel {
    /// True if KIP-1294 MV validators count as "a Validator" for KIP-1326 inclusion here.
    pub(crate) fn mv_validators_count(&self) -> bool {
        self.profile.mv_validator_inclusion == MvValidatorInclusion::Counts
    }

    /// KIP-1326's StaticConfigs, sorted by name: every definition with a validator, policy
    /// not NEVER and type not PASSWORD, with its effective value (server.properties, else the
    /// default) rendered by `convertToString`. Keys whose effective value is null are omitted
    /// (kip-notes §6 B3: conforming brokers send no nulls).
    pub fn static_configs(&self) -> Vec<StaticConfig> {
        self.settings
            .defs
            .broker
            .iter()
            .filter(|(_, key)| {
                self.decisions
                    .reports_static_config(key.report_facts(self.mv_validators_count()))
            })
            .filter_map(|(name, key)| {
                if self.decisions.reports_null_value(key.ty) {
                    return Some(StaticConfig {
                        name: name.as_str().into(),
                        value: None,
                        ..Default::default()
                    });
                }
                let explicit = self.settings.server_properties.get(name).cloned();
                let raw = self
                    .decisions
                    .effective_static_value(explicit, key.default.clone())?;
                let parsed = ConfigValue::parse(key.ty, &raw).ok()?;
                let value = self.decisions.render_static_value(&parsed);
                Some(StaticConfig {
                    name: name.as_str().into(),
                    value: Some(value.into()),
                    ..Default::default()
                })
            })
            .collect()
    }

    /// The BrokerRegistrationRequest this broker sends to a controller that supports versions
    /// up to `controller_max_version`: the highest common version (≤ 6), StaticConfigs only if
    /// that version is at least the profile's first StaticConfigs version.
    pub fn registration_request(
        &self,
        controller_max_version: i16,
    ) -> (i16, BrokerRegistrationRequest) {
        let version =
            controller_max_version.clamp(0, BrokerRegistrationRequest::VALID_VERSIONS.max);
        let mut incarnation = [0u8; 16];
        incarnation[12..].copy_from_slice(&self.settings.node_id.to_be_bytes());
        incarnation[0] = 0x4b;
        let static_configs = if version >= self.profile.first_static_configs_version {
            Some(self.static_configs())
        } else {
            None
        };
        let req = BrokerRegistrationRequest {
            broker_id: self.settings.node_id,
            cluster_id: self.settings.cluster_id.as_str().into(),
            incarnation_id: Uuid(incarnation),
            listeners: vec![Listener {
                name: "PLAINTEXT".into(),
                host: "localhost".into(),
                port: 9092u16.wrapping_add(self.settings.node_id as u16),
                security_protocol: 0,
                ..Default::default()
            }],
            features: vec![Feature {
                name: "metadata.version".into(),
                min_supported_version: self.settings.metadata_version_range.0,
                max_supported_version: self.settings.metadata_version_range.1,
                ..Default::default()
            }],
            static_configs,
            ..Default::default()
        };
        let mut projected = req.project(version);
        if version < self.profile.first_static_configs_version {
            projected.static_configs = None;
        }
        (version, projected)
    }
}
