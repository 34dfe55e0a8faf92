//! What a client reads back from the emulated controller on the wire, as Kafka's KRaft
//! controller answers it (`ControllerApis`, `ConfigHelper` in Apache Kafka 4.x): ApiVersions
//! with the finalized feature levels (metadata.version read back) and DescribeConfigs.
//! Scenarios use them to judge what a controller stored (a refused change left nothing, a
//! value survived failover) without the model's events, which real controllers do not emit.
//!
//! Kafka's answers over the model's state, not the KIP reference: what is stored, and which
//! metadata.version is finalized, are the model's ([`ControllerModel::resource_configs`],
//! [`ControllerModel::finalized_features`]); the shape of the answer (ConfigSource, the
//! ConfigType numbering, a PASSWORD shown as null, the feature epoch) is Kafka's. Read-only.

use std::collections::BTreeMap;

use crate::codec::api_versions_response::{ApiVersion, FinalizedFeatureKey};
use crate::codec::describe_configs_request::DescribeConfigsResource;
use crate::codec::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResult,
};
use crate::codec::{
    ApiKey, ApiVersionsResponse, DescribeConfigsRequest, DescribeConfigsResponse, ErrorCode,
    Message, RequestBody,
};
use crate::model::controller::envelope::CONTROLLER_APIS;
use crate::model::controller::unknown_topic;
use crate::model::server_config::{resource_type, ServerConfigKey};
use crate::model::{api_version_range, ConfigType, ControllerModel};

use super::EMULATED_APIS;

/// The highest ApiVersions version the emulated controller advertises.
const MAX_API_VERSIONS_VERSION: i16 = 4;

/// `DescribeConfigsResponse.ConfigSource` numbers (Kafka's `DescribeConfigsResponse.ConfigSource`).
pub mod config_source {
    /// A dynamic topic config.
    pub const TOPIC_CONFIG: i8 = 1;
    /// A dynamic per-broker config.
    pub const DYNAMIC_BROKER_CONFIG: i8 = 2;
    /// A dynamic cluster-wide default broker config.
    pub const DYNAMIC_DEFAULT_BROKER_CONFIG: i8 = 3;
    /// The definition's default.
    pub const DEFAULT_CONFIG: i8 = 5;
}

/// `DescribeConfigsResponse.ConfigType` (v3+): UNKNOWN 0, then `ConfigDef.Type` from 1.
fn describe_config_type(ty: ConfigType) -> i8 {
    ty.ordinal() + 1
}

/// ApiVersions as the emulated controller answers it: ApiVersions, the model's APIs and
/// [`EMULATED_APIS`] in API key order, and (KIP-584) the finalized feature levels with
/// `MinVersionLevel` = `MaxVersionLevel` = the level, `metadata.version` among them, and as
/// epoch the offset of the last record applied (>= 0: the list is valid). A client reads the
/// current metadata.version back from it.
pub fn api_versions(model: &ControllerModel) -> ApiVersionsResponse {
    let mut keys = vec![ApiVersion {
        api_key: ApiKey::API_VERSIONS.0,
        min_version: 0,
        max_version: MAX_API_VERSIONS_VERSION,
        ..Default::default()
    }];
    for k in CONTROLLER_APIS.into_iter().chain(EMULATED_APIS) {
        if let Some(info) = RequestBody::info(k) {
            keys.push(api_version_range(k, info.valid));
        }
    }
    keys.sort_by_key(|k| k.api_key);
    let finalized = model
        .finalized_features()
        .iter()
        .filter(|(_, level)| **level > 0)
        .map(|(name, level)| FinalizedFeatureKey {
            name: name.as_str().into(),
            max_version_level: *level,
            min_version_level: *level,
            ..Default::default()
        })
        .collect();
    ApiVersionsResponse {
        api_keys: keys,
        throttle_time_ms: Some(0),
        finalized_features_epoch: Some(model.metadata_log().len() as i64 - 1),
        finalized_features: Some(finalized),
        ..Default::default()
    }
}

/// DescribeConfigs as Kafka's `ConfigHelper` answers it on a controller, per resource in
/// request order: TOPIC lists every topic definition (its dynamic value, else the default),
/// or UNKNOWN_TOPIC_OR_PARTITION with no configs if no such topic exists; BROKER with
/// an empty name lists only the dynamic cluster defaults; BROKER with this controller's
/// node id lists every broker definition (dynamic per-broker value, else dynamic default,
/// else the default); another broker id, or any other resource type, is INVALID_REQUEST.
/// `ConfigurationKeys` (when non-empty) keeps only the named keys; PASSWORD values are
/// null and marked sensitive. No synonyms or documentation (the model has none).
pub fn describe_configs(
    model: &ControllerModel,
    version: i16,
    req: &DescribeConfigsRequest,
) -> DescribeConfigsResponse {
    let results = req
        .resources
        .iter()
        .map(|r| {
            let (error_code, error_message, configs) = match describe_resource(model, r) {
                Ok(entries) => (
                    0,
                    None,
                    entries.into_iter().map(Entry::into_result).collect(),
                ),
                Err((code, message)) => (code.0, Some(message.into()), Vec::new()),
            };
            DescribeConfigsResult {
                error_code,
                error_message,
                resource_type: r.resource_type,
                resource_name: r.resource_name.clone(),
                configs,
                ..Default::default()
            }
        })
        .collect();
    DescribeConfigsResponse {
        results,
        ..Default::default()
    }
    .project(version)
}

fn describe_resource(
    model: &ControllerModel,
    r: &DescribeConfigsResource,
) -> Result<Vec<Entry>, (ErrorCode, String)> {
    let name = r.resource_name.as_str();
    let wanted = |key: &str| match &r.configuration_keys {
        Some(keys) if !keys.is_empty() => keys.iter().any(|k| k.as_str() == key),
        _ => true,
    };
    let defs = model.definitions();
    let defaults = model.resource_configs(resource_type::BROKER, "");
    let entries = match r.resource_type {
        // Kafka 4.4's controller gives no message here (an empty string), unlike the
        // alter APIs.
        resource_type::TOPIC if !model.topic_exists(name) => {
            return Err((unknown_topic(name).0, String::new()))
        }
        resource_type::TOPIC => {
            let dynamic = model.resource_configs(resource_type::TOPIC, name);
            layered(&defs.topic, &[(config_source::TOPIC_CONFIG, &dynamic)])
        }
        resource_type::BROKER if name.is_empty() => defaults
            .iter()
            .map(|(k, v)| Entry {
                name: k.clone(),
                value: Some(v.clone()),
                source: config_source::DYNAMIC_DEFAULT_BROKER_CONFIG,
                ty: defs.broker.get(k).map(|d| d.ty),
            })
            .collect(),
        resource_type::BROKER => {
            model.structural_checks(r.resource_type, name, std::iter::empty())?;
            let per_broker = model.resource_configs(resource_type::BROKER, name);
            layered(
                &defs.broker,
                &[
                    (config_source::DYNAMIC_BROKER_CONFIG, &per_broker),
                    (config_source::DYNAMIC_DEFAULT_BROKER_CONFIG, &defaults),
                ],
            )
        }
        other => {
            return Err((
                ErrorCode::INVALID_REQUEST,
                format!("Unsupported resource type: {other}"),
            ))
        }
    };
    Ok(entries.into_iter().filter(|e| wanted(&e.name)).collect())
}

/// A topic's configs as DescribeConfigs lists them when its dynamic configs are
/// `dynamic`: every topic definition, the dynamic value (TOPIC_CONFIG) else the default
/// (DEFAULT_CONFIG), sensitive values null. What CreateTopics v5+ reports for a new topic.
pub fn describe_topic_configs(
    model: &ControllerModel,
    dynamic: &BTreeMap<String, String>,
) -> Vec<DescribeConfigsResourceResult> {
    layered(
        &model.definitions().topic,
        &[(config_source::TOPIC_CONFIG, dynamic)],
    )
    .into_iter()
    .map(Entry::into_result)
    .collect()
}

/// Every definition and every stored key, with the first layer that sets it, else the
/// definition's default.
fn layered(
    defs: &BTreeMap<String, ServerConfigKey>,
    layers: &[(i8, &BTreeMap<String, String>)],
) -> Vec<Entry> {
    let mut names: Vec<&String> = defs.keys().collect();
    names.extend(layers.iter().flat_map(|(_, map)| map.keys()));
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let def = defs.get(name);
            let (source, value) = layers
                .iter()
                .find_map(|(source, map)| map.get(name).map(|v| (*source, Some(v.clone()))))
                .unwrap_or_else(|| {
                    let default = def.and_then(|d| d.default.clone());
                    (config_source::DEFAULT_CONFIG, default)
                });
            Entry {
                name: name.clone(),
                value,
                source,
                ty: def.map(|d| d.ty),
            }
        })
        .collect()
}

/// One described config before it becomes a wire entry.
struct Entry {
    name: String,
    value: Option<String>,
    source: i8,
    ty: Option<ConfigType>,
}

impl Entry {
    /// True for a PASSWORD definition: its value is never shown.
    fn is_sensitive(&self) -> bool {
        self.ty.is_some_and(ConfigType::is_sensitive)
    }

    /// The value as the wire shows it (null when sensitive).
    fn shown_value(&self) -> Option<String> {
        if self.is_sensitive() {
            None
        } else {
            self.value.clone()
        }
    }

    fn into_result(self) -> DescribeConfigsResourceResult {
        let sensitive = self.is_sensitive();
        DescribeConfigsResourceResult {
            value: self.shown_value().map(Into::into),
            name: self.name.into(),
            // read_only: false and no synonyms, the fields' defaults
            config_source: self.source,
            is_sensitive: sensitive,
            config_type: Some(self.ty.map_or(0, describe_config_type)),
            documentation: Some(None),
            ..Default::default()
        }
    }
}
