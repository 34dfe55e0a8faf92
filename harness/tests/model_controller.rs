//! Controller behaviour of the reference model (KIP-1326 registration and persistence,
//! KIP-1294 MV-aware validation and audits, KIP-1256 request checks), through its public API.

mod model_support;

use kipcheck::codec::broker_registration_request::StaticConfig;
use kipcheck::codec::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use kipcheck::codec::describe_configs_request::DescribeConfigsResource;
use kipcheck::codec::incremental_alter_configs_request as inc;
use kipcheck::codec::update_features_request::FeatureUpdateKey;
use kipcheck::codec::{
    alter_configs_request as legacy, AlterConfigsRequest, CreateTopicsRequest,
    DescribeClusterRequest, DescribeConfigsRequest, ErrorCode, IncrementalAlterConfigsRequest,
    Message, MetadataRecordBody, RemoveTopicRecord, TopicRecord, UnregisterBrokerRecord,
    UnregisterBrokerRequest, UpdateFeaturesRequest, Uuid,
};
use kipcheck::model::server_config::resource_type::{BROKER, TOPIC, UNKNOWN};
use kipcheck::model::{
    AuditDirection, BrokerModel, BrokerSettings, ControllerModel, Event, IncrementalInvalidValue,
    MetadataRecord, Millis, RegistrationRejection, Reregistration, ServerConfigDefs, SpecProfile,
    UpdateFeaturesPrecedence, Validator,
};
use model_support::cfg;

const MIB: f64 = 1048576.0;

/// Definitions where log.segment.bytes and segment.bytes need ≥ 3 MiB from level 40.
fn defs() -> ServerConfigDefs {
    ServerConfigDefs::default()
        .with_mv_validator("log.segment.bytes", 40, Validator::AtLeast(3.0 * MIB))
        .with_mv_validator("segment.bytes", 40, Validator::AtLeast(3.0 * MIB))
}

/// The topics these tests alter and describe: they exist from bootstrap (offsets 1-4).
const TOPICS: [&str; 4] = ["t", "t1", "t2", "u"];

fn controller(profile: &SpecProfile, level: i16) -> ControllerModel {
    let topics: Vec<String> = TOPICS.iter().map(|t| t.to_string()).collect();
    ControllerModel::new(profile, defs(), level, Millis(0)).with_topics(Millis(0), &topics)
}

fn broker(id: i32, props: &[(&str, &str)]) -> BrokerModel {
    let mut s = BrokerSettings::new(id);
    s.server_properties = cfg(props);
    BrokerModel::new(s, &SpecProfile::default()).unwrap()
}

fn register(c: &mut ControllerModel, b: &BrokerModel) -> i16 {
    let (v, req) = b.registration_request(c_max());
    c.handle_broker_registration(Millis(1), v, &req).error_code
}

fn c_max() -> i16 {
    kipcheck::model::controller::MAX_BROKER_REGISTRATION_VERSION
}

fn set(name: &str, value: Option<&str>, op: i8) -> inc::AlterableConfig {
    inc::AlterableConfig {
        name: name.into(),
        config_operation: op,
        value: value.map(Into::into),
        ..Default::default()
    }
}

fn inc_req(
    rtype: i8,
    rname: &str,
    configs: Vec<inc::AlterableConfig>,
    validate_only: bool,
) -> IncrementalAlterConfigsRequest {
    IncrementalAlterConfigsRequest {
        resources: vec![inc::AlterConfigsResource {
            resource_type: rtype,
            resource_name: rname.into(),
            configs,
            ..Default::default()
        }],
        validate_only,
        ..Default::default()
    }
}

/// The error code of a one-resource, one-config IncrementalAlterConfigs (not validate-only).
fn inc_code(c: &mut ControllerModel, rtype: i8, rname: &str, config: inc::AlterableConfig) -> i16 {
    c.handle_incremental_alter_configs(Millis(0), 1, &inc_req(rtype, rname, vec![config], false))
        .responses[0]
        .error_code
}

fn mv_update(level: i16, upgrade_type: i8, validate_only: bool) -> UpdateFeaturesRequest {
    UpdateFeaturesRequest {
        timeout_ms: 60000,
        feature_updates: vec![FeatureUpdateKey {
            feature: "metadata.version".into(),
            max_version_level: level,
            upgrade_type: Some(upgrade_type),
            ..Default::default()
        }],
        validate_only: Some(validate_only),
        ..Default::default()
    }
}

/// Encodes and decodes every record at its version: what another controller would read.
fn through_the_wire(log: &[MetadataRecord]) -> Vec<MetadataRecord> {
    log.iter()
        .map(|r| {
            let bytes = r.body.to_bytes(r.version).unwrap();
            let body = MetadataRecordBody::decode(
                r.body.api_key(),
                &mut kipcheck::codec::Reader::new(&bytes),
                r.version,
            )
            .unwrap();
            MetadataRecord {
                offset: r.offset,
                version: r.version,
                body,
            }
        })
        .collect()
}

// ----- registration and persistence -----

#[test]
fn below_the_persistence_level_static_configs_stay_in_memory_only() {
    let p = SpecProfile::default();
    let mut c = controller(&p, p.static_config_persistence_level - 1);
    assert_eq!(register(&mut c, &broker(1, &[])), 0);
    assert_eq!(c.brokers()[&1].static_configs.len(), 8);
    assert!(!c.brokers()[&1].static_configs_persisted);
    let rec = c.metadata_log().last().unwrap();
    assert_eq!(rec.version, 4);
    let MetadataRecordBody::RegisterBrokerRecord(r) = &rec.body else {
        panic!()
    };
    assert_eq!(r.static_configs, None);
    let failover =
        ControllerModel::replay(&p, defs(), &through_the_wire(c.metadata_log())).unwrap();
    assert!(
        failover.brokers()[&1].static_configs.is_empty(),
        "lost on failover until re-registration"
    );
    c.check_invariants().unwrap();
}

#[test]
fn at_the_persistence_level_static_configs_go_into_register_broker_record_v5_and_survive_failover()
{
    let p = SpecProfile::default();
    let mut c = controller(&p, p.static_config_persistence_level);
    assert_eq!(
        register(&mut c, &broker(1, &[("log.segment.bytes", "2097152")])),
        0
    );
    let rec = c.metadata_log().last().unwrap();
    assert_eq!(rec.version, 5);
    let MetadataRecordBody::RegisterBrokerRecord(r) = &rec.body else {
        panic!()
    };
    let statics = r.static_configs.as_ref().unwrap();
    assert!(statics
        .iter()
        .any(|s| s.name == "log.segment.bytes" && s.value.as_deref() == Some("2097152")));
    // Tag 2 is on the wire.
    let bytes = rec.body.to_bytes(5).unwrap();
    assert!(bytes.windows(17).any(|w| w == b"log.segment.bytes"));
    let failover =
        ControllerModel::replay(&p, defs(), &through_the_wire(c.metadata_log())).unwrap();
    assert_eq!(
        failover.brokers()[&1].static_configs,
        c.brokers()[&1].static_configs
    );
    assert_eq!(failover.brokers()[&1].epoch, c.brokers()[&1].epoch);
    assert_eq!(failover.metadata_version(), c.metadata_version());
}

#[test]
fn persistence_level_is_a_profile_parameter() {
    let p = SpecProfile {
        static_config_persistence_level: 10,
        ..SpecProfile::default()
    };
    let mut c = controller(&p, 10);
    register(&mut c, &broker(1, &[]));
    assert!(c.brokers()[&1].static_configs_persisted);
}

#[test]
fn registration_below_v6_reports_no_static_configs_and_duplicates_last_wins() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 50);
    let (_, req) = broker(1, &[]).registration_request(5);
    assert_eq!(
        c.handle_broker_registration(Millis(0), 5, &req).error_code,
        0
    );
    assert!(c.brokers()[&1].static_configs.is_empty());
    let (_, mut req) = broker(2, &[]).registration_request(6);
    let dup = |v: &str| StaticConfig {
        name: "num.partitions".into(),
        value: Some(v.into()),
        ..Default::default()
    };
    req.static_configs = Some(vec![dup("1"), dup("7")]);
    c.handle_broker_registration(Millis(0), 6, &req);
    assert_eq!(
        c.brokers()[&2].static_configs["num.partitions"].as_deref(),
        Some("7")
    );
}

#[test]
fn registration_audit_rejects_static_configs_that_violate_the_current_level() {
    for (rejection, code) in [
        (RegistrationRejection::InvalidRegistration, 119),
        (RegistrationRejection::InvalidConfig, 40),
    ] {
        let p = SpecProfile {
            registration_rejection: rejection,
            ..SpecProfile::default()
        };
        let mut c = controller(&p, 40);
        let before = c.metadata_log().len();
        assert_eq!(
            register(&mut c, &broker(1, &[("log.segment.bytes", "2097152")])),
            code
        );
        assert_eq!(c.metadata_log().len(), before, "nothing written");
        assert!(c.brokers().is_empty());
        let rejected = c.events().iter().any(|e| {
            matches!(&e.event, Event::RegistrationRejected { message, .. }
                if message.contains("log.segment.bytes"))
        });
        assert!(rejected);
        // Floor semantics: at level 39 no MV validator applies.
        let mut c = controller(&p, 39);
        assert_eq!(
            register(&mut c, &broker(1, &[("log.segment.bytes", "2097152")])),
            0
        );
    }
}

#[test]
fn a_null_static_value_skips_validation() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 40);
    let (_, mut req) = broker(1, &[]).registration_request(6);
    req.static_configs = Some(vec![StaticConfig {
        name: "log.segment.bytes".into(),
        value: None,
        ..Default::default()
    }]);
    assert_eq!(
        c.handle_broker_registration(Millis(0), 6, &req).error_code,
        0
    );
}

// ----- AlterConfigs / IncrementalAlterConfigs -----

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

// ----- UpdateFeatures audit -----

#[test]
fn upgrade_audits_dynamic_and_static_configs_against_the_target_level() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 39);
    register(&mut c, &broker(1, &[("log.segment.bytes", "2097152")]));
    c.handle_incremental_alter_configs(
        Millis(0),
        1,
        &inc_req(
            TOPIC,
            "t",
            vec![set("segment.bytes", Some("1048576"), 0)],
            false,
        ),
    );
    let before = c.metadata_log().len();
    for version in [0, 1, 2] {
        let mut req = mv_update(40, 1, false);
        if version == 0 {
            req.feature_updates[0].upgrade_type = None;
            req.validate_only = None;
        }
        let r = c.handle_update_features(Millis(0), version, &req.project(version));
        assert_eq!(r.error_code, 40, "v{version}");
        let msg = r.error_message.unwrap();
        assert!(
            msg.contains("broker 1 static config") && msg.contains("log.segment.bytes"),
            "{msg}"
        );
        assert!(
            msg.contains("resource 2:t config") && msg.contains("segment.bytes"),
            "{msg}"
        );
        assert_eq!(
            r.results.map(|v| v.len()),
            if version < 2 { Some(0) } else { None }
        );
    }
    assert_eq!(c.metadata_log().len(), before);
    assert_eq!(c.metadata_version(), 39);
}

#[test]
fn validate_only_audits_without_writing_and_success_appends_a_feature_level_record() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 39);
    register(&mut c, &broker(1, &[("log.segment.bytes", "4194304")]));
    let before = c.metadata_log().len();
    let r = c.handle_update_features(Millis(0), 1, &mv_update(40, 1, true));
    assert_eq!(r.error_code, 0);
    assert_eq!(c.metadata_log().len(), before);
    let audited = c.events().iter().any(|e| {
        matches!(&e.event, Event::MetadataVersionAudit { from: 39, to: 40, violations }
            if violations.is_empty())
    });
    assert!(audited);
    let r = c.handle_update_features(Millis(5), 1, &mv_update(40, 1, false));
    assert_eq!(r.error_code, 0);
    assert_eq!(r.results.unwrap()[0].feature, "metadata.version");
    let MetadataRecordBody::FeatureLevelRecord(f) = &c.metadata_log().last().unwrap().body else {
        panic!()
    };
    assert_eq!((f.name.as_str(), f.feature_level), ("metadata.version", 40));
    assert_eq!(c.metadata_version(), 40);
    c.check_invariants().unwrap();
    // The event log serializes (scenario reports store it as JSON).
    let json = serde_json::to_string(c.events()).unwrap();
    assert!(
        json.contains("\"event\":\"record_appended\"")
            && json.contains("\"event\":\"metadata_version_audit\"")
    );
    let accepted: Vec<bool> = c
        .events()
        .iter()
        .filter_map(|e| match &e.event {
            Event::FeatureUpdateAccepted {
                updates,
                validate_only,
            } => {
                assert_eq!(updates, &vec![("metadata.version".to_string(), 40)]);
                Some(*validate_only)
            }
            _ => None,
        })
        .collect();
    assert_eq!(accepted, [true, false]);
}

#[test]
fn downgrade_audit_direction_is_a_profile_reading() {
    // A value written while no MV validator existed; the new binary's definitions require
    // ≥ 3 MiB from level 45. Downgrading 50 → 46 targets the level-45 validator.
    let strict = || {
        ServerConfigDefs::default().with_mv_validator(
            "segment.bytes",
            45,
            Validator::AtLeast(3.0 * MIB),
        )
    };
    for (direction, code) in [(AuditDirection::Both, 40), (AuditDirection::UpgradeOnly, 0)] {
        let p = SpecProfile {
            audit_direction: direction,
            ..SpecProfile::default()
        };
        let mut old = ControllerModel::new(&p, ServerConfigDefs::default(), 50, Millis(0))
            .with_topics(Millis(0), &["t".to_string()]);
        old.handle_incremental_alter_configs(
            Millis(0),
            1,
            &inc_req(
                TOPIC,
                "t",
                vec![set("segment.bytes", Some("100"), 0)],
                false,
            ),
        );
        let mut c = ControllerModel::replay(&p, strict(), old.metadata_log()).unwrap();
        let r = c.handle_update_features(Millis(0), 1, &mv_update(46, 2, false));
        assert_eq!(r.error_code, code, "{direction:?}");
        // Upgrades are audited under both readings.
        let mut c = ControllerModel::replay(&p, strict(), old.metadata_log()).unwrap();
        c.handle_update_features(Millis(0), 1, &mv_update(44, 3, false));
        c.handle_incremental_alter_configs(
            Millis(0),
            1,
            &inc_req(
                TOPIC,
                "u",
                vec![set("segment.bytes", Some("100"), 0)],
                false,
            ),
        );
        assert_eq!(
            c.handle_update_features(Millis(0), 1, &mv_update(45, 1, false))
                .error_code,
            40,
            "{direction:?}"
        );
    }
}

#[test]
fn invalid_update_version_or_invalid_config_first_is_a_profile_reading() {
    let defs = ServerConfigDefs::default()
        .with_mv_validator("log.segment.bytes", 10, Validator::AtLeast(3.0 * MIB))
        .with_mv_validator("log.segment.bytes", 30, Validator::AtLeast(MIB));
    for (precedence, code) in [
        (UpdateFeaturesPrecedence::InvalidUpdateVersion, 95),
        (UpdateFeaturesPrecedence::InvalidConfig, 40),
    ] {
        let p = SpecProfile {
            update_features_precedence: precedence,
            ..SpecProfile::default()
        };
        let mut c = ControllerModel::new(&p, defs.clone(), 40, Millis(0));
        assert_eq!(
            inc_code(
                &mut c,
                BROKER,
                "1",
                set("log.segment.bytes", Some("2097152"), 0)
            ),
            0
        );
        // 40 → 20 without a downgrade type, and 2 MiB violates level 20's atLeast 3 MiB.
        let r = c.handle_update_features(Millis(1), 1, &mv_update(20, 1, false));
        assert_eq!(r.error_code, code, "{precedence:?}");
        assert_eq!(c.metadata_version(), 40);
    }
}

#[test]
fn reregistration_replaces_or_merges_static_configs_per_profile() {
    for (reading, held_after, upgrade_code) in [
        (Reregistration::Replace, 0, 0),
        (Reregistration::Merge, 1, 40),
    ] {
        let p = SpecProfile {
            reregistration: reading,
            ..SpecProfile::default()
        };
        let mut c = controller(&p, 30);
        let b = broker(1, &[("log.segment.bytes", "2097152")]);
        assert_eq!(register(&mut c, &b), 0);
        assert_eq!(
            c.brokers()[&1].static_configs.get("log.segment.bytes"),
            Some(&Some("2097152".to_string()))
        );
        // Re-registration at v5 carries no StaticConfigs.
        let (v, req) = b.registration_request(5);
        assert_eq!(
            c.handle_broker_registration(Millis(2), v, &req).error_code,
            0
        );
        let held = &c.brokers()[&1].static_configs;
        assert_eq!(
            held.contains_key("log.segment.bytes") as usize,
            held_after,
            "{reading:?}"
        );
        // Only a held 2 MiB violates level 40's atLeast 3 MiB.
        let r = c.handle_update_features(Millis(3), 1, &mv_update(40, 1, false));
        assert_eq!(r.error_code, upgrade_code, "{reading:?}");
        c.check_invariants().unwrap();
    }
}

#[test]
fn downgrade_needs_a_downgrade_type() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 40);
    assert_eq!(
        c.handle_update_features(Millis(0), 1, &mv_update(39, 1, false))
            .error_code,
        95
    );
    assert_eq!(
        c.handle_update_features(Millis(0), 1, &mv_update(39, 2, false))
            .error_code,
        0
    );
    assert_eq!(c.metadata_version(), 39);
    assert_eq!(
        c.handle_update_features(Millis(0), 1, &mv_update(0, 3, false))
            .error_code,
        95
    );
    let dup = UpdateFeaturesRequest {
        feature_updates: vec![mv_update(41, 1, false).feature_updates[0].clone(); 2],
        ..Default::default()
    };
    assert_eq!(
        c.handle_update_features(Millis(0), 1, &dup).error_code,
        ErrorCode::INVALID_REQUEST.0
    );
}

#[test]
fn replay_rejects_a_log_with_gaps_or_without_metadata_version() {
    let p = SpecProfile::default();
    let c = controller(&p, 1);
    let mut log = c.metadata_log().to_vec();
    log[0].offset = 3;
    assert!(ControllerModel::replay(&p, defs(), &log).is_err());
    assert!(ControllerModel::replay(&p, defs(), &[]).is_err());
}

// ----- read-back: ApiVersions, DescribeConfigs, DescribeCluster, UnregisterBroker -----

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
    let resp = c.handle_describe_configs(version, req);
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
    let a = c.api_versions_response();
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
            (64, 0, 0)
        ]
    );
    // A refused upgrade leaves the level; an accepted one moves it and the epoch.
    let refused = c.handle_update_features(Millis(1), 1, &mv_update(10, 1, false));
    assert_eq!(refused.error_code, ErrorCode::INVALID_UPDATE_VERSION.0);
    let a = c.api_versions_response();
    assert_eq!(a.finalized_features.unwrap()[0].max_version_level, 20);
    // The last record: the bootstrap FeatureLevelRecord, then one TopicRecord per topic.
    assert_eq!(a.finalized_features_epoch, Some(TOPICS.len() as i64));
    let ok = c.handle_update_features(Millis(1), 1, &mv_update(30, 1, false));
    assert_eq!(ok.error_code, 0);
    let a = c.api_versions_response();
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
    let sensitive = c.handle_describe_configs(4, &describe(BROKER, "1", Some(keys)));
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
    let v1 = c.handle_describe_configs(1, &describe(BROKER, "1", Some(&keys[..1])));
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
            replayed.handle_describe_configs(4, &req),
            c.handle_describe_configs(4, &req)
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
fn describe_cluster_on_a_controller_lists_controllers_only() {
    let p = SpecProfile::default();
    let c = controller(&p, 20).with_node_id(3);
    let req = |version: i16, endpoint: Option<i8>| DescribeClusterRequest {
        endpoint_type: endpoint,
        include_fenced_brokers: (version >= 2).then_some(false),
        ..Default::default()
    };
    let ok = c.handle_describe_cluster(2, &req(2, Some(2)));
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
        .map(|(v, e)| c.handle_describe_cluster(v, &req(v, e)).error_code)
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
    let r = c.handle_unregister_broker(Millis(2), 0, &unregister(1));
    assert_eq!(r.error_code, ErrorCode::BROKER_ID_NOT_REGISTERED.0);
    assert_eq!(c.metadata_log().len(), 1 + TOPICS.len());
    // A registered broker is removed by an UnregisterBrokerRecord with its epoch.
    let good = broker(1, &[]);
    assert_eq!(register(&mut c, &good), 0);
    let epoch = c.brokers()[&1].epoch;
    assert_eq!(
        c.handle_unregister_broker(Millis(3), 0, &unregister(1))
            .error_code,
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
    let r = c.handle_unregister_broker(Millis(4), 0, &unregister(1));
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
fn a_topic_exists_only_once_created_and_alters_of_a_missing_topic_write_nothing() {
    let p = SpecProfile::default();
    let mut c = ControllerModel::new(&p, defs(), 20, Millis(0))
        .with_topics(Millis(0), &["orders".to_string(), "orders".to_string()]);
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
    let d = c.handle_describe_configs(
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

#[test]
fn create_topics_as_kafkas_controller_answers_and_replay_keeps_the_topics() {
    let p = SpecProfile::default();
    let mut c = controller(&p, 20);
    // Replication factor 1 (or -1, the default 1) needs one registered broker.
    let r = c.handle_create_topics(Millis(1), 7, &create("orders", 1, 1, &[]));
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
    let r = c.handle_create_topics(
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
        let r = c.handle_create_topics(Millis(3), 7, &req);
        assert_eq!(r.topics[0].error_code, code.0, "{:?}", req.topics[0].name);
        assert!(r.topics[0].error_message.is_some());
    }
    let r = c.handle_create_topics(Millis(3), 7, &create("orders", 1, 1, &[]));
    assert_eq!(
        r.topics[0].error_message.as_deref(),
        Some("Topic 'orders' already exists.")
    );
    // ValidateOnly: answered as a success, nothing written.
    let mut v = create("t9", 1, 1, &[]);
    v.validate_only = true;
    assert_eq!(
        c.handle_create_topics(Millis(3), 7, &v).topics[0].error_code,
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

// ----- Envelope: an IncrementalAlterConfigs forwarded by a broker -----

/// An Envelope carrying `inner` at `version` (header with correlation id 7) from 127.0.0.1.
fn envelope(
    api_key: kipcheck::codec::ApiKey,
    version: i16,
    inner: &kipcheck::codec::RequestBody,
) -> kipcheck::codec::EnvelopeRequest {
    use kipcheck::codec::{encode_request_frame, Bytes, ProvisionalNumbers, RequestHeader};
    let header = RequestHeader {
        request_api_key: api_key.0,
        request_api_version: version,
        correlation_id: 7,
        client_id: Some("client-1".into()),
        ..Default::default()
    };
    let frame = encode_request_frame(&header, inner, &ProvisionalNumbers::default()).unwrap();
    kipcheck::codec::EnvelopeRequest {
        request_data: Bytes(frame[4..].to_vec()),
        request_principal: None,
        client_host_address: Bytes(vec![127, 0, 0, 1]),
        ..Default::default()
    }
}

#[test]
fn a_forwarded_incremental_alter_configs_is_validated_as_a_direct_one() {
    use kipcheck::codec::{decode_response, ApiKey, RequestBody, ResponseBody};
    let mut c = controller(&SpecProfile::default(), 40);
    let two_mib = set("log.segment.bytes", Some("2097152"), 0);
    let iac = RequestBody::IncrementalAlterConfigs(inc_req(BROKER, "1", vec![two_mib], false));
    let answer = c.handle_envelope(
        Millis(0),
        &envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac),
    );
    assert_eq!(answer.error_code, 0);
    let data = answer.response_data.expect("a forwarded answer").0;
    let inner = decode_response(&data, 0, ApiKey::INCREMENTAL_ALTER_CONFIGS, 1).unwrap();
    assert_eq!(inner.header.correlation_id, 7);
    let ResponseBody::IncrementalAlterConfigs(r) = inner.body else {
        panic!("{:?}", inner.body)
    };
    assert_eq!(r.responses[0].error_code, ErrorCode::INVALID_CONFIG.0);
    assert!(c.resource_configs(BROKER, "1").is_empty(), "nothing stored");

    let four_mib = set("log.segment.bytes", Some("4194304"), 0);
    let iac = RequestBody::IncrementalAlterConfigs(inc_req(BROKER, "1", vec![four_mib], false));
    let answer = c.handle_envelope(
        Millis(0),
        &envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac),
    );
    let data = answer.response_data.expect("a forwarded answer").0;
    let inner = decode_response(&data, 0, ApiKey::INCREMENTAL_ALTER_CONFIGS, 1).unwrap();
    let ResponseBody::IncrementalAlterConfigs(r) = inner.body else {
        panic!("{:?}", inner.body)
    };
    assert_eq!(r.responses[0].error_code, 0);
    assert_eq!(
        c.resource_configs(BROKER, "1")
            .get("log.segment.bytes")
            .map(String::as_str),
        Some("4194304")
    );

    // Refused on the Envelope itself, with a null ResponseData: a client address that is no
    // IPv4/IPv6 address, RequestData that does not decode, an API that is not forwarded.
    let mut bad_host = envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac);
    bad_host.client_host_address.0.push(0);
    let mut garbage = envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac);
    garbage.request_data.0.truncate(6);
    let describe = RequestBody::DescribeConfigs(DescribeConfigsRequest::default());
    let unforwarded = envelope(ApiKey::DESCRIBE_CONFIGS, 4, &describe);
    for e in [bad_host, garbage, unforwarded] {
        let answer = c.handle_envelope(Millis(0), &e);
        assert_eq!(
            (answer.error_code, answer.response_data),
            (ErrorCode::INVALID_REQUEST.0, None)
        );
    }
}
