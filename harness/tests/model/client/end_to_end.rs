//! End to end through the broker model.

use super::*;

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
