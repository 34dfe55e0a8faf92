//! The KRaft controller side of KIP-1326, KIP-1294 and KIP-1256 as a model: broker
//! registration (StaticConfigs in memory; persisted in RegisterBrokerRecord v5 only from the
//! profile's metadata.version), the registration audit, AlterConfigs and
//! IncrementalAlterConfigs validation, and the metadata.version audit in UpdateFeatures. All
//! durable state is an ordered metadata log, and [`ControllerModel::replay`] rebuilds a
//! controller from it (failover). Typed requests in, typed responses out; no I/O.
//!
//! One file per concern: `log.rs` (construction, the metadata log, appending and applying a
//! record, replay and failover, read accessors), `registration.rs` (BrokerRegistration and
//! its audit), `alter_configs.rs` (AlterConfigs and IncrementalAlterConfigs), `features.rs`
//! (UpdateFeatures and the metadata.version audit), `topics.rs` (topic existence) and
//! `envelope.rs` (the model's request dispatch, and Envelope: a forwarded request handled as a
//! direct one). This file holds the state and the types they share. Kafka APIs the KIPs leave
//! alone (CreateTopics, DeleteTopics, DescribeCluster, UnregisterBroker) and the read-back
//! answers (ApiVersions, DescribeConfigs) are not answered here: the harness emulates them over
//! this model's state (`kipcheck::emulate::controller`).

use std::collections::BTreeMap;

use crate::decisions::ControllerDecisions;
use crate::events::LoggedEvent;
use crate::profile::SpecProfile;
use crate::server_config::ServerConfigDefs;
use kipcheck_codec::{MetadataRecordBody, Uuid};
use std::sync::Arc;

mod alter_configs;
pub mod envelope;
mod features;
mod log;
mod registration;
mod topics;

pub use topics::unknown_topic;

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

/// The controller model.
#[derive(Clone, Debug)]
pub struct ControllerModel {
    pub(super) profile: SpecProfile,
    pub(super) defs: ServerConfigDefs,
    pub(super) features: BTreeMap<String, i16>,
    pub(super) brokers: BTreeMap<i32, RegisteredBroker>,
    pub(crate) configs: BTreeMap<(i8, String), BTreeMap<String, String>>,
    /// Topics that exist (a `TopicRecord` named them): name → topic id.
    pub(super) topics: BTreeMap<String, Uuid>,
    pub(super) log: Vec<MetadataRecord>,
    pub(super) events: Vec<LoggedEvent>,
    /// This controller's `node.id` (in combined mode also a broker's).
    pub(super) node_id: i32,
    pub(super) decisions: Arc<dyn ControllerDecisions>,
}

/// The node id a controller model has unless told otherwise.
pub const DEFAULT_CONTROLLER_NODE_ID: i32 = 1;
