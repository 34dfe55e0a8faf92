//! Must-hold facts against the real peers `interop/start.sh` starts (their addresses come from
//! `target/interop/env.sh`'s variables). Without them every test prints "skipped" and passes,
//! unless KIPCHECK_REQUIRE_PEERS=1 (CI), where a missing peer fails the test.

use std::time::Duration;

use kipcheck::interop::{
    capture_client, check_server, ClientFacts, Fact, PeerEnv, ServerPeer, Verdict,
};

fn env_or_skip(test: &str) -> Option<PeerEnv> {
    let env = PeerEnv::from_lookup(|k| std::env::var(k).ok());
    if env.is_empty() {
        assert!(
            std::env::var("KIPCHECK_REQUIRE_PEERS").as_deref() != Ok("1"),
            "{test}: KIPCHECK_REQUIRE_PEERS=1 but no peer in the environment (source target/interop/env.sh)"
        );
        println!("{test}: skipped (no interop peers; run interop/start.sh and source target/interop/env.sh)");
        return None;
    }
    Some(env)
}

fn server<'a>(env: &'a PeerEnv, name: &str) -> &'a ServerPeer {
    env.server(name)
        .unwrap_or_else(|| panic!("peer {name} missing from the environment"))
}

fn verdicts(facts: &[Fact]) -> Vec<(&str, Verdict)> {
    facts
        .iter()
        .map(|f| (f.id.as_ref(), f.verdict.clone()))
        .collect()
}

#[test]
fn kafka_broker_apiversions_strict_no_push_config_and_validation() {
    let Some(env) = env_or_skip("kafka_broker") else {
        return;
    };
    let facts = check_server(server(&env, "kafka"), true).expect("kafka reachable");
    let ids = [
        "apiversions-strict",
        "no-push-config-advertised",
        "apiversions-fallback",
        "update-features-downgrade-as-upgrade",
        "update-features-safe-downgrade",
        "update-features-unknown-level",
        "incremental-alter-configs-valid",
        "incremental-alter-configs-invalid-value",
        "incremental-alter-configs-null-set",
        "incremental-alter-configs-duplicate-key",
        "incremental-alter-configs-unknown-resource-type",
        "push-config-rejected",
        "survives-push-config",
    ];
    assert_eq!(
        verdicts(&facts),
        ids.iter()
            .map(|id| (*id, Verdict::Pass))
            .collect::<Vec<_>>(),
        "{facts:#?}"
    );
    let detail = |id| &facts.iter().find(|f| f.id == id).unwrap().detail;
    assert_eq!(
        detail("apiversions-fallback"),
        "v0 UNSUPPORTED_VERSION, ApiVersions v0-5"
    );
    assert_eq!(detail("push-config-rejected"), "closed the connection");
    assert_eq!(
        detail("incremental-alter-configs-invalid-value"),
        "[(INVALID_REQUEST, \"Invalid value not-a-number for configuration log.retention.ms: Not a number of type LONG\")]"
    );
}

#[test]
fn kafka_controller_registration_v0_to_v4_and_no_v6() {
    let Some(env) = env_or_skip("kafka_controller") else {
        return;
    };
    let facts = check_server(server(&env, "kafka-controller"), true).expect("controller reachable");
    let mut want: Vec<(&str, Verdict)> = vec![
        ("apiversions-strict", Verdict::Pass),
        ("no-push-config-advertised", Verdict::Pass),
        ("apiversions-fallback", Verdict::Pass),
    ];
    for id in [
        "broker-registration-v0",
        "broker-registration-v1",
        "broker-registration-v2",
        "broker-registration-v3",
        "broker-registration-v4",
    ] {
        want.push((id, Verdict::Pass));
    }
    want.push((
        "broker-registration-v5",
        Verdict::Unsupported("v5 outside the advertised v0-4".into()),
    ));
    for id in [
        "broker-registration-v6-not-advertised",
        "incremental-alter-configs-valid",
        "incremental-alter-configs-invalid-value",
        "incremental-alter-configs-null-set",
        "incremental-alter-configs-duplicate-key",
        "incremental-alter-configs-unknown-resource-type",
        "push-config-rejected",
        "survives-push-config",
    ] {
        want.push((id, Verdict::Pass));
    }
    assert_eq!(verdicts(&facts), want, "{facts:#?}");
    // KIP-1256: the 4.4 controller still answers as "today" where the broker is stricter.
    let detail = |id| &facts.iter().find(|f| f.id == id).unwrap().detail;
    assert_eq!(
        detail("incremental-alter-configs-invalid-value"),
        "[(NONE, \"\")]"
    );
    assert_eq!(
        detail("incremental-alter-configs-unknown-resource-type"),
        "[(UNSUPPORTED_VERSION, \"Unknown resource type 0.\")]"
    );
}

#[test]
fn kfake_and_rdkafka_mock_apiversions() {
    let Some(env) = env_or_skip("emulators") else {
        return;
    };
    // No PushConfig here: kfake does not survive it and the interop run still needs it.
    let kfake = check_server(server(&env, "kfake"), false).expect("kfake reachable");
    assert_eq!(kfake[0].verdict, Verdict::Pass, "{kfake:#?}");
    assert_eq!(kfake[1].verdict, Verdict::Pass, "{kfake:#?}");
    assert_eq!(
        kfake[2].verdict,
        Verdict::finding(
            "a v0 ApiVersions response: UNSUPPORTED_VERSION (35) and the ApiVersions range (KIP-511)",
            "closed the connection without answering"
        )
    );
    let mock = check_server(server(&env, "rdkafka-mock"), false).expect("mock reachable");
    match &mock[0].verdict {
        Verdict::Finding { observed, .. } => assert!(
            observed.starts_with("ApiVersionsResponse at byte 16: 5 trailing bytes"),
            "{observed}"
        ),
        other => panic!("librdkafka mock ApiVersions v3 now decodes strictly: {other:?}"),
    }
}

#[test]
fn real_clients_bootstrap_decode_and_never_send_push_config() {
    let Some(env) = env_or_skip("clients") else {
        return;
    };
    let upstream = server(&env, "kafka");
    assert!(
        !env.clients.is_empty(),
        "no client commands in the environment"
    );
    for c in &env.clients {
        let capture =
            capture_client(c, &upstream.addr, Duration::from_secs(30)).expect("client runs");
        let facts = capture.facts();
        assert_eq!(
            verdicts(&facts),
            vec![
                ("client-bootstraps", Verdict::Pass),
                ("client-frames-decode", Verdict::Pass),
                ("client-no-push-config", Verdict::Pass),
            ],
            "{}: {facts:#?}",
            c.name
        );
        // Every client starts with ApiVersions.
        assert_eq!(
            capture.frames[0].api_key, 18,
            "{}: {:?}",
            c.name, capture.frames
        );
    }
}

#[test]
fn tansu_apiversions_and_push_config() {
    let Some(env) = env_or_skip("tansu") else {
        return;
    };
    let Some(peer) = env.server("tansu") else {
        assert!(
            std::env::var("KIPCHECK_REQUIRE_PEERS").as_deref() != Ok("1"),
            "KIPCHECK_REQUIRE_PEERS=1 but tansu is not in the environment"
        );
        println!("tansu: skipped (not installed, or KIPCHECK_SKIP_TANSU=1)");
        return;
    };
    let tansu = check_server(peer, true).expect("tansu reachable");
    let got: Vec<(&str, bool)> = tansu
        .iter()
        .map(|f| (f.id.as_ref(), f.verdict.is_pass()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("apiversions-strict", true),
            ("no-push-config-advertised", true),
            ("apiversions-fallback", false),
            ("push-config-rejected", true),
            ("survives-push-config", true),
        ],
        "{tansu:#?}"
    );
    assert_eq!(tansu[0].detail, "35 API keys; ApiVersions v0-4");
    match &tansu[2].verdict {
        Verdict::Finding { expected, observed } => {
            assert_eq!(
                expected,
                "a v0 ApiVersions response: UNSUPPORTED_VERSION (35) and the ApiVersions range (KIP-511)"
            );
            // tansu answers the unknown version in its own (v3+) layout with error NONE.
            assert!(
                observed.starts_with("ApiVersionsResponse at byte 8: unsupported version 127"),
                "{observed}"
            );
        }
        other => panic!("tansu now gives the KIP-511 fallback: {other:?}"),
    }
}
