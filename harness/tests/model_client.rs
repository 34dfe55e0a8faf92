//! KIP-1324 client behaviour of the reference model, through its public API: key selection,
//! the sensitivity filter, the handshake, retries, throttling, deadlines and user blocking.
//! Covers the client items of kip-notes §1.14.

mod model_support;

use kipcheck::codec::{ApiKey, ErrorCode, RequestBody};
use kipcheck::model::events::{RetryCause, SkipReason, UnblockReason};
use kipcheck::model::{
    ClientInput, ClientModel, ClientOutput, ClientType, ConfigTypeNumbering, Event, HandshakeState,
    Millis, RequestTimeoutAction, SensitivityRule, SizeMeasure, SpecProfile,
};
use model_support::*;

fn consumer(user: &[(&str, &str)]) -> ClientModel {
    ClientModel::new(ClientType::Consumer, cfg(user), &SpecProfile::default(), 1).unwrap()
}

fn consumer_seeded(seed: u64) -> ClientModel {
    ClientModel::new(
        ClientType::Consumer,
        cfg(&[]),
        &SpecProfile::default(),
        seed,
    )
    .unwrap()
}

fn keys(c: &ClientModel) -> Vec<String> {
    c.selected_request()
        .map(|r| r.configs.iter().map(|c| c.config_key.to_string()).collect())
        .unwrap_or_default()
}

/// A `Sim` under the default profile.
fn sim(
    t: ClientType,
    user: std::collections::BTreeMap<String, String>,
    seed: u64,
    brokers: &[(i32, bool)],
) -> Sim {
    Sim::new(t, user, &SpecProfile::default(), seed, brokers)
}

// ----- happy path, startup, client types -----

#[test]
fn happy_path_through_the_codec() {
    let mut sim = sim(
        ClientType::Consumer,
        cfg(&[("group.id", "g")]),
        7,
        &[(1, true)],
    );
    sim.boot();
    assert_eq!(sim.client().state(), &HandshakeState::Completed { node: 1 });
    assert_eq!(sim.pushes(), vec![1]);
    assert_eq!(sim.broker(1).policy_invocations(), 1);
    let (_, key, _) = sim
        .sent
        .iter()
        .find(|(_, _, b)| matches!(b, RequestBody::PushConfig(_)))
        .unwrap();
    assert_eq!(*key, ApiKey(95));
}

#[test]
fn every_client_type_performs_the_handshake_when_it_has_keys() {
    for t in ClientType::ALL {
        // Producer and Streams have empty default lists (KIP elides them): they need an override.
        let user = match t {
            ClientType::Producer => cfg(&[("config.push.allowed.keys", "acks,linger.ms")]),
            ClientType::Streams => cfg(&[
                ("application.id", "app"),
                (
                    "config.push.allowed.keys",
                    "application.id,num.stream.threads",
                ),
            ]),
            _ => cfg(&[]),
        };
        let mut sim = Sim::new(t, user, &SpecProfile::default(), 3, &[(1, true)]);
        sim.boot();
        assert_eq!(
            sim.client().state(),
            &HandshakeState::Completed { node: 1 },
            "{t:?}"
        );
    }
}

#[test]
fn producer_and_streams_default_lists_are_empty_so_nothing_is_sent() {
    for t in [ClientType::Producer, ClientType::Streams] {
        let mut c = ClientModel::new(t, cfg(&[]), &SpecProfile::default(), 1).unwrap();
        let out = c.handle(Millis(0), ClientInput::Start);
        assert!(events(&out).contains(&Event::HandshakeSkipped {
            reason: SkipReason::NothingToSend
        }));
        assert!(c.selected_request().is_none());
    }
}

#[test]
fn disabled_client_skips_the_whole_handshake() {
    let mut sim = sim(
        ClientType::Consumer,
        cfg(&[("enable.config.push", "false")]),
        1,
        &[(1, true)],
    );
    sim.boot();
    assert_eq!(
        sim.client().state(),
        &HandshakeState::Skipped(SkipReason::Disabled)
    );
    assert!(sim.pushes().is_empty());
    assert!(!sim
        .client()
        .events()
        .iter()
        .any(|e| matches!(e.event, Event::KeySelected { .. })));
    sim.input(ClientInput::UserRequest { id: 1 });
    assert_eq!(sim.released, vec![1]);
}

#[test]
fn streams_pushes_once_and_embedded_clients_never() {
    let profile = SpecProfile::default();
    let mut app = Sim::new(
        ClientType::Streams,
        cfg(&[
            ("application.id", "a"),
            ("config.push.allowed.keys", "application.id"),
        ]),
        &profile,
        1,
        &[(1, true)],
    );
    app.boot();
    assert_eq!(app.pushes(), vec![1]);
    for t in [
        ClientType::Producer,
        ClientType::Consumer,
        ClientType::Admin,
    ] {
        let mut c = ClientModel::new_embedded(t, cfg(&[]), &profile, 1).unwrap();
        let mut out = c.handle(Millis(0), ClientInput::Start);
        out.extend(c.handle(Millis(0), ClientInput::Connected { node: 1 }));
        out.extend(c.handle(
            Millis(0),
            ClientInput::ApiVersionsResponse {
                node: 1,
                body: api_versions(true),
            },
        ));
        assert!(push_targets(&out).is_empty(), "{t:?}");
        assert_eq!(
            c.state(),
            &HandshakeState::Skipped(SkipReason::EmbeddedInStreams)
        );
    }
}

#[test]
fn each_client_type_sends_its_own_default_keys() {
    assert_eq!(
        keys(&consumer(&[("group.id", "g")])),
        [
            "auto.offset.reset",
            "client.id",
            "enable.auto.commit",
            "fetch.max.wait.ms",
            "fetch.min.bytes",
            "group.id",
            "isolation.level",
            "max.poll.interval.ms",
            "max.poll.records",
            "request.timeout.ms",
            "session.timeout.ms"
        ]
    );
    let admin = ClientModel::new(ClientType::Admin, cfg(&[]), &SpecProfile::default(), 1).unwrap();
    assert_eq!(keys(&admin), ["client.id", "request.timeout.ms", "retries"]);
    let share = ClientModel::new(
        ClientType::ShareConsumer,
        cfg(&[("group.id", "g")]),
        &SpecProfile::default(),
        1,
    )
    .unwrap();
    assert_eq!(
        keys(&share),
        [
            "client.id",
            "fetch.max.wait.ms",
            "fetch.min.bytes",
            "group.id",
            "max.poll.interval.ms",
            "max.poll.records",
            "share.acknowledgement.mode",
            "share.acquire.mode"
        ]
    );
}

// ----- key selection -----

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

// ----- handshake: nodes, once per instance, blocking -----

#[test]
fn mixed_brokers_handshake_only_with_new_ones() {
    let mut sim = sim(
        ClientType::Admin,
        cfg(&[]),
        11,
        &[(1, false), (2, true), (3, false)],
    );
    sim.boot();
    assert_eq!(sim.pushes(), vec![2]);
    assert_eq!(sim.client().state(), &HandshakeState::Completed { node: 2 });
    assert_eq!(sim.broker(1).policy_invocations(), 0);
}

#[test]
fn only_old_brokers_release_user_requests_without_a_push() {
    let mut sim = sim(ClientType::Admin, cfg(&[]), 1, &[(1, false), (2, false)]);
    sim.input(ClientInput::Start);
    sim.input(ClientInput::UserRequest { id: 5 });
    assert!(sim.released.is_empty());
    sim.input(ClientInput::Connected { node: 1 });
    sim.input(ClientInput::Connected { node: 2 });
    assert_eq!(sim.released, vec![5]);
    assert!(sim.pushes().is_empty());
    assert!(sim.client().events().iter().any(|e| e.event
        == Event::UserRequestsUnblocked {
            reason: UnblockReason::NoNodeSupportsPushConfig
        }));
}

#[test]
fn node_choice_uses_the_seeded_rng() {
    // All three nodes are connected and have answered ApiVersions before the client starts,
    // so the first push chooses among all of them.
    let choose = |seed: u64| {
        let mut c = consumer_seeded(seed);
        for node in 1..=3 {
            c.handle(Millis(0), ClientInput::Connected { node });
            c.handle(
                Millis(0),
                ClientInput::ApiVersionsResponse {
                    node,
                    body: api_versions(true),
                },
            );
        }
        let out = c.handle(Millis(0), ClientInput::Start);
        let chosen = events(&out).into_iter().find_map(|e| match e {
            Event::NodeChosen { node, candidates } => Some((node, candidates)),
            _ => None,
        });
        let (node, candidates) = chosen.unwrap_or_else(|| panic!("seed {seed}: no choice"));
        assert_eq!(candidates, vec![1, 2, 3], "seed {seed}");
        assert_eq!(push_targets(&out), vec![node], "seed {seed}");
        node
    };
    for seed in 0..40u64 {
        assert_eq!(
            choose(seed),
            choose(seed),
            "seed {seed}: same seed, same node"
        );
    }
    let chosen: std::collections::BTreeSet<i32> = (0..40u64).map(choose).collect();
    assert_eq!(chosen, [1, 2, 3].into_iter().collect());
}

#[test]
fn the_first_advertising_node_gets_the_push_and_stays_sticky() {
    let mut c = consumer(&[]);
    c.handle(Millis(0), ClientInput::Start);
    c.handle(Millis(0), ClientInput::Connected { node: 1 });
    c.handle(Millis(0), ClientInput::Connected { node: 2 });
    let out = c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse {
            node: 2,
            body: api_versions(true),
        },
    );
    assert_eq!(push_targets(&out), vec![2]);
    c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    );
    let out = c.handle(
        Millis(1),
        ClientInput::PushConfigResponse {
            node: 2,
            body: push_response(ErrorCode::REQUEST_TIMED_OUT, 0, None),
        },
    );
    let at = wake(&out).unwrap();
    assert_eq!(
        push_targets(&c.handle(at, ClientInput::Tick)),
        vec![2],
        "sticky"
    );
}

#[test]
fn handshake_happens_once_per_client_instance() {
    let mut sim = sim(ClientType::Admin, cfg(&[]), 1, &[(1, true), (2, true)]);
    sim.boot();
    assert_eq!(sim.pushes().len(), 1);
    sim.input(ClientInput::Disconnected { node: 1 });
    sim.input(ClientInput::Disconnected { node: 2 });
    sim.input(ClientInput::Connected { node: 1 });
    sim.input(ClientInput::Connected { node: 2 });
    assert_eq!(
        sim.pushes().len(),
        1,
        "reconnects do not repeat the handshake"
    );
    let api_versions = sim
        .sent
        .iter()
        .filter(|(_, k, _)| *k == ApiKey::API_VERSIONS)
        .count();
    assert_eq!(api_versions, 4);
}

#[test]
fn user_requests_wait_for_the_handshake() {
    let mut c = consumer(&[]);
    c.handle(Millis(0), ClientInput::Start);
    let out = c.handle(Millis(1), ClientInput::UserRequest { id: 1 });
    assert!(events(&out).contains(&Event::UserRequestBlocked { id: 1 }));
    c.handle(Millis(2), ClientInput::Connected { node: 1 });
    c.handle(
        Millis(3),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    );
    let out = c.handle(
        Millis(4),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::NONE, 0, None),
        },
    );
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 1 }));
    let out = c.handle(Millis(5), ClientInput::UserRequest { id: 2 });
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
}

// ----- retries, errors, throttling, deadline -----

#[test]
fn retriable_errors_are_retried_with_exponential_backoff() {
    let mut c = consumer(&[]);
    let out = start_and_connect(&mut c, 1, true);
    assert_eq!(push_targets(&out), vec![1]);
    let mut now = Millis(0);
    let mut delays = Vec::new();
    for _ in 0..5 {
        let out = c.handle(
            now,
            ClientInput::PushConfigResponse {
                node: 1,
                body: push_response(ErrorCode::REQUEST_TIMED_OUT, 0, None),
            },
        );
        let (at, backoff) = events(&out)
            .into_iter()
            .find_map(|e| match e {
                Event::RetryScheduled {
                    at,
                    backoff_ms,
                    cause: RetryCause::RetriableError(ErrorCode::REQUEST_TIMED_OUT),
                    ..
                } => Some((at, backoff_ms)),
                _ => None,
            })
            .expect("retry scheduled");
        assert_eq!(wake(&out), Some(at));
        assert!(
            push_targets(&c.handle(Millis(at.0 - 1), ClientInput::Tick)).is_empty(),
            "not before the backoff"
        );
        now = at;
        assert_eq!(push_targets(&c.handle(now, ClientInput::Tick)), vec![1]);
        delays.push(backoff);
    }
    let bounds = [(80, 120), (160, 240), (320, 480), (640, 960), (800, 1000)];
    for (d, (lo, hi)) in delays.iter().zip(bounds) {
        assert!((lo..=hi).contains(d), "{delays:?}");
    }
    assert_eq!(c.attempts(), 6);
}

#[test]
fn config_too_large_and_invalid_config_are_logged_and_never_retried() {
    for (code, msg) in [
        (ErrorCode::CONFIG_TOO_LARGE, "too big"),
        (ErrorCode::INVALID_CONFIG, "bad entry 'x'"),
    ] {
        let mut c = consumer(&[]);
        start_and_connect(&mut c, 1, true);
        c.handle(Millis(0), ClientInput::UserRequest { id: 9 });
        let out = c.handle(
            Millis(1),
            ClientInput::PushConfigResponse {
                node: 1,
                body: push_response(code, 0, Some(msg)),
            },
        );
        assert!(events(&out).contains(&Event::PushRejected {
            node: 1,
            error_code: code,
            error_message: Some(msg.into())
        }));
        assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 9 }));
        assert_eq!(c.state(), &HandshakeState::Rejected { error_code: code });
        assert!(push_targets(&c.handle(Millis(100_000), ClientInput::Tick)).is_empty());
        assert_eq!(c.attempts(), 1);
    }
}

#[test]
fn config_too_large_follows_the_provisional_wire_code() {
    let mut p = SpecProfile::default();
    p.provisional.config_too_large = ErrorCode(150);
    let mut c = ClientModel::new(ClientType::Admin, cfg(&[]), &p, 1).unwrap();
    start_and_connect(&mut c, 1, true);
    let out = c.handle(
        Millis(0),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode(150), 0, None),
        },
    );
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::PushRejected {
            error_code: ErrorCode::CONFIG_TOO_LARGE,
            ..
        }
    )));
}

#[test]
fn provisional_api_key_is_used_to_detect_and_send() {
    let mut p = SpecProfile::default();
    p.provisional.push_config_api_key = ApiKey(99);
    let mut c = ClientModel::new(ClientType::Admin, cfg(&[]), &p, 1).unwrap();
    // Advertising 95 means nothing under this profile.
    let out = start_and_connect(&mut c, 1, true);
    assert!(push_targets(&out).is_empty());
    let mut body = api_versions(false);
    body.api_keys
        .push(kipcheck::codec::api_versions_response::ApiVersion {
            api_key: 99,
            min_version: 0,
            max_version: 0,
            ..Default::default()
        });
    c.handle(Millis(0), ClientInput::Connected { node: 2 });
    let out = c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse { node: 2, body },
    );
    assert!(out.iter().any(|o| matches!(
        o,
        ClientOutput::Send {
            node: 2,
            api_key: ApiKey(99),
            api_version: 0,
            ..
        }
    )));
}

#[test]
fn version_range_without_zero_is_not_support() {
    let mut c = consumer(&[]);
    c.handle(Millis(0), ClientInput::Start);
    c.handle(Millis(0), ClientInput::Connected { node: 1 });
    let mut body = api_versions(false);
    body.api_keys
        .push(kipcheck::codec::api_versions_response::ApiVersion {
            api_key: 95,
            min_version: 1,
            max_version: 2,
            ..Default::default()
        });
    let out = c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse { node: 1, body },
    );
    assert!(events(&out).contains(&Event::NodeSupport {
        node: 1,
        push_config: false
    }));
}

#[test]
fn disconnects_and_request_timeouts_are_retried() {
    let mut c = consumer(&[]);
    start_and_connect(&mut c, 1, true);
    let out = c.handle(Millis(10), ClientInput::Disconnected { node: 1 });
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::RetryScheduled {
            cause: RetryCause::Disconnected,
            ..
        }
    )));
    c.handle(Millis(20), ClientInput::Connected { node: 1 });
    let out = c.handle(
        Millis(500),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    );
    assert_eq!(push_targets(&out), vec![1]);
    // No response within request.timeout.ms (30000): the timer fires.
    let out = c.handle(Millis(30_500), ClientInput::Tick);
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::RetryScheduled {
            cause: RetryCause::RequestTimedOut,
            failed_attempt: 2,
            ..
        }
    )));
    // The runner may also declare a timeout.
    let out = c.handle(Millis(32_000), ClientInput::Tick);
    assert_eq!(push_targets(&out), vec![1]);
    let out = c.handle(Millis(32_001), ClientInput::RequestTimedOut { node: 1 });
    assert!(events(&out).iter().any(|e| matches!(
        e,
        Event::RetryScheduled {
            cause: RetryCause::RequestTimedOut,
            failed_attempt: 3,
            ..
        }
    )));
}

#[test]
fn request_timeout_disconnect_closes_the_connection_and_retries_on_a_new_one() {
    let p = SpecProfile {
        request_timeout: RequestTimeoutAction::Disconnect,
        ..SpecProfile::default()
    };
    let mut c = ClientModel::new(
        ClientType::Consumer,
        cfg(&[("request.timeout.ms", "2000")]),
        &p,
        1,
    )
    .unwrap();
    let out = start_and_connect(&mut c, 1, true);
    assert_eq!(push_targets(&out), vec![1]);
    let out = c.handle(Millis(2000), ClientInput::Tick);
    assert!(events(&out).contains(&Event::ConnectionClosed {
        reason: "PushConfig to node 1 timed out".into()
    }));
    let retry_at = events(&out)
        .iter()
        .find_map(|e| match e {
            Event::RetryScheduled {
                at,
                cause: RetryCause::RequestTimedOut,
                failed_attempt: 1,
                ..
            } => Some(*at),
            _ => None,
        })
        .unwrap();
    assert!(
        (Millis(2080)..=Millis(2120)).contains(&retry_at),
        "{retry_at:?}"
    );
    // Nothing is sent while there is no connection, even long after the backoff.
    assert!(push_targets(&c.handle(Millis(9000), ClientInput::Tick)).is_empty());
    // A new connection starts with ApiVersions, then the push.
    let out = c.handle(Millis(9000), ClientInput::Connected { node: 1 });
    assert!(out.iter().any(|o| matches!(
        o,
        ClientOutput::Send {
            api_key: ApiKey::API_VERSIONS,
            ..
        }
    )));
    let out = c.handle(
        Millis(9001),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(true),
        },
    );
    assert_eq!(push_targets(&out), vec![1]);
    assert_eq!(c.attempts(), 2);
    // With the default (keep) the retry goes on the same connection at the backoff.
    let mut k = ClientModel::new(
        ClientType::Consumer,
        cfg(&[("request.timeout.ms", "2000")]),
        &SpecProfile::default(),
        1,
    )
    .unwrap();
    start_and_connect(&mut k, 1, true);
    let out = k.handle(Millis(2000), ClientInput::Tick);
    assert!(!events(&out)
        .iter()
        .any(|e| matches!(e, Event::ConnectionClosed { .. })));
    assert_eq!(
        push_targets(&k.handle(retry_at, ClientInput::Tick)),
        vec![1]
    );
}

#[test]
fn throttle_time_is_honoured_before_the_retry() {
    let mut c = consumer(&[]);
    start_and_connect(&mut c, 1, true);
    let out = c.handle(
        Millis(0),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::THROTTLING_QUOTA_EXCEEDED, 5000, None),
        },
    );
    assert!(events(&out).contains(&Event::ThrottleApplied {
        node: 1,
        until: Millis(5000)
    }));
    let at = events(&out)
        .into_iter()
        .find_map(|e| match e {
            Event::RetryScheduled { at, .. } => Some(at),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        at,
        Millis(5000),
        "backoff (≤120 ms) is shorter than the throttle"
    );
    assert!(push_targets(&c.handle(Millis(4999), ClientInput::Tick)).is_empty());
    assert_eq!(
        push_targets(&c.handle(Millis(5000), ClientInput::Tick)),
        vec![1]
    );
}

#[test]
fn throttle_delays_api_versions_on_a_new_connection_to_that_node() {
    let mut c = consumer(&[]);
    start_and_connect(&mut c, 1, true);
    c.handle(
        Millis(0),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::THROTTLING_QUOTA_EXCEEDED, 5000, None),
        },
    );
    c.handle(Millis(1), ClientInput::Disconnected { node: 1 });
    let out = c.handle(Millis(2), ClientInput::Connected { node: 1 });
    assert!(!out.iter().any(|o| matches!(o, ClientOutput::Send { .. })));
    assert!(events(&out).contains(&Event::ApiVersionsDeferred {
        node: 1,
        until: Millis(5000)
    }));
    assert_eq!(wake(&out), Some(Millis(5000)));
    let out = c.handle(Millis(5000), ClientInput::Tick);
    assert!(out.iter().any(|o| matches!(
        o,
        ClientOutput::Send {
            api_key: ApiKey::API_VERSIONS,
            ..
        }
    )));
}

#[test]
fn deadline_is_default_api_timeout_and_the_client_continues() {
    let mut c = consumer(&[("default.api.timeout.ms", "2000")]);
    start_and_connect(&mut c, 1, true);
    assert_eq!(c.deadline(), Millis(2000));
    c.handle(Millis(1), ClientInput::UserRequest { id: 1 });
    let out = c.handle(Millis(1999), ClientInput::Tick);
    assert!(!out.contains(&ClientOutput::ReleaseUserRequest { id: 1 }));
    let out = c.handle(Millis(2000), ClientInput::Tick);
    assert!(events(&out).contains(&Event::HandshakeAbandoned { attempts: 1 }));
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 1 }));
    assert_eq!(c.state(), &HandshakeState::Abandoned);
    // Later operations are not blocked, and a late response is ignored.
    let out = c.handle(Millis(2001), ClientInput::UserRequest { id: 2 });
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
    let out = c.handle(
        Millis(2002),
        ClientInput::PushConfigResponse {
            node: 1,
            body: push_response(ErrorCode::NONE, 0, None),
        },
    );
    assert!(events(&out).contains(&Event::ResponseIgnored { node: 1 }));
}

#[test]
fn producer_deadline_is_max_block_ms() {
    let p = SpecProfile::default();
    let mut c = ClientModel::new(
        ClientType::Producer,
        cfg(&[("config.push.allowed.keys", "acks")]),
        &p,
        1,
    )
    .unwrap();
    c.handle(Millis(10), ClientInput::Start);
    assert_eq!(c.deadline(), Millis(60_010));
    let mut c = ClientModel::new(
        ClientType::Producer,
        cfg(&[
            ("config.push.allowed.keys", "acks"),
            ("max.block.ms", "500"),
        ]),
        &p,
        1,
    )
    .unwrap();
    c.handle(Millis(0), ClientInput::Start);
    assert_eq!(c.deadline(), Millis(500));
}

#[test]
fn a_producer_send_waits_max_block_ms_from_its_own_call() {
    let mut c = ClientModel::new(
        ClientType::Producer,
        cfg(&[
            ("config.push.allowed.keys", "acks"),
            ("max.block.ms", "7000"),
            ("request.timeout.ms", "60000"),
        ]),
        &SpecProfile::default(),
        1,
    )
    .unwrap();
    start_and_connect(&mut c, 1, true);
    assert_eq!(c.deadline(), Millis(7000));
    c.handle(Millis(0), ClientInput::UserRequest { id: 1 });
    let out = c.handle(Millis(5000), ClientInput::UserRequest { id: 2 });
    assert!(events(&out).contains(&Event::UserRequestBlocked { id: 2 }));
    assert!(out.contains(&ClientOutput::WakeAt(Millis(7000))));
    assert_eq!(c.deadline(), Millis(12000), "extended to the late call");
    // id 1 goes at 7000 (its own max.block.ms); the handshake is still pending.
    let out = c.handle(Millis(7000), ClientInput::Tick);
    assert_eq!(
        out.iter()
            .filter(|o| matches!(o, ClientOutput::ReleaseUserRequest { .. }))
            .collect::<Vec<_>>(),
        vec![&ClientOutput::ReleaseUserRequest { id: 1 }]
    );
    assert!(out.contains(&ClientOutput::WakeAt(Millis(12000))));
    assert!(c.is_blocking());
    assert_eq!(c.state(), &HandshakeState::Pending);
    // id 2 goes at 12000, with the handshake abandoned.
    let out = c.handle(Millis(11999), ClientInput::Tick);
    assert!(!out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
    let out = c.handle(Millis(12000), ClientInput::Tick);
    assert!(out.contains(&ClientOutput::ReleaseUserRequest { id: 2 }));
    assert!(events(&out).contains(&Event::HandshakeAbandoned { attempts: 1 }));
    c.check_invariants().unwrap();
}

#[test]
fn retries_stop_at_the_deadline() {
    let mut c = consumer(&[("default.api.timeout.ms", "1000")]);
    start_and_connect(&mut c, 1, true);
    let mut now = Millis(0);
    while c.state() == &HandshakeState::Pending {
        let out = c.handle(
            now,
            ClientInput::PushConfigResponse {
                node: 1,
                body: push_response(ErrorCode::NOT_CONTROLLER, 0, None),
            },
        );
        now = wake(&out).unwrap_or(Millis(now.0 + 1));
        c.handle(now, ClientInput::Tick);
    }
    assert_eq!(c.state(), &HandshakeState::Abandoned);
    assert!(now <= Millis(1000));
    c.check_invariants().unwrap();
}

// ----- end to end through the broker model -----

#[test]
fn policy_rejection_reaches_the_client_with_its_message() {
    let mut s = sim(ClientType::Admin, cfg(&[]), 1, &[(1, true)]);
    s.cluster
        .on_broker(1, |b, _| {
            b.set_policy(Some(kipcheck::model::PolicyVerdict::Reject {
                message: "retries must be below 10".into(),
            }))
        })
        .unwrap();
    s.input(ClientInput::Start);
    s.input(ClientInput::UserRequest { id: 1 });
    s.input(ClientInput::Connected { node: 1 });
    assert_eq!(
        s.client().state(),
        &HandshakeState::Rejected {
            error_code: ErrorCode::INVALID_CONFIG
        }
    );
    assert!(s.client().events().iter().any(|e| e.event
        == Event::PushRejected {
            node: 1,
            error_code: ErrorCode::INVALID_CONFIG,
            error_message: Some("retries must be below 10".into())
        }));
    assert_eq!(s.released, vec![1]);
    assert_eq!(s.pushes().len(), 1, "not retried");
}

#[test]
fn oversized_push_is_rejected_by_the_broker_and_not_retried() {
    // The client's budget (profile, 10240) exceeds this broker's client.config.max.bytes.
    let profile = SpecProfile::default();
    let mut s = Sim::new(ClientType::Admin, cfg(&[]), &profile, 1, &[]);
    let mut settings = kipcheck::model::BrokerSettings::new(1);
    settings.client_config_max_bytes = Some(20);
    s.cluster
        .insert_broker(kipcheck::model::BrokerModel::new(settings, &profile).unwrap());
    s.boot();
    assert_eq!(
        s.client().state(),
        &HandshakeState::Rejected {
            error_code: ErrorCode::CONFIG_TOO_LARGE
        }
    );
    assert_eq!(s.broker(1).policy_invocations(), 0);
    s.advance_to(Millis(100_000));
    assert_eq!(s.pushes().len(), 1);
}

#[test]
fn clients_work_with_a_mix_of_old_and_new_brokers() {
    let mut s = sim(ClientType::Consumer, cfg(&[]), 5, &[(1, false), (2, true)]);
    s.input(ClientInput::Start);
    s.input(ClientInput::UserRequest { id: 1 });
    s.input(ClientInput::Connected { node: 1 });
    // Every connected node is old: user requests go ahead.
    assert_eq!(s.released, vec![1]);
    // A new broker appears before the deadline: the push still happens, in the background.
    s.input(ClientInput::Connected { node: 2 });
    assert_eq!(s.pushes(), vec![2]);
    assert_eq!(s.client().state(), &HandshakeState::Completed { node: 2 });
    s.input(ClientInput::UserRequest { id: 2 });
    assert_eq!(s.released, vec![1, 2]);
}

#[test]
fn a_payload_near_the_limit_is_sent_and_accepted() {
    // client.id sized so that the request body is exactly client.config.max.bytes (10240).
    let body_len = |n: usize| {
        let c = ClientModel::new(
            ClientType::Admin,
            cfg(&[
                ("config.push.allowed.keys", "client.id"),
                ("client.id", &"c".repeat(n)),
            ]),
            &SpecProfile::default(),
            1,
        )
        .unwrap();
        c.selected_request()
            .map(|r| kipcheck::codec::Message::encoded_len(r, 0).unwrap())
    };
    let n = (10_100..10_300)
        .find(|n| body_len(*n) == Some(10240))
        .unwrap();
    assert_eq!(
        body_len(n + 1),
        None,
        "one byte more is dropped by the client"
    );
    let mut s = sim(
        ClientType::Admin,
        cfg(&[
            ("config.push.allowed.keys", "client.id"),
            ("client.id", &"c".repeat(n)),
        ]),
        1,
        &[(1, true)],
    );
    s.boot();
    assert_eq!(s.client().state(), &HandshakeState::Completed { node: 1 });
}

#[test]
fn old_brokers_known_before_start_do_not_block_user_requests() {
    let mut c = consumer(&[]);
    c.handle(Millis(0), ClientInput::Connected { node: 1 });
    c.handle(
        Millis(0),
        ClientInput::ApiVersionsResponse {
            node: 1,
            body: api_versions(false),
        },
    );
    let out = c.handle(Millis(1), ClientInput::Start);
    assert!(events(&out).contains(&Event::UserRequestsUnblocked {
        reason: UnblockReason::NoNodeSupportsPushConfig
    }));
    assert!(!c.is_blocking());
    assert_eq!(
        c.state(),
        &HandshakeState::Pending,
        "a new broker may still appear"
    );
}

#[test]
fn effective_configuration_is_user_value_else_default_rendered() {
    let c = consumer(&[
        ("bootstrap.servers", " a:1 , b:2 "),
        ("enable.auto.commit", "FALSE"),
        ("my.custom", "x"),
    ]);
    let eff = c.effective_config();
    assert_eq!(eff["bootstrap.servers"].as_deref(), Some("a:1,b:2"));
    assert_eq!(eff["enable.auto.commit"].as_deref(), Some("false"));
    assert_eq!(eff["max.poll.records"].as_deref(), Some("500"));
    assert_eq!(eff["group.id"], None, "null default");
    assert_eq!(
        eff["config.push.allowed.keys"].as_deref(),
        Some(
            SpecProfile::default()
                .default_keys
                .consumer
                .join(",")
                .as_str()
        )
    );
    assert!(!eff.contains_key("my.custom"), "only defined keys");
}

// ----- SASL: the push after authentication (KIP-1324 "after authentication (if any)") -----

/// The requests among outputs as (API key, version).
fn sent(out: &[ClientOutput]) -> Vec<(ApiKey, i16)> {
    out.iter()
        .filter_map(|o| match o {
            ClientOutput::Send {
                api_key,
                api_version,
                ..
            } => Some((*api_key, *api_version)),
            _ => None,
        })
        .collect()
}

fn sasl_consumer(password: &str) -> ClientModel {
    let jaas = format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"{password}\";"
    );
    consumer(&[
        ("group.id", "g"),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanism", "PLAIN"),
        ("sasl.jaas.config", &jaas),
    ])
}

#[test]
fn a_sasl_client_pushes_only_once_its_connection_authenticated() {
    use kipcheck::codec::{SaslAuthenticateResponse, SaslHandshakeResponse};
    let mut c = sasl_consumer("s3cret");
    let t = Millis(0);
    c.handle(t, ClientInput::Start);
    assert_eq!(
        sent(&c.handle(t, ClientInput::Connected { node: 1 })),
        [(ApiKey::API_VERSIONS, 3)]
    );
    let av = kipcheck::emulate::emulated_api_versions(Some(ApiKey(95)), true);
    let out = c.handle(t, ClientInput::ApiVersionsResponse { node: 1, body: av });
    let handshake = out.iter().find_map(|o| match o {
        ClientOutput::Send {
            body: RequestBody::SaslHandshake(h),
            ..
        } => Some(h.mechanism.to_string()),
        _ => None,
    });
    assert_eq!(sent(&out), [(ApiKey::SASL_HANDSHAKE, 1)]);
    assert_eq!(handshake.as_deref(), Some("PLAIN"));
    let enabled = kipcheck::emulate::sasl_handshake_answer();
    let out = c.handle(
        t,
        ClientInput::SaslHandshakeResponse {
            node: 1,
            body: enabled,
        },
    );
    let token = out.iter().find_map(|o| match o {
        ClientOutput::Send {
            body: RequestBody::SaslAuthenticate(a),
            ..
        } => Some(a.auth_bytes.0.clone()),
        _ => None,
    });
    assert_eq!(sent(&out), [(ApiKey::SASL_AUTHENTICATE, 2)]);
    assert_eq!(token.as_deref(), Some(&b"\0alice\0s3cret"[..]));
    let ok = kipcheck::emulate::sasl_authenticate_answer();
    let out = c.handle(
        t,
        ClientInput::SaslAuthenticateResponse { node: 1, body: ok },
    );
    assert_eq!(sent(&out), [(ApiKey(95), 0)]);
    assert!(events(&out).contains(&Event::Authenticated { node: 1 }));
    // No sasl.* / security.* key among what is pushed.
    assert!(keys(&c)
        .iter()
        .all(|k| !k.starts_with("sasl.") && !k.starts_with("security.")));

    // Refused credentials: the connection closes, nothing is pushed; an unlisted mechanism
    // counts as a failed authentication too.
    for (mechanisms, auth_error, code) in [
        (
            vec!["PLAIN"],
            ErrorCode::SASL_AUTHENTICATION_FAILED,
            ErrorCode::SASL_AUTHENTICATION_FAILED,
        ),
        (
            vec!["SCRAM-SHA-512"],
            ErrorCode::NONE,
            ErrorCode::UNSUPPORTED_SASL_MECHANISM,
        ),
    ] {
        let mut c = sasl_consumer("wrong");
        c.handle(t, ClientInput::Start);
        c.handle(t, ClientInput::Connected { node: 1 });
        let av = kipcheck::emulate::emulated_api_versions(Some(ApiKey(95)), true);
        c.handle(t, ClientInput::ApiVersionsResponse { node: 1, body: av });
        let body = SaslHandshakeResponse {
            error_code: 0,
            mechanisms: mechanisms.into_iter().map(Into::into).collect(),
        };
        let mut out = c.handle(t, ClientInput::SaslHandshakeResponse { node: 1, body });
        if code == ErrorCode::SASL_AUTHENTICATION_FAILED {
            let body = SaslAuthenticateResponse {
                error_code: auth_error.0,
                error_message: Some("Authentication failed".into()),
                ..Default::default()
            };
            out = c.handle(t, ClientInput::SaslAuthenticateResponse { node: 1, body });
        }
        assert!(push_targets(&out).is_empty(), "{out:?}");
        assert!(events(&out).contains(&Event::AuthenticationFailed {
            node: 1,
            error_code: code
        }));
        let later = c.handle(Millis(5000), ClientInput::Tick);
        assert!(push_targets(&later).is_empty());
        assert_eq!(c.attempts(), 0);
    }
}
