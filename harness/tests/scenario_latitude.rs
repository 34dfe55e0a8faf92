//! Scenarios judge what the KIPs fix, as strictly as they fix it, and accept every outcome
//! they allow. Each test takes a shipped scenario's own pattern and matches it against an
//! answer a correct implementation may give where it differs from kipcheck's reference (other
//! defaults, codes, wording, epoch numbering), and against the bug the scenario is there to
//! catch. The reference passing them (`conformance_suite.rs`) says nothing about this.

use std::path::Path;

use serde_json::{json, Value};

use kipcheck::scenario::matcher::compare;
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
