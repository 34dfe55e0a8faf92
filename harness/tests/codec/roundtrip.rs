//! Property tests of the codec's round-trip laws, for every generated message (request and
//! response bodies, both headers, the metadata records) at every valid version:
//!
//! - decoding what the encoder wrote gives the value projected onto that version;
//! - re-encoding the decoded value gives the same bytes (the encoding is canonical);
//! - `encoded_len` is the length of the bytes;
//! - `project` is idempotent and does not change the encoding.
//!
//! Plus exact checks of the version rules (non-ignorable fields refused, ignorable ones
//! dropped) and of unknown tagged fields (kept, re-encoded in tag order, refused when they
//! reuse a known tag).

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use kipcheck::codec::generated::broker_registration_request::StaticConfig;
use kipcheck::codec::generated::metadata_response::MetadataResponseTopic;
use kipcheck::codec::{
    AlterConfigsRequest, AlterConfigsResponse, ApiVersionsRequest, ApiVersionsResponse,
    BrokerRegistrationRequest, BrokerRegistrationResponse, Bytes, ConfigRecord,
    CreateTopicsRequest, CreateTopicsResponse, DecodeErrorKind, DeleteTopicsRequest,
    DeleteTopicsResponse, DescribeClusterRequest, DescribeClusterResponse, DescribeConfigsRequest,
    DescribeConfigsResponse, EncodeError, EnvelopeRequest, EnvelopeResponse, FeatureLevelRecord,
    FetchRequest, FetchResponse, GetTelemetrySubscriptionsRequest,
    GetTelemetrySubscriptionsResponse, IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse, Message, MetadataRecordBody, MetadataRequest,
    MetadataResponse, PushConfigRequest, PushConfigResponse, PushTelemetryRequest,
    PushTelemetryResponse, RegisterBrokerRecord, RemoveTopicRecord, RequestBody, RequestHeader,
    ResponseBody, ResponseHeader, SaslAuthenticateRequest, SaslAuthenticateResponse,
    SaslHandshakeRequest, SaslHandshakeResponse, TaggedFields, TopicRecord, UnregisterBrokerRecord,
    UnregisterBrokerRequest, UnregisterBrokerResponse, UpdateFeaturesRequest,
    UpdateFeaturesResponse, Uuid,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Checks every law for the value `arbitrary` builds from `data`, at every valid version.
/// Returns how many versions encoded successfully (inputs `arbitrary` cannot use count 0).
fn check_laws<T>(data: &[u8]) -> Result<usize, TestCaseError>
where
    T: Message + for<'a> Arbitrary<'a>,
{
    let mut u = Unstructured::new(data);
    let Ok(v) = T::arbitrary(&mut u) else {
        return Ok(0);
    };
    let mut encoded = 0;
    for ver in T::VALID_VERSIONS.iter() {
        let projected = v.project(ver);
        // (d) projection is idempotent.
        prop_assert_eq!(
            &projected.project(ver),
            &projected,
            "{} v{}: project is not idempotent",
            T::NAME,
            ver
        );
        let bytes = match v.to_bytes(ver) {
            Ok(b) => b,
            Err(e) => {
                // The length computation takes the same path and fails the same way.
                prop_assert_eq!(v.encoded_len(ver), Err(e.clone()), "{} v{}", T::NAME, ver);
                continue;
            }
        };
        encoded += 1;
        // (c) encoded_len is exact.
        prop_assert_eq!(
            v.encoded_len(ver),
            Ok(bytes.len()),
            "{} v{}: encoded_len",
            T::NAME,
            ver
        );
        // Projecting first does not change the bytes.
        prop_assert_eq!(
            projected.to_bytes(ver),
            Ok(bytes.clone()),
            "{} v{}: the projection encodes differently",
            T::NAME,
            ver
        );
        // (a) decode(encode(v)) == project(v).
        let decoded = match T::from_bytes(&bytes, ver) {
            Ok(d) => d,
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "{} v{ver}: own encoding {} does not decode: {e}\nvalue: {v:?}",
                    T::NAME,
                    kipcheck::codec::to_hex(&bytes)
                )))
            }
        };
        prop_assert_eq!(
            &decoded,
            &projected,
            "{} v{}: decode(encode(v))",
            T::NAME,
            ver
        );
        // (b) encode(decode(b)) == b.
        prop_assert_eq!(
            decoded.to_bytes(ver),
            Ok(bytes.clone()),
            "{} v{}: re-encoding is not canonical",
            T::NAME,
            ver
        );
        // (e) the serde form (what `kipcheck decode` prints and `kipcheck encode` reads)
        // round-trips, as JSON and as YAML.
        let json = serde_json::to_string(&decoded).expect("JSON");
        let back: T = serde_json::from_str(&json)
            .map_err(|e| TestCaseError::fail(format!("{} v{ver}: JSON {json}: {e}", T::NAME)))?;
        prop_assert_eq!(&back, &decoded, "{} v{}: JSON {}", T::NAME, ver, json);
        let yaml = serde_saphyr::to_string(&decoded).expect("YAML");
        let back: T = serde_saphyr::from_str(&yaml)
            .map_err(|e| TestCaseError::fail(format!("{} v{ver}: YAML\n{yaml}\n{e}", T::NAME)))?;
        prop_assert_eq!(&back, &decoded, "{} v{}: YAML\n{}", T::NAME, ver, yaml);
    }
    Ok(encoded)
}

/// The default value of every message encodes at every valid version and round-trips.
fn check_default<T: Message>() {
    for ver in T::VALID_VERSIONS.iter() {
        let v = T::default();
        let bytes = v
            .to_bytes(ver)
            .unwrap_or_else(|e| panic!("{} v{ver}: default does not encode: {e}", T::NAME));
        assert_eq!(v.encoded_len(ver), Ok(bytes.len()), "{} v{ver}", T::NAME);
        let d = T::from_bytes(&bytes, ver)
            .unwrap_or_else(|e| panic!("{} v{ver}: default does not decode: {e}", T::NAME));
        assert_eq!(d, v.project(ver), "{} v{ver}", T::NAME);
        assert_eq!(d.to_bytes(ver), Ok(bytes), "{} v{ver}", T::NAME);
    }
}

/// Inputs per message type; each input is tried at every version.
const CASES: u32 = 64;

macro_rules! laws {
    ($( $test:ident => $ty:ty, )*) => {
        /// Every message type the laws are checked for, by name.
        const CHECKED: &[&str] = &[$( <$ty as Message>::NAME, )*];

        proptest! {
            #![proptest_config(ProptestConfig {
                cases: CASES,
                failure_persistence: None,
                ..ProptestConfig::default()
            })]
            $(
                #[test]
                fn $test(data in proptest::collection::vec(any::<u8>(), 0..192)) {
                    check_laws::<$ty>(&data)?;
                }
            )*
        }

        #[test]
        fn defaults_round_trip_at_every_version() {
            $( check_default::<$ty>(); )*
        }

        /// A fixed, seeded sweep over larger inputs: every type must encode at least once
        /// (so the laws above are not vacuous).
        #[test]
        fn every_type_encodes_some_arbitrary_values() {
            $(
                let mut ok = 0;
                let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
                for _ in 0..24 {
                    let data: Vec<u8> = (0..256)
                        .map(|_| {
                            state ^= state << 13;
                            state ^= state >> 7;
                            state ^= state << 17;
                            (state >> 24) as u8
                        })
                        .collect();
                    ok += check_laws::<$ty>(&data)
                        .unwrap_or_else(|e| panic!("{}: {e}", <$ty as Message>::NAME));
                }
                assert!(ok > 0, "{}: no arbitrary value encoded at any version", <$ty as Message>::NAME);
            )*
        }
    };
}

laws! {
    metadata_request => MetadataRequest,
    metadata_response => MetadataResponse,
    api_versions_request => ApiVersionsRequest,
    api_versions_response => ApiVersionsResponse,
    alter_configs_request => AlterConfigsRequest,
    alter_configs_response => AlterConfigsResponse,
    incremental_alter_configs_request => IncrementalAlterConfigsRequest,
    incremental_alter_configs_response => IncrementalAlterConfigsResponse,
    update_features_request => UpdateFeaturesRequest,
    update_features_response => UpdateFeaturesResponse,
    broker_registration_request => BrokerRegistrationRequest,
    broker_registration_response => BrokerRegistrationResponse,
    describe_configs_request => DescribeConfigsRequest,
    describe_configs_response => DescribeConfigsResponse,
    describe_cluster_request => DescribeClusterRequest,
    describe_cluster_response => DescribeClusterResponse,
    unregister_broker_request => UnregisterBrokerRequest,
    unregister_broker_response => UnregisterBrokerResponse,
    create_topics_request => CreateTopicsRequest,
    create_topics_response => CreateTopicsResponse,
    delete_topics_request => DeleteTopicsRequest,
    delete_topics_response => DeleteTopicsResponse,
    envelope_request => EnvelopeRequest,
    envelope_response => EnvelopeResponse,
    sasl_handshake_request => SaslHandshakeRequest,
    sasl_handshake_response => SaslHandshakeResponse,
    sasl_authenticate_request => SaslAuthenticateRequest,
    sasl_authenticate_response => SaslAuthenticateResponse,
    fetch_request => FetchRequest,
    fetch_response => FetchResponse,
    get_telemetry_subscriptions_request => GetTelemetrySubscriptionsRequest,
    get_telemetry_subscriptions_response => GetTelemetrySubscriptionsResponse,
    push_telemetry_request => PushTelemetryRequest,
    push_telemetry_response => PushTelemetryResponse,
    push_config_request => PushConfigRequest,
    push_config_response => PushConfigResponse,
    request_header => RequestHeader,
    response_header => ResponseHeader,
    register_broker_record => RegisterBrokerRecord,
    config_record => ConfigRecord,
    feature_level_record => FeatureLevelRecord,
    unregister_broker_record => UnregisterBrokerRecord,
    topic_record => TopicRecord,
    remove_topic_record => RemoveTopicRecord,
}

#[test]
fn the_list_covers_every_dispatched_message() {
    let mut expected: Vec<&str> = RequestBody::KNOWN
        .iter()
        .chain(ResponseBody::KNOWN)
        .chain(MetadataRecordBody::KNOWN)
        .map(|i| i.message)
        .collect();
    expected.push(RequestHeader::NAME);
    expected.push(ResponseHeader::NAME);
    expected.sort_unstable();
    let mut checked = CHECKED.to_vec();
    checked.sort_unstable();
    assert_eq!(checked, expected);
}

fn hex(s: &str) -> Vec<u8> {
    kipcheck::codec::from_hex(s).expect("test hex")
}

// ---------------------------------------------------------------------------------------
// Version rules: non-ignorable fields are refused, ignorable ones dropped.
// ---------------------------------------------------------------------------------------

#[test]
fn non_ignorable_static_configs_are_refused_before_v6() {
    let req = BrokerRegistrationRequest {
        static_configs: Some(vec![StaticConfig {
            name: "log.dirs".into(),
            value: Some("/tmp".into()),
            ..Default::default()
        }]),
        ..Default::default()
    };
    for ver in 0..=5 {
        assert_eq!(
            req.to_bytes(ver),
            Err(EncodeError::FieldNotAvailable {
                field: "BrokerRegistrationRequest.StaticConfigs".into(),
                version: ver,
            }),
            "v{ver}"
        );
        assert_eq!(
            req.encoded_len(ver),
            Err(EncodeError::FieldNotAvailable {
                field: "BrokerRegistrationRequest.StaticConfigs".into(),
                version: ver,
            })
        );
    }
    assert_eq!(
        req.to_bytes(5).unwrap_err().to_string(),
        "BrokerRegistrationRequest.StaticConfigs is set to a non-default value but does not \
         exist in version 5"
    );
    // An empty list is the default and may be dropped; v6 carries it.
    let empty = BrokerRegistrationRequest {
        static_configs: Some(Vec::new()),
        ..Default::default()
    };
    assert_eq!(
        empty.to_bytes(5),
        BrokerRegistrationRequest::default().to_bytes(5)
    );
    assert!(req.to_bytes(6).is_ok());
}

#[test]
fn non_ignorable_cluster_authorized_operations_are_refused_outside_v8_to_v10() {
    let resp = MetadataResponse {
        cluster_authorized_operations: Some(0x0f),
        ..Default::default()
    };
    for ver in [4, 5, 6, 7, 11, 12, 13] {
        assert_eq!(
            resp.to_bytes(ver),
            Err(EncodeError::FieldNotAvailable {
                field: "MetadataResponse.ClusterAuthorizedOperations".into(),
                version: ver,
            }),
            "v{ver}"
        );
    }
    for ver in 8..=10 {
        assert!(resp.to_bytes(ver).is_ok(), "v{ver}");
    }
    // The default (INT32_MIN) is fine anywhere.
    let default = MetadataResponse {
        cluster_authorized_operations: Some(i32::MIN),
        ..Default::default()
    };
    assert_eq!(
        default.to_bytes(11),
        MetadataResponse::default().to_bytes(11)
    );
}

#[test]
fn non_ignorable_nested_field_reports_the_element_path() {
    let resp = MetadataResponse {
        topics: vec![
            MetadataResponseTopic {
                name: Some("a".into()),
                ..Default::default()
            },
            MetadataResponseTopic {
                name: Some("b".into()),
                topic_authorized_operations: Some(8),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    assert_eq!(
        resp.to_bytes(7),
        Err(EncodeError::FieldNotAvailable {
            field: "MetadataResponse.Topics[1].TopicAuthorizedOperations".into(),
            version: 7,
        })
    );
    assert!(resp.to_bytes(8).is_ok());
}

#[test]
fn non_ignorable_metadata_request_flag_is_refused() {
    let req = MetadataRequest {
        include_cluster_authorized_operations: Some(true),
        ..Default::default()
    };
    assert_eq!(
        req.to_bytes(11),
        Err(EncodeError::FieldNotAvailable {
            field: "MetadataRequest.IncludeClusterAuthorizedOperations".into(),
            version: 11,
        })
    );
}

#[test]
fn ignorable_fields_are_dropped_silently() {
    // LogDirs (v2+) and PreviousBrokerEpoch (v3+) are ignorable.
    let req = BrokerRegistrationRequest {
        cluster_id: "c".into(),
        log_dirs: Some(vec![Uuid([7; 16])]),
        previous_broker_epoch: Some(42),
        ..Default::default()
    };
    let plain = BrokerRegistrationRequest {
        cluster_id: "c".into(),
        ..Default::default()
    };
    for ver in 0..=1 {
        let bytes = req.to_bytes(ver).expect("ignorable fields are dropped");
        assert_eq!(Ok(bytes.clone()), plain.to_bytes(ver), "v{ver}");
        let back = BrokerRegistrationRequest::from_bytes(&bytes, ver).unwrap();
        assert_eq!(back.log_dirs, None);
        assert_eq!(back.previous_broker_epoch, None);
    }
    // v2 keeps LogDirs but still drops PreviousBrokerEpoch.
    let back =
        BrokerRegistrationRequest::from_bytes(&req.to_bytes(2).unwrap(), 2).expect("decodes");
    assert_eq!(back.log_dirs, Some(vec![Uuid([7; 16])]));
    assert_eq!(back.previous_broker_epoch, None);
    // MetadataResponse.ErrorCode exists only in v13 and is ignorable.
    let resp = MetadataResponse {
        error_code: Some(3),
        ..Default::default()
    };
    assert_eq!(resp.to_bytes(12), MetadataResponse::default().to_bytes(12));
}

// ---------------------------------------------------------------------------------------
// Unknown tagged fields.
// ---------------------------------------------------------------------------------------

/// ApiVersionsResponse v3: ErrorCode 0, ApiKeys [], ThrottleTimeMs 0, then `tags`.
fn api_versions_v3(tags: &str) -> Vec<u8> {
    hex(&format!("0000 01 00000000 {tags}"))
}

#[test]
fn unknown_tagged_field_round_trips() {
    let bytes = api_versions_v3("01 07 02 abcd");
    let v = ApiVersionsResponse::from_bytes(&bytes, 3).expect("decodes");
    assert_eq!(
        v.unknown_tagged_fields,
        TaggedFields(BTreeMap::from([(7, Bytes(vec![0xab, 0xcd]))]))
    );
    assert_eq!(v.finalized_features_epoch, Some(-1));
    assert_eq!(v.to_bytes(3), Ok(bytes.clone()));
    assert_eq!(v.encoded_len(3), Ok(bytes.len()));
    // The same bytes at v4 also keep tag 7.
    let v4 = ApiVersionsResponse::from_bytes(&bytes, 4).expect("decodes at v4");
    assert_eq!(v4.to_bytes(4), Ok(bytes));
}

#[test]
fn unknown_tags_are_merged_with_known_ones_in_ascending_order() {
    let v = ApiVersionsResponse {
        api_keys: Vec::new(),
        finalized_features_epoch: Some(5),
        zk_migration_ready: Some(true),
        unknown_tagged_fields: TaggedFields(BTreeMap::from([
            (200, Bytes(vec![0x02])),
            (4, Bytes(vec![])),
            (9, Bytes(vec![0x01])),
        ])),
        ..Default::default()
    };
    let expected = api_versions_v3("05 01 08 0000000000000005 03 01 01 04 00 09 01 01 c801 01 02");
    assert_eq!(v.to_bytes(3), Ok(expected.clone()));
    // Decoding accepts the tags in any order; re-encoding sorts them.
    let shuffled = api_versions_v3("05 c801 01 02 09 01 01 03 01 01 04 00 01 08 0000000000000005");
    let d = ApiVersionsResponse::from_bytes(&shuffled, 3).expect("any order decodes");
    assert_eq!(d, v.project(3));
    assert_eq!(d.to_bytes(3), Ok(expected));
}

#[test]
fn unknown_tag_equal_to_a_known_tag_is_refused_at_encode() {
    let v = ApiVersionsResponse {
        unknown_tagged_fields: TaggedFields(BTreeMap::from([(1, Bytes(vec![0; 8]))])),
        ..Default::default()
    };
    for ver in 3..=4 {
        assert_eq!(
            v.to_bytes(ver),
            Err(EncodeError::DuplicateTag {
                field: "ApiVersionsResponse".into(),
                tag: 1,
            }),
            "v{ver}"
        );
    }
    // In a nested struct the path names the element.
    let nested = ApiVersionsResponse {
        api_keys: vec![
            kipcheck::codec::generated::api_versions_response::ApiVersion {
                unknown_tagged_fields: TaggedFields(BTreeMap::from([(0, Bytes(vec![1]))])),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    // ApiVersion has no known tags, so tag 0 is fine there.
    assert!(nested.to_bytes(3).is_ok());
    // Tag 2 of RegisterBrokerRecord is StaticConfigs from v5 on: unknown (kept) at v4,
    // refused at v5.
    let rec = RegisterBrokerRecord {
        unknown_tagged_fields: TaggedFields(BTreeMap::from([(2, Bytes(vec![1]))])),
        ..Default::default()
    };
    let v4 = rec.to_bytes(4).expect("tag 2 is unknown at v4");
    assert_eq!(
        RegisterBrokerRecord::from_bytes(&v4, 4)
            .unwrap()
            .unknown_tagged_fields,
        rec.unknown_tagged_fields
    );
    assert_eq!(
        rec.to_bytes(5),
        Err(EncodeError::DuplicateTag {
            field: "RegisterBrokerRecord".into(),
            tag: 2,
        })
    );
}

#[test]
fn unknown_tags_in_a_non_flexible_version_are_refused() {
    let v = ApiVersionsResponse {
        unknown_tagged_fields: TaggedFields(BTreeMap::from([(7, Bytes(vec![]))])),
        ..Default::default()
    };
    assert_eq!(
        v.to_bytes(2),
        Err(EncodeError::TaggedFieldsNotSupported {
            field: "ApiVersionsResponse".into(),
            version: 2,
        })
    );
}

#[test]
fn duplicate_unknown_tag_is_refused_at_decode() {
    let bytes = api_versions_v3("02 07 00 07 00");
    let e = ApiVersionsResponse::from_bytes(&bytes, 3).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::DuplicateTag { tag: 7 });
    assert_eq!(e.offset(), 10);
    assert_eq!(e.path(), "ApiVersionsResponse");
}

// ---------------------------------------------------------------------------------------
// Other encode errors carry the field path.
// ---------------------------------------------------------------------------------------

#[test]
fn over_long_strings_are_refused_with_their_path() {
    let long = "x".repeat(32768);
    let req = PushConfigRequest {
        configs: vec![
            kipcheck::codec::generated::push_config_request::Config::default(),
            kipcheck::codec::generated::push_config_request::Config {
                config_value: long.clone().into(),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    assert_eq!(
        req.to_bytes(0),
        Err(EncodeError::StringTooLong {
            field: "PushConfigRequest.Configs[1].ConfigValue".into(),
            len: 32768,
        })
    );
    // 32767 bytes is the limit, inclusive, and decodes back.
    let mut ok = req.clone();
    ok.configs[1].config_value.pop();
    let bytes = ok.to_bytes(0).expect("32767 bytes encode");
    assert_eq!(PushConfigRequest::from_bytes(&bytes, 0), Ok(ok));
    // The classic int16 form of the request header has the same limit.
    let header = RequestHeader {
        client_id: Some(long.into()),
        ..Default::default()
    };
    assert_eq!(
        header.to_bytes(1),
        Err(EncodeError::StringTooLong {
            field: "RequestHeader.ClientId".into(),
            len: 32768,
        })
    );
}

#[test]
fn null_in_a_non_nullable_version_is_refused_with_path_and_version() {
    let resp = MetadataResponse {
        topics: vec![MetadataResponseTopic {
            name: None,
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(
        resp.to_bytes(11),
        Err(EncodeError::NullNotAllowed {
            field: "MetadataResponse.Topics[0].Name".into(),
            version: 11,
        })
    );
    // Nullable from v12 on: null round-trips.
    for ver in 12..=13 {
        let bytes = resp.to_bytes(ver).expect("null name encodes");
        let back = MetadataResponse::from_bytes(&bytes, ver).expect("decodes");
        assert_eq!(back.topics[0].name, None);
    }
    // And decoding null at v11 is refused.
    let v12 = resp.to_bytes(12).unwrap();
    let e = MetadataResponse::from_bytes(&v12, 11).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::NullNotAllowed);
    assert_eq!(e.path(), "MetadataResponse.Topics[0].Name");
}
