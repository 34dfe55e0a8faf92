//! Key selection.

use super::*;

#[test]
fn values_types_and_is_default_are_exact() {
    let c = consumer(&[("max.poll.records", " 50 "), ("client.id", "")]);
    let req = c.selected_request().unwrap();
    let get = |k: &str| req.configs.iter().find(|c| c.config_key == k).unwrap();
    let m = get("max.poll.records");
    assert_eq!(
        (m.config_value.as_str(), m.config_type, m.is_default),
        ("50", 2, false)
    );
    // The user set client.id to its default value: still not a default (IsDefault = absent).
    let id = get("client.id");
    assert_eq!(
        (id.config_value.as_str(), id.config_type, id.is_default),
        ("", 1, false)
    );
    let e = get("enable.auto.commit");
    assert_eq!(
        (e.config_value.as_str(), e.config_type, e.is_default),
        ("true", 0, true)
    );
    // group.id defaults to null: omitted, never sent as an empty string.
    assert!(req.configs.iter().all(|c| c.config_key != "group.id"));
    assert!(
        c.events().is_empty(),
        "selection events are emitted at Start"
    );
}

#[test]
fn allowed_keys_replace_the_default_list_and_render_lists_like_kafka() {
    let c = consumer(&[
        (
            "config.push.allowed.keys",
            "bootstrap.servers, max.poll.records",
        ),
        ("bootstrap.servers", "a:9092, b:9092"),
    ]);
    assert_eq!(keys(&c), ["bootstrap.servers", "max.poll.records"]);
    let bs = &c.selected_request().unwrap().configs[0];
    assert_eq!(
        (bs.config_value.as_str(), bs.config_type),
        ("a:9092,b:9092", 6)
    );
}

#[test]
fn allowed_keys_key_itself_is_sent_only_if_listed() {
    let c = consumer(&[("config.push.allowed.keys", "client.id")]);
    assert_eq!(keys(&c), ["client.id"]);
    let c = consumer(&[(
        "config.push.allowed.keys",
        "client.id,config.push.allowed.keys",
    )]);
    let req = c.selected_request().unwrap();
    assert_eq!(req.configs[1].config_key, "config.push.allowed.keys");
    assert_eq!(
        req.configs[1].config_value,
        "client.id,config.push.allowed.keys"
    );
    assert!(!req.configs[1].is_default);
}

#[test]
fn one_warning_per_sensitive_key_for_each_rule() {
    let listed = [
        "sasl.jaas.config",
        "security.protocol",
        "ssl.protocol",
        "consumer.ssl.x",
        "interceptor.classes",
        "key.deserializer",
        "ssl.key.password",
        "my.app.setting",
        "client.id",
    ]
    .join(",");
    let mut c = consumer(&[
        ("config.push.allowed.keys", &listed),
        ("my.app.setting", "x"),
    ]);
    let out = c.handle(Millis(0), ClientInput::Start);
    let warnings: Vec<(String, SensitivityRule)> = events(&out)
        .into_iter()
        .filter_map(|e| match e {
            Event::SensitiveKeyDropped { key, rule } => Some((key, rule)),
            _ => None,
        })
        .collect();
    use SensitivityRule::*;
    let expect = [
        ("sasl.jaas.config", SecurityPrefix),
        ("security.protocol", SecurityPrefix),
        ("ssl.protocol", SecurityPrefix),
        ("consumer.ssl.x", SecurityInfix),
        ("interceptor.classes", ClassSuffix),
        ("key.deserializer", ClassType),
        ("ssl.key.password", SecurityPrefix),
        ("my.app.setting", Undefined),
    ];
    assert_eq!(warnings, expect.map(|(k, r)| (k.to_string(), r)));
    assert_eq!(keys(&c), ["client.id"]);
}

#[test]
fn password_type_rule_applies_to_password_keys_without_a_prefix() {
    // Every PASSWORD key Kafka defines also has a security prefix; rule 5 still holds alone.
    assert_eq!(
        kipcheck::model::classify("db.pass", Some(kipcheck::model::ConfigType::Password)),
        Some(SensitivityRule::PasswordType)
    );
}

#[test]
fn no_request_when_everything_is_sensitive() {
    let mut c = consumer(&[("config.push.allowed.keys", "ssl.protocol,key.deserializer")]);
    let mut out = c.handle(Millis(0), ClientInput::Start);
    out.extend(c.handle(Millis(0), ClientInput::Connected { node: 1 }));
    out.extend(c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    ));
    assert!(push_targets(&out).is_empty());
    assert_eq!(
        c.state(),
        &HandshakeState::Skipped(SkipReason::NothingToSend)
    );
}

#[test]
fn budget_drops_defaults_first_then_largest() {
    let long = "x".repeat(200);
    let mut profile = SpecProfile::default();
    profile.defaults.client_config_max_bytes = 150;
    let c = ClientModel::new(
        ClientType::Consumer,
        cfg(&[
            (
                "config.push.allowed.keys",
                "client.id,group.id,isolation.level,max.poll.records",
            ),
            ("client.id", &long),
            ("group.id", "g"),
        ]),
        &profile,
        1,
    )
    .unwrap();
    // Defaults (isolation.level, then max.poll.records) go first, then the 200-byte client.id.
    assert_eq!(keys(&c), ["group.id"]);
    let mut c = c;
    let dropped: Vec<String> = events(&c.handle(Millis(0), ClientInput::Start))
        .into_iter()
        .filter_map(|e| match e {
            Event::KeyDroppedForBudget { key, .. } => Some(key),
            _ => None,
        })
        .collect();
    assert_eq!(
        dropped,
        ["isolation.level", "max.poll.records", "client.id"]
    );
}

#[test]
fn request_exactly_at_budget_is_kept() {
    let user = || {
        cfg(&[
            ("config.push.allowed.keys", "client.id"),
            ("client.id", "abc"),
        ])
    };
    let kept = |measure: SizeMeasure, budget: u32| {
        let mut p = SpecProfile {
            size_measure: measure,
            ..SpecProfile::default()
        };
        p.defaults.client_config_max_bytes = budget;
        let c = ClientModel::new(ClientType::Consumer, user(), &p, 1).unwrap();
        c.selected_request().is_some()
    };
    let base = ClientModel::new(ClientType::Consumer, user(), &SpecProfile::default(), 1).unwrap();
    let body =
        kipcheck::codec::Message::encoded_len(base.selected_request().unwrap(), 0).unwrap() as u32;
    assert!(kept(SizeMeasure::RequestBody, body));
    assert!(!kept(SizeMeasure::RequestBody, body - 1));
    // Under the Configs-array measure the same request needs one byte less.
    assert!(kept(SizeMeasure::ConfigsArray, body - 1));
    assert!(!kept(SizeMeasure::ConfigsArray, body - 2));
}

#[test]
fn older_kip_numbering_swaps_int_and_short() {
    let p = SpecProfile {
        config_type_numbering: ConfigTypeNumbering::OlderKipEnum,
        ..SpecProfile::default()
    };
    let c = ClientModel::new(ClientType::Admin, cfg(&[]), &p, 1).unwrap();
    let t: Vec<i8> = c
        .selected_request()
        .unwrap()
        .configs
        .iter()
        .map(|c| c.config_type)
        .collect();
    assert_eq!(t, [1, 3, 3]);
}

#[test]
fn invalid_user_values_are_configuration_errors() {
    assert!(ClientModel::new(
        ClientType::Consumer,
        cfg(&[("max.poll.records", "many")]),
        &SpecProfile::default(),
        1
    )
    .is_err());
    assert!(ClientModel::new(
        ClientType::Consumer,
        cfg(&[("enable.config.push", "maybe")]),
        &SpecProfile::default(),
        1
    )
    .is_err());
    // Custom keys are not parsed.
    assert!(ClientModel::new(
        ClientType::Consumer,
        cfg(&[("my.thing", "many")]),
        &SpecProfile::default(),
        1
    )
    .is_ok());
}
