//! Topic lifecycle (Apache Kafka 4.4.0 definitions): what `tcp://` controller sessions send to
//! prepare a scenario's topics, and the record a KRaft controller writes for a new topic.

use super::*;

const TOPIC_ID: Uuid = Uuid([
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
]);
const TOPIC_ID_HEX: &str = "0102030405060708090a0b0c0d0e0f10";

#[test]
fn create_topics_v7_request_and_response() {
    let req = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "orders".into(),
            num_partitions: 1,
            replication_factor: -1,
            assignments: vec![],
            configs: vec![],
            unknown_tagged_fields: TaggedFields::default(),
        }],
        timeout_ms: 30000,
        validate_only: false,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &req,
        7,
        "02 07 6f7264657273 00000001 ffff 01 01 00 | 00007530 00 00",
    );
    let resp = CreateTopicsResponse {
        throttle_time_ms: 0,
        topics: vec![CreatableTopicResult {
            name: "orders".into(),
            topic_id: Some(TOPIC_ID),
            error_code: ErrorCode::TOPIC_ALREADY_EXISTS.0,
            error_message: Some("Topic 'orders' already exists.".into()),
            topic_config_error_code: Some(0),
            num_partitions: Some(-1),
            replication_factor: Some(-1),
            configs: Some(None),
            unknown_tagged_fields: TaggedFields::default(),
        }],
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &resp,
        7,
        &format!(
            "00000000 02 07 6f7264657273 {TOPIC_ID_HEX} 0024 \
             1f 546f70696320276f72646572732720616c7265616479206578697374732e \
             ffffffff ffff 00 00 | 00"
        ),
    );
}

#[test]
fn delete_topics_by_name_v1_and_v6() {
    // v0-5 name the topics in TopicNames; v6 in Topics (name or id).
    let v1 = DeleteTopicsRequest {
        topics: None,
        topic_names: Some(vec!["orders".into()]),
        timeout_ms: 30000,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&v1, 1, "00000001 0006 6f7264657273 00007530");
    let v6 = DeleteTopicsRequest {
        topics: Some(vec![DeleteTopicState {
            name: Some("orders".into()),
            topic_id: Uuid::ZERO,
            unknown_tagged_fields: TaggedFields::default(),
        }]),
        topic_names: None,
        timeout_ms: 30000,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &v6,
        6,
        "02 07 6f7264657273 00000000000000000000000000000000 00 | 00007530 00",
    );
    let resp = DeleteTopicsResponse {
        throttle_time_ms: 0,
        responses: vec![DeletableTopicResult {
            name: Some("orders".into()),
            topic_id: Some(Uuid::ZERO),
            error_code: ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
            error_message: Some(None),
            unknown_tagged_fields: TaggedFields::default(),
        }],
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &resp,
        6,
        "00000000 02 07 6f7264657273 00000000000000000000000000000000 0003 00 00 | 00",
    );
}

#[test]
fn topic_records_v0() {
    let rec = TopicRecord {
        name: "orders".into(),
        topic_id: TOPIC_ID,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&rec, 0, &format!("07 6f7264657273 {TOPIC_ID_HEX} 00"));
    let m = MetadataRecord {
        version: 0,
        body: MetadataRecordBody::TopicRecord(rec),
    };
    let framed = hex(&format!("01 02 00 07 6f7264657273 {TOPIC_ID_HEX} 00"));
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(m.clone()));
    assert_eq!(m.to_bytes(), Ok(framed));
    let remove = MetadataRecord {
        version: 0,
        body: MetadataRecordBody::RemoveTopicRecord(RemoveTopicRecord {
            topic_id: TOPIC_ID,
            unknown_tagged_fields: TaggedFields::default(),
        }),
    };
    let framed = hex(&format!("01 09 00 {TOPIC_ID_HEX} 00"));
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(remove.clone()));
    assert_eq!(remove.to_bytes(), Ok(framed));
}
