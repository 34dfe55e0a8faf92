//! Registration and persistence.

use super::*;

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
