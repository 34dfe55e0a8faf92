//! CreateTopics and DeleteTopics as Kafka's KRaft controller answers them
//! (`ReplicationControlManager` in Apache Kafka 4.x), and a scenario's setup topics
//! ([`with_topics`]), over a [`ControllerModel`]'s state: Kafka behaviour the KIPs leave alone,
//! kept so scenarios can set a target up. A topic is a `TopicRecord` (a `RemoveTopicRecord`
//! deletes it and its configs) written through [`ControllerModel::append_record`]; whether a
//! topic exists, and what that means for AlterConfigs and DescribeConfigs, is the model's.
//!
//! Answered through the emulated controller's one dispatch ([`super::handle_request`]); this
//! file must not judge anything a KIP says. Not modelled: partitions (no `PartitionRecord`:
//! nothing in the suite reads them), manual assignments, name collisions between `.` and `_`.

use std::collections::BTreeMap;

use crate::codec::create_topics_request::CreatableTopic;
use crate::codec::create_topics_response::{CreatableTopicConfigs, CreatableTopicResult};
use crate::codec::delete_topics_response::DeletableTopicResult;
use crate::codec::{
    CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest, DeleteTopicsResponse,
    ErrorCode, Message, MetadataRecordBody, RemoveTopicRecord, TopicRecord, Uuid,
};
use crate::model::server_config::resource_type;
use crate::model::{ControllerModel, Millis};

/// `num.partitions` and `default.replication.factor` defaults (Kafka's `ServerLogConfigs` /
/// `ReplicationConfigs`): what -1 in CreateTopics resolves to.
pub const DEFAULT_PARTITIONS: i32 = 1;
/// See [`DEFAULT_PARTITIONS`].
pub const DEFAULT_REPLICATION_FACTOR: i16 = 1;

/// The longest legal topic name (Kafka's `Topic.MAX_NAME_LENGTH`).
const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// Kafka's `Topic.validate`: the name is legal or INVALID_TOPIC_EXCEPTION says why.
fn validate_name(name: &str) -> Result<(), (ErrorCode, String)> {
    let bad = |m: String| Err((ErrorCode::INVALID_TOPIC_EXCEPTION, m));
    if name.is_empty() {
        return bad("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return bad("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > MAX_TOPIC_NAME_LENGTH {
        return bad(format!(
            "Topic name is illegal, it can't be longer than {MAX_TOPIC_NAME_LENGTH} characters, \
             topic name: {name}"
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
    {
        return bad(format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII \
             alphanumerics, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// What one CreatableTopic resolves to when it can be created.
struct NewTopic {
    partitions: i32,
    replication_factor: i16,
    configs: Vec<(String, String)>,
}

/// `model` with `names` created at bootstrap (one `TopicRecord` each, in order, skipping names
/// that already exist): the topics a scenario's setup declares.
pub fn with_topics(mut model: ControllerModel, now: Millis, names: &[String]) -> ControllerModel {
    for name in names {
        if !model.topic_exists(name) {
            write_topic(&mut model, now, name);
        }
    }
    model
}

/// The id the next topic gets: deterministic (no RNG), unique in this log, never
/// `Uuid::ZERO`: "kipcheck" followed by the record's offset.
fn next_topic_id(model: &ControllerModel) -> Uuid {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(b"kipcheck");
    bytes[8..].copy_from_slice(&(model.metadata_log().len() as u64).to_be_bytes());
    Uuid(bytes)
}

fn write_topic(model: &mut ControllerModel, now: Millis, name: &str) -> Uuid {
    let topic_id = next_topic_id(model);
    model.append_record(
        now,
        MetadataRecordBody::TopicRecord(TopicRecord {
            name: name.into(),
            topic_id,
            ..Default::default()
        }),
    );
    topic_id
}

/// Kafka's `ReplicationControlManager.createTopic` checks, in its order.
fn check_new_topic(
    model: &ControllerModel,
    t: &CreatableTopic,
) -> Result<NewTopic, (ErrorCode, String)> {
    validate_name(&t.name)?;
    if model.topic_exists(&t.name) {
        return Err((
            ErrorCode::TOPIC_ALREADY_EXISTS,
            format!("Topic '{}' already exists.", t.name),
        ));
    }
    if !t.assignments.is_empty() {
        return Err((
            ErrorCode::INVALID_REQUEST,
            "Manual partition assignments are not supported by this controller".into(),
        ));
    }
    if t.num_partitions < -1 || t.num_partitions == 0 {
        return Err((
            ErrorCode::INVALID_PARTITIONS,
            "Number of partitions was set to an invalid non-positive value.".into(),
        ));
    }
    if t.replication_factor < -1 || t.replication_factor == 0 {
        return Err((
            ErrorCode::INVALID_REPLICATION_FACTOR,
            "Replication factor must be larger than 0, or -1 to use the default value.".into(),
        ));
    }
    let replication_factor = if t.replication_factor == -1 {
        DEFAULT_REPLICATION_FACTOR
    } else {
        t.replication_factor
    };
    // The model has no heartbeats: a registered broker counts as usable.
    let brokers = model.brokers().len();
    if replication_factor as usize > brokers {
        return Err((
            ErrorCode::INVALID_REPLICATION_FACTOR,
            format!(
                "Unable to replicate the partition {replication_factor} time(s): The target \
                 replication factor of {replication_factor} cannot be reached because only \
                 {brokers} broker(s) are registered."
            ),
        ));
    }
    let mut configs = Vec::new();
    for c in &t.configs {
        let Some(value) = &c.value else {
            return Err((
                ErrorCode::INVALID_CONFIG,
                format!("Null value not supported for topic configs: {}", c.name),
            ));
        };
        // As legacy AlterConfigs: Kafka's CreateTopics answers a bad config with
        // INVALID_CONFIG, whatever the IncrementalAlterConfigs reading.
        model.check_value(resource_type::TOPIC, &c.name, value, true)?;
        configs.push((c.name.to_string(), value.to_string()));
    }
    Ok(NewTopic {
        partitions: if t.num_partitions == -1 {
            DEFAULT_PARTITIONS
        } else {
            t.num_partitions
        },
        replication_factor,
        configs,
    })
}

/// CreateTopics, per topic in request order: an illegal name (INVALID_TOPIC_EXCEPTION),
/// an existing name (TOPIC_ALREADY_EXISTS), a partition count or replication factor that
/// is neither positive nor -1 (INVALID_PARTITIONS / INVALID_REPLICATION_FACTOR), more
/// replicas than registered brokers (INVALID_REPLICATION_FACTOR) or a topic config that
/// fails validation (INVALID_CONFIG) is refused with a message; otherwise a `TopicRecord`
/// and one `ConfigRecord` per config are written (nothing when `validateOnly`) and v5+
/// report the partitions, replication factor and the topic's effective configs.
pub fn create_topics(
    model: &mut ControllerModel,
    now: Millis,
    version: i16,
    req: &CreateTopicsRequest,
) -> CreateTopicsResponse {
    let mut topics = Vec::new();
    for t in &req.topics {
        let result = match check_new_topic(model, t) {
            Err((code, message)) => CreatableTopicResult {
                name: t.name.clone(),
                topic_id: Some(Uuid::ZERO),
                error_code: code.0,
                error_message: Some(message.into()),
                ..Default::default()
            },
            Ok(new) => {
                let topic_id = if req.validate_only {
                    Uuid::ZERO
                } else {
                    let id = write_topic(model, now, &t.name);
                    let configs = new.configs.iter().cloned().collect();
                    model.write_configs(now, resource_type::TOPIC, &t.name, configs);
                    id
                };
                let dynamic: BTreeMap<String, String> = new.configs.iter().cloned().collect();
                let configs = super::describe_topic_configs(model, &dynamic)
                    .into_iter()
                    .map(|e| CreatableTopicConfigs {
                        value: e.value,
                        is_sensitive: e.is_sensitive,
                        name: e.name,
                        read_only: false,
                        config_source: e.config_source,
                        ..Default::default()
                    })
                    .collect();
                CreatableTopicResult {
                    name: t.name.clone(),
                    topic_id: Some(topic_id),
                    error_code: 0,
                    error_message: None,
                    num_partitions: Some(new.partitions),
                    replication_factor: Some(new.replication_factor),
                    configs: Some(Some(configs)),
                    ..Default::default()
                }
            }
        };
        topics.push(result);
    }
    CreateTopicsResponse {
        topics,
        ..Default::default()
    }
    .project(version)
}

/// DeleteTopics, per topic in request order (names before v6, names or ids from v6): an
/// existing topic gets a `RemoveTopicRecord`; an unknown name is
/// UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID.
pub fn delete_topics(
    model: &mut ControllerModel,
    now: Millis,
    version: i16,
    req: &DeleteTopicsRequest,
) -> DeleteTopicsResponse {
    let named = req
        .topic_names
        .iter()
        .flatten()
        .map(|n| (Some(n.to_string()), Uuid::ZERO));
    let states = req
        .topics
        .iter()
        .flatten()
        .map(|t| (t.name.as_ref().map(|n| n.to_string()), t.topic_id));
    let mut responses = Vec::new();
    for (name, id) in named.chain(states) {
        let found = match &name {
            Some(n) => model.topics().get(n).map(|i| (n.clone(), *i)),
            None => model
                .topics()
                .iter()
                .find(|(_, i)| **i == id)
                .map(|(n, i)| (n.clone(), *i)),
        };
        let result = match found {
            Some((n, topic_id)) => {
                model.append_record(
                    now,
                    MetadataRecordBody::RemoveTopicRecord(RemoveTopicRecord {
                        topic_id,
                        ..Default::default()
                    }),
                );
                DeletableTopicResult {
                    name: Some(n.into()),
                    topic_id: Some(topic_id),
                    ..Default::default()
                }
            }
            None => {
                let (code, message) = match &name {
                    Some(n) => (
                        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                        format!("The topic '{n}' does not exist."),
                    ),
                    None => (
                        ErrorCode::UNKNOWN_TOPIC_ID,
                        format!("Unknown topic id {id:?}"),
                    ),
                };
                DeletableTopicResult {
                    name: name.map(Into::into),
                    topic_id: Some(id),
                    error_code: code.0,
                    error_message: Some(Some(message.into())),
                    ..Default::default()
                }
            }
        };
        responses.push(result);
    }
    DeleteTopicsResponse {
        responses,
        ..Default::default()
    }
    .project(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_follow_kafka_topic_validate() {
        assert_eq!(validate_name("orders"), Ok(()));
        assert_eq!(validate_name("a.b_c-1"), Ok(()));
        for bad in ["", ".", "..", "a b", "ä", &"x".repeat(250)] {
            assert_eq!(
                validate_name(bad).map_err(|e| e.0),
                Err(ErrorCode::INVALID_TOPIC_EXCEPTION),
                "{bad:?}"
            );
        }
        assert_eq!(validate_name(&"x".repeat(249)), Ok(()));
    }

    #[test]
    fn delete_topics_removes_an_existing_topic_and_names_unknown_ones() {
        use crate::codec::delete_topics_request::DeleteTopicState;
        use crate::model::{ServerConfigDefs, SpecProfile};
        let model = ControllerModel::new(
            &SpecProfile::default(),
            ServerConfigDefs::default(),
            20,
            Millis::ZERO,
        );
        let mut c = with_topics(model, Millis::ZERO, &["orders".to_string()]);
        let id = c.topics()["orders"];
        let req = DeleteTopicsRequest {
            topics: Some(vec![
                DeleteTopicState {
                    name: Some("orders".into()),
                    ..Default::default()
                },
                DeleteTopicState {
                    name: Some("nope".into()),
                    ..Default::default()
                },
                DeleteTopicState {
                    name: None,
                    topic_id: Uuid([9; 16]),
                    ..Default::default()
                },
            ]),
            ..Default::default()
        };
        let r = delete_topics(&mut c, Millis(1), 6, &req);
        let codes: Vec<i16> = r.responses.iter().map(|t| t.error_code).collect();
        assert_eq!(
            codes,
            [
                0,
                ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                ErrorCode::UNKNOWN_TOPIC_ID.0
            ]
        );
        assert_eq!(r.responses[0].topic_id, Some(id));
        assert!(!c.topic_exists("orders"));
        let last = &c.metadata_log().last().unwrap().body;
        assert_eq!(
            last,
            &MetadataRecordBody::RemoveTopicRecord(RemoveTopicRecord {
                topic_id: id,
                ..Default::default()
            })
        );
    }
}
