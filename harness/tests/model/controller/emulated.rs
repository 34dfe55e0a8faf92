//! The emulated controller (`kipcheck::emulate::controller`): the Kafka controller APIs the
//! KIPs leave alone (ApiVersions' added entries, DescribeCluster, UnregisterBroker,
//! CreateTopics, a forwarded CreateTopics), answered over a controller model's state.

use super::*;
use kipcheck::emulate::controller::{
    api_versions, create_topics, describe_cluster, handle_request, unregister_broker,
};

#[test]
fn api_versions_adds_the_emulated_apis_to_the_models_list() {
    let c = controller(&SpecProfile::default(), 20);
    let ranges: Vec<(i16, i16, i16)> = api_versions(&c)
        .api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect();
    assert_eq!(
        ranges,
        vec![
            (18, 0, 4),
            (19, 2, 7),
            (32, 1, 4),
            (33, 0, 2),
            (44, 0, 1),
            (57, 0, 2),
            (58, 0, 0),
            (60, 0, 2),
            (62, 0, 6),
            (64, 0, 0)
        ]
    );
}

#[test]
fn a_forwarded_create_topics_is_answered_by_the_emulated_dispatch() {
    use kipcheck::codec::{
        decode_response, encode_request_frame, ApiKey, Bytes, EnvelopeRequest, ProvisionalNumbers,
        RequestBody, RequestHeader, ResponseBody,
    };
    let mut c = controller(&SpecProfile::default(), 20);
    let header = RequestHeader {
        request_api_key: ApiKey::CREATE_TOPICS.0,
        request_api_version: 7,
        correlation_id: 9,
        client_id: Some("client-1".into()),
        ..Default::default()
    };
    let inner = RequestBody::CreateTopics(create("t", 1, 1, &[]));
    let frame = encode_request_frame(&header, &inner, &ProvisionalNumbers::default()).unwrap();
    let forwarded = EnvelopeRequest {
        request_data: Bytes(frame[4..].to_vec()),
        request_principal: None,
        client_host_address: Bytes(vec![127, 0, 0, 1]),
        ..Default::default()
    };
    let envelope = RequestBody::Envelope(forwarded.clone());
    // The model alone serves neither Envelope nor, inside one, CreateTopics: with the model's
    // own dispatch the Envelope is INVALID_REQUEST.
    assert!(c.clone().handle_request(Millis(1), 0, &envelope).is_none());
    let refused = c.clone().handle_envelope_with(
        Millis(1),
        &forwarded,
        kipcheck::model::ControllerModel::handle_request,
    );
    assert_eq!(
        (refused.error_code, refused.response_data),
        (ErrorCode::INVALID_REQUEST.0, None)
    );
    // Through the emulated dispatch the inner CreateTopics is answered (an existing topic).
    let Some(ResponseBody::Envelope(answer)) = handle_request(&mut c, Millis(1), 0, &envelope)
    else {
        panic!("an Envelope answer")
    };
    assert_eq!(answer.error_code, 0);
    let data = answer.response_data.expect("a forwarded answer").0;
    let inner = decode_response(&data, 0, ApiKey::CREATE_TOPICS, 7).unwrap();
    assert_eq!(inner.header.correlation_id, 9);
    let ResponseBody::CreateTopics(r) = inner.body else {
        panic!("{:?}", inner.body)
    };
    assert_eq!(r.topics[0].error_code, ErrorCode::TOPIC_ALREADY_EXISTS.0);
}

#[test]
fn describe_cluster_on_a_controller_lists_controllers_only() {
    let p = SpecProfile::default();
    let c = controller(&p, 20).with_node_id(3);
    let req = |version: i16, endpoint: Option<i8>| DescribeClusterRequest {
        endpoint_type: endpoint,
        include_fenced_brokers: (version >= 2).then_some(false),
        ..Default::default()
    };
    let ok = describe_cluster(&c, 2, &req(2, Some(2)));
    assert_eq!(ok.error_code, 0);
    assert_eq!(ok.endpoint_type, Some(2));
    assert_eq!(ok.controller_id, 3);
    let nodes: Vec<(i32, Option<bool>)> = ok
        .brokers
        .iter()
        .map(|b| (b.broker_id, b.is_fenced))
        .collect();
    assert_eq!(nodes, vec![(3, Some(false))]);
    assert_eq!(ok.to_bytes(2).map(|b| b.is_empty()), Ok(false));
    let codes: Vec<i16> = [(1, Some(1)), (1, Some(3)), (0, None), (1, Some(0))]
        .into_iter()
        .map(|(v, e)| describe_cluster(&c, v, &req(v, e)).error_code)
        .collect();
    assert_eq!(
        codes,
        vec![
            ErrorCode::MISMATCHED_ENDPOINT_TYPE.0,
            ErrorCode::UNSUPPORTED_ENDPOINT_TYPE.0,
            ErrorCode::INVALID_REQUEST.0,
            ErrorCode::UNSUPPORTED_ENDPOINT_TYPE.0,
        ]
    );
}

#[test]
fn unregister_broker_tells_whether_a_broker_is_registered() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 40);
    let unregister = |id: i32| UnregisterBrokerRequest {
        broker_id: id,
        ..Default::default()
    };
    // A registration the audit refuses registers nobody.
    let bad = broker(1, &[("log.segment.bytes", "2097152")]);
    assert_eq!(register(&mut c, &bad), ErrorCode::INVALID_REGISTRATION.0);
    let r = unregister_broker(&mut c, Millis(2), 0, &unregister(1));
    assert_eq!(r.error_code, ErrorCode::BROKER_ID_NOT_REGISTERED.0);
    assert_eq!(c.metadata_log().len(), 1 + TOPICS.len());
    // A registered broker is removed by an UnregisterBrokerRecord with its epoch.
    let good = broker(1, &[]);
    assert_eq!(register(&mut c, &good), 0);
    let epoch = c.brokers()[&1].epoch;
    assert_eq!(
        unregister_broker(&mut c, Millis(3), 0, &unregister(1)).error_code,
        0
    );
    assert!(c.brokers().is_empty());
    let last = c.metadata_log().last().unwrap();
    assert_eq!(
        (last.version, &last.body),
        (
            0,
            &MetadataRecordBody::UnregisterBrokerRecord(UnregisterBrokerRecord {
                broker_id: 1,
                broker_epoch: epoch,
                ..Default::default()
            })
        )
    );
    let r = unregister_broker(&mut c, Millis(4), 0, &unregister(1));
    assert_eq!(r.error_code, ErrorCode::BROKER_ID_NOT_REGISTERED.0);
    let replayed =
        ControllerModel::replay(&p, defs(), &through_the_wire(c.metadata_log())).unwrap();
    assert!(replayed.brokers().is_empty());
    assert_eq!(c.check_invariants(), Ok(()));
}

fn create(name: &str, partitions: i32, rf: i16, configs: &[(&str, &str)]) -> CreateTopicsRequest {
    CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: partitions,
            replication_factor: rf,
            configs: configs
                .iter()
                .map(|(n, v)| CreatableTopicConfig {
                    name: (*n).into(),
                    value: Some((*v).into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn create_topics_as_kafkas_controller_answers_and_replay_keeps_the_topics() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 20);
    // Replication factor 1 (or -1, the default 1) needs one registered broker.
    let r = create_topics(&mut c, Millis(1), 7, &create("orders", 1, 1, &[]));
    assert_eq!(
        (r.topics[0].error_code, r.topics[0].error_message.as_deref()),
        (
            ErrorCode::INVALID_REPLICATION_FACTOR.0,
            Some(
                "Unable to replicate the partition 1 time(s): The target replication factor of 1 \
                 cannot be reached because only 0 broker(s) are registered."
            )
        )
    );
    assert_eq!(register(&mut c, &broker(1, &[])), 0);
    let before = c.metadata_log().len();
    let r = create_topics(
        &mut c,
        Millis(2),
        7,
        &create("orders", -1, -1, &[("retention.ms", "1000")]),
    );
    let t = &r.topics[0];
    assert_eq!(
        (t.error_code, t.num_partitions, t.replication_factor),
        (0, Some(1), Some(1))
    );
    let configs = t.configs.clone().flatten().unwrap();
    let retention = configs.iter().find(|e| e.name.as_str() == "retention.ms");
    assert_eq!(
        retention.map(|e| (e.value.as_deref(), e.config_source)),
        Some((Some("1000"), 1))
    );
    // A TopicRecord (its id is the response's) then the creation config.
    let log = c.metadata_log();
    assert_eq!(log.len(), before + 2);
    assert_eq!(
        log[before].body,
        MetadataRecordBody::TopicRecord(TopicRecord {
            name: "orders".into(),
            topic_id: t.topic_id.unwrap(),
            ..Default::default()
        })
    );
    assert_ne!(t.topic_id, Some(Uuid::ZERO));
    assert_eq!(
        c.resource_configs(TOPIC, "orders"),
        cfg(&[("retention.ms", "1000")])
    );
    // An existing name, a bad partition count, a bad replication factor, an illegal name,
    // an unknown topic config: refused, nothing written.
    let len = c.metadata_log().len();
    for (req, code) in [
        (create("orders", 1, 1, &[]), ErrorCode::TOPIC_ALREADY_EXISTS),
        (create("t9", 0, 1, &[]), ErrorCode::INVALID_PARTITIONS),
        (
            create("t9", 1, 0, &[]),
            ErrorCode::INVALID_REPLICATION_FACTOR,
        ),
        (
            create("t9", 1, 2, &[]),
            ErrorCode::INVALID_REPLICATION_FACTOR,
        ),
        (create("a b", 1, 1, &[]), ErrorCode::INVALID_TOPIC_EXCEPTION),
        (
            create("t9", 1, 1, &[("no.such", "1")]),
            ErrorCode::INVALID_CONFIG,
        ),
    ] {
        let r = create_topics(&mut c, Millis(3), 7, &req);
        assert_eq!(r.topics[0].error_code, code.0, "{:?}", req.topics[0].name);
        assert!(r.topics[0].error_message.is_some());
    }
    let r = create_topics(&mut c, Millis(3), 7, &create("orders", 1, 1, &[]));
    assert_eq!(
        r.topics[0].error_message.as_deref(),
        Some("Topic 'orders' already exists.")
    );
    // ValidateOnly: answered as a success, nothing written.
    let mut v = create("t9", 1, 1, &[]);
    v.validate_only = true;
    assert_eq!(
        create_topics(&mut c, Millis(3), 7, &v).topics[0].error_code,
        0
    );
    assert_eq!(c.metadata_log().len(), len);
    assert!(!c.topic_exists("t9"));
    // Failover keeps every topic (setup and created) and the created topic's configs; the
    // wire round trip of the log changes nothing.
    let replayed =
        ControllerModel::replay(&p, defs(), &through_the_wire(c.metadata_log())).unwrap();
    assert_eq!(replayed.topics(), c.topics());
    assert_eq!(replayed.topics().len(), TOPICS.len() + 1);
    assert_eq!(
        replayed.resource_configs(TOPIC, "orders"),
        cfg(&[("retention.ms", "1000")])
    );
    // A RemoveTopicRecord removes the topic and its configs on replay.
    let mut log = c.metadata_log().to_vec();
    log.push(MetadataRecord {
        offset: log.len() as u64,
        version: 0,
        body: MetadataRecordBody::RemoveTopicRecord(RemoveTopicRecord {
            topic_id: t.topic_id.unwrap(),
            ..Default::default()
        }),
    });
    let removed = ControllerModel::replay(&p, defs(), &log).unwrap();
    assert!(!removed.topic_exists("orders"));
    assert!(removed.resource_configs(TOPIC, "orders").is_empty());
}
