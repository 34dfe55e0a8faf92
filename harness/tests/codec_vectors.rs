//! Known-answer vectors: frames captured from real clients, the byte examples of the spec
//! notes (`kip-notes.md` §1.5, §4.4), a KIP-1326 metadata record built by hand from its
//! JSON definition, and the provisional PushConfig API key override. Every vector is
//! checked both ways: the bytes decode to exactly the expected value, and encoding that
//! value gives exactly the bytes.

use kipcheck::codec::generated::api_versions_response::ApiVersion;
use kipcheck::codec::generated::create_topics_request::CreatableTopic;
use kipcheck::codec::generated::create_topics_response::CreatableTopicResult;
use kipcheck::codec::generated::delete_topics_request::DeleteTopicState;
use kipcheck::codec::generated::delete_topics_response::DeletableTopicResult;
use kipcheck::codec::generated::describe_cluster_response::DescribeClusterBroker;
use kipcheck::codec::generated::describe_configs_request::DescribeConfigsResource;
use kipcheck::codec::generated::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResult,
};
use kipcheck::codec::generated::push_config_request::Config;
use kipcheck::codec::generated::register_broker_record::{
    BrokerEndpoint, BrokerFeature, BrokerStaticConfig,
};
use kipcheck::codec::limits::DEFAULT_MAX_FRAME_SIZE;
use kipcheck::codec::{
    decode_request_frame, decode_response, decode_response_frame, encode_request_frame,
    encode_response_frame, from_hex, ApiKey, ApiVersionsRequest, ApiVersionsResponse, Bytes,
    CreateTopicsRequest, CreateTopicsResponse, DecodeErrorKind, DecodedRequest,
    DeleteTopicsRequest, DeleteTopicsResponse, DescribeClusterRequest, DescribeClusterResponse,
    DescribeConfigsRequest, DescribeConfigsResponse, EncodeError, EnvelopeRequest,
    EnvelopeResponse, ErrorCode, Message, MetadataRecord, MetadataRecordBody, ProvisionalNumbers,
    PushConfigRequest, PushConfigResponse, RegisterBrokerRecord, RemoveTopicRecord, RequestBody,
    RequestHeader, ResponseBody, ResponseHeader, SaslAuthenticateRequest, SaslAuthenticateResponse,
    SaslHandshakeRequest, SaslHandshakeResponse, TaggedFields, TopicRecord, UnregisterBrokerRecord,
    UnregisterBrokerRequest, UnregisterBrokerResponse, Uuid,
};

fn hex(s: &str) -> Vec<u8> {
    from_hex(s).expect("test hex")
}

fn decode(frame: &[u8]) -> DecodedRequest {
    decode_request_frame(
        frame,
        DEFAULT_MAX_FRAME_SIZE,
        &ProvisionalNumbers::default(),
    )
    .unwrap_or_else(|e| panic!("decode failed: {e}"))
}

fn header(key: i16, version: i16, correlation_id: i32, client_id: &str) -> RequestHeader {
    RequestHeader {
        request_api_key: key,
        request_api_version: version,
        correlation_id,
        client_id: Some(client_id.into()),
        unknown_tagged_fields: TaggedFields::default(),
    }
}

fn api_versions_request(name: &str, version: &str) -> RequestBody {
    RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: Some(name.into()),
        client_software_version: Some(version.into()),
        cluster_id: None,
        node_id: None,
        unknown_tagged_fields: TaggedFields::default(),
    })
}

// ---------------------------------------------------------------------------------------
// Real clients.
// ---------------------------------------------------------------------------------------

const KAFKA_PYTHON: &str = "00000032001200040000000100126b61666b612d707974686f6e2d70726f6265\
                            000d6b61666b612d707974686f6e07332e302e313200";

const LIBRDKAFKA: &str = "000000460012000300000001000d72646b61666b612d70726f62650017636f6e\
                          666c75656e742d6b61666b612d707974686f6e16322e31362e312d72646b61666b\
                          612d322e31362e3000";

#[test]
fn kafka_python_3_0_12_api_versions_v4() {
    let frame = hex(KAFKA_PYTHON);
    let d = decode(&frame);
    let expected = DecodedRequest {
        header_version: 2,
        header: header(18, 4, 1, "kafka-python-probe"),
        api_key: ApiKey::API_VERSIONS,
        body: api_versions_request("kafka-python", "3.0.12"),
    };
    assert_eq!(d, expected);
    assert_eq!(d.header.request_api_key, 18);
    assert_eq!(d.header.request_api_version, 4);
    assert_eq!(d.header.correlation_id, 1);
    assert_eq!(d.header.client_id.as_deref(), Some("kafka-python-probe"));
    let RequestBody::ApiVersions(b) = &d.body else {
        panic!("not ApiVersions: {:?}", d.body)
    };
    assert_eq!(b.client_software_name.as_deref(), Some("kafka-python"));
    assert_eq!(b.client_software_version.as_deref(), Some("3.0.12"));
    assert!(b.unknown_tagged_fields.is_empty());
    let again = encode_request_frame(&d.header, &d.body, &ProvisionalNumbers::default());
    assert_eq!(again, Ok(frame));
}

/// franz-go v1.22.3's ApiVersions v5 on its second connection to a broker whose Metadata said
/// cluster `kipcheck-cluster`, node 1 (recorded by `kipcheck serve --record`).
const FRANZ_GO_V5: &str = "0000003e001200050000000000116b6970636865636b2d6672616e7a2d676f0004\
                           6b676f0876312e32322e33116b6970636865636b2d636c75737465720000000100";

#[test]
fn franz_go_1_22_3_api_versions_v5_names_cluster_and_node() {
    let frame = hex(FRANZ_GO_V5);
    let d = decode(&frame);
    let expected = DecodedRequest {
        header_version: 2,
        header: header(18, 5, 0, "kipcheck-franz-go"),
        api_key: ApiKey::API_VERSIONS,
        body: RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: Some("kgo".into()),
            client_software_version: Some("v1.22.3".into()),
            cluster_id: Some(Some("kipcheck-cluster".into())),
            node_id: Some(1),
            unknown_tagged_fields: TaggedFields::default(),
        }),
    };
    assert_eq!(d, expected);
    let again = encode_request_frame(&d.header, &d.body, &ProvisionalNumbers::default());
    assert_eq!(again, Ok(frame));
}

#[test]
fn librdkafka_2_16_0_api_versions_v3() {
    let frame = hex(LIBRDKAFKA);
    let d = decode(&frame);
    let expected = DecodedRequest {
        header_version: 2,
        header: header(18, 3, 1, "rdkafka-probe"),
        api_key: ApiKey::API_VERSIONS,
        body: api_versions_request("confluent-kafka-python", "2.16.1-rdkafka-2.16.0"),
    };
    assert_eq!(d, expected);
    let again = encode_request_frame(&d.header, &d.body, &ProvisionalNumbers::default());
    assert_eq!(again, Ok(frame));
}

// ---------------------------------------------------------------------------------------
// kip-notes.md §1.5: PushConfig.
// ---------------------------------------------------------------------------------------

const PUSH_CONFIG_REQUEST: &str =
    "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00";
const PUSH_CONFIG_RESPONSE: &str = "0000000d 00000001 00 00000000 0000 00 00";

fn push_config_body() -> PushConfigRequest {
    PushConfigRequest {
        configs: vec![Config {
            config_key: "client.id".into(),
            config_value: "c".into(),
            config_type: 1,
            is_default: false,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        unknown_tagged_fields: TaggedFields::default(),
    }
}

#[test]
fn push_config_request_example() {
    let frame = hex(PUSH_CONFIG_REQUEST);
    let d = decode(&frame);
    assert_eq!(
        d,
        DecodedRequest {
            header_version: 2,
            header: header(95, 0, 1, "c"),
            api_key: ApiKey::PUSH_CONFIG,
            body: RequestBody::PushConfig(push_config_body()),
        }
    );
    let body = push_config_body();
    // Body 17 bytes, of which the Configs array is 16 (everything but the final tag count).
    assert_eq!(body.to_bytes(0).unwrap().len(), 17);
    assert_eq!(body.encoded_len(0), Ok(17));
    assert_eq!(&frame[frame.len() - 17..], &body.to_bytes(0).unwrap()[..]);
    assert_eq!(
        encode_request_frame(
            &header(95, 0, 1, "c"),
            &RequestBody::PushConfig(body),
            &ProvisionalNumbers::default()
        ),
        Ok(frame)
    );
}

#[test]
fn push_config_response_example() {
    let frame = hex(PUSH_CONFIG_RESPONSE);
    let d = decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, ApiKey::PUSH_CONFIG, 0)
        .expect("decodes");
    let body = PushConfigResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: None,
        unknown_tagged_fields: TaggedFields::default(),
    };
    let hdr = ResponseHeader {
        correlation_id: 1,
        unknown_tagged_fields: TaggedFields::default(),
    };
    assert_eq!(d.header_version, 1);
    assert_eq!(d.header, hdr);
    assert_eq!(d.api_key, ApiKey::PUSH_CONFIG);
    assert_eq!(d.version, 0);
    assert!(!d.fallback_v0);
    assert_eq!(d.body, ResponseBody::PushConfig(body.clone()));
    assert_eq!(
        encode_response_frame(&hdr, &ResponseBody::PushConfig(body), 0),
        Ok(frame)
    );
}

// ---------------------------------------------------------------------------------------
// kip-notes.md §4.4: ApiVersions.
// ---------------------------------------------------------------------------------------

#[test]
fn api_versions_v4_request_example() {
    let payload = hex("00 12 00 04 00 00 00 07 00 01 63 00  09 6b61666b612d7273 06 302e312e30 00");
    let mut frame = hex("0000001c");
    frame.extend_from_slice(&payload);
    let d = decode(&frame);
    assert_eq!(
        d,
        DecodedRequest {
            header_version: 2,
            header: header(18, 4, 7, "c"),
            api_key: ApiKey::API_VERSIONS,
            body: api_versions_request("kafka-rs", "0.1.0"),
        }
    );
    assert_eq!(
        encode_request_frame(&d.header, &d.body, &ProvisionalNumbers::default()),
        Ok(frame)
    );
}

#[test]
fn api_versions_v4_response_example() {
    let payload = hex("00 00 00 07 | 00 00 | 02 | 00 12 00 00 00 04 00 | 00 00 00 00 | 00");
    let d = decode_response(&payload, 0, ApiKey::API_VERSIONS, 4).expect("decodes");
    let body = ApiVersionsResponse {
        error_code: 0,
        api_keys: vec![ApiVersion {
            api_key: 18,
            min_version: 0,
            max_version: 4,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        throttle_time_ms: Some(0),
        supported_features: Some(Vec::new()),
        finalized_features_epoch: Some(-1),
        finalized_features: Some(Vec::new()),
        zk_migration_ready: Some(false),
        unknown_tagged_fields: TaggedFields::default(),
    };
    let hdr = ResponseHeader {
        correlation_id: 7,
        unknown_tagged_fields: TaggedFields::default(),
    };
    assert_eq!(d.header_version, 0);
    assert_eq!(d.header, hdr);
    assert_eq!(d.version, 4);
    assert!(!d.fallback_v0);
    assert_eq!(d.body, ResponseBody::ApiVersions(body.clone()));
    let mut frame = hex("00000013");
    frame.extend_from_slice(&payload);
    assert_eq!(
        encode_response_frame(&hdr, &ResponseBody::ApiVersions(body), 4),
        Ok(frame)
    );
}

#[test]
fn api_versions_unsupported_version_reply_falls_back_to_v0() {
    let payload = hex("00 00 00 07 | 00 23 | 00 00 00 01 | 00 12 00 00 00 04");
    let d = decode_response(&payload, 0, ApiKey::API_VERSIONS, 4).expect("decodes as v0");
    assert_eq!(d.version, 0);
    assert!(d.fallback_v0);
    assert_eq!(d.header_version, 0);
    assert_eq!(d.header.correlation_id, 7);
    let body = ApiVersionsResponse {
        error_code: 35,
        api_keys: vec![ApiVersion {
            api_key: 18,
            min_version: 0,
            max_version: 4,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        ..Default::default()
    };
    assert_eq!(d.body, ResponseBody::ApiVersions(body.clone()));
    let ResponseBody::ApiVersions(b) = &d.body else {
        unreachable!()
    };
    assert_eq!(ErrorCode(b.error_code), ErrorCode::UNSUPPORTED_VERSION);
    // Encoding the expected value at v0 gives the reply back.
    let mut frame = hex("00000010");
    frame.extend_from_slice(&payload);
    assert_eq!(
        encode_response_frame(&d.header, &ResponseBody::ApiVersions(body), 0),
        Ok(frame.clone())
    );
    // The same through the framed entry point.
    let f = decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, ApiKey::API_VERSIONS, 3)
        .expect("decodes as v0");
    assert_eq!((f.version, f.fallback_v0), (0, true));
    // Version 0 asked directly: no fallback involved.
    let v0 = decode_response(&payload, 0, ApiKey::API_VERSIONS, 0).expect("v0");
    assert_eq!((v0.version, v0.fallback_v0), (0, false));
    // The fallback applies only to UNSUPPORTED_VERSION: error 0 in the same layout fails.
    let other = hex("00 00 00 07 | 00 00 | 00 00 00 01 | 00 12 00 00 00 04");
    let e = decode_response(&other, 0, ApiKey::API_VERSIONS, 4).unwrap_err();
    assert_eq!(e.path(), "ApiVersionsResponse.ApiKeys");
}

// ---------------------------------------------------------------------------------------
// KIP-1326: RegisterBrokerRecord v5 with StaticConfigs (tag 2).
// ---------------------------------------------------------------------------------------

/// The record body before its tagged-field section, the same in v4 and v5 (kip-notes §2.3).
const RECORD_FIXED: &str = "\
    00000001\
    00\
    000102030405060708090a0b0c0d0e0f\
    0000000000000007\
    02 0a504c41494e54455854 0a6c6f63616c686f7374 2384 0000 00\
    02 116d657461646174612e76657273696f6e 0001 001b 00\
    00\
    01\
    00";

/// Tag 2, 46 bytes: a compact array of two BrokerStaticConfig entries.
const RECORD_STATIC_CONFIGS: &str = "\
    01 02 2e\
    03\
    096c6f672e64697273 0b2f746d702f6b72616674 00\
    1673736c2e6b657973746f72652e70617373776f7264 00 00";

fn register_broker_record(version: i16) -> RegisterBrokerRecord {
    RegisterBrokerRecord {
        broker_id: 1,
        is_migrating_zk_broker: Some(false),
        incarnation_id: Uuid([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
        broker_epoch: 7,
        end_points: vec![BrokerEndpoint {
            name: "PLAINTEXT".into(),
            host: "localhost".into(),
            port: 9092,
            security_protocol: 0,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        features: vec![BrokerFeature {
            name: "metadata.version".into(),
            min_supported_version: 1,
            max_supported_version: 27,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        rack: None,
        fenced: true,
        in_controlled_shutdown: Some(false),
        log_dirs: Some(Vec::new()),
        cordoned_log_dirs: Some(Vec::new()),
        static_configs: (version >= 5).then(|| {
            vec![
                BrokerStaticConfig {
                    name: "log.dirs".into(),
                    value: Some("/tmp/kraft".into()),
                    unknown_tagged_fields: TaggedFields::default(),
                },
                BrokerStaticConfig {
                    name: "ssl.keystore.password".into(),
                    value: None,
                    unknown_tagged_fields: TaggedFields::default(),
                },
            ]
        }),
        unknown_tagged_fields: TaggedFields::default(),
    }
}

#[test]
fn register_broker_record_v5_with_static_configs() {
    let body = hex(&format!("{RECORD_FIXED} {RECORD_STATIC_CONFIGS}"));
    let framed = hex(&format!("01 00 05 {RECORD_FIXED} {RECORD_STATIC_CONFIGS}"));
    let rec = register_broker_record(5);
    assert_eq!(RegisterBrokerRecord::from_bytes(&body, 5), Ok(rec.clone()));
    assert_eq!(rec.to_bytes(5), Ok(body));
    let m = MetadataRecord {
        version: 5,
        body: MetadataRecordBody::RegisterBrokerRecord(rec),
    };
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(m.clone()));
    assert_eq!(m.to_bytes(), Ok(framed));
}

#[test]
fn register_broker_record_v4_has_no_static_configs() {
    let body = hex(&format!("{RECORD_FIXED} 00"));
    let rec = register_broker_record(4);
    assert_eq!(rec.static_configs, None);
    assert_eq!(RegisterBrokerRecord::from_bytes(&body, 4), Ok(rec.clone()));
    assert_eq!(rec.to_bytes(4), Ok(body.clone()));
    let framed = hex(&format!("01 00 04 {RECORD_FIXED} 00"));
    let m = MetadataRecord {
        version: 4,
        body: MetadataRecordBody::RegisterBrokerRecord(rec),
    };
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(m.clone()));
    assert_eq!(m.to_bytes(), Ok(framed));
    // StaticConfigs is not ignorable: a v5 value does not encode at v4.
    assert_eq!(
        register_broker_record(5).to_bytes(4),
        Err(EncodeError::FieldNotAvailable {
            field: "RegisterBrokerRecord.StaticConfigs".into(),
            version: 4,
        })
    );
    // A v4 reader keeps the v5 tag 2 as an unknown tagged field, and writes it back.
    let v5 = hex(&format!("{RECORD_FIXED} {RECORD_STATIC_CONFIGS}"));
    let old = RegisterBrokerRecord::from_bytes(&v5, 4).expect("v4 reads v5 bytes");
    assert_eq!(old.static_configs, None);
    let raw = hex(RECORD_STATIC_CONFIGS);
    assert_eq!(
        old.unknown_tagged_fields.0.get(&2).map(|b| b.0.as_slice()),
        Some(&raw[3..])
    );
    assert_eq!(old.to_bytes(4), Ok(v5));
}

// ---------------------------------------------------------------------------------------
// Provisional PushConfig API key.
// ---------------------------------------------------------------------------------------

#[test]
fn push_config_api_key_override() {
    let numbers = ProvisionalNumbers {
        push_config_api_key: ApiKey(99),
        ..ProvisionalNumbers::default()
    };
    let frame99 =
        hex("0000001d 0063 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00");
    let d = decode_request_frame(&frame99, DEFAULT_MAX_FRAME_SIZE, &numbers).expect("key 99");
    assert_eq!(d.api_key, ApiKey::PUSH_CONFIG);
    assert_eq!(d.header_version, 2);
    assert_eq!(d.header, header(99, 0, 1, "c"));
    assert_eq!(d.body, RequestBody::PushConfig(push_config_body()));
    // Encoding writes the override, whatever key the header held.
    assert_eq!(
        encode_request_frame(
            &header(95, 0, 1, "c"),
            &RequestBody::PushConfig(push_config_body()),
            &numbers
        ),
        Ok(frame99.clone())
    );
    // 95 means nothing under the override.
    let frame95 = hex(PUSH_CONFIG_REQUEST);
    let e = decode_request_frame(&frame95, DEFAULT_MAX_FRAME_SIZE, &numbers).unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::UnknownApiKey {
            api_key: ApiKey(95)
        }
    );
    assert_eq!(e.offset(), 4);
    assert_eq!(e.path(), "RequestHeader.RequestApiKey");
    // And 99 means nothing without it.
    let e = decode_request_frame(
        &frame99,
        DEFAULT_MAX_FRAME_SIZE,
        &ProvisionalNumbers::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::UnknownApiKey {
            api_key: ApiKey(99)
        }
    );
}

// ---------------------------------------------------------------------------------------
// Read-back APIs of a KRaft controller (Apache Kafka 4.4.0 definitions), bytes written by
// hand from the JSON definitions.
// ---------------------------------------------------------------------------------------

/// `value` encodes at `version` to exactly `bytes`, and `bytes` decode to exactly `value`.
fn both_ways<M: Message + PartialEq + std::fmt::Debug>(value: &M, version: i16, bytes: &str) {
    let bytes = hex(bytes);
    assert_eq!(value.to_bytes(version), Ok(bytes.clone()));
    assert_eq!(M::from_bytes(&bytes, version).as_ref(), Ok(value));
}

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

// ---------------------------------------------------------------------------------------
// Topic lifecycle (Apache Kafka 4.4.0 definitions): what `tcp://` controller sessions send
// to prepare a scenario's topics, and the record a KRaft controller writes for a new topic.
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// SASL (Apache Kafka 4.4.0 definitions): what a client sends between ApiVersions and
// PushConfig on a SASL listener (KIP-1324: "after authentication (if any)"). Bytes written
// by hand from the JSON definitions.
// ---------------------------------------------------------------------------------------

#[test]
fn sasl_handshake_v0_v1_request_and_response() {
    let req = SaslHandshakeRequest {
        mechanism: "PLAIN".into(),
    };
    for v in [0, 1] {
        both_ways(&req, v, "0005 504c41494e");
    }
    let resp = SaslHandshakeResponse {
        error_code: ErrorCode::UNSUPPORTED_SASL_MECHANISM.0,
        mechanisms: vec!["PLAIN".into(), "SCRAM-SHA-256".into()],
    };
    both_ways(
        &resp,
        1,
        "0021 00000002 0005 504c41494e 000d 534352414d2d5348412d323536",
    );
}

#[test]
fn sasl_authenticate_v0_and_v2_request_and_response() {
    // PLAIN: authzid NUL authcid NUL password.
    let req = SaslAuthenticateRequest {
        auth_bytes: Bytes(b"\0u\0p".to_vec()),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&req, 0, "00000004 00750070");
    both_ways(&req, 2, "05 00750070 | 00");
    let failed = SaslAuthenticateResponse {
        error_code: ErrorCode::SASL_AUTHENTICATION_FAILED.0,
        error_message: Some("bad".into()),
        auth_bytes: Bytes::default(),
        session_lifetime_ms: Some(0),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&failed, 2, "003a 04 626164 01 0000000000000000 | 00");
    let ok = SaslAuthenticateResponse {
        error_code: 0,
        error_message: None,
        auth_bytes: Bytes::default(),
        session_lifetime_ms: None,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&ok, 0, "0000 ffff 00000000");
    assert_eq!(
        SaslAuthenticateResponse::from_bytes(&hex("0000 ffff 00000000"), 1)
            .unwrap_err()
            .kind(),
        DecodeErrorKind::Truncated {
            needed: 8,
            remaining: 0
        }
    );
}

/// Envelope (API 58, v0 only, flexible): a broker forwards a request to the controller with
/// the request's header and body as RequestData; the controller answers the forwarded
/// response's header and body in ResponseData, or null with an error.
#[test]
fn envelope_v0_request_and_response() {
    let req = EnvelopeRequest {
        request_data: Bytes(vec![1, 2, 3]),
        request_principal: None,
        client_host_address: Bytes(vec![127, 0, 0, 1]),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&req, 0, "04 010203 00 05 7f000001 | 00");
    let refused = EnvelopeResponse {
        response_data: None,
        error_code: ErrorCode::INVALID_REQUEST.0,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&refused, 0, "00 002a | 00");
    let answered = EnvelopeResponse {
        response_data: Some(Bytes(vec![0xab])),
        error_code: 0,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&answered, 0, "02 ab 0000 | 00");
}
