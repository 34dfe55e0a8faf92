//! The KRaft controller side of KIP-1326, KIP-1294 and KIP-1256 as a model: broker
//! registration (StaticConfigs in memory; persisted in RegisterBrokerRecord v5 only from the
//! profile's metadata.version), the registration audit, AlterConfigs and
//! IncrementalAlterConfigs validation, and the metadata.version audit in UpdateFeatures. All
//! durable state is an ordered metadata log, and [`ControllerModel::replay`] rebuilds a
//! controller from it (failover). Typed requests in, typed responses out; no I/O.

use std::collections::BTreeMap;

use super::config_def::{ConfigType, ConfigValue};
use super::events::{Event, LoggedEvent};
use super::faults::{Fault, Faults};
use super::profile::{AuditDirection, Reregistration, SpecProfile, UpdateFeaturesPrecedence};
use super::server_config::{resource_type, ServerConfigDefs};
use super::time::Millis;
use crate::codec::alter_configs_request as legacy_req;
use crate::codec::alter_configs_response::AlterConfigsResourceResponse;
use crate::codec::incremental_alter_configs_request as inc_req;
use crate::codec::incremental_alter_configs_response::AlterConfigsResourceResponse as IncResourceResponse;
use crate::codec::register_broker_record::{BrokerEndpoint, BrokerFeature, BrokerStaticConfig};
use crate::codec::update_features_response::UpdatableFeatureResult;
use crate::codec::{
    AlterConfigsRequest, AlterConfigsResponse, BrokerRegistrationRequest,
    BrokerRegistrationResponse, ConfigRecord, ErrorCode, FeatureLevelRecord,
    IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, Message, MetadataRecordBody,
    RegisterBrokerRecord, UpdateFeaturesRequest, UpdateFeaturesResponse, Uuid,
};
use crate::codec::{Bytes, KString};

/// The feature name of metadata.version.
pub const METADATA_VERSION: &str = "metadata.version";

/// The highest BrokerRegistrationRequest version this controller model accepts.
pub const MAX_BROKER_REGISTRATION_VERSION: i16 = 6;

/// One record of the metadata log.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataRecord {
    /// Position in the log, from 0.
    pub offset: u64,
    /// Record version.
    pub version: i16,
    /// The record, exactly as `version` encodes it.
    pub body: MetadataRecordBody,
}

/// A registered broker as the controller knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisteredBroker {
    /// Broker id.
    pub broker_id: i32,
    /// Broker epoch (the offset of its RegisterBrokerRecord).
    pub epoch: i64,
    /// Incarnation id.
    pub incarnation_id: Uuid,
    /// StaticConfigs reported (last value wins for duplicate names).
    pub static_configs: BTreeMap<String, Option<String>>,
    /// True if they are in the RegisterBrokerRecord (survive failover).
    pub static_configs_persisted: bool,
}

/// A metadata log the controller cannot replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The log does not start at offset 0 or has a gap.
    #[error("record at position {position} has offset {offset}")]
    OffsetGap {
        /// Index in the slice.
        position: usize,
        /// Its offset.
        offset: u64,
    },
    /// The log never sets metadata.version.
    #[error("the log never sets metadata.version")]
    NoMetadataVersion,
}

/// The IncrementalAlterConfigs operations.
mod op {
    pub const SET: i8 = 0;
    pub const DELETE: i8 = 1;
    pub const APPEND: i8 = 2;
    pub const SUBTRACT: i8 = 3;
}

/// One resource's outcome: `Ok(new config map)` or an error code and message.
type ResourceOutcome = Result<BTreeMap<String, String>, (ErrorCode, String)>;

/// The controller model.
#[derive(Clone, Debug)]
pub struct ControllerModel {
    pub(super) profile: SpecProfile,
    pub(super) defs: ServerConfigDefs,
    pub(super) features: BTreeMap<String, i16>,
    pub(super) brokers: BTreeMap<i32, RegisteredBroker>,
    pub(super) configs: BTreeMap<(i8, String), BTreeMap<String, String>>,
    /// Topics that exist (a `TopicRecord` named them): name → topic id.
    pub(super) topics: BTreeMap<String, Uuid>,
    pub(super) log: Vec<MetadataRecord>,
    pub(super) events: Vec<LoggedEvent>,
    /// This controller's `node.id` (in combined mode also a broker's).
    pub(super) node_id: i32,
    pub(super) faults: Faults,
}

/// The node id a controller model has unless told otherwise.
pub const DEFAULT_CONTROLLER_NODE_ID: i32 = 1;

impl ControllerModel {
    /// A new cluster bootstrapped at `metadata_version` (written as the first record).
    pub fn new(
        profile: &SpecProfile,
        defs: ServerConfigDefs,
        metadata_version: i16,
        now: Millis,
    ) -> Self {
        let mut c = Self::empty(profile, defs);
        c.append(
            now,
            0,
            MetadataRecordBody::FeatureLevelRecord(FeatureLevelRecord {
                name: METADATA_VERSION.into(),
                feature_level: metadata_version,
                ..Default::default()
            }),
        );
        c
    }

    fn empty(profile: &SpecProfile, defs: ServerConfigDefs) -> Self {
        Self {
            profile: profile.clone(),
            defs,
            features: BTreeMap::new(),
            brokers: BTreeMap::new(),
            configs: BTreeMap::new(),
            topics: BTreeMap::new(),
            log: Vec::new(),
            events: Vec::new(),
            node_id: DEFAULT_CONTROLLER_NODE_ID,
            faults: Faults::none(),
        }
    }

    /// The same controller with `faults` (a faulty variant; [`Faults::none`] is the
    /// reference). A controller rebuilt by failover needs [`ControllerModel::replay_with`].
    pub fn with_faults(mut self, faults: Faults) -> Self {
        self.faults = faults;
        self
    }

    /// The same controller with `node.id` = `node_id`: BROKER resources it accepts are the
    /// cluster default (empty name) and its own id (KIP-1256: configs of another node are
    /// refused, directing the user to that node).
    pub fn with_node_id(mut self, node_id: i32) -> Self {
        self.node_id = node_id;
        self
    }

    /// This controller's node id.
    pub fn node_id(&self) -> i32 {
        self.node_id
    }

    /// A controller rebuilt from a metadata log (failover): exactly what was persisted.
    pub fn replay(
        profile: &SpecProfile,
        defs: ServerConfigDefs,
        records: &[MetadataRecord],
    ) -> Result<Self, ReplayError> {
        Self::replay_with(profile, defs, records, Faults::none())
    }

    /// [`replay`](Self::replay) by a controller with `faults`.
    pub fn replay_with(
        profile: &SpecProfile,
        defs: ServerConfigDefs,
        records: &[MetadataRecord],
        faults: Faults,
    ) -> Result<Self, ReplayError> {
        let mut c = Self::empty(profile, defs).with_faults(faults);
        for (position, r) in records.iter().enumerate() {
            if r.offset != position as u64 {
                return Err(ReplayError::OffsetGap {
                    position,
                    offset: r.offset,
                });
            }
            c.apply(r);
            c.log.push(r.clone());
        }
        if !c.features.contains_key(METADATA_VERSION) {
            return Err(ReplayError::NoMetadataVersion);
        }
        Ok(c)
    }

    /// This controller's successor after a failover: rebuilt from the metadata log with the
    /// same profile, definitions, faults and node id.
    pub fn failover(&self) -> Result<Self, ReplayError> {
        Ok(Self::replay_with(
            &self.profile,
            self.defs.clone(),
            &self.log,
            self.faults.clone(),
        )?
        .with_node_id(self.node_id))
    }

    /// Applies one record to the in-memory state.
    fn apply(&mut self, r: &MetadataRecord) {
        match &r.body {
            MetadataRecordBody::FeatureLevelRecord(f) => {
                self.features.insert(f.name.to_string(), f.feature_level);
            }
            MetadataRecordBody::ConfigRecord(cr) => {
                let entry = self
                    .configs
                    .entry((cr.resource_type, cr.resource_name.to_string()))
                    .or_default();
                match &cr.value {
                    Some(v) => {
                        entry.insert(cr.name.to_string(), v.to_string());
                    }
                    None => {
                        entry.remove(cr.name.as_str());
                    }
                }
                if entry.is_empty() {
                    self.configs
                        .remove(&(cr.resource_type, cr.resource_name.to_string()));
                }
            }
            MetadataRecordBody::RegisterBrokerRecord(rb) => {
                let lose = self.faults.has(Fault::LosesStaticConfigsOnFailover);
                let statics: BTreeMap<String, Option<String>> = rb
                    .static_configs
                    .iter()
                    .flatten()
                    .filter(|_| !lose)
                    .map(|s| (s.name.to_string(), s.value.as_ref().map(|v| v.to_string())))
                    .collect();
                self.brokers.insert(
                    rb.broker_id,
                    RegisteredBroker {
                        broker_id: rb.broker_id,
                        epoch: rb.broker_epoch,
                        incarnation_id: rb.incarnation_id,
                        static_configs_persisted: rb.static_configs.is_some(),
                        static_configs: statics,
                    },
                );
            }
            MetadataRecordBody::TopicRecord(t) => {
                self.topics.insert(t.name.to_string(), t.topic_id);
            }
            MetadataRecordBody::RemoveTopicRecord(rt) => {
                // Kafka drops the topic's configs with it (`deleteTopicConfigs`).
                let removed: Vec<String> = self
                    .topics
                    .iter()
                    .filter(|(_, id)| **id == rt.topic_id)
                    .map(|(name, _)| name.clone())
                    .collect();
                for name in removed {
                    self.configs.remove(&(resource_type::TOPIC, name.clone()));
                    self.topics.remove(&name);
                }
            }
            MetadataRecordBody::UnregisterBrokerRecord(ub) => {
                if self
                    .brokers
                    .get(&ub.broker_id)
                    .is_some_and(|b| b.epoch == ub.broker_epoch)
                {
                    self.brokers.remove(&ub.broker_id);
                }
            }
        }
    }

    pub(super) fn append(&mut self, now: Millis, version: i16, body: MetadataRecordBody) -> u64 {
        let offset = self.log.len() as u64;
        let record = MetadataRecord {
            offset,
            version,
            body: body.project(version),
        };
        self.apply(&record);
        self.events.push(LoggedEvent {
            at: now,
            event: Event::RecordAppended {
                offset,
                version,
                record: record.body.clone(),
            },
        });
        self.log.push(record);
        offset
    }

    fn log_event(&mut self, now: Millis, event: Event) {
        self.events.push(LoggedEvent { at: now, event });
    }

    /// The metadata log, oldest first.
    pub fn metadata_log(&self) -> &[MetadataRecord] {
        &self.log
    }

    /// Every decision so far.
    pub fn events(&self) -> &[LoggedEvent] {
        &self.events
    }

    /// The finalized metadata.version level.
    pub fn metadata_version(&self) -> i16 {
        self.features.get(METADATA_VERSION).copied().unwrap_or(0)
    }

    /// Finalized feature levels.
    pub fn features(&self) -> &BTreeMap<String, i16> {
        &self.features
    }

    /// Registered brokers.
    pub fn brokers(&self) -> &BTreeMap<i32, RegisteredBroker> {
        &self.brokers
    }

    /// The dynamic configs of a resource (empty map if none).
    pub fn resource_configs(&self, resource_type: i8, name: &str) -> BTreeMap<String, String> {
        self.configs
            .get(&(resource_type, name.to_string()))
            .cloned()
            .unwrap_or_default()
    }

    /// Every resource with dynamic configs.
    pub fn all_configs(&self) -> &BTreeMap<(i8, String), BTreeMap<String, String>> {
        &self.configs
    }

    /// The config definitions in use.
    pub fn defs(&self) -> &ServerConfigDefs {
        &self.defs
    }

    /// True if RegisterBrokerRecord v5 with StaticConfigs is written at the current level.
    pub fn persists_static_configs(&self) -> bool {
        let (level, enabling) = (
            self.metadata_version(),
            self.profile.static_config_persistence_level,
        );
        if self.faults.has(Fault::PersistsOnlyAboveEnablingVersion) {
            return level > enabling;
        }
        level >= enabling || self.faults.has(Fault::PersistsBelowEnablingVersion)
    }

    /// MV-validator violations of broker static configs at `level`, as messages.
    fn static_violations(
        &self,
        level: i16,
        configs: &BTreeMap<String, Option<String>>,
    ) -> Vec<String> {
        configs
            .iter()
            .filter_map(|(name, value)| {
                let key = self.defs.broker.get(name)?;
                let value = value.as_ref()?;
                ServerConfigDefs::check_mv_with(name, key, value, level, &self.faults)
                    .err()
                    .map(|e| e.to_string())
            })
            .collect()
    }

    /// BrokerRegistration (KIP-1326 + KIP-1294 registration audit).
    pub fn handle_broker_registration(
        &mut self,
        now: Millis,
        version: i16,
        req: &BrokerRegistrationRequest,
    ) -> BrokerRegistrationResponse {
        // Profile `reregistration: merge` starts from the list held for this broker.
        let mut statics = match self.profile.reregistration {
            Reregistration::Merge => self
                .brokers
                .get(&req.broker_id)
                .map(|b| b.static_configs.clone())
                .unwrap_or_default(),
            Reregistration::Replace => BTreeMap::new(),
        };
        if version >= self.profile.first_static_configs_version {
            for s in req.static_configs.iter().flatten() {
                let value = s.value.as_ref().map(|v| v.to_string());
                let default = self.defs.broker.get(s.name.as_str()).map(|k| &k.default);
                if self.faults.has(Fault::DropsDefaultStaticConfigs) && default == Some(&value) {
                    continue;
                }
                statics.insert(s.name.to_string(), value);
            }
        }
        let level = if self.faults.has(Fault::RegistrationAuditAtBrokerMax) {
            req.features
                .iter()
                .find(|f| f.name == METADATA_VERSION)
                .map_or(self.metadata_version(), |f| f.max_supported_version)
        } else {
            self.metadata_version()
        };
        let violations = if self.faults.has(Fault::NoRegistrationAudit) {
            Vec::new()
        } else {
            self.static_violations(level, &statics)
        };
        if !violations.is_empty() {
            let code = if self.faults.has(Fault::RegistrationWrongErrorCode) {
                ErrorCode::INVALID_CONFIG
            } else {
                self.profile.registration_rejection.code()
            };
            let message = format!(
                "Broker {} static configs violate metadata.version {level}: {}",
                req.broker_id,
                violations.join("; ")
            );
            self.log_event(
                now,
                Event::RegistrationRejected {
                    broker_id: req.broker_id,
                    error_code: code,
                    message,
                },
            );
            if self.faults.has(Fault::FencedRecordForRefusedRegistration) {
                self.append_registration(now, req, &statics);
            }
            return BrokerRegistrationResponse {
                error_code: code.0,
                broker_epoch: -1,
                ..Default::default()
            };
        }
        let (epoch, persisted) = self.append_registration(now, req, &statics);
        // The record carries only what was persisted; the in-memory copy keeps everything.
        if let Some(b) = self.brokers.get_mut(&req.broker_id) {
            b.static_configs = statics.clone();
            b.static_configs_persisted = persisted;
        }
        self.log_event(
            now,
            Event::BrokerRegistered {
                broker_id: req.broker_id,
                epoch,
                static_configs: statics.len(),
                persisted,
            },
        );
        BrokerRegistrationResponse {
            broker_epoch: epoch,
            ..Default::default()
        }
    }

    /// Appends the (fenced) RegisterBrokerRecord of `req` with `statics` (persisted only from
    /// the enabling level): its epoch, and whether StaticConfigs went into it.
    fn append_registration(
        &mut self,
        now: Millis,
        req: &BrokerRegistrationRequest,
        statics: &BTreeMap<String, Option<String>>,
    ) -> (i64, bool) {
        let persist = self.persists_static_configs();
        let record_version = if persist { 5 } else { 4 };
        let epoch = self.log.len() as i64;
        let mut record = RegisterBrokerRecord {
            broker_id: req.broker_id,
            incarnation_id: req.incarnation_id,
            broker_epoch: epoch,
            end_points: req
                .listeners
                .iter()
                .map(|l| BrokerEndpoint {
                    name: l.name.clone(),
                    host: l.host.clone(),
                    port: l.port,
                    security_protocol: l.security_protocol,
                    ..Default::default()
                })
                .collect(),
            features: req
                .features
                .iter()
                .map(|f| BrokerFeature {
                    name: f.name.clone(),
                    min_supported_version: f.min_supported_version,
                    max_supported_version: f.max_supported_version,
                    ..Default::default()
                })
                .collect(),
            rack: req.rack.clone(),
            fenced: true,
            static_configs: if persist && !statics.is_empty() {
                Some(
                    statics
                        .iter()
                        .map(|(n, v)| BrokerStaticConfig {
                            name: n.as_str().into(),
                            value: v.as_deref().map(Into::into),
                            ..Default::default()
                        })
                        .collect(),
                )
            } else {
                None
            },
            ..Default::default()
        };
        if self.faults.has(Fault::StaticConfigsWrongTag) {
            if let Some(configs) = record.static_configs.take() {
                let mut bytes = Vec::new();
                crate::codec::put_uvarint(&mut bytes, configs.len() as u32 + 1);
                for c in &configs {
                    // Encoding a decoded-or-built struct at its own version cannot fail.
                    let _ = c.encode_body(&mut bytes, record_version);
                }
                record.unknown_tagged_fields.0.insert(3, Bytes(bytes));
            }
        }
        let persisted = record.static_configs.is_some();
        self.append(
            now,
            record_version,
            MetadataRecordBody::RegisterBrokerRecord(record),
        );
        (epoch, persisted)
    }

    /// Checks one value against the definitions of its resource type at the current level.
    /// `legacy` is true for AlterConfigs (the API a faulty variant forgets MV checks in).
    pub(super) fn check_value(
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
        let replaced = self.faults.has(Fault::MvValidatorReplacesStatic)
            && key.mv_validators.floor(self.metadata_version()).is_some();
        if (legacy || !self.faults.has(Fault::IncrementalAlterSkipsStaticValidator)) && !replaced {
            ServerConfigDefs::check_static(name, key, value)
                .map_err(|e| (invalid_value, e.to_string()))?;
        }
        let skipped = if legacy {
            Fault::AlterConfigsSkipsMvValidators
        } else {
            Fault::IncrementalAlterSkipsMvValidators
        };
        if self.faults.has(skipped) {
            return Ok(());
        }
        ServerConfigDefs::check_mv_with(name, key, value, self.metadata_version(), &self.faults)
            .map_err(|e| (ErrorCode::INVALID_CONFIG, e.to_string()))
    }

    /// A TOPIC resource must name a topic that exists. Checked after the values, as Kafka's
    /// `ConfigurationControlManager.validateAlterConfig` calls its existence checker after the
    /// config validator: a resource that fails both is INVALID_CONFIG.
    fn check_exists(&self, rtype: i8, rname: &str) -> Result<(), (ErrorCode, String)> {
        let missing = !self.topics.contains_key(rname) && !self.faults.has(Fault::EveryTopicExists);
        if rtype == resource_type::TOPIC && missing {
            return Err(super::controller_topics::unknown_topic(rname));
        }
        Ok(())
    }

    /// The KIP-1256 structural checks of IncrementalAlterConfigs.
    fn structural_checks<'a>(
        &self,
        rtype: i8,
        rname: &str,
        names: impl Iterator<Item = &'a str>,
    ) -> Result<(), (ErrorCode, String)> {
        let wrong_code = self.faults.has(Fault::Kip1256WrongErrorCode);
        self.structural_checks_reference(rtype, rname, names)
            .map_err(|(code, msg)| match code {
                ErrorCode::INVALID_REQUEST if wrong_code => (ErrorCode::INVALID_CONFIG, msg),
                code => (code, msg),
            })
    }

    pub(super) fn structural_checks_reference<'a>(
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

    /// Writes the difference between the current and `new` configs of a resource.
    pub(super) fn write_configs(
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

    fn finish_resource(
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
                if !validate_only || self.faults.has(Fault::ValidateOnlyWrites) {
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
    fn legacy_outcome(&self, r: &legacy_req::AlterConfigsResource) -> ResourceOutcome {
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
    fn key_type(&self, rtype: i8, name: &str) -> Option<ConfigType> {
        self.defs.for_resource(rtype)?.get(name).map(|k| k.ty)
    }

    /// The current list value of a LIST key (dynamic value, else its default).
    fn current_list(
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
    fn incremental_outcome(&self, r: &inc_req::AlterConfigsResource) -> ResourceOutcome {
        let (rtype, rname) = (r.resource_type, r.resource_name.as_str());
        self.structural_checks(rtype, rname, r.configs.iter().map(|c| c.name.as_str()))?;
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
            let checked =
                if c.config_operation != op::SET && self.faults.has(Fault::ListOpValidatesDelta) {
                    &value
                } else {
                    &result
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

    /// Every config that violates the MV validators in force at `level`: broker static
    /// configs (in memory) and dynamic ConfigRecords, as messages naming the config.
    pub fn audit(&self, level: i16) -> Vec<String> {
        let mut out = Vec::new();
        let brokers = if self.faults.has(Fault::AuditSkipsStaticConfigs) {
            None
        } else {
            Some(&self.brokers)
        };
        for (id, b) in brokers.into_iter().flatten() {
            for v in self.static_violations(level, &b.static_configs) {
                out.push(format!("broker {id} static config: {v}"));
            }
        }
        for ((rtype, rname), configs) in &self.configs {
            let Some(defs) = self.defs.for_resource(*rtype) else {
                continue;
            };
            for (name, value) in configs {
                let Some(key) = defs.get(name) else { continue };
                if let Err(e) =
                    ServerConfigDefs::check_mv_with(name, key, value, level, &self.faults)
                {
                    out.push(format!("resource {rtype}:{rname} config: {e}"));
                }
            }
        }
        out
    }

    /// The KIP-1294 audit of a metadata.version change `from` → `to` (directions per profile):
    /// the rejection message if any config violates the target level.
    fn mv_audit(&mut self, now: Millis, from: i16, to: i16, validate_only: bool) -> Option<String> {
        let direction = if self.faults.has(Fault::AuditOnUpgradeOnly) {
            AuditDirection::UpgradeOnly
        } else {
            self.profile.audit_direction
        };
        let audited = match direction {
            AuditDirection::Both => to != from,
            AuditDirection::UpgradeOnly => to > from,
        };
        if !audited || (validate_only && self.faults.has(Fault::ValidateOnlySkipsAudit)) {
            return None;
        }
        let at = if self.faults.has(Fault::AuditAtCurrentLevel) {
            from
        } else {
            to
        };
        let violations = self.audit(at);
        self.log_event(
            now,
            Event::MetadataVersionAudit {
                from,
                to,
                violations: violations.clone(),
            },
        );
        (!violations.is_empty()).then(|| {
            format!(
                "Cannot change metadata.version from {from} to {to} because existing configs are invalid: {}",
                violations.join("; ")
            )
        })
    }

    /// UpdateFeatures. For metadata.version the KIP-1294 audit runs against the target level
    /// (directions per profile); a failure is a top-level INVALID_CONFIG naming the configs.
    /// ValidateOnly checks and audits without writing.
    pub fn handle_update_features(
        &mut self,
        now: Millis,
        version: i16,
        req: &UpdateFeaturesRequest,
    ) -> UpdateFeaturesResponse {
        let validate_only = req.validate_only.unwrap_or(false);
        let fail = |this: &mut Self, code: ErrorCode, message: String| {
            this.log_event(
                now,
                Event::FeatureUpdateRejected {
                    error_code: code,
                    message: message.clone(),
                },
            );
            if code == ErrorCode::INVALID_CONFIG && this.faults.has(Fault::AuditErrorPerFeature) {
                let result = UpdatableFeatureResult {
                    feature: METADATA_VERSION.into(),
                    error_code: code.0,
                    error_message: Some(message.into()),
                    ..Default::default()
                };
                return UpdateFeaturesResponse {
                    results: Some(vec![result]),
                    ..Default::default()
                }
                .project(version);
            }
            UpdateFeaturesResponse {
                error_code: code.0,
                error_message: Some(message.into()),
                results: Some(Vec::new()),
                ..Default::default()
            }
            .project(version)
        };
        if self.profile.update_features_precedence == UpdateFeaturesPrecedence::InvalidConfig {
            // The audit before the update's own validation.
            for u in &req.feature_updates {
                if u.feature == METADATA_VERSION && u.max_version_level >= 1 {
                    let current = self.features.get(METADATA_VERSION).copied().unwrap_or(0);
                    if let Some(message) =
                        self.mv_audit(now, current, u.max_version_level, validate_only)
                    {
                        return fail(self, ErrorCode::INVALID_CONFIG, message);
                    }
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for u in &req.feature_updates {
            if !seen.insert(u.feature.as_str()) {
                return fail(
                    self,
                    ErrorCode::INVALID_REQUEST,
                    format!("Duplicate feature {}", u.feature),
                );
            }
            let current = self.features.get(u.feature.as_str()).copied().unwrap_or(0);
            if u.max_version_level < current {
                let allowed = if version == 0 {
                    u.allow_downgrade.unwrap_or(false)
                } else {
                    matches!(u.upgrade_type, Some(2) | Some(3))
                };
                if !allowed {
                    return fail(
                        self,
                        ErrorCode::INVALID_UPDATE_VERSION,
                        format!(
                            "Invalid update version {} for feature {}: downgrade not allowed",
                            u.max_version_level, u.feature
                        ),
                    );
                }
            }
            if u.feature == METADATA_VERSION {
                if u.max_version_level < 1 {
                    return fail(
                        self,
                        ErrorCode::INVALID_UPDATE_VERSION,
                        format!("Invalid metadata.version {}", u.max_version_level),
                    );
                }
                let first = self.profile.update_features_precedence
                    == UpdateFeaturesPrecedence::InvalidConfig;
                if !first {
                    if let Some(message) =
                        self.mv_audit(now, current, u.max_version_level, validate_only)
                    {
                        return fail(self, ErrorCode::INVALID_CONFIG, message);
                    }
                }
            }
        }
        let updates = req
            .feature_updates
            .iter()
            .map(|u| (u.feature.to_string(), u.max_version_level))
            .collect();
        self.log_event(
            now,
            Event::FeatureUpdateAccepted {
                updates,
                validate_only,
            },
        );
        let mut results = Vec::new();
        for u in &req.feature_updates {
            let current = self.features.get(u.feature.as_str()).copied();
            if !validate_only && current != Some(u.max_version_level) {
                self.append(
                    now,
                    0,
                    MetadataRecordBody::FeatureLevelRecord(FeatureLevelRecord {
                        name: u.feature.clone(),
                        feature_level: u.max_version_level,
                        ..Default::default()
                    }),
                );
            }
            results.push(UpdatableFeatureResult {
                feature: u.feature.clone(),
                ..Default::default()
            });
        }
        UpdateFeaturesResponse {
            results: Some(results),
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
