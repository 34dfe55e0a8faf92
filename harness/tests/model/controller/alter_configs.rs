//! AlterConfigs / IncrementalAlterConfigs.

use super::*;

#[test]
fn mv_validator_failure_is_per_resource_invalid_config() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 40);
    let mut req = inc_req(
        TOPIC,
        "t1",
        vec![set("segment.bytes", Some("2097152"), 0)],
        false,
    );
    req.resources.push(inc::AlterConfigsResource {
        resource_type: TOPIC,
        resource_name: "t2".into(),
        configs: vec![set("segment.bytes", Some("4194304"), 0)],
        ..Default::default()
    });
    let resp = c.handle_incremental_alter_configs(Millis(0), 1, &req);
    assert_eq!(resp.responses[0].error_code, 40);
    let msg = resp.responses[0].error_message.clone().unwrap();
    assert!(
        msg.contains("segment.bytes")
            && msg.contains("at least 3145728")
            && msg.contains("level 40"),
        "{msg}"
    );
    assert_eq!(resp.responses[1].error_code, 0);
    assert!(c.resource_configs(TOPIC, "t1").is_empty());
    assert_eq!(c.resource_configs(TOPIC, "t2")["segment.bytes"], "4194304");
    // Below the lowest MV key only the static validator (≥ 14) applies; its failure is the
    // KIP-1256 code of the profile (default INVALID_REQUEST).
    let mut c = controller(&p, 39);
    assert_eq!(
        inc_code(&mut c, TOPIC, "t", set("segment.bytes", Some("100"), 0)),
        0
    );
    assert_eq!(
        inc_code(&mut c, TOPIC, "t", set("segment.bytes", Some("10"), 0)),
        42
    );
}

#[test]
fn incremental_non_mv_value_failures_follow_the_profile_reading() {
    for (reading, code) in [
        (IncrementalInvalidValue::InvalidRequest, 42),
        (IncrementalInvalidValue::InvalidConfig, 40),
    ] {
        let p = SpecProfile {
            incremental_invalid_value: reading,
            ..SpecProfile::default()
        };
        let mut c = controller(&p, 40);
        for (rtype, name, value, message) in [
            (
                TOPIC,
                "segment.bytes",
                "10",
                "Invalid value 10 for configuration segment.bytes: Value must be at least 14",
            ),
            (
                BROKER,
                "log.segment.bytes",
                "lots",
                "Invalid value lots for configuration log.segment.bytes: not a valid INT",
            ),
            (
                TOPIC,
                "no.such.config",
                "1",
                "Unknown topic config name: no.such.config",
            ),
        ] {
            let r = c.handle_incremental_alter_configs(
                Millis(0),
                1,
                &inc_req(rtype, "1", vec![set(name, Some(value), 0)], false),
            );
            assert_eq!(
                (
                    r.responses[0].error_code,
                    r.responses[0].error_message.as_deref()
                ),
                (code, Some(message)),
                "{reading:?} {name}"
            );
        }
        // An MV-aware validator failure is INVALID_CONFIG under both readings (KIP-1294).
        assert_eq!(
            inc_code(&mut c, TOPIC, "t", set("segment.bytes", Some("2097152"), 0)),
            40
        );
        // Legacy AlterConfigs is outside KIP-1256: INVALID_CONFIG under both.
        let legacy_req = AlterConfigsRequest {
            resources: vec![legacy::AlterConfigsResource {
                resource_type: TOPIC,
                resource_name: "t".into(),
                configs: vec![legacy::AlterableConfig {
                    name: "segment.bytes".into(),
                    value: Some("10".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            c.handle_alter_configs(Millis(0), 2, &legacy_req).responses[0].error_code,
            40
        );
        // The bootstrap FeatureLevelRecord and one TopicRecord per setup topic, nothing else.
        assert_eq!(c.metadata_log().len(), 1 + TOPICS.len(), "nothing written");
    }
}

#[test]
fn kip_1256_cases_are_invalid_request() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 1);
    let cases = [
        inc_req(TOPIC, "t", vec![set("retention.ms", None, 0)], false),
        inc_req(TOPIC, "t", vec![set("retention.ms", None, 2)], false),
        inc_req(
            TOPIC,
            "t",
            vec![
                set("retention.ms", Some("1"), 0),
                set("retention.ms", Some("2"), 0),
            ],
            false,
        ),
        inc_req(UNKNOWN, "t", vec![set("retention.ms", Some("1"), 0)], false),
        inc_req(TOPIC, "t", vec![set("retention.ms", Some("1"), 9)], false),
    ];
    for req in cases {
        let r = c.handle_incremental_alter_configs(Millis(0), 1, &req);
        assert_eq!(r.responses[0].error_code, 42, "{req:?}");
        assert!(r.responses[0].error_message.is_some());
    }
    // DELETE with a null value is fine.
    assert_eq!(
        inc_code(&mut c, TOPIC, "t", set("retention.ms", None, 1)),
        0
    );
    c.check_invariants().unwrap();
}

#[test]
fn legacy_alter_configs_is_outside_kip_1256() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 1);
    let legacy_req = |rtype: i8, rname: &str, configs: &[(&str, &str)]| AlterConfigsRequest {
        resources: vec![legacy::AlterConfigsResource {
            resource_type: rtype,
            resource_name: rname.into(),
            configs: configs
                .iter()
                .map(|(n, v)| legacy::AlterableConfig {
                    name: (*n).into(),
                    value: Some((*v).into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let answer = |c: &mut ControllerModel, req: &AlterConfigsRequest| {
        let r = &c.handle_alter_configs(Millis(0), 2, req).responses[0];
        (
            r.error_code,
            r.error_message.as_ref().map(|m| m.to_string()),
        )
    };
    // A duplicate key: the last value wins.
    let dup = legacy_req(TOPIC, "t", &[("retention.ms", "1"), ("retention.ms", "2")]);
    assert_eq!(answer(&mut c, &dup), (0, None));
    assert_eq!(
        c.resource_configs(TOPIC, "t"),
        cfg(&[("retention.ms", "2")])
    );
    // Another node's BROKER resource is accepted (the controller's own id is 1).
    let remote = legacy_req(BROKER, "7", &[("log.segment.bytes", "4194304")]);
    assert_eq!(answer(&mut c, &remote), (0, None));
    assert_eq!(
        c.resource_configs(BROKER, "7"),
        cfg(&[("log.segment.bytes", "4194304")])
    );
    // An unknown resource type is refused as Kafka's controller does: UNSUPPORTED_VERSION.
    let unknown = legacy_req(UNKNOWN, "t", &[("retention.ms", "1")]);
    assert_eq!(
        answer(&mut c, &unknown),
        (35, Some("Unknown resource type 0.".into()))
    );
    c.check_invariants().unwrap();
}

#[test]
fn validate_only_changes_nothing() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 1);
    let before = c.metadata_log().len();
    let r = c.handle_incremental_alter_configs(
        Millis(0),
        1,
        &inc_req(TOPIC, "t", vec![set("retention.ms", Some("5"), 0)], true),
    );
    assert_eq!(r.responses[0].error_code, 0);
    assert_eq!(c.metadata_log().len(), before);
    assert!(c.resource_configs(TOPIC, "t").is_empty());
    assert!(c.events().iter().any(|e| e.event
        == Event::AlterConfigsAccepted {
            resource_type: TOPIC,
            resource_name: "t".into(),
            validate_only: true
        }));
}

#[test]
fn legacy_alter_configs_replaces_the_whole_set() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 1);
    c.handle_incremental_alter_configs(
        Millis(0),
        1,
        &inc_req(
            TOPIC,
            "t",
            vec![
                set("retention.ms", Some("5"), 0),
                set("min.insync.replicas", Some("2"), 0),
            ],
            false,
        ),
    );
    let req = AlterConfigsRequest {
        resources: vec![legacy::AlterConfigsResource {
            resource_type: TOPIC,
            resource_name: "t".into(),
            configs: vec![legacy::AlterableConfig {
                name: "retention.ms".into(),
                value: Some("7".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(
        c.handle_alter_configs(Millis(0), 1, &req).responses[0].error_code,
        0
    );
    assert_eq!(
        c.resource_configs(TOPIC, "t"),
        cfg(&[("retention.ms", "7")])
    );
    c.check_invariants().unwrap();
}

#[test]
fn append_and_subtract_work_on_lists_only() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 1);
    assert_eq!(
        inc_code(
            &mut c,
            TOPIC,
            "t",
            set("cleanup.policy", Some("compact"), 2)
        ),
        0
    );
    assert_eq!(
        c.resource_configs(TOPIC, "t")["cleanup.policy"],
        "delete,compact"
    );
    c.handle_incremental_alter_configs(
        Millis(0),
        1,
        &inc_req(
            TOPIC,
            "t",
            vec![set("cleanup.policy", Some("delete"), 3)],
            false,
        ),
    );
    assert_eq!(c.resource_configs(TOPIC, "t")["cleanup.policy"], "compact");
    assert_eq!(
        inc_code(&mut c, TOPIC, "t", set("retention.ms", Some("1"), 2)),
        40
    );
    assert_eq!(
        inc_code(&mut c, TOPIC, "t", set("cleanup.policy", Some("bogus"), 2)),
        42,
        "static validator: the profile's KIP-1256 code"
    );
    assert_eq!(
        inc_code(
            &mut c,
            TOPIC,
            "t",
            set("no.such.topic.config", Some("1"), 0)
        ),
        42
    );
    assert_eq!(
        inc_code(
            &mut c,
            BROKER,
            "",
            set("my.custom.broker.thing", Some("1"), 0)
        ),
        0
    );
}
