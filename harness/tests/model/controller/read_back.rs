//! Read-back from the model on the wire, through the emulated controller's ApiVersions and
//! DescribeConfigs (`kipcheck::emulate::controller`), and topic existence.

use super::*;
use kipcheck::emulate::controller::{api_versions, describe_configs};

fn describe(rtype: i8, rname: &str, keys: Option<&[&str]>) -> DescribeConfigsRequest {
    DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: rtype,
            resource_name: rname.into(),
            configuration_keys: keys.map(|ks| ks.iter().map(|k| (*k).into()).collect()),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// (name, value, source) of every entry of the one result, or its error code.
fn described(
    c: &ControllerModel,
    version: i16,
    req: &DescribeConfigsRequest,
) -> Result<Vec<(String, Option<String>, i8)>, i16> {
    let resp = describe_configs(c, version, req);
    assert_eq!(resp.results.len(), 1);
    let r = &resp.results[0];
    assert_eq!(
        (r.resource_type, r.resource_name.as_str()),
        (
            req.resources[0].resource_type,
            req.resources[0].resource_name.as_str()
        )
    );
    if r.error_code != 0 {
        assert!(r.configs.is_empty());
        assert!(r.error_message.is_some());
        return Err(r.error_code);
    }
    Ok(r.configs
        .iter()
        .map(|e| {
            (
                e.name.to_string(),
                e.value.as_ref().map(|v| v.to_string()),
                e.config_source,
            )
        })
        .collect())
}

fn entry(name: &str, value: Option<&str>, source: i8) -> (String, Option<String>, i8) {
    (name.to_string(), value.map(str::to_string), source)
}

#[test]
fn api_versions_reports_the_finalized_metadata_version_and_the_read_back_apis() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 20);
    let a = api_versions(&c);
    let finalized = a.finalized_features.clone().unwrap();
    assert_eq!(finalized.len(), 1);
    assert_eq!(
        (
            finalized[0].name.as_str(),
            finalized[0].min_version_level,
            finalized[0].max_version_level
        ),
        ("metadata.version", 20, 20)
    );
    // The last record: the bootstrap FeatureLevelRecord, then one TopicRecord per topic.
    assert_eq!(a.finalized_features_epoch, Some(TOPICS.len() as i64));
    let ranges: Vec<(i16, i16, i16)> = a
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
            (64, 0, 0),
        ]
    );
    // A refused upgrade leaves the level; an accepted one moves it and the epoch.
    let refused = c.handle_update_features(Millis(1), 1, &mv_update(10, 1, false));
    assert_eq!(refused.error_code, ErrorCode::INVALID_UPDATE_VERSION.0);
    let a = api_versions(&c);
    assert_eq!(a.finalized_features.unwrap()[0].max_version_level, 20);
    // The last record: the bootstrap FeatureLevelRecord, then one TopicRecord per topic.
    assert_eq!(a.finalized_features_epoch, Some(TOPICS.len() as i64));
    let ok = c.handle_update_features(Millis(1), 1, &mv_update(30, 1, false));
    assert_eq!(ok.error_code, 0);
    let a = api_versions(&c);
    assert_eq!(a.finalized_features.unwrap()[0].max_version_level, 30);
    assert_eq!(a.finalized_features_epoch, Some(TOPICS.len() as i64 + 1));
}

#[test]
fn describe_configs_reads_back_dynamic_values_by_layer_as_a_controller() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 20);
    let keys: &[&str] = &["log.segment.bytes", "num.io.threads", "ssl.key.password"];
    // Nothing set: the definitions' defaults; passwords are null and sensitive.
    assert_eq!(
        described(&c, 4, &describe(BROKER, "1", Some(keys))),
        Ok(vec![
            entry("log.segment.bytes", Some("1073741824"), 5),
            entry("num.io.threads", Some("8"), 5),
            entry("ssl.key.password", None, 5),
        ])
    );
    let sensitive = describe_configs(&c, 4, &describe(BROKER, "1", Some(keys)));
    let flags: Vec<(bool, Option<i8>)> = sensitive.results[0]
        .configs
        .iter()
        .map(|e| (e.is_sensitive, e.config_type))
        .collect();
    assert_eq!(
        flags,
        vec![(false, Some(3)), (false, Some(3)), (true, Some(9))]
    );
    assert_eq!(
        described(&c, 4, &describe(BROKER, "", None)),
        Ok(Vec::new())
    );
    // A cluster default, then a per-broker value over it.
    let set_default = set("num.io.threads", Some("16"), 0);
    assert_eq!(inc_code(&mut c, BROKER, "", set_default), 0);
    let set_broker = set("log.segment.bytes", Some("2097152"), 0);
    assert_eq!(inc_code(&mut c, BROKER, "1", set_broker), 0);
    assert_eq!(
        described(&c, 4, &describe(BROKER, "1", Some(&keys[..2]))),
        Ok(vec![
            entry("log.segment.bytes", Some("2097152"), 2),
            entry("num.io.threads", Some("16"), 3),
        ])
    );
    assert_eq!(
        described(&c, 4, &describe(BROKER, "", Some(&[]))),
        Ok(vec![entry("num.io.threads", Some("16"), 3)])
    );
    // Topics: every topic definition; the dynamic value first.
    let set_topic = set("segment.bytes", Some("4194304"), 0);
    assert_eq!(inc_code(&mut c, TOPIC, "t", set_topic), 0);
    assert_eq!(
        described(&c, 4, &describe(TOPIC, "t", Some(&["segment.bytes"]))),
        Ok(vec![entry("segment.bytes", Some("4194304"), 1)])
    );
    let all = described(&c, 4, &describe(TOPIC, "u", None)).unwrap();
    assert_eq!(all.len(), defs().topic.len());
    assert!(all.iter().all(|(_, _, source)| *source == 5));
    // Another node's configs and unsupported resource types are refused.
    assert_eq!(
        described(&c, 4, &describe(BROKER, "2", None)),
        Err(ErrorCode::INVALID_REQUEST.0)
    );
    for rtype in [UNKNOWN, 8, 16, 32, 99] {
        assert_eq!(
            described(&c, 4, &describe(rtype, "x", None)),
            Err(ErrorCode::INVALID_REQUEST.0),
            "resource type {rtype}"
        );
    }
    // v1 has no ConfigType: the answer is projected.
    let v1 = describe_configs(&c, 1, &describe(BROKER, "1", Some(&keys[..1])));
    assert_eq!(v1.results[0].configs[0].config_type, None);
    assert_eq!(v1.to_bytes(1).map(|b| b.is_empty()), Ok(false));
    // The same answers after failover.
    let replayed =
        ControllerModel::replay(&p, defs(), &through_the_wire(c.metadata_log())).unwrap();
    for req in [
        describe(BROKER, "1", None),
        describe(BROKER, "", None),
        describe(TOPIC, "t", None),
    ] {
        assert_eq!(
            describe_configs(&replayed, 4, &req),
            describe_configs(&c, 4, &req)
        );
    }
}

#[test]
fn a_refused_or_validate_only_change_reads_back_unchanged() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 40);
    let keys: &[&str] = &["log.segment.bytes"];
    let before = described(&c, 4, &describe(BROKER, "1", Some(keys)));
    // MV violation at level 40 (needs 3 MiB).
    let refused = set("log.segment.bytes", Some("2097152"), 0);
    assert_eq!(
        inc_code(&mut c, BROKER, "1", refused),
        ErrorCode::INVALID_CONFIG.0
    );
    let valid = vec![set("log.segment.bytes", Some("4194304"), 0)];
    let validate_only = inc_req(BROKER, "1", valid, true);
    let resp = c.handle_incremental_alter_configs(Millis(2), 1, &validate_only);
    assert_eq!(resp.responses[0].error_code, 0);
    assert_eq!(described(&c, 4, &describe(BROKER, "1", Some(keys))), before);
}

#[test]
fn a_topic_exists_only_once_created_and_alters_of_a_missing_topic_write_nothing() {
    let p = SpecProfile::default();
    let model = ControllerModel::new(&p, defs(), 20, Millis(0));
    let mut c = with_topics(
        model,
        Millis(0),
        &["orders".to_string(), "orders".to_string()],
    );
    // One TopicRecord per distinct setup topic, right after the bootstrap record.
    assert_eq!(c.metadata_log().len(), 2);
    let MetadataRecordBody::TopicRecord(t) = &c.metadata_log()[1].body else {
        panic!("{:?}", c.metadata_log()[1]);
    };
    assert_eq!(t.name.as_str(), "orders");
    assert_eq!(c.topics().get("orders"), Some(&t.topic_id));
    assert!(c.topic_exists("orders") && !c.topic_exists("missing"));
    // IncrementalAlterConfigs and AlterConfigs of a missing topic: per-resource
    // UNKNOWN_TOPIC_OR_PARTITION with Kafka's message, nothing written.
    let r = c.handle_incremental_alter_configs(
        Millis(1),
        1,
        &inc_req(
            TOPIC,
            "missing",
            vec![set("retention.ms", Some("1"), 0)],
            false,
        ),
    );
    assert_eq!(
        (
            r.responses[0].error_code,
            r.responses[0].error_message.as_deref()
        ),
        (3, Some("The topic 'missing' does not exist."))
    );
    let legacy = AlterConfigsRequest {
        resources: vec![legacy::AlterConfigsResource {
            resource_type: TOPIC,
            resource_name: "missing".into(),
            configs: vec![legacy::AlterableConfig {
                name: "retention.ms".into(),
                value: Some("1".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(
        c.handle_alter_configs(Millis(1), 2, &legacy).responses[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0
    );
    // An invalid value on a missing topic is refused for its value (the profile's
    // `incremental_invalid_value` code, INVALID_REQUEST by default): Kafka validates before
    // it checks existence.
    assert_eq!(
        inc_code(&mut c, TOPIC, "missing", set("segment.bytes", Some("x"), 0)),
        ErrorCode::INVALID_REQUEST.0
    );
    assert_eq!(c.metadata_log().len(), 2);
    // DescribeConfigs: UNKNOWN_TOPIC_OR_PARTITION, no configs, an empty message (as Kafka 4.4).
    let d = describe_configs(
        &c,
        4,
        &DescribeConfigsRequest {
            resources: vec![DescribeConfigsResource {
                resource_type: TOPIC,
                resource_name: "missing".into(),
                configuration_keys: None,
                ..Default::default()
            }],
            ..Default::default()
        },
    );
    assert_eq!(
        (
            d.results[0].error_code,
            d.results[0].error_message.as_deref(),
            d.results[0].configs.len()
        ),
        (3, Some(""), 0)
    );
}
