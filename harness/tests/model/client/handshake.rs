//! Handshake: nodes, once per instance, blocking.

use super::*;

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
