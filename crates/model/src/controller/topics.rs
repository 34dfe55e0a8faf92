//! Topic existence on the controller model, as Kafka's KRaft controller keeps it
//! (`ReplicationControlManager`, `ConfigurationControlManager`'s existence check in Apache
//! Kafka 4.x): a topic exists once a `TopicRecord` names it and until a `RemoveTopicRecord`
//! removes it (applied in `log.rs`, so a failover keeps it). Alters and describes of a TOPIC
//! resource that does not exist are answered UNKNOWN_TOPIC_OR_PARTITION per resource (see
//! `alter_configs.rs`, and the harness's DescribeConfigs).
//!
//! Creating and deleting topics (CreateTopics, DeleteTopics, a scenario's setup topics) is
//! Kafka behaviour the KIPs leave alone: the harness's emulated controller
//! (`kipcheck::emulate::controller`) does it, writing the records through
//! [`ControllerModel::append_record`]. This file must not answer those APIs.

use super::ControllerModel;
use kipcheck_codec::{ErrorCode, Uuid};

/// The message Kafka's controller gives for an alter or describe of a missing topic.
pub fn unknown_topic(name: &str) -> (ErrorCode, String) {
    (
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
        format!("The topic '{name}' does not exist."),
    )
}

impl ControllerModel {
    /// True if a topic named `name` exists.
    pub fn topic_exists(&self, name: &str) -> bool {
        self.topics.contains_key(name)
    }

    /// Every topic: name → topic id.
    pub fn topics(&self) -> &std::collections::BTreeMap<String, Uuid> {
        &self.topics
    }
}
