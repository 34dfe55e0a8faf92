//! The emulated cluster's Metadata answer (`kipcheck serve`, `client-cmd:`): known topics,
//! auto-creation as Kafka's default broker does it, and the names that can never be topics.

use kipcheck::codec::generated::metadata_request::MetadataRequestTopic;
use kipcheck::codec::{ErrorCode, MetadataRequest, MetadataResponse};
use kipcheck::emulate::{is_valid_topic_name, metadata_answer, MetadataBroker, TopicCatalog};

fn brokers() -> Vec<MetadataBroker> {
    vec![
        MetadataBroker {
            node_id: 7,
            host: "127.0.0.1".into(),
            port: 9001,
        },
        MetadataBroker {
            node_id: 8,
            host: "127.0.0.1".into(),
            port: 9002,
        },
    ]
}

fn ask(names: Option<&[&str]>, allow: bool, auto_create: bool) -> MetadataResponse {
    let known = vec!["kipcheck-topic".to_owned()];
    let req = MetadataRequest {
        topics: names.map(|ns| {
            ns.iter()
                .map(|n| MetadataRequestTopic {
                    name: Some((*n).into()),
                    ..Default::default()
                })
                .collect()
        }),
        allow_auto_topic_creation: Some(allow),
        ..Default::default()
    };
    metadata_answer(
        &brokers(),
        &TopicCatalog {
            known: &known,
            auto_create,
        },
        &req,
    )
}

/// (name, error code, partition count) of each topic in the answer, in order.
fn topics(r: &MetadataResponse) -> Vec<(String, i16, usize)> {
    r.topics
        .iter()
        .map(|t| {
            (
                t.name.as_ref().unwrap().to_string(),
                t.error_code,
                t.partitions.len(),
            )
        })
        .collect()
}

#[test]
fn null_topic_list_lists_the_known_topics_led_by_the_first_broker() {
    let r = ask(None, true, true);
    assert_eq!(topics(&r), vec![("kipcheck-topic".to_owned(), 0, 1)]);
    assert_eq!(r.topics[0].partitions[0].leader_id, 7);
    assert_eq!(r.controller_id, Some(7));
    assert_eq!(
        r.brokers
            .iter()
            .map(|b| (b.node_id, b.port))
            .collect::<Vec<_>>(),
        [(7, 9001), (8, 9002)]
    );
}

#[test]
fn a_requested_unknown_topic_is_auto_created_when_both_sides_allow_it() {
    let r = ask(Some(&["kipcheck-interop", "kipcheck-topic"]), true, true);
    assert_eq!(
        topics(&r),
        vec![
            ("kipcheck-interop".to_owned(), 0, 1),
            ("kipcheck-topic".to_owned(), 0, 1)
        ]
    );
    assert_ne!(r.topics[0].topic_id, Some(kipcheck::codec::Uuid([0; 16])));
}

#[test]
fn no_auto_creation_when_the_request_or_the_cluster_forbids_it() {
    let unknown = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0;
    assert_eq!(
        topics(&ask(Some(&["new"]), false, true)),
        vec![("new".to_owned(), unknown, 0)]
    );
    assert_eq!(
        topics(&ask(Some(&["new"]), true, false)),
        vec![("new".to_owned(), unknown, 0)]
    );
    assert_eq!(
        ask(Some(&["new"]), true, false).topics[0].topic_id,
        Some(kipcheck::codec::Uuid([0; 16]))
    );
}

#[test]
fn an_invalid_name_is_never_created() {
    let invalid = ErrorCode::INVALID_TOPIC_EXCEPTION.0;
    assert_eq!(
        topics(&ask(Some(&["..", "a b", ""]), true, true)),
        vec![
            ("..".to_owned(), invalid, 0),
            ("a b".to_owned(), invalid, 0),
            (String::new(), invalid, 0)
        ]
    );
}

#[test]
fn topic_name_rule_is_kafkas() {
    assert!(is_valid_topic_name("a.b_c-D9"));
    assert!(is_valid_topic_name(&"x".repeat(249)));
    assert!(!is_valid_topic_name(&"x".repeat(250)));
    assert!(!is_valid_topic_name("."));
    assert!(!is_valid_topic_name(".."));
    assert!(!is_valid_topic_name("é"));
    assert!(!is_valid_topic_name(""));
}
