//! Scenarios judge what the KIPs fix, as strictly as they fix it, and accept every outcome
//! they allow. Each test takes a shipped scenario's own pattern and matches it against an
//! answer a correct implementation may give where it differs from kipcheck's reference (other
//! defaults, codes, wording, epoch numbering), and against the bug the scenario is there to
//! catch. The reference passing them (`conformance_suite.rs`) says nothing about this.

use std::path::Path;

use serde_json::{json, Value};

use kipcheck::scenario::matcher::{compare, compare_with, Captures};
use kipcheck::scenario::{load_dir, MatchMode, Scenario, Step};

fn suite() -> Vec<Scenario> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")).expect("suite loads")
}

fn scenario(id: &str) -> Scenario {
    suite()
        .into_iter()
        .find(|s| s.file.id == id)
        .unwrap_or_else(|| panic!("{id} exists"))
}

/// The body pattern and match mode of step `i` (an expect_request or expect_response).
fn expected_body(s: &Scenario, i: usize) -> (Value, MatchMode) {
    match &s.file.steps[i].value {
        Step::ExpectRequest(e) => (e.body.clone().expect("a body pattern"), e.mode),
        Step::ExpectResponse(e) => (e.body.clone().expect("a body pattern"), e.mode),
        other => panic!("step {i} of {} is {other:?}", s.file.id),
    }
}

/// The pattern of step `i` (a body, or an expect_event's event) and its match mode.
fn step_pattern(s: &Scenario, i: usize) -> (Value, MatchMode) {
    match &s.file.steps[i].value {
        Step::ExpectEvent(e) => (e.event.clone(), MatchMode::Subset),
        _ => expected_body(s, i),
    }
}

/// Whether the steps `(i, actual)`, in order and with one capture map as in a scenario run,
/// all accept their actual values.
fn run_accepts(s: &Scenario, answers: &[(usize, Value)]) -> bool {
    let mut captures = Captures::default();
    answers.iter().all(|(i, actual)| {
        let (pattern, mode) = step_pattern(s, *i);
        let numbers = &s.profile.provisional;
        compare_with(&pattern, Some(actual), mode, numbers, "body", &mut captures).is_empty()
    })
}

/// Whether step `i`'s pattern accepts `actual`.
fn accepts(s: &Scenario, i: usize, actual: &Value) -> bool {
    let (pattern, mode) = expected_body(s, i);
    compare(&pattern, Some(actual), mode, &s.profile.provisional, "body").is_empty()
}

/// A PushConfig entry as a client sends it.
fn entry(key: &str, value: &str, ty: i8, is_default: bool) -> Value {
    json!({ "ConfigKey": key, "ConfigValue": value, "ConfigType": ty, "IsDefault": is_default })
}

#[test]
fn older_enum_numbering_judges_config_types_not_the_clients_default_values() {
    let s = scenario("c1324-config-type-older-enum-profile");
    // A Kafka 4.x admin client under the older ClientConfigType numbering (INT 3, LIST 6):
    // its defaults are its own, e.g. metric.reporters = JmxReporter.
    let kafka_4 = |retries_type: i8| {
        json!({ "Configs": [
            entry("client.id", "a", 1, false),
            entry("connections.max.idle.ms", "300000", 4, true),
            entry("enable.metrics.push", "true", 0, true),
            entry("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter", 6, true),
            entry("retries", "2147483647", retries_type, true),
        ] })
    };
    assert!(accepts(&s, 3, &kafka_4(3)));
    // The bug it catches: INT sent as its ConfigDef.Type ordinal, 2.
    assert!(!accepts(&s, 3, &kafka_4(2)));
}

#[test]
fn the_other_feature_upgrade_is_one_every_registered_broker_supports() {
    let s = scenario("k1294-audit-other-feature-not-audited");
    let Step::Send(registration) = &s.file.steps[0].value else {
        panic!("step 0 registers the broker")
    };
    let Step::Send(update) = &s.file.steps[2].value else {
        panic!("step 2 upgrades a feature")
    };
    let body = |b: &Option<Value>| b.clone().expect("a body");
    let (registration, update) = (body(&registration.body), body(&update.body));
    let upgrade = &update["FeatureUpdates"][0];
    let level = upgrade["MaxVersionLevel"].as_i64().expect("a level");
    assert_eq!(upgrade["Feature"], "group.version");
    // A controller that checks feature support (Kafka's FeatureControlManager) finds the
    // broker supports the new level.
    let supported = registration["Features"]
        .as_array()
        .expect("Features")
        .iter()
        .any(|f| {
            f["Name"] == upgrade["Feature"]
                && f["MinSupportedVersion"].as_i64() <= Some(level)
                && Some(level) <= f["MaxSupportedVersion"].as_i64()
        });
    assert!(supported, "{registration}");
}

#[test]
fn a_remote_broker_config_needs_a_non_zero_code_and_a_message_nothing_more() {
    let s = scenario("k1294-k1256-remote-broker-config");
    let answer = |code: i16, message: Value| {
        json!({ "ThrottleTimeMs": 0, "Responses": [
            { "ErrorCode": code, "ErrorMessage": message, "ResourceType": 4, "ResourceName": "2" }
        ] })
    };
    let kafka = "Unexpected broker id, expected 1 or empty string, but received 2";
    assert!(accepts(&s, 1, &answer(42, json!(kafka))));
    assert!(accepts(
        &s,
        1,
        &answer(40, json!("send this to broker 2, not to the controller"))
    ));
    // Applied silently, or refused without a message.
    assert!(!accepts(&s, 1, &answer(0, json!(kafka))));
    assert!(!accepts(&s, 1, &answer(42, Value::Null)));
    assert!(!accepts(&s, 1, &answer(42, json!(""))));
}

/// Every positive number under an epoch key of a pattern: `BrokerEpoch: 1`, `epoch: 2`.
fn pinned_epochs(p: &Value, out: &mut Vec<String>) {
    match p {
        Value::Object(m) => {
            for (k, v) in m {
                if k.to_ascii_lowercase().ends_with("epoch") && v.as_i64().is_some_and(|n| n >= 0) {
                    out.push(format!("{k}: {v}"));
                }
                pinned_epochs(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|x| pinned_epochs(x, out)),
        _ => {}
    }
}

#[test]
fn no_scenario_pins_a_broker_epoch_number() {
    let mut pinned = Vec::new();
    for s in suite() {
        for (i, step) in s.file.steps.iter().enumerate() {
            let pattern = match &step.value {
                Step::ExpectRequest(e) => e.body.as_ref(),
                Step::ExpectResponse(e) => e.body.as_ref(),
                Step::ExpectEvent(e) => Some(&e.event),
                _ => None,
            };
            let mut here = Vec::new();
            pattern
                .into_iter()
                .for_each(|p| pinned_epochs(p, &mut here));
            pinned.extend(
                here.into_iter()
                    .map(|e| format!("{} step {i}: {e}", s.file.id)),
            );
        }
    }
    assert_eq!(pinned, Vec::<String>::new());
}

#[test]
fn epochs_are_judged_by_their_relations_whatever_the_numbering() {
    let s = scenario("k1326-ctrl-persist-at-level");
    let response = |epoch: i64| {
        (
            1,
            json!({ "ThrottleTimeMs": 0, "ErrorCode": 0, "BrokerEpoch": epoch }),
        )
    };
    let record = |epoch: i64| {
        let configs = json!([
            { "Name": "num.io.threads", "Value": "16" },
            { "Name": "log.segment.bytes", "Value": "2097152" },
        ]);
        let record = json!({ "BrokerId": 1, "BrokerEpoch": epoch, "StaticConfigs": configs });
        (
            2,
            json!({ "event": "record_appended", "offset": 1, "version": 5, "record": record }),
        )
    };
    let registered = |epoch: i64| {
        (
            3,
            json!({ "event": "broker_registered", "broker_id": 1, "epoch": epoch,
                     "static_configs": 2, "persisted": true }),
        )
    };
    // Kafka's numbering (the record's offset) or any other: the same epoch throughout.
    for epoch in [1, 7, 1 << 40] {
        assert!(run_accepts(
            &s,
            &[response(epoch), record(epoch), registered(epoch)]
        ));
    }
    // The record carries another epoch than the answer; no epoch assigned.
    assert!(!run_accepts(&s, &[response(7), record(8), registered(7)]));
    assert!(!run_accepts(&s, &[response(7), record(7), registered(8)]));
    assert!(!run_accepts(
        &s,
        &[response(-1), record(-1), registered(-1)]
    ));
}

/// A client chooses which bootstrap server it contacts first, and may contact one at a time
/// (Java's NetworkClient, kafka-python): the KIP leaves that to it. So a scenario starts its
/// client on one node and brings others in with `connect` steps (which a target must declare
/// it can follow), never by starting on several and expecting ApiVersions from each.
#[test]
fn no_client_scenario_starts_connected_to_several_nodes() {
    let several: Vec<String> = suite()
        .iter()
        .filter_map(|s| {
            let c = s.file.setup.client.as_ref()?;
            (c.connect.len() > 1).then(|| format!("{}: connect {:?}", s.file.id, c.connect))
        })
        .collect();
    assert_eq!(several, Vec::<String>::new());
}
