//! Unit tests of binding a scenario to a manifest: keys, values, list operations, cluster ids.

use std::path::Path;

use super::test_support::{manifest, scenario};
use super::*;

/// A scenario in the shape of `k1294-floor-between-levels`: MV 15, validators at 10
/// and 20 on log.segment.bytes.
const FLOOR: &str = r#"id: floor
title: floor between levels
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 15
    mv_validators:
      - { key: log.segment.bytes, level: 10, validator: { at_least: 2097152 } }
      - { key: log.segment.bytes, level: 20, validator: { at_least: 4194304 } }
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - { ResourceType: 4, ResourceName: "1", Configs: [ { Name: log.segment.bytes, ConfigOperation: 0, Value: "2097152" } ] }
          - { ResourceType: 4, ResourceName: "1", Configs: [ { Name: log.segment.bytes, ConfigOperation: 0, Value: "2097151" } ] }
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - { ErrorCode: NONE, ResourceType: 4, ResourceName: "1" }
          - { ErrorCode: INVALID_CONFIG, ErrorMessage: { $contains: log.segment.bytes }, ResourceType: 4, ResourceName: "1" }
  - expect_event: { event: { event: record_appended, record: { Name: log.segment.bytes, Value: "2097152" } } }
"#;

/// A controller with MV validators at 30 and 32 on a made-up real config, running at 31.
const MANIFEST: &str = r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  example.bytes:
    resource: broker
    type: INT
    static_validator: { violating: "0", compliant: "100" }
    mv_validators:
      30: { violating: "99", compliant: "300" }
      32: { violating: "299", compliant: "500" }
"#;

#[test]
fn without_a_manifest_an_injecting_scenario_is_unbound_with_the_reason() {
    let e = bind(&scenario(FLOOR), None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "setup.controller.mv_validators injects MV validators on log.segment.bytes: a live \
             controller cannot be given definitions or a metadata.version; --target-manifest \
             FILE declares its own"
    );
}

#[test]
fn a_bound_scenario_sends_the_manifest_key_and_values() {
    let bound = bind(&scenario(FLOOR), Some(&manifest(MANIFEST)))
        .unwrap()
        .unwrap();
    let Step::Send(send) = &bound.file.steps[0].value else {
        panic!("not a send");
    };
    let configs: Vec<(String, String)> = send.body.as_ref().unwrap()["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let c = &r["Configs"][0];
            (
                c["Name"].as_str().unwrap().into(),
                c["Value"].as_str().unwrap().into(),
            )
        })
        .collect();
    // 2097152 passes level 10 and fails level 20 (bound to 32): 32's violating value;
    // 2097151 fails level 10 (bound to 30): 30's violating value.
    assert_eq!(
        configs,
        [
            ("example.bytes".to_owned(), "299".to_owned()),
            ("example.bytes".to_owned(), "99".to_owned())
        ]
    );
    let Step::ExpectResponse(r) = &bound.file.steps[1].value else {
        panic!("not an expect_response");
    };
    assert_eq!(
        r.body.as_ref().unwrap()["Responses"][1]["ErrorMessage"]["$contains"],
        "example.bytes"
    );
    let Step::ExpectEvent(ev) = &bound.file.steps[2].value else {
        panic!("not an expect_event");
    };
    assert_eq!(ev.event["record"]["Value"], "299");
    let c = bound.file.setup.controller.as_ref().unwrap();
    assert_eq!(c.metadata_version, 31);
    let levels: Vec<(String, i16)> = c
        .mv_validators
        .iter()
        .map(|v| (v.key.clone(), v.level))
        .collect();
    assert_eq!(
        levels,
        [
            ("example.bytes".to_owned(), 30),
            ("example.bytes".to_owned(), 32)
        ]
    );
    // The typed request the runner sends was rebuilt from the bound body.
    let crate::scenario::Compiled::Request(req) = &bound.compiled[0] else {
        panic!("not compiled");
    };
    assert!(format!("{req:?}").contains("example.bytes"));
}

#[test]
fn levels_in_force_must_match() {
    // Finalized at 33: both real levels are in force, the scenario's level 20 is not.
    let m = manifest(&MANIFEST.replace("finalized: 31", "finalized: 33"));
    let e = bind(&scenario(FLOOR), Some(&m)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the manifest (Example 9) declares no broker config of type INT with a static \
             validator and MV validators at 2 levels (1 at or below the scenario's \
             metadata.version 15, 1 above) to bind log.segment.bytes to"
    );
}

#[test]
fn the_kafka_4_4_manifest_binds_no_mv_validator() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/manifests/kafka-4.4.0.yaml");
    let m = crate::adapter::manifest::load_manifest(&path).unwrap();
    let e = bind(&scenario(FLOOR), Some(&m)).unwrap_err();
    assert!(
        matches!(&e, Unbound::NoConfig { key, software, .. } if key == "log.segment.bytes" && software == "Apache Kafka 4.4.0"),
        "{e}"
    );
}

#[test]
fn two_values_of_one_class_are_unbound() {
    let text = FLOOR.replace("Value: \"2097151\"", "Value: \"2097153\"");
    let e = bind(&scenario(&text), Some(&manifest(MANIFEST))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the scenario uses two level-20-violating values of log.segment.bytes (\"2097152\", \
             \"2097153\"); the manifest gives one"
    );
}

#[test]
fn a_scenario_that_injects_nothing_needs_no_binding() {
    let text = FLOOR
            .replace("requires: [metadata_version]\n", "")
            .replace(
                "    mv_validators:\n      - { key: log.segment.bytes, level: 10, validator: { at_least: 2097152 } }\n      - { key: log.segment.bytes, level: 20, validator: { at_least: 4194304 } }\n",
                "",
            );
    assert!(bind(&scenario(&text), None).unwrap().is_none());
}

/// A scenario in the shape of `k1294-iac-append-list-compliant-record` (and, with other
/// validators, `-append-list-mv` and `-append-validates-resulting-list`): APPEND compact
/// to topic cleanup.policy (default delete) at MV 10.
fn append(valid: &str) -> String {
    format!(
        r#"id: floor
title: append
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    topics: [events]
    mv_validators:
      - {{ key: cleanup.policy, level: 10, validator: {{ valid_list: {{ valid: [{valid}], allow_empty: false }} }} }}
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - {{ ResourceType: 2, ResourceName: "events", Configs: [ {{ Name: cleanup.policy, ConfigOperation: 2, Value: "compact" }} ] }}
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - {{ ErrorCode: NONE, ResourceType: 2, ResourceName: "events" }}
  - expect_event: {{ count: 1, event: {{ event: record_appended, record: {{ ResourceType: 2, ResourceName: events, Name: cleanup.policy, Value: "delete,compact" }} }} }}
  - send:
      api: DescribeConfigs
      version: 4
      body:
        Resources:
          - {{ ResourceType: 2, ResourceName: "events", ConfigurationKeys: [ cleanup.policy ] }}
        IncludeSynonyms: false
        IncludeDocumentation: false
  - expect_response: {{ body: {{ Results: [ {{ ErrorCode: NONE, ResourceType: 2, ResourceName: "events", Configs: {{ $each: {{ $any_of: [ {{ Name: {{ $not: cleanup.policy }} }}, {{ Value: {{ $not: {{ $contains: "compact" }} }} }} ] }} }} }} ] }} }}
"#
    )
}

/// A controller with an MV validator at 30 on a real topic LIST config whose default is
/// `delete`.
const LIST_MANIFEST: &str = r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  example.policy:
    resource: topic
    type: LIST
    default: delete
    static_validator: { violating: "bogus", compliant: "delete" }
    mv_validators:
      30: { violating: "delete,compact", compliant: "delete,keep" }
"#;

/// The first config `(Name, Value)` the first step sends, and the bound scenario.
fn first_config(bound: &Scenario) -> (String, String) {
    let Step::Send(send) = &bound.file.steps[0].value else {
        panic!("not a send");
    };
    let c = &send.body.as_ref().unwrap()["Resources"][0]["Configs"][0];
    (
        c["Name"].as_str().unwrap().into(),
        c["Value"].as_str().unwrap().into(),
    )
}

#[test]
fn an_append_sends_the_operand_reaching_the_manifest_list_and_expects_that_list() {
    // Compliant: delete,compact passes [delete, compact]. The manifest's compliant list
    // is delete,keep: appending keep to the default delete reaches it.
    let bound = bind(
        &scenario(&append("delete, compact")),
        Some(&manifest(LIST_MANIFEST)),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        first_config(&bound),
        ("example.policy".to_owned(), "keep".to_owned())
    );
    let Step::ExpectEvent(ev) = &bound.file.steps[2].value else {
        panic!("not an expect_event");
    };
    assert_eq!(ev.event["record"]["Value"], "delete,keep");
    // The read-back's alternative without a Name is bound too.
    let Step::ExpectResponse(r) = &bound.file.steps[4].value else {
        panic!("not an expect_response");
    };
    let alts = &r.body.as_ref().unwrap()["Results"][0]["Configs"]["$each"]["$any_of"];
    assert_eq!(alts[0]["Name"]["$not"], "example.policy");
    assert_eq!(alts[1]["Value"]["$not"]["$contains"], "keep");
}

#[test]
fn an_append_is_classified_by_the_list_it_results_in() {
    // compact alone passes [compact]; the resulting delete,compact does not: the
    // manifest's violating list, delete,compact, is reached by appending compact.
    let bound = bind(
        &scenario(&append("compact")),
        Some(&manifest(LIST_MANIFEST)),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        first_config(&bound),
        ("example.policy".to_owned(), "compact".to_owned())
    );
    // [delete]: the result is refused too.
    let bound = bind(&scenario(&append("delete")), Some(&manifest(LIST_MANIFEST)))
        .unwrap()
        .unwrap();
    assert_eq!(first_config(&bound).1, "compact");
}

#[test]
fn an_append_needs_the_manifest_default_and_a_reachable_list() {
    let m = manifest(&LIST_MANIFEST.replace("    default: delete\n", ""));
    let e = bind(&scenario(&append("compact")), Some(&m)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the scenario's APPEND on cleanup.policy cannot be bound: the manifest (Example 9) \
             gives no default for example.policy, the list it starts from"
    );
    let m = manifest(&LIST_MANIFEST.replace("default: delete", "default: other"));
    let e = bind(&scenario(&append("compact")), Some(&m)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the scenario's APPEND on cleanup.policy cannot be bound: no APPEND to \
             example.policy's default \"other\" results in the manifest's value \"delete,compact\""
    );
}

#[test]
fn a_subtract_is_classified_by_the_list_it_results_in() {
    // SUBTRACT delete from the default delete leaves the empty list, which
    // allow_empty: false refuses; the manifest's violating list is reached by
    // subtracting what its default has beyond it.
    let text = append("compact, delete")
        .replace(
            "ConfigOperation: 2, Value: \"compact\"",
            "ConfigOperation: 3, Value: \"delete\"",
        )
        .replace("Value: \"delete,compact\"", "Value: \"\"");
    let m = manifest(
        &LIST_MANIFEST
            .replace("default: delete", "default: \"delete,compact,keep\"")
            .replace(
                "violating: \"delete,compact\"",
                "violating: \"delete,compact,keep,x\"",
            ),
    );
    let e = bind(&scenario(&text), Some(&m)).unwrap_err();
    assert!(e.to_string().contains("SUBTRACT"), "{e}");
    let m = manifest(&LIST_MANIFEST.replace("default: delete", "default: \"delete,compact,keep\""));
    let bound = bind(&scenario(&text), Some(&m)).unwrap().unwrap();
    assert_eq!(first_config(&bound).1, "keep");
}

/// `k1294-valid-string-mv-validator`'s shape: compression.type (a broker and a topic
/// config) set on a topic.
const TOPIC_STRING: &str = r#"id: floor
title: topic string
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    topics: [logs]
    mv_validators:
      - { key: compression.type, level: 10, validator: { valid_string: [zstd, lz4] } }
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - { ResourceType: 2, ResourceName: "logs", Configs: [ { Name: compression.type, ConfigOperation: 0, Value: "gzip" } ] }
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - { ErrorCode: INVALID_CONFIG, ResourceType: 2, ResourceName: "logs" }
"#;

#[test]
fn a_config_set_on_a_topic_binds_to_a_topic_config() {
    let m = manifest(
        r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  a.broker.codec:
    resource: broker
    type: STRING
    static_validator: { violating: "bogus", compliant: "snappy" }
    mv_validators:
      30: { violating: "snappy", compliant: "zstd" }
  b.topic.codec:
    resource: topic
    type: STRING
    static_validator: { violating: "bogus", compliant: "snappy" }
    mv_validators:
      30: { violating: "gzip", compliant: "zstd" }
"#,
    );
    let bound = bind(&scenario(TOPIC_STRING), Some(&m)).unwrap().unwrap();
    assert_eq!(
        first_config(&bound),
        ("b.topic.codec".to_owned(), "gzip".to_owned())
    );
    // Without a topic config of its shape it is unbound as a topic config.
    let m = manifest(&m_text_without_topic());
    let e = bind(&scenario(TOPIC_STRING), Some(&m)).unwrap_err();
    assert!(
        e.to_string()
            .contains("declares no topic config of type STRING"),
        "{e}"
    );
}

fn m_text_without_topic() -> String {
    r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  a.broker.codec:
    resource: broker
    type: STRING
    static_validator: { violating: "bogus", compliant: "snappy" }
    mv_validators:
      30: { violating: "snappy", compliant: "zstd" }
"#
    .into()
}

#[test]
fn keys_are_renamed_at_once() {
    // kipcheck.x binds to the real kipcheck.y, and the injected kipcheck.y to kipcheck.z:
    // the first must not be renamed again by the second.
    let text = r#"id: floor
title: two keys
kip: KIP-1294
grade: MUST
roles: [controller]
requires: [metadata_version]
setup:
  controller:
    metadata_version: 10
    definitions:
      kipcheck.x: { ty: INT, default: "5", validator: { at_least: 1 }, report_policy: DEFAULT }
      kipcheck.y: { ty: INT, default: "5", validator: { at_least: 1 }, report_policy: DEFAULT }
steps:
  - send:
      api: IncrementalAlterConfigs
      version: 1
      body:
        Resources:
          - { ResourceType: 4, ResourceName: "1", Configs: [ { Name: kipcheck.x, ConfigOperation: 0, Value: "5" }, { Name: kipcheck.y, ConfigOperation: 0, Value: "0" } ] }
        ValidateOnly: false
  - expect_response:
      body:
        Responses:
          - { ErrorCode: INVALID_CONFIG, ErrorMessage: { $contains: kipcheck.y }, ResourceType: 4, ResourceName: "1" }
"#;
    let m = manifest(
        r#"software: Example 9
metadata_version: { min: 7, max: 33, finalized: 31 }
configs:
  kipcheck.y:
    resource: broker
    type: INT
    static_validator: { violating: "-1", compliant: "7" }
  kipcheck.z:
    resource: broker
    type: INT
    static_validator: { violating: "-2", compliant: "8" }
"#,
    );
    let bound = bind(&scenario(text), Some(&m)).unwrap().unwrap();
    let Step::Send(send) = &bound.file.steps[0].value else {
        panic!("not a send");
    };
    let configs: Vec<(String, String)> = send.body.as_ref().unwrap()["Resources"][0]["Configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["Name"].as_str().unwrap().into(),
                c["Value"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        configs,
        [
            ("kipcheck.y".to_owned(), "7".to_owned()),
            ("kipcheck.z".to_owned(), "-2".to_owned())
        ]
    );
    let Step::ExpectResponse(r) = &bound.file.steps[1].value else {
        panic!("not an expect_response");
    };
    assert_eq!(
        r.body.as_ref().unwrap()["Responses"][0]["ErrorMessage"]["$contains"],
        "kipcheck.z"
    );
}

/// A registration in the shape of `k1294-registration-*`, its ClusterId as given.
fn registration(cluster: &str) -> String {
    format!(
        r#"id: floor
title: registration
kip: KIP-1294
grade: MUST
roles: [controller]
steps:
  - send:
      api: BrokerRegistration
      version: 4
      body:
        BrokerId: 1
{cluster}        IncarnationId: AAAAAAAAAAAAAAAAAAAAAQ
        Listeners: [ {{ Name: PLAINTEXT, Host: localhost, Port: 9093, SecurityProtocol: 0 }} ]
        Features: [ {{ Name: metadata.version, MinSupportedVersion: 1, MaxSupportedVersion: 40 }} ]
  - expect_response: {{ body: {{ ErrorCode: NONE }} }}
"#
    )
}

fn sent_cluster_id(s: &Scenario) -> Option<String> {
    let Step::Send(send) = &s.file.steps[0].value else {
        panic!("not a send");
    };
    send.body.as_ref().unwrap()["ClusterId"]
        .as_str()
        .map(str::to_owned)
}

#[test]
fn registrations_carry_the_controller_cluster_id() {
    let written = scenario(&registration("        ClusterId: kipcheck-cluster\n"));
    let bound = bind_cluster_id(&written, Ok("MkU3OEVBNTcwNTJENDM2Qg"))
        .unwrap()
        .unwrap();
    assert_eq!(
        sent_cluster_id(&bound).as_deref(),
        Some("MkU3OEVBNTcwNTJENDM2Qg")
    );
    let crate::scenario::Compiled::Request(req) = &bound.compiled[0] else {
        panic!("not compiled");
    };
    assert!(format!("{req:?}").contains("MkU3OEVBNTcwNTJENDM2Qg"));
    // Left out: filled in.
    let bound = bind_cluster_id(&scenario(&registration("")), Ok("real"))
        .unwrap()
        .unwrap();
    assert_eq!(sent_cluster_id(&bound).as_deref(), Some("real"));
    // Another id written on purpose is kept; the same id needs no binding.
    let other = scenario(&registration("        ClusterId: not-this-cluster\n"));
    assert!(bind_cluster_id(&other, Ok("real")).unwrap().is_none());
    assert!(bind_cluster_id(&written, Ok(SCENARIO_CLUSTER_ID))
        .unwrap()
        .is_none());
    // Unknown: a scenario that registers cannot run; one that does not is unaffected.
    let e = bind_cluster_id(
        &written,
        Err("DescribeCluster answered CLUSTER_AUTHORIZATION_FAILED"),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the scenario sends BrokerRegistration, but the controller's cluster id is unknown \
             (DescribeCluster answered CLUSTER_AUTHORIZATION_FAILED); the manifest's cluster_id \
             declares it"
    );
    assert!(bind_cluster_id(&scenario(FLOOR), Err("x"))
        .unwrap()
        .is_none());
}
