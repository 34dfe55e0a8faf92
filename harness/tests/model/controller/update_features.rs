//! UpdateFeatures audit.

use super::*;

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
        let model = ControllerModel::new(&p, ServerConfigDefs::default(), 50, Millis(0));
        let mut old = with_topics(model, Millis(0), &["t".to_string()]);
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
