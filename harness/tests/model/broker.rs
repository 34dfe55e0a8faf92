//! Broker behaviour of the reference model (KIP-1324 PushConfig handling and KIP-1326
//! static-config reporting), through its public API and the wire codec.

use crate::model_support::cfg;
use kipcheck::codec::push_config_request::Config;
use kipcheck::codec::{
    ApiKey, ApiVersionsRequest, BrokerRegistrationRequest, ErrorCode, Message, PushConfigRequest,
    ResponseBody,
};
use kipcheck::model::config_def::{ConfigType, ConfigValue};
use kipcheck::model::{BrokerDecisions, Reference};
use kipcheck::model::{
    BrokerEntryChecks, BrokerModel, BrokerReply, BrokerRequest, BrokerSettings,
    ConfigTypeNumbering, Event, Millis, MvValidatorInclusion, PolicyVerdict, ServerConfigKey,
    SizeMeasure, SpecProfile, UnadvertisedPushConfigReply, Validator,
};

fn entry(key: &str, value: &str, ty: i8) -> Config {
    Config {
        config_key: key.into(),
        config_value: value.into(),
        config_type: ty,
        is_default: false,
        ..Default::default()
    }
}

fn push(configs: Vec<Config>) -> BrokerRequest {
    let body = PushConfigRequest {
        configs,
        ..Default::default()
    }
    .to_bytes(0)
    .unwrap();
    BrokerRequest {
        api_key: ApiKey(95),
        api_version: 0,
        body,
    }
}

fn broker(policy: Option<PolicyVerdict>, profile: &SpecProfile) -> BrokerModel {
    let mut s = BrokerSettings::new(1);
    s.policy = policy;
    BrokerModel::new(s, profile).unwrap()
}

/// (error code, message) of a PushConfig reply.
fn outcome(reply: &BrokerReply) -> (i16, Option<String>, i32) {
    match reply {
        BrokerReply::Response {
            body: ResponseBody::PushConfig(r),
            ..
        } => (
            r.error_code,
            r.error_message.as_ref().map(|m| m.to_string()),
            r.throttle_time_ms,
        ),
        other => panic!("expected a PushConfig response, got {other:?}"),
    }
}

#[test]
fn api_versions_advertises_push_config_iff_a_policy_is_configured() {
    let p = SpecProfile::default();
    let req = BrokerRequest {
        api_key: ApiKey::API_VERSIONS,
        api_version: 3,
        body: ApiVersionsRequest::default()
            .project(3)
            .to_bytes(3)
            .unwrap(),
    };
    for (policy, advertised) in [(Some(PolicyVerdict::Accept), true), (None, false)] {
        let mut b = broker(policy, &p);
        let BrokerReply::Response {
            body: ResponseBody::ApiVersions(r),
            ..
        } = b.handle_request(Millis(0), &req)
        else {
            panic!()
        };
        assert_eq!(
            r.api_keys
                .iter()
                .any(|k| k.api_key == 95 && k.min_version == 0 && k.max_version == 0),
            advertised
        );
        assert!(b.events().iter().any(|e| e.event
            == Event::ApiVersionsAnswered {
                version: 3,
                push_config_advertised: advertised
            }));
    }
}

#[test]
fn policy_is_invoked_with_typed_configs_and_the_broker_timestamp() {
    let mut b = broker(Some(PolicyVerdict::Accept), &SpecProfile::default());
    let reply = b.handle_request(
        Millis(1234),
        &push(vec![
            entry("max.poll.records", "50", 2),
            entry("group.protocol", "classic", 1),
        ]),
    );
    assert_eq!(outcome(&reply), (0, None, 0));
    let invoked = b.events().iter().find_map(|e| match &e.event {
        Event::PolicyInvoked { configs, timestamp } => Some((configs.clone(), *timestamp)),
        _ => None,
    });
    let (configs, ts) = invoked.unwrap();
    assert_eq!(ts, Millis(1234));
    assert_eq!(configs[0].value, kipcheck::model::ConfigValue::Int(50));
    assert_eq!(configs[0].ty, ConfigType::Int);
    assert_eq!(b.policy_invocations(), 1);
    let json = serde_json::to_string(b.events()).unwrap();
    assert!(
        json.contains("\"event\":\"policy_invoked\"") && json.contains("\"int\":50"),
        "{json}"
    );
}

#[test]
fn policy_rejection_is_invalid_config_with_its_message() {
    let mut b = broker(
        Some(PolicyVerdict::Reject {
            message: "client.id must be set".into(),
        }),
        &SpecProfile::default(),
    );
    let reply = b.handle_request(Millis(0), &push(vec![entry("client.id", "", 1)]));
    assert_eq!(
        outcome(&reply),
        (40, Some("client.id must be set".into()), 0)
    );
    assert_eq!(b.policy_invocations(), 1);
}

#[test]
fn size_limit_is_checked_before_the_policy_and_rejects_only_above_max() {
    let p = SpecProfile::default();
    // Find a value length that puts the body at exactly 10240 bytes.
    let body_len = |n: usize| {
        PushConfigRequest {
            configs: vec![entry("client.id", &"x".repeat(n), 1)],
            ..Default::default()
        }
        .encoded_len(0)
        .unwrap()
    };
    let n = (1..11000).find(|n| body_len(*n) == 10240).unwrap();
    let mut b = broker(Some(PolicyVerdict::Accept), &p);
    let at_max = push(vec![entry("client.id", &"x".repeat(n), 1)]);
    assert_eq!(at_max.body.len(), 10240);
    assert_eq!(outcome(&b.handle_request(Millis(0), &at_max)).0, 0);
    let over = push(vec![entry("client.id", &"x".repeat(n + 1), 1)]);
    let (code, msg, _) = outcome(&b.handle_request(Millis(0), &over));
    assert_eq!(code, 137);
    assert!(msg.unwrap().contains("client.config.max.bytes"));
    assert_eq!(
        b.policy_invocations(),
        1,
        "policy not called for the oversized push"
    );
    b.check_invariants().unwrap();

    // Under the Configs-array measure, the 10241-byte body measures 10240: accepted.
    let mut q = p.clone();
    q.size_measure = SizeMeasure::ConfigsArray;
    let mut b = broker(Some(PolicyVerdict::Accept), &q);
    assert_eq!(outcome(&b.handle_request(Millis(0), &over)).0, 0);
}

#[test]
fn configured_max_bytes_and_provisional_code_apply() {
    let mut p = SpecProfile::default();
    p.provisional.config_too_large = ErrorCode(150);
    let mut s = BrokerSettings::new(1);
    s.client_config_max_bytes = Some(10);
    let mut b = BrokerModel::new(s, &p).unwrap();
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![entry("client.id", "abcdefgh", 1)]))).0,
        150
    );
}

/// `e`, pushed after a valid entry to an accepting broker, gets INVALID_CONFIG with exactly
/// `needle` and the policy is not called.
fn assert_refused_before_policy(p: &SpecProfile, e: Config, needle: &str) {
    let mut b = broker(Some(PolicyVerdict::Accept), p);
    let (code, msg, _) = outcome(&b.handle_request(Millis(0), &push(vec![entry("ok", "1", 2), e])));
    assert_eq!((code, msg.as_deref()), (40, Some(needle)));
    assert_eq!(b.policy_invocations(), 0);
}

#[test]
fn unknown_config_types_are_refused_by_the_broker_under_both_readings() {
    for checks in [BrokerEntryChecks::Policy, BrokerEntryChecks::Broker] {
        let p = SpecProfile {
            broker_entry_checks: checks,
            ..SpecProfile::default()
        };
        for (e, needle) in [
            (
                entry("a", "1", 9),
                "Config entry 'a' has unknown ConfigType 9",
            ),
            (
                entry("b", "1", -1),
                "Config entry 'b' has unknown ConfigType -1",
            ),
        ] {
            assert_refused_before_policy(&p, e, needle);
        }
    }
}

#[test]
fn broker_entry_checks_broker_refuses_sensitive_types_and_unparsable_values() {
    let p = SpecProfile {
        broker_entry_checks: BrokerEntryChecks::Broker,
        ..SpecProfile::default()
    };
    for (e, needle) in [
        (
            entry("c", "x", 7),
            "Config entry 'c' has sensitive ConfigType CLASS and must not be sent",
        ),
        (
            entry("d", "x", 8),
            "Config entry 'd' has sensitive ConfigType PASSWORD and must not be sent",
        ),
        (
            entry("e", "hi!", 0),
            "Config entry 'e' value 'hi!' cannot be parsed as BOOLEAN",
        ),
        (
            entry("f", "70000", 3),
            "Config entry 'f' value '70000' cannot be parsed as SHORT",
        ),
    ] {
        assert_refused_before_policy(&p, e, needle);
    }
}

#[test]
fn by_default_sensitive_types_and_unparsable_values_reach_the_policy() {
    let p = SpecProfile::default();
    assert_eq!(p.broker_entry_checks, BrokerEntryChecks::Policy);
    let mut b = broker(Some(PolicyVerdict::Accept), &p);
    let reply = b.handle_request(
        Millis(7),
        &push(vec![
            entry("c", "com.example.C", 7),
            entry("d", "x", 8),
            entry("e", "hi!", 0),
            entry("f", "70000", 3),
        ]),
    );
    assert_eq!(outcome(&reply), (0, None, 0));
    assert_eq!(b.policy_invocations(), 1);
    let invoked = b
        .events()
        .iter()
        .find_map(|e| match &e.event {
            Event::PolicyInvoked { configs, .. } => Some(configs.clone()),
            _ => None,
        })
        .unwrap();
    let seen: Vec<(String, ConfigValue, ConfigType)> = invoked
        .into_iter()
        .map(|c| (c.key, c.value, c.ty))
        .collect();
    assert_eq!(
        seen,
        vec![
            (
                "c".into(),
                ConfigValue::Class("com.example.C".into()),
                ConfigType::Class
            ),
            (
                "d".into(),
                ConfigValue::Password("x".into()),
                ConfigType::Password
            ),
            (
                "e".into(),
                ConfigValue::String("hi!".into()),
                ConfigType::Boolean
            ),
            (
                "f".into(),
                ConfigValue::String("70000".into()),
                ConfigType::Short
            ),
        ]
    );
    // A rejecting policy is what turns them into INVALID_CONFIG.
    let mut r = broker(
        Some(PolicyVerdict::Reject {
            message: "d is a PASSWORD".into(),
        }),
        &p,
    );
    let reply = r.handle_request(Millis(0), &push(vec![entry("d", "x", 8)]));
    assert_eq!(outcome(&reply), (40, Some("d is a PASSWORD".into()), 0));
    assert_eq!(r.policy_invocations(), 1);
}

#[test]
fn older_numbering_reads_int_as_three_and_has_no_seven() {
    let p = SpecProfile {
        config_type_numbering: ConfigTypeNumbering::OlderKipEnum,
        ..SpecProfile::default()
    };
    let mut b = broker(Some(PolicyVerdict::Accept), &p);
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![entry("x", "70000", 3)]))).0,
        0,
        "3 = INT"
    );
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![entry("x", "70000", 2)]))).0,
        0,
        "2 = SHORT: 70000 does not parse, and by default that is the policy's to judge"
    );
    let strict = SpecProfile {
        broker_entry_checks: BrokerEntryChecks::Broker,
        ..p.clone()
    };
    let mut b = broker(Some(PolicyVerdict::Accept), &strict);
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![entry("x", "70000", 2)]))).0,
        40,
        "2 = SHORT"
    );
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![entry("x", "a", 7)]))).0,
        40
    );
}

#[test]
fn an_mv_validator_counts_for_inclusion_only_under_that_reading() {
    let mut key = ServerConfigKey::new(ConfigType::Int, Some("5"), None);
    key.mv_validators.0.insert(30, Validator::AtLeast(3.0));
    let names = |inclusion: MvValidatorInclusion| {
        let p = SpecProfile {
            mv_validator_inclusion: inclusion,
            ..SpecProfile::default()
        };
        let mut s = BrokerSettings::new(1);
        s.defs.broker.insert("custom.mv.only".into(), key.clone());
        let b = BrokerModel::new(s, &p).unwrap();
        b.check_invariants().unwrap();
        b.static_configs()
            .into_iter()
            .filter(|c| c.name.as_str() == "custom.mv.only")
            .map(|c| c.value.map(|v| v.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(MvValidatorInclusion::StaticOnly),
        Vec::<Option<String>>::new()
    );
    assert_eq!(
        names(MvValidatorInclusion::Counts),
        vec![Some("5".to_string())]
    );
}

#[test]
fn decode_errors_close_the_connection() {
    let mut b = broker(Some(PolicyVerdict::Accept), &SpecProfile::default());
    for body in [vec![], vec![0x02, 0x0a], vec![0x01, 0x00, 0xff]] {
        let r = b.handle_request(
            Millis(0),
            &BrokerRequest {
                api_key: ApiKey(95),
                api_version: 0,
                body,
            },
        );
        assert!(matches!(r, BrokerReply::Close { .. }), "{r:?}");
    }
    let r = b.handle_request(
        Millis(0),
        &BrokerRequest {
            api_key: ApiKey(95),
            api_version: 1,
            body: vec![0x01, 0x00],
        },
    );
    assert!(matches!(r, BrokerReply::Close { .. }));
    assert_eq!(b.policy_invocations(), 0);
}

#[test]
fn unadvertised_push_config_follows_the_profile() {
    let mut p = SpecProfile::default();
    let mut b = broker(None, &p);
    assert!(matches!(
        b.handle_request(Millis(0), &push(vec![entry("a", "1", 2)])),
        BrokerReply::Close { .. }
    ));
    p.unadvertised_push_config = UnadvertisedPushConfigReply::UnsupportedVersion;
    let mut b = broker(None, &p);
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![entry("a", "1", 2)]))).0,
        35
    );
    assert_eq!(b.policy_invocations(), 0);
}

#[test]
fn throttle_is_reported_and_empty_or_duplicate_configs_are_accepted() {
    let mut b = broker(Some(PolicyVerdict::Accept), &SpecProfile::default());
    b.set_throttle_time_ms(250);
    assert_eq!(
        outcome(&b.handle_request(Millis(0), &push(vec![]))),
        (0, None, 250)
    );
    assert_eq!(
        outcome(&b.handle_request(
            Millis(0),
            &push(vec![entry("a", "1", 2), entry("a", "2", 2)])
        )),
        (0, None, 250)
    );
}

#[test]
fn provisional_api_key_override_moves_push_config() {
    let mut p = SpecProfile::default();
    p.provisional.push_config_api_key = ApiKey(99);
    let mut b = broker(Some(PolicyVerdict::Accept), &p);
    let mut req = push(vec![entry("a", "1", 2)]);
    assert!(
        matches!(b.handle_request(Millis(0), &req), BrokerReply::Close { .. }),
        "95 is not PushConfig now"
    );
    req.api_key = ApiKey(99);
    assert!(matches!(
        b.handle_request(Millis(0), &req),
        BrokerReply::Response {
            api_key: ApiKey(99),
            ..
        }
    ));
}

// ----- KIP-1326 static configs -----

fn static_broker(props: &[(&str, &str)]) -> BrokerModel {
    let mut s = BrokerSettings::new(3);
    s.server_properties = cfg(props);
    s.defs.broker.insert(
        "secret.with.validator".into(),
        ServerConfigKey::new(ConfigType::Password, None, Some(Validator::NonEmptyString)),
    );
    BrokerModel::new(s, &SpecProfile::default()).unwrap()
}

#[test]
fn static_configs_follow_the_inclusion_rule_with_effective_values() {
    let b = static_broker(&[
        ("log.segment.bytes", "2097152"),
        ("log.cleanup.policy", "compact, delete"),
        ("secret.with.validator", "pw"),
        ("log.dirs", "/d"),
        ("my.custom", "1"),
    ]);
    let got: Vec<(String, Option<String>)> = b
        .static_configs()
        .into_iter()
        .map(|s| (s.name.to_string(), s.value.map(|v| v.to_string())))
        .collect();
    let expect = [
        ("compression.type", "producer"),
        ("log.cleanup.policy", "compact,delete"),
        ("log.segment.bytes", "2097152"),
        ("message.max.bytes", "1048588"),
        ("min.insync.replicas", "1"),
        ("num.io.threads", "8"),
        ("num.network.threads", "3"),
        ("num.partitions", "1"),
    ];
    assert_eq!(
        got,
        expect.map(|(k, v)| (k.to_string(), Some(v.to_string())))
    );
}

#[test]
fn invalid_server_properties_refuse_to_start() {
    let mut s = BrokerSettings::new(1);
    s.server_properties = cfg(&[("log.segment.bytes", "1024")]);
    assert!(BrokerModel::new(s, &SpecProfile::default()).is_err());
}

#[test]
fn registration_carries_static_configs_only_from_v6() {
    let b = static_broker(&[]);
    let (v, req) = b.registration_request(6);
    assert_eq!(v, 6);
    assert_eq!(req.static_configs.as_ref().unwrap().len(), 8);
    let bytes = req.to_bytes(6).unwrap();
    assert_eq!(
        BrokerRegistrationRequest::from_bytes(&bytes, 6).unwrap(),
        req
    );
    let (v, req) = b.registration_request(5);
    assert_eq!(v, 5);
    assert_eq!(req.static_configs, None);
    assert!(req.to_bytes(5).is_ok());
    assert_eq!(
        b.registration_request(9).0,
        6,
        "never above what the broker speaks"
    );
}

#[test]
fn broker_settings_and_definitions_load_from_yaml() {
    let yaml = r#"
node_id: 2
policy: { reject: { message: "no thanks" } }
client_config_max_bytes: 512
throttle_time_ms: 100
server_properties:
  log.segment.bytes: "2097152"
defs:
  broker:
    log.segment.bytes:
      ty: INT
      default: "1073741824"
      validator: { at_least: 1048576.0 }
      mv_validators: { 40: { at_least: 3145728.0 } }
  topic: {}
"#;
    let s: BrokerSettings = serde_saphyr::from_str(yaml).unwrap();
    assert_eq!(s.node_id, 2);
    assert_eq!(
        s.policy,
        Some(PolicyVerdict::Reject {
            message: "no thanks".into()
        })
    );
    let key = &s.defs.broker["log.segment.bytes"];
    assert_eq!(key.mv_validators.floor(41).unwrap().0, 40);
    assert!(Reference.reports_static_config(key.report_facts(false)));
    let b = BrokerModel::new(s, &SpecProfile::default()).unwrap();
    assert_eq!(b.static_configs().len(), 1);
    assert!(serde_saphyr::from_str::<BrokerSettings>("nodeid: 1\n").is_err());
}
