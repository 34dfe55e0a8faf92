//! Unit tests of binding a scenario's metadata.version changes (UpdateFeatures) onto the
//! levels a manifest declares the controller can move between.

use serde_json::{json, Value};

use super::test_support::{manifest, scenario};
use super::*;

/// `k1294-audit-upgrade-dynamic-violation`'s shape: MV 10, a level-20 validator on a topic
/// config, a value valid at 10 stored, then an upgrade 10 -> 20 refused, read back at 10.
const UPGRADE: &str = r#"id: moves
title: upgrade
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    topics: [orders]
    mv_validators:
      - { key: segment.bytes, level: 20, validator: { at_least: 1048576 } }
steps:
  - send:
      api: AlterConfigs
      version: 2
      body:
        Resources:
          - { ResourceType: 2, ResourceName: "orders", Configs: [ { Name: segment.bytes, Value: "65536" } ] }
        ValidateOnly: false
  - expect_response: { body: { Responses: [ { ErrorCode: NONE } ] } }
  - send:
      api: UpdateFeatures
      version: 1
      body:
        timeoutMs: 60000
        FeatureUpdates: [ { Feature: metadata.version, MaxVersionLevel: 20, UpgradeType: 1 } ]
        ValidateOnly: false
  - expect_one_of:
      - response: { body: { ErrorCode: INVALID_CONFIG } }
      - response: { body: { ErrorCode: NONE, Results: [ { Feature: metadata.version, ErrorCode: INVALID_CONFIG } ] } }
  - expect_event: { count: 1, event: { event: metadata_version_audit, from: 10, to: 20, violations: { $len: 1 } } }
  - expect_no_event: { event: { event: record_appended, record: { Name: metadata.version, FeatureLevel: 20 } } }
  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: kipcheck, ClientSoftwareVersion: "0.1.0" } }
  - expect_response: { body: { ErrorCode: NONE, FinalizedFeatures: { $contains: [ { Name: metadata.version, MaxVersionLevel: 10 } ] } } }
"#;

/// `k1294-audit-downgrade-dynamic-violation`'s shape with a safe downgrade: MV 20,
/// validators at 10 (a cap) and 20 on a topic config, a value valid at 20 only stored, then
/// a downgrade 20 -> 10 refused.
fn downgrade(upgrade_type: u8) -> String {
    format!(
        r#"id: moves
title: downgrade
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 20
    topics: [orders]
    mv_validators:
      - {{ key: segment.bytes, level: 10, validator: {{ between: [1048576, 2097152] }} }}
      - {{ key: segment.bytes, level: 20, validator: {{ at_least: 1048576 }} }}
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - {{ ResourceType: 2, ResourceName: "orders", Configs: [ {{ Name: segment.bytes, ConfigOperation: 0, Value: "4194304" }} ] }}
        ValidateOnly: false
  - expect_response: {{ body: {{ Responses: [ {{ ErrorCode: NONE }} ] }} }}
  - send:
      api: UpdateFeatures
      version: 1
      body:
        timeoutMs: 60000
        FeatureUpdates: [ {{ Feature: metadata.version, MaxVersionLevel: 10, UpgradeType: {upgrade_type} }} ]
        ValidateOnly: false
  - expect_response: {{ body: {{ ErrorCode: INVALID_CONFIG }} }}
  - send: {{ api: ApiVersions, version: 3, body: {{ ClientSoftwareName: kipcheck, ClientSoftwareVersion: "0.1.0" }} }}
  - expect_response: {{ body: {{ ErrorCode: NONE, FinalizedFeatures: {{ $contains: [ {{ Name: metadata.version, MaxVersionLevel: 20 }} ] }} }} }}
"#
    )
}

/// A controller at 30 that can move to 25 and 31 (safe downgrades), with a topic config
/// validated from 25 and 30 and another from 31.
const MOVES: &str = r#"software: Example 9
metadata_version:
  min: 7
  max: 40
  finalized: 30
  moves: { levels: [25, 31], downgrade: safe }
configs:
  a.two.levels:
    resource: topic
    type: INT
    static_validator: { violating: "13", compliant: "1048576" }
    mv_validators:
      25: { violating: "2097153", compliant: "2097152" }
      30: { violating: "1048575", compliant: "1048576" }
  b.from.31:
    resource: topic
    type: INT
    static_validator: { violating: "13", compliant: "1048576" }
    mv_validators:
      31: { violating: "4194303", compliant: "4194304" }
"#;

/// The bound scenario's MV validators: (key, level).
fn mv_levels(s: &Scenario) -> Vec<(String, i16)> {
    let c = s.file.setup.controller.as_ref().unwrap();
    c.mv_validators
        .iter()
        .map(|v| (v.key.clone(), v.level))
        .collect()
}

fn body(s: &Scenario, i: usize) -> Value {
    match &s.file.steps[i].value {
        Step::Send(x) => x.body.clone().unwrap(),
        Step::ExpectResponse(r) => r.body.clone().unwrap(),
        Step::ExpectEvent(e) => e.event.clone(),
        Step::ExpectNoEvent { event } => event.clone(),
        Step::ExpectOneOf(o) => serde_json::to_value(o).unwrap(),
        other => panic!("step {i} is {other:?}"),
    }
}

#[test]
fn an_upgrade_binds_its_target_above_the_finalized_level_in_requests_and_expectations() {
    let bound = bind(&scenario(UPGRADE), Some(&manifest(MOVES)))
        .unwrap()
        .unwrap();
    // 10 -> 30 (finalized), 20 -> 31: the level-20 validator binds to b.from.31's level 31
    // (above 30, in force at 31), and the stored value to its violating one... at 31.
    let c = bound.file.setup.controller.as_ref().unwrap();
    assert_eq!(c.metadata_version, 30);
    assert_eq!(
        (c.mv_validators[0].key.as_str(), c.mv_validators[0].level),
        ("b.from.31", 31)
    );
    assert_eq!(
        body(&bound, 0)["Resources"][0]["Configs"][0],
        json!({ "Name": "b.from.31", "Value": "4194303" })
    );
    assert_eq!(
        body(&bound, 2)["FeatureUpdates"],
        json!([{ "Feature": "metadata.version", "MaxVersionLevel": 31, "UpgradeType": 1 }])
    );
    let audit = body(&bound, 4);
    assert_eq!((&audit["from"], &audit["to"]), (&json!(30), &json!(31)));
    assert_eq!(body(&bound, 5)["record"]["FeatureLevel"], 31);
    assert_eq!(
        body(&bound, 7)["FinalizedFeatures"]["$contains"],
        json!([{ "Name": "metadata.version", "MaxVersionLevel": 30 }])
    );
}

#[test]
fn a_downgrade_whose_value_only_the_higher_level_accepts_is_unbound() {
    // 20 -> 30, 10 -> 25 keep the validators on their sides, but the scenario's value is over
    // the level-10 cap and valid at 20: a.two.levels' level-25 violating value is not declared
    // to pass the level-30 validator (a pair says nothing about higher levels), and no other
    // declared value is refused at 25 and accepted at 30. Bound anyway, the live controller
    // refused the first SET (k1294-audit-downgrade-dynamic-violation, 2026-12-04).
    let e = bind(&scenario(&downgrade(2)), Some(&manifest(MOVES))).unwrap_err();
    assert!(matches!(e, Unbound::NoValue { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the manifest (Example 9) declares no value of a.two.levels known to be, like the \
         scenario's \"4194304\" of segment.bytes, refused by the MV validator in force at \
         metadata.version 25 (the scenario's 10), accepted at metadata.version 30 (the \
         scenario's 20)"
    );
}

#[test]
fn a_downgrade_whose_value_only_the_higher_level_accepts_binds_to_its_relaxed_value() {
    // As above, but the manifest declares a value level 30 accepts and level 25 refuses
    // (`relaxed`): it stands for the scenario's 4194304 (accepted at 20, refused at 10), so a
    // controller applying every validator up to the level refuses the first SET.
    let relaxing = MOVES.replace(
        "30: { violating: \"1048575\", compliant: \"1048576\" }",
        "30: { violating: \"1048575\", compliant: \"1048576\", relaxed: \"3145728\" }",
    );
    let bound = bind(&scenario(&downgrade(2)), Some(&manifest(&relaxing)))
        .unwrap()
        .unwrap();
    assert_eq!(
        mv_levels(&bound),
        [
            ("a.two.levels".to_owned(), 25),
            ("a.two.levels".to_owned(), 30)
        ]
    );
    assert_eq!(
        body(&bound, 0)["Resources"][0]["Configs"][0],
        json!({ "Name": "a.two.levels", "ConfigOperation": 0, "Value": "3145728" })
    );
    assert_eq!(
        body(&bound, 2)["FeatureUpdates"],
        json!([{ "Feature": "metadata.version", "MaxVersionLevel": 25, "UpgradeType": 2 }])
    );
}

#[test]
fn a_downgrade_binds_its_target_below_with_the_validators_on_the_same_sides() {
    // 20 -> 30, 10 -> 25; validators 10 -> 25 and 20 -> 30 on a.two.levels. A value both
    // levels accept binds to the level-30 compliant value, declared to pass every validator
    // up to 30, so accepted at 25 and at 30 alike.
    let accepted = downgrade(2)
        .replace("Value: \"4194304\"", "Value: \"1500000\"")
        .replace(
            "  - expect_response: { body: { ErrorCode: INVALID_CONFIG } }\n",
            "  - expect_response: { body: { ErrorCode: NONE } }\n",
        );
    let bound = bind(&scenario(&accepted), Some(&manifest(MOVES)));
    if let Ok(Some(bound)) = bound {
        assert_eq!(
            mv_levels(&bound),
            [
                ("a.two.levels".to_owned(), 25),
                ("a.two.levels".to_owned(), 30)
            ]
        );
        assert_eq!(
            body(&bound, 0)["Resources"][0]["Configs"][0]["Value"],
            "1048576"
        );
        assert_eq!(
            body(&bound, 2)["FeatureUpdates"],
            json!([{ "Feature": "metadata.version", "MaxVersionLevel": 25, "UpgradeType": 2 }])
        );
    } else {
        panic!("unbound: {bound:?}");
    }
}

#[test]
fn what_the_manifest_cannot_move_to_is_unbound_with_the_reason() {
    let unbound = |text: &str, m: &str| {
        bind(&scenario(text), Some(&manifest(m)))
            .unwrap_err()
            .to_string()
    };
    // No moves declared.
    let fixed = MOVES.replace("  moves: { levels: [25, 31], downgrade: safe }\n", "");
    assert_eq!(
        unbound(UPGRADE, &fixed),
        "the manifest (Example 9) declares no metadata_version.moves (the levels it can be \
         moved between)"
    );
    // An unsafe downgrade the controller does not accept.
    assert_eq!(
        unbound(&downgrade(3), MOVES),
        "the manifest (Example 9) declares only safe downgrades (UpgradeType 2) \
         (metadata_version.moves.downgrade), and the scenario lowers metadata.version 20 -> 10 \
         with UpgradeType 3"
    );
    // No downgrade at all: a safe downgrade cannot run either.
    let up_only = MOVES.replace(", downgrade: safe", "");
    assert!(unbound(&downgrade(2), &up_only).contains("declares no downgrade"));
    // An upgrade expected to succeed could not be undone.
    let succeeds = UPGRADE.replace(
        "  - expect_one_of:\n      - response: { body: { ErrorCode: INVALID_CONFIG } }\n      - response: { body: { ErrorCode: NONE, Results: [ { Feature: metadata.version, ErrorCode: INVALID_CONFIG } ] } }\n",
        "  - expect_response: { body: { ErrorCode: NONE } }\n",
    );
    assert_eq!(
        unbound(&succeeds, &up_only),
        "the manifest (Example 9) cannot be moved back down (metadata_version.moves.downgrade: \
         none), and the scenario raises metadata.version 10 -> 20 expecting success: kipcheck \
         could not restore the level"
    );
    // A refused upgrade runs on an upgrade-only controller.
    assert!(bind(&scenario(UPGRADE), Some(&manifest(&up_only))).is_ok());
    // No level above the finalized one.
    let below_only = MOVES.replace("levels: [25, 31]", "levels: [25]");
    assert_eq!(
        unbound(UPGRADE, &below_only),
        "the manifest (Example 9) can move from its finalized level 30 to 1 level(s) below and \
         0 above (metadata_version.moves); the scenario runs at 0 level(s) below its \
         metadata.version 10 and 1 above (10, 20)"
    );
    // Another feature.
    let other = UPGRADE.replace(
        "Feature: metadata.version, MaxVersionLevel: 20",
        "Feature: group.version, MaxVersionLevel: 1",
    );
    assert_eq!(
        unbound(&other, MOVES),
        "the scenario changes group.version (UpdateFeatures); the manifest declares no moves \
         of it (features)"
    );
    // Declared, but not to that level, or finalized elsewhere, or never set back.
    let features = |f: &str| MOVES.replace("configs:\n", &format!("features:\n  {f}\nconfigs:\n"));
    assert_eq!(
        unbound(
            &other,
            &features("group.version: { finalized: 0, levels: [2], downgrade: safe }")
        ),
        "the manifest (Example 9) declares group.version movable to [2] only; the scenario \
         moves it to 1"
    );
    assert_eq!(
        unbound(
            &other,
            &features("group.version: { finalized: 1, levels: [0], downgrade: safe }")
        ),
        "the manifest (Example 9) declares group.version finalized at 1; the scenario starts \
         it at 0 (not finalized)"
    );
    let succeeds = other.replace(
        "  - expect_one_of:\n      - response: { body: { ErrorCode: INVALID_CONFIG } }\n",
        "  - expect_response: { body: { ErrorCode: NONE } }\n  - expect_one_of:\n      - response: { body: { ErrorCode: INVALID_CONFIG } }\n",
    );
    assert_eq!(
        unbound(
            &succeeds,
            &features("group.version: { finalized: 0, levels: [1] }")
        ),
        "the manifest (Example 9) declares group.version with no downgrade, so kipcheck could \
         not set it back after the scenario"
    );
}

#[test]
fn another_feature_the_manifest_declares_keeps_its_levels() {
    // k1294-audit-other-feature-not-audited's move: group.version 0 -> 1, bound as it is while
    // metadata.version binds to the finalized level.
    let other = UPGRADE.replace(
        "Feature: metadata.version, MaxVersionLevel: 20",
        "Feature: group.version, MaxVersionLevel: 1",
    );
    let declared = MOVES.replace(
        "configs:\n",
        "features:\n  group.version: { finalized: 0, levels: [1], downgrade: safe }\nconfigs:\n",
    );
    let bound = bind(&scenario(&other), Some(&manifest(&declared)))
        .unwrap()
        .unwrap();
    assert_eq!(
        bound
            .file
            .setup
            .controller
            .as_ref()
            .unwrap()
            .metadata_version,
        30
    );
    assert_eq!(
        body(&bound, 2)["FeatureUpdates"],
        json!([{ "Feature": "group.version", "MaxVersionLevel": 1, "UpgradeType": 1 }])
    );
}

#[test]
fn a_scenario_that_registers_keeps_every_level_on_its_side_of_the_persistence_level() {
    // UPGRADE with a registration first: 10 and 20 are both below the profile's level 35.
    let registers = UPGRADE.replace(
        "steps:\n",
        "steps:\n  - send: { api: BrokerRegistration, version: 4, body: { BrokerId: 1, ClusterId: kipcheck-cluster, IncarnationId: AAAAAAAAAAAAAAAAAAAAAQ, Listeners: [], Features: [] } }\n  - expect_response: { body: { ErrorCode: NONE } }\n",
    );
    // The controller persists from 31: 20 cannot bind to 31, the only level above 30.
    let m = MOVES.replace(
        "configs:\n",
        "static_config_persistence_level: 31\nconfigs:\n",
    );
    let e = bind(&scenario(&registers), Some(&manifest(&m))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the manifest (Example 9) declares no levels that keep the scenario's levels (10, 20) \
         on their side of the persistence level 35 (the controller's: 31; \
         metadata_version.moves: 25, 30, 31)"
    );
    // Persisting from 36 keeps both below: bound.
    let m = MOVES.replace(
        "configs:\n",
        "static_config_persistence_level: 36\nconfigs:\n",
    );
    assert!(bind(&scenario(&registers), Some(&manifest(&m))).is_ok());
}
