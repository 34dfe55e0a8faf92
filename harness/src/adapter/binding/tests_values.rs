//! Unit tests of which manifest value stands for a scenario's value: the outcome at every level
//! the scenario runs at must be one the manifest's pairs declare, a config the scenario names
//! itself is never bound to, and a reported default binds only to the real default.

use super::test_support::{manifest, scenario};
use super::*;

/// A controller at 31 with MV validators at 30 and 31 (both in force-able below it) and one
/// at 33 on another config.
const MANIFEST: &str = r#"software: Example 9
metadata_version: { min: 7, max: 40, finalized: 31 }
configs:
  example.bytes:
    resource: broker
    type: INT
    default: "1000"
    static_validator: { violating: "0", compliant: "100" }
    mv_validators:
      30: { violating: "99", compliant: "300" }
      31: { violating: "199", compliant: "400" }
"#;

/// `k1294-audit-against-target-level-only`'s shape at one level: MV 20, a strict level-10
/// validator and a looser level-20 one in force; a value the level-10 one would refuse is
/// accepted.
fn floor_scenario(static_configs: &str) -> String {
    format!(
        r#"id: values
title: values
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 20
    mv_validators:
      - {{ key: log.segment.bytes, level: 10, validator: {{ at_least: 8388608 }} }}
      - {{ key: log.segment.bytes, level: 20, validator: {{ at_least: 1048576 }} }}
steps:
  - send:
      api: BrokerRegistration
      version: 6
      body:
        BrokerId: 1
        ClusterId: kipcheck-cluster
        IncarnationId: AAAAAAAAAAAAAAAAAAAAAQ
        Listeners: [ {{ Name: PLAINTEXT, Host: localhost, Port: 9093, SecurityProtocol: 0 }} ]
        Features: [ {{ Name: metadata.version, MinSupportedVersion: 1, MaxSupportedVersion: 40 }} ]
        StaticConfigs: [ {static_configs} ]
  - expect_response: {{ body: {{ ErrorCode: NONE }} }}
"#
    )
}

fn static_configs(s: &Scenario) -> serde_json::Value {
    let Step::Send(x) = &s.file.steps[0].value else {
        panic!("not a send");
    };
    x.body.as_ref().unwrap()["StaticConfigs"].clone()
}

fn with_cluster(m: &str) -> String {
    m.replace("configs:\n", "cluster_id: kipcheck-cluster\nconfigs:\n")
}

#[test]
fn a_value_accepted_where_it_runs_binds_to_a_value_declared_accepted_there() {
    // Its class is "refused first by level 10" (bound: the level-30 violating "99"), but at
    // 20 the level-20 validator is in force and accepts it; "99" is not declared to pass the
    // level-31 validator, the level-31 compliant "400" is.
    let text = floor_scenario(r#"{ Name: log.segment.bytes, Value: "2097152" }"#);
    let bound = bind(&scenario(&text), Some(&manifest(&with_cluster(MANIFEST))))
        .unwrap()
        .unwrap();
    assert_eq!(
        static_configs(&bound),
        serde_json::json!([{ "Name": "example.bytes", "Value": "400" }])
    );
}

#[test]
fn outcomes_the_manifest_pairs_declare() {
    use outcome::{real_outcome, Outcome};
    let m = manifest(MANIFEST);
    let c = &m.configs["example.bytes"];
    // At 31 (floor 31): the level-30 pair says nothing; the level-31 pair does.
    assert_eq!(real_outcome(c, "99", 31), None);
    assert_eq!(real_outcome(c, "300", 31), None);
    assert_eq!(real_outcome(c, "199", 31), Some(Outcome::Mv));
    assert_eq!(real_outcome(c, "400", 31), Some(Outcome::Accepted));
    assert_eq!(real_outcome(c, "0", 31), Some(Outcome::Static));
    // At 30 (floor 30): the level-31 violating value passes every lower level.
    assert_eq!(real_outcome(c, "99", 30), Some(Outcome::Mv));
    assert_eq!(real_outcome(c, "199", 30), Some(Outcome::Accepted));
    assert_eq!(real_outcome(c, "300", 30), Some(Outcome::Accepted));
    // Below every level: the static compliant value is accepted; an undeclared one unknown.
    assert_eq!(real_outcome(c, "100", 20), Some(Outcome::Accepted));
    assert_eq!(real_outcome(c, "100", 30), None);
    assert_eq!(real_outcome(c, "12345", 20), None);
}

#[test]
fn a_config_the_scenario_names_itself_is_never_bound_to() {
    // The scenario reports example.bytes itself: binding log.segment.bytes to it would report
    // one config twice (k1326-ctrl-reregistration-merges bound onto num.io.threads,
    // 2026-12-04).
    let text = floor_scenario(
        r#"{ Name: log.segment.bytes, Value: "2097152" }, { Name: example.bytes, Value: "8" }"#,
    );
    let e = bind(&scenario(&text), Some(&manifest(&with_cluster(MANIFEST)))).unwrap_err();
    assert!(matches!(e, Unbound::NoConfig { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the manifest (Example 9) declares no broker config of type INT with a static \
         validator and MV validators at 2 levels (2 at or below the scenario's \
         metadata.version 20, 0 above) to bind log.segment.bytes to"
    );
}

#[test]
fn a_reported_default_binds_only_to_the_real_default() {
    // log.segment.bytes's default (1 GiB) reported: accepted at 20. example.bytes's default
    // "1000" is none of its declared values, so what it is at 31 is unknown.
    let text = floor_scenario(r#"{ Name: log.segment.bytes, Value: "1073741824" }"#);
    let e = bind(&scenario(&text), Some(&manifest(&with_cluster(MANIFEST)))).unwrap_err();
    assert!(matches!(e, Unbound::Default { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the scenario's \"1073741824\" is log.segment.bytes's default; the manifest (Example 9) \
         does not declare example.bytes's default (\"1000\") to be accepted at \
         metadata.version 31 (the scenario's 20)"
    );
    // Declared: the default is the level-31 compliant value.
    let declared = MANIFEST.replace("default: \"1000\"", "default: \"400\"");
    let bound = bind(&scenario(&text), Some(&manifest(&with_cluster(&declared))))
        .unwrap()
        .unwrap();
    assert_eq!(
        static_configs(&bound),
        serde_json::json!([{ "Name": "example.bytes", "Value": "400" }])
    );
}

/// A controller's node id is fixed: a scenario whose controller is another node is not bound
/// to it, and one that is the declared node is (a manifest without `node_id` is node 1).
#[test]
fn the_node_id_must_be_the_declared_one() {
    let s = |node: &str| {
        scenario(&format!(
            "id: values\ntitle: t\nkip: KIP-1294\ngrade: MUST\nroles: [controller]\nsetup:\n  controller:\n    metadata_version: 20\n{node}steps:\n  - send: {{ api: ApiVersions, version: 3, body: {{}} }}\n  - expect_response: {{ body: {{ ErrorCode: NONE }} }}\n"
        ))
    };
    let at = |node: Option<i32>| {
        let mut m = manifest(MANIFEST);
        m.node_id = node;
        m
    };
    let five = s("    node_id: 5\n");
    assert_eq!(
        bind(&five, Some(&at(None))).unwrap_err().to_string(),
        "the scenario's controller is node 5; the manifest (Example 9) declares no node_id (node 1 is assumed)"
    );
    assert_eq!(
        bind(&five, Some(&at(Some(3)))).unwrap_err().to_string(),
        "the scenario's controller is node 5; the manifest (Example 9) declares node_id 3"
    );
    assert!(bind(&five, Some(&at(Some(5)))).is_ok());
    let default = s("");
    assert!(bind(&default, Some(&at(None))).is_ok());
    assert!(matches!(
        bind(&default, Some(&at(Some(5)))),
        Err(Unbound::NodeId {
            wanted: 1,
            declared: Some(5),
            ..
        })
    ));
}
