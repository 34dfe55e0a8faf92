//! The controller's state and its metadata log: construction, appending a record (and
//! applying it), replay and failover, and the read accessors.

use std::collections::BTreeMap;

use super::{
    ControllerModel, MetadataRecord, RegisteredBroker, ReplayError, DEFAULT_CONTROLLER_NODE_ID,
    METADATA_VERSION,
};
use crate::decisions::ControllerDecisions;
use crate::events::{Event, LoggedEvent};
use crate::profile::SpecProfile;
use crate::server_config::{resource_type, ServerConfigDefs};
use crate::time::Millis;
use kipcheck_codec::{FeatureLevelRecord, MetadataRecordBody};
use std::sync::Arc;

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

    pub(super) fn empty(profile: &SpecProfile, defs: ServerConfigDefs) -> Self {
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
            decisions: crate::decisions::reference_controller(),
        }
    }

    /// The same controller taking `decisions` (a faulty variant's; the reference's by default).
    /// A controller rebuilt by [`ControllerModel::failover`] keeps them.
    pub fn with_decisions(mut self, decisions: Arc<dyn ControllerDecisions>) -> Self {
        self.decisions = decisions;
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
        Self::replay_with(
            profile,
            defs,
            records,
            crate::decisions::reference_controller(),
        )
    }

    /// [`replay`](Self::replay) by a controller taking `decisions` (replaying applies each
    /// record as they decide).
    pub fn replay_with(
        profile: &SpecProfile,
        defs: ServerConfigDefs,
        records: &[MetadataRecord],
        decisions: Arc<dyn ControllerDecisions>,
    ) -> Result<Self, ReplayError> {
        let mut c = Self::empty(profile, defs).with_decisions(decisions);
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
    /// same profile, definitions, decisions and node id.
    pub fn failover(&self) -> Result<Self, ReplayError> {
        Ok(Self::replay_with(
            &self.profile,
            self.defs.clone(),
            &self.log,
            self.decisions.clone(),
        )?
        .with_node_id(self.node_id))
    }

    /// Applies one record to the in-memory state.
    pub(super) fn apply(&mut self, r: &MetadataRecord) {
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
                let applied = self.decisions.applies_record_static_configs();
                let statics: BTreeMap<String, Option<String>> = rb
                    .static_configs
                    .iter()
                    .flatten()
                    .filter(|_| applied)
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

    pub(crate) fn append(&mut self, now: Millis, version: i16, body: MetadataRecordBody) -> u64 {
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

    /// Appends one metadata record (at version 0) and applies it, as a controller does when
    /// it commits one: for records the model's own APIs do not write (the harness's emulated
    /// controller creates and deletes topics, unregisters brokers). The record's offset.
    pub fn append_record(&mut self, now: Millis, body: MetadataRecordBody) -> u64 {
        self.append(now, 0, body)
    }

    pub(super) fn log_event(&mut self, now: Millis, event: Event) {
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

    /// Every finalized feature level by feature name (`metadata.version` among them), as the
    /// FeatureLevelRecords in the log set them.
    pub fn finalized_features(&self) -> &BTreeMap<String, i16> {
        &self.features
    }

    /// The config definitions this controller validates and describes.
    pub fn definitions(&self) -> &ServerConfigDefs {
        &self.defs
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

    /// True if RegisterBrokerRecord v5 with StaticConfigs is written at the current level.
    pub fn persists_static_configs(&self) -> bool {
        let (level, enabling) = (
            self.metadata_version(),
            self.profile.static_config_persistence_level,
        );
        self.decisions.persists_static_configs(level, enabling)
    }
}
