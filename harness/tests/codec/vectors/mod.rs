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

mod api_key_override;
mod controller_apis;
mod kip1326_record;
mod sasl_envelope;
mod topic_lifecycle;

/// `value` encodes at `version` to exactly `bytes`, and `bytes` decode to exactly `value`.
fn both_ways<M: Message + PartialEq + std::fmt::Debug>(value: &M, version: i16, bytes: &str) {
    let bytes = hex(bytes);
    assert_eq!(value.to_bytes(version), Ok(bytes.clone()));
    assert_eq!(M::from_bytes(&bytes, version).as_ref(), Ok(value));
}

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
