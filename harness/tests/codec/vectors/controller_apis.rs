//! Read-back APIs of a KRaft controller (Apache Kafka 4.4.0 definitions), bytes written by hand
//! from the JSON definitions.

use super::*;

#[test]
fn describe_configs_v4_request_and_response() {
    let req = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: 4,
            resource_name: "1".into(),
            configuration_keys: Some(vec!["log.segment.bytes".into()]),
            unknown_tagged_fields: TaggedFields::default(),
        }],
        include_synonyms: false,
        include_documentation: Some(false),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &req,
        4,
        "02 04 02 31 02 12 6c6f672e7365676d656e742e6279746573 00 | 00 00 00",
    );
    let resp = DescribeConfigsResponse {
        throttle_time_ms: 0,
        results: vec![DescribeConfigsResult {
            error_code: 0,
            error_message: None,
            resource_type: 4,
            resource_name: "1".into(),
            configs: vec![DescribeConfigsResourceResult {
                name: "log.segment.bytes".into(),
                value: Some("2097152".into()),
                read_only: false,
                config_source: 2,
                is_sensitive: false,
                synonyms: Vec::new(),
                config_type: Some(3),
                documentation: Some(None),
                unknown_tagged_fields: TaggedFields::default(),
            }],
            unknown_tagged_fields: TaggedFields::default(),
        }],
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &resp,
        4,
        "00000000 02 0000 00 04 02 31 02 \
         12 6c6f672e7365676d656e742e6279746573 08 32303937313532 00 02 00 01 03 00 00 \
         00 00",
    );
    // v1-v3 are not flexible: v1 has neither ConfigType nor Documentation.
    let mut v1 = resp.clone();
    v1.results[0].configs[0].config_type = None;
    v1.results[0].configs[0].documentation = None;
    both_ways(
        &v1,
        1,
        "00000000 00000001 0000 ffff 04 0001 31 00000001 \
         0011 6c6f672e7365676d656e742e6279746573 0007 32303937313532 00 02 00 00000000",
    );
}

#[test]
fn describe_cluster_v1_request_and_response() {
    let req = DescribeClusterRequest {
        include_cluster_authorized_operations: false,
        endpoint_type: Some(2),
        include_fenced_brokers: None,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&req, 1, "00 02 00");
    let resp = DescribeClusterResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: None,
        endpoint_type: Some(2),
        cluster_id: "kipcheck-cluster".into(),
        controller_id: 1,
        brokers: vec![DescribeClusterBroker {
            broker_id: 1,
            host: "localhost".into(),
            port: 9093,
            rack: None,
            is_fenced: None,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        cluster_authorized_operations: i32::MIN,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(
        &resp,
        1,
        "00000000 0000 00 02 11 6b6970636865636b2d636c7573746572 00000001 \
         02 00000001 0a 6c6f63616c686f7374 00002385 00 00 | 80000000 00",
    );
}

#[test]
fn unregister_broker_v0_request_and_response() {
    let req = UnregisterBrokerRequest {
        broker_id: 1,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&req, 0, "00000001 00");
    let resp = UnregisterBrokerResponse {
        throttle_time_ms: 0,
        error_code: ErrorCode::BROKER_ID_NOT_REGISTERED.0,
        error_message: None,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&resp, 0, "00000000 0066 00 00");
}

#[test]
fn unregister_broker_record_v0() {
    let rec = UnregisterBrokerRecord {
        broker_id: 1,
        broker_epoch: 7,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&rec, 0, "00000001 0000000000000007 00");
    let m = MetadataRecord {
        version: 0,
        body: MetadataRecordBody::UnregisterBrokerRecord(rec),
    };
    let framed = hex("01 01 00 00000001 0000000000000007 00");
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(m.clone()));
    assert_eq!(m.to_bytes(), Ok(framed));
}
