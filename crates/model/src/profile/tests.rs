//! Unit tests of the profile: the defaults, the documented YAML, round trips and rejection of
//! unknown fields. Tests only.

use super::*;
use kipcheck_codec::ErrorCode;

#[test]
fn default_profile_values() {
    let p = SpecProfile::default();
    assert_eq!(p.provisional.push_config_api_key.0, 95);
    assert_eq!(p.provisional.config_too_large.0, 137);
    assert_eq!(p.defaults.client_config_max_bytes, 10240);
    assert_eq!(p.first_static_configs_version, 6);
    assert!(p.default_keys.producer.is_empty() && p.default_keys.streams.is_empty());
}

#[test]
fn documented_default_yaml_is_the_default() {
    assert_eq!(
        SpecProfile::from_yaml(SpecProfile::DEFAULT_YAML).unwrap(),
        SpecProfile::default()
    );
}

#[test]
fn yaml_round_trip_and_partial_override() {
    let p = SpecProfile::default();
    assert_eq!(SpecProfile::from_yaml(&p.to_yaml()).unwrap(), p);
    let q = SpecProfile::from_yaml("size_measure: configs_array\naudit_direction: upgrade_only\n")
        .unwrap();
    assert_eq!(q.size_measure, SizeMeasure::ConfigsArray);
    assert_eq!(q.audit_direction, AuditDirection::UpgradeOnly);
    assert_eq!(q.defaults, Defaults::default());
}

#[test]
fn size_measure_has_three_readings() {
    for (text, m) in [
        ("request_body", SizeMeasure::RequestBody),
        ("configs_array", SizeMeasure::ConfigsArray),
        ("key_value_bytes", SizeMeasure::KeyValueBytes),
    ] {
        let p = SpecProfile::from_yaml(&format!("size_measure: {text}\n")).unwrap();
        assert_eq!(p.size_measure, m);
        assert_eq!(SpecProfile::from_yaml(&p.to_yaml()).unwrap(), p);
    }
    assert_eq!(
        SpecProfile::default().size_measure,
        SizeMeasure::RequestBody
    );
    assert!(SpecProfile::from_yaml("size_measure: key_value\n").is_err());
}

#[test]
fn broker_entry_checks_default_to_the_policy_and_load_from_yaml() {
    assert_eq!(
        SpecProfile::default().broker_entry_checks,
        BrokerEntryChecks::Policy
    );
    let p = SpecProfile::from_yaml("broker_entry_checks: broker\n").unwrap();
    assert_eq!(p.broker_entry_checks, BrokerEntryChecks::Broker);
    assert!(SpecProfile::from_yaml("broker_entry_checks: both\n").is_err());
}

#[test]
fn incremental_invalid_value_defaults_to_invalid_request() {
    let d = SpecProfile::default().incremental_invalid_value;
    assert_eq!(d.code(), ErrorCode::INVALID_REQUEST);
    let p = SpecProfile::from_yaml("incremental_invalid_value: invalid_config\n").unwrap();
    assert_eq!(
        p.incremental_invalid_value.code(),
        ErrorCode::INVALID_CONFIG
    );
}

#[test]
fn request_timeout_defaults_to_keep_and_loads_disconnect() {
    assert_eq!(
        SpecProfile::default().request_timeout,
        RequestTimeoutAction::Keep
    );
    let p = SpecProfile::from_yaml("request_timeout: disconnect\n").unwrap();
    assert_eq!(p.request_timeout, RequestTimeoutAction::Disconnect);
}

#[test]
fn open_kip_1326_and_kip_1294_orderings_have_documented_defaults() {
    let d = SpecProfile::default();
    assert_eq!(
        (
            d.update_features_precedence,
            d.mv_validator_inclusion,
            d.reregistration
        ),
        (
            UpdateFeaturesPrecedence::InvalidUpdateVersion,
            MvValidatorInclusion::StaticOnly,
            Reregistration::Replace
        )
    );
    let p = SpecProfile::from_yaml(
        "update_features_precedence: invalid_config\nmv_validator_inclusion: counts\nreregistration: merge\n",
    )
    .unwrap();
    assert_eq!(
        (
            p.update_features_precedence,
            p.mv_validator_inclusion,
            p.reregistration
        ),
        (
            UpdateFeaturesPrecedence::InvalidConfig,
            MvValidatorInclusion::Counts,
            Reregistration::Merge
        )
    );
}

#[test]
fn audit_rejection_defaults_to_invalid_config_and_loads_invalid_update_version() {
    let d = SpecProfile::default().audit_rejection;
    assert_eq!(
        (d, d.code()),
        (AuditRejection::InvalidConfig, ErrorCode::INVALID_CONFIG)
    );
    let p = SpecProfile::from_yaml("audit_rejection: invalid_update_version\n").unwrap();
    assert_eq!(p.audit_rejection.code(), ErrorCode::INVALID_UPDATE_VERSION);
    assert_eq!(SpecProfile::from_yaml(&p.to_yaml()).unwrap(), p);
    assert!(SpecProfile::from_yaml("audit_rejection: invalid_request\n").is_err());
}

#[test]
fn timing_tolerance_defaults_to_25_ms_and_10_percent() {
    let t = SpecProfile::default().timing;
    assert_eq!((t.tolerance_ms, t.tolerance_ratio), (25, 0.10));
    let p = SpecProfile::from_yaml("timing: { tolerance_ms: 5 }\n").unwrap();
    assert_eq!((p.timing.tolerance_ms, p.timing.tolerance_ratio), (5, 0.10));
    assert!(matches!(
        SpecProfile::from_yaml("timing: { tolerance_ratio: 1.0 }\n"),
        Err(ProfileError::Invalid {
            field: "timing.tolerance_ratio",
            ..
        })
    ));
}

#[test]
fn unknown_fields_and_bad_jitter_are_rejected() {
    assert!(SpecProfile::from_yaml("no_such_field: 1\n").is_err());
    assert!(matches!(
        SpecProfile::from_yaml("defaults:\n  retry_backoff_jitter: 1.5\n"),
        Err(ProfileError::Invalid { .. })
    ));
}
