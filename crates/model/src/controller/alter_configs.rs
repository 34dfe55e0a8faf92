//! AlterConfigs and IncrementalAlterConfigs as the controller model validates and applies
//! them (static validators, KIP-1294 MV validators, KIP-1256 rules), and the ConfigRecords
//! they append.

use std::collections::BTreeMap;

use super::ControllerModel;
use crate::config_def::{ConfigType, ConfigValue};
use crate::events::Event;
use crate::server_config::{resource_type, ConfigCheckFailure, ServerConfigDefs, ServerConfigKey};
use crate::time::Millis;
use kipcheck_codec::alter_configs_request as legacy_req;
use kipcheck_codec::alter_configs_response::AlterConfigsResourceResponse;
use kipcheck_codec::incremental_alter_configs_request as inc_req;
use kipcheck_codec::incremental_alter_configs_response::AlterConfigsResourceResponse as IncResourceResponse;
use kipcheck_codec::KString;
use kipcheck_codec::{
    AlterConfigsRequest, AlterConfigsResponse, ConfigRecord, ErrorCode,
    IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, Message, MetadataRecordBody,
};

/// The IncrementalAlterConfigs operations.
mod op {
    pub(super) const SET: i8 = 0;
    pub(super) const DELETE: i8 = 1;
    pub(super) const APPEND: i8 = 2;
    pub(super) const SUBTRACT: i8 = 3;
}

/// One resource's outcome: `Ok(new config map)` or an error code and message.
type ResourceOutcome = Result<BTreeMap<String, String>, (ErrorCode, String)>;

impl ControllerModel {
    /// Checks one value against the definitions of its resource type at the current level
    /// (static validators, KIP-1294 MV validators, as the decisions say): the error code and
    /// message a refusal answers with. `legacy` is true for AlterConfigs (and CreateTopics'
    /// configs, which Kafka checks the same way), false for IncrementalAlterConfigs.
    pub fn check_value(
        &self,
        rtype: i8,
        name: &str,
        value: &str,
        legacy: bool,
    ) -> Result<(), (ErrorCode, String)> {
        let Some(defs) = self.defs.for_resource(rtype) else {
            return Ok(());
        };
        // KIP-1256 (IncrementalAlterConfigs only) answers these as the broker does; legacy
        // AlterConfigs keeps INVALID_CONFIG.
        let invalid_value = if legacy {
            ErrorCode::INVALID_CONFIG
        } else {
            self.profile.incremental_invalid_value.code()
        };
        let Some(key) = defs.get(name) else {
            if rtype == resource_type::TOPIC {
                return Err((invalid_value, format!("Unknown topic config name: {name}")));
            }
            return Ok(());
        };
        let level = self.metadata_version();
        if self.decisions.runs_static_validator(legacy, key, level) {
            ServerConfigDefs::check_static(name, key, value)
                .map_err(|e| (invalid_value, e.to_string()))?;
        }
        if !self.decisions.runs_mv_validators(legacy) {
            return Ok(());
        }
        self.check_mv(name, key, value, level)
            .map_err(|e| (ErrorCode::INVALID_CONFIG, e.to_string()))
    }

    /// Runs the MV-aware validators of `key` this controller holds in force at `level` on
    /// `value` (the registration audit, the metadata.version audit and alter-configs all ask
    /// this one check).
    pub(super) fn check_mv(
        &self,
        name: &str,
        key: &ServerConfigKey,
        value: &str,
        level: i16,
    ) -> Result<(), ConfigCheckFailure> {
        let chosen = self
            .decisions
            .mv_validators_in_force(&key.mv_validators, level);
        ServerConfigDefs::check_mv_validators(name, key, value, level, chosen)
    }

    /// A TOPIC resource must name a topic that exists. Checked after the values, as Kafka's
    /// `ConfigurationControlManager.validateAlterConfig` calls its existence checker after the
    /// config validator: a resource that fails both is INVALID_CONFIG.
    pub(super) fn check_exists(&self, rtype: i8, rname: &str) -> Result<(), (ErrorCode, String)> {
        let missing = !self.decisions.topic_exists(rname, &self.topics);
        if rtype == resource_type::TOPIC && missing {
            return Err(super::topics::unknown_topic(rname));
        }
        Ok(())
    }

    /// The KIP-1256 structural checks of IncrementalAlterConfigs, a refusal answered with the
    /// code the decisions give (`structural_refusal_code`: INVALID_REQUEST).
    pub(super) fn alter_structural_checks<'a>(
        &self,
        rtype: i8,
        rname: &str,
        names: impl Iterator<Item = &'a str>,
    ) -> Result<(), (ErrorCode, String)> {
        let refusal = self.decisions.structural_refusal_code();
        self.structural_checks(rtype, rname, names)
            .map_err(|(code, msg)| match code {
                ErrorCode::INVALID_REQUEST => (refusal, msg),
                code => (code, msg),
            })
    }

    /// The structural checks themselves (a known resource type, this node's BROKER resource,
    /// no key named twice), each refusal INVALID_REQUEST; DescribeConfigs runs them as they are.
    pub fn structural_checks<'a>(
        &self,
        rtype: i8,
        rname: &str,
        names: impl Iterator<Item = &'a str>,
    ) -> Result<(), (ErrorCode, String)> {
        if !resource_type::KNOWN.contains(&rtype) {
            return Err((
                ErrorCode::INVALID_REQUEST,
                format!("Unknown resource type {rtype}"),
            ));
        }
        if rtype == resource_type::BROKER && !rname.is_empty() && rname != self.node_id.to_string()
        {
            return Err((
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Unexpected broker id, expected {} or empty string, but received {rname}: \
                     send configs of broker {rname} to that broker",
                    self.node_id
                ),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for n in names {
            if !seen.insert(n) {
                return Err((
                    ErrorCode::INVALID_REQUEST,
                    format!("Duplicate config key: {n}"),
                ));
            }
        }
        Ok(())
    }

    /// Writes the difference between the current and `new` configs of a resource: one
    /// `ConfigRecord` per changed key, in key order (a removed key's value is null).
    pub fn write_configs(
        &mut self,
        now: Millis,
        rtype: i8,
        rname: &str,
        new: BTreeMap<String, String>,
    ) {
        let old = self.resource_configs(rtype, rname);
        let mut changes: Vec<(String, Option<String>)> = Vec::new();
        for k in old.keys() {
            if !new.contains_key(k) {
                changes.push((k.clone(), None));
            }
        }
        for (k, v) in &new {
            if old.get(k) != Some(v) {
                changes.push((k.clone(), Some(v.clone())));
            }
        }
        changes.sort();
        for (name, value) in changes {
            self.append(
                now,
                0,
                MetadataRecordBody::ConfigRecord(ConfigRecord {
                    resource_type: rtype,
                    resource_name: rname.into(),
                    name: name.into(),
                    value: value.map(Into::into),
                    ..Default::default()
                }),
            );
        }
    }

    pub(super) fn finish_resource(
        &mut self,
        now: Millis,
        validate_only: bool,
        rtype: i8,
        rname: &str,
        outcome: ResourceOutcome,
    ) -> (i16, Option<KString>) {
        match outcome {
            Ok(new) => {
                self.log_event(
                    now,
                    Event::AlterConfigsAccepted {
                        resource_type: rtype,
                        resource_name: rname.to_string(),
                        validate_only,
                    },
                );
                if self.decisions.writes_accepted_configs(validate_only) {
                    self.write_configs(now, rtype, rname, new);
                }
                (0, None)
            }
            Err((code, message)) => {
                self.log_event(
                    now,
                    Event::AlterConfigsRejected {
                        resource_type: rtype,
                        resource_name: rname.to_string(),
                        error_code: code,
                        message: message.clone(),
                    },
                );
                (code.0, Some(message.into()))
            }
        }
    }

    /// The new config set of one legacy AlterConfigs resource, or why it is refused. KIP-1256
    /// is scoped to IncrementalAlterConfigs, so none of its refusals apply here: as Kafka's
    /// controller does today, a duplicate key is last-wins, any broker id is accepted, and
    /// only an unknown resource type is refused (UNSUPPORTED_VERSION).
    pub(super) fn legacy_outcome(&self, r: &legacy_req::AlterConfigsResource) -> ResourceOutcome {
        if !resource_type::KNOWN.contains(&r.resource_type) {
            return Err((
                ErrorCode::UNSUPPORTED_VERSION,
                format!("Unknown resource type {}.", r.resource_type),
            ));
        }
        let mut new = BTreeMap::new();
        for c in &r.configs {
            match &c.value {
                Some(v) => {
                    self.check_value(r.resource_type, &c.name, v, true)?;
                    new.insert(c.name.to_string(), v.to_string());
                }
                None => {
                    new.remove(c.name.as_str());
                }
            }
        }
        self.check_exists(r.resource_type, &r.resource_name)?;
        Ok(new)
    }

    /// AlterConfigs (legacy, whole-set replacement; a null value means "not set").
    pub fn handle_alter_configs(
        &mut self,
        now: Millis,
        version: i16,
        req: &AlterConfigsRequest,
    ) -> AlterConfigsResponse {
        let mut responses = Vec::new();
        for r in &req.resources {
            let outcome = self.legacy_outcome(r);
            let (error_code, error_message) = self.finish_resource(
                now,
                req.validate_only,
                r.resource_type,
                &r.resource_name,
                outcome,
            );
            responses.push(AlterConfigsResourceResponse {
                error_code,
                error_message,
                resource_type: r.resource_type,
                resource_name: r.resource_name.clone(),
                ..Default::default()
            });
        }
        AlterConfigsResponse {
            responses,
            ..Default::default()
        }
        .project(version)
    }

    /// The type of `name` in the definitions of `rtype`, if defined.
    pub(super) fn key_type(&self, rtype: i8, name: &str) -> Option<ConfigType> {
        self.defs.for_resource(rtype)?.get(name).map(|k| k.ty)
    }

    /// The current list value of a LIST key (dynamic value, else its default).
    pub(super) fn current_list(
        &self,
        rtype: i8,
        name: &str,
        current: &BTreeMap<String, String>,
    ) -> Vec<String> {
        let raw = current
            .get(name)
            .cloned()
            .or_else(|| self.defs.for_resource(rtype)?.get(name)?.default.clone());
        match raw.map(|r| ConfigValue::parse(ConfigType::List, &r)) {
            Some(Ok(ConfigValue::List(items))) => items,
            _ => Vec::new(),
        }
    }

    /// The new config map of one IncrementalAlterConfigs resource, or why it is refused.
    pub(super) fn incremental_outcome(&self, r: &inc_req::AlterConfigsResource) -> ResourceOutcome {
        let (rtype, rname) = (r.resource_type, r.resource_name.as_str());
        self.alter_structural_checks(rtype, rname, r.configs.iter().map(|c| c.name.as_str()))?;
        for c in &r.configs {
            if !(op::SET..=op::SUBTRACT).contains(&c.config_operation) {
                let msg = format!(
                    "Unknown operation {} for config {}",
                    c.config_operation, c.name
                );
                return Err((ErrorCode::INVALID_REQUEST, msg));
            }
            if c.value.is_none() && c.config_operation != op::DELETE {
                let msg = format!(
                    "Null value not supported for config {} with operation {}",
                    c.name, c.config_operation
                );
                return Err((ErrorCode::INVALID_REQUEST, msg));
            }
        }
        let mut new = self.resource_configs(rtype, rname);
        for c in &r.configs {
            let value = c.value.as_deref().unwrap_or_default().to_string();
            let result = match c.config_operation {
                op::DELETE => {
                    new.remove(c.name.as_str());
                    continue;
                }
                op::SET => value.clone(),
                list_op => {
                    if self.key_type(rtype, &c.name) != Some(ConfigType::List) {
                        let msg = format!(
                            "Config value append/subtract is not allowed for config key: {}",
                            c.name
                        );
                        return Err((ErrorCode::INVALID_CONFIG, msg));
                    }
                    let current = self.current_list(rtype, &c.name, &new);
                    apply_list_op(current, list_op == op::APPEND, &value)
                }
            };
            let checked = if c.config_operation == op::SET {
                &result
            } else {
                self.decisions.list_op_validated_value(&value, &result)
            };
            self.check_value(rtype, &c.name, checked, false)?;
            new.insert(c.name.to_string(), result);
        }
        self.check_exists(rtype, rname)?;
        Ok(new)
    }

    /// IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT).
    pub fn handle_incremental_alter_configs(
        &mut self,
        now: Millis,
        version: i16,
        req: &IncrementalAlterConfigsRequest,
    ) -> IncrementalAlterConfigsResponse {
        let mut responses = Vec::new();
        for r in &req.resources {
            let outcome = self.incremental_outcome(r);
            let (rtype, rname) = (r.resource_type, r.resource_name.as_str());
            let (error_code, error_message) =
                self.finish_resource(now, req.validate_only, rtype, rname, outcome);
            responses.push(IncResourceResponse {
                error_code,
                error_message,
                resource_type: rtype,
                resource_name: rname.into(),
                ..Default::default()
            });
        }
        IncrementalAlterConfigsResponse {
            responses,
            ..Default::default()
        }
        .project(version)
    }
}

/// APPEND (`append`) or SUBTRACT the comma-separated `delta` to or from a list value, as
/// Kafka's `IncrementalAlterConfigs` does: APPEND adds missing elements at the end, SUBTRACT
/// removes every listed element. Returns the rendered list.
fn apply_list_op(mut items: Vec<String>, append: bool, delta: &str) -> String {
    let delta = match ConfigValue::parse(ConfigType::List, delta) {
        Ok(ConfigValue::List(d)) => d,
        _ => Vec::new(),
    };
    if append {
        for d in delta {
            if !items.contains(&d) {
                items.push(d);
            }
        }
    } else {
        items.retain(|i| !delta.contains(i));
    }
    items.join(",")
}
