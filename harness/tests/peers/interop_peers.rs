//! The YAML suites against the real peers `interop/start.sh` starts (their addresses come from
//! `target/interop/env.sh`'s variables): Apache Kafka's own suites (`interop/scenarios/`) and
//! the conformance suite's `live-safe` scenarios, run through `tcp://` as `kipcheck interop`
//! runs them, and the relay capture of every real client. Without the peers every test prints
//! "skipped" and passes, unless KIPCHECK_REQUIRE_PEERS=1 (CI), where a missing peer fails the
//! test.

use std::path::Path;
use std::time::Duration;

use kipcheck::interop::{
    capture_client, run_server_suite, ClientFacts, Fact, PeerEnv, ServerPeer, SuiteKind, Verdict,
};
use kipcheck::scenario::{load_dir, load_embedded, Scenario};
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

fn interop_scenarios() -> Vec<Scenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/scenarios");
    load_dir(&dir).unwrap_or_else(|e| panic!("interop/scenarios loads: {e:?}"))
}

fn conformance() -> Vec<Scenario> {
    load_embedded().expect("the built-in suite loads")
}

/// Scenarios of `all` except the ones whose id contains `push-config` (those send PushConfig,
/// which kfake does not survive; the interop run after the tests still needs the peer).
fn without_push_config(all: Vec<Scenario>) -> Vec<Scenario> {
    all.into_iter()
        .filter(|s| !s.file.id.contains("push-config"))
        .collect()
}

fn suite(peer: &ServerPeer, kind: SuiteKind, scenarios: &[Scenario]) -> Vec<Fact> {
    run_server_suite(peer, kind, scenarios, 1)
        .unwrap_or_else(|e| panic!("{} {}: {e}", peer.name, kind.name()))
}

fn all_pass(facts: &[Fact]) -> bool {
    facts.iter().all(|f| f.verdict.is_pass())
}

#[test]
fn the_interop_scenarios_load_and_are_tagged_for_one_kafka_suite() {
    let all = interop_scenarios();
    let broker = SuiteKind::KafkaBroker.select(&all).len();
    let controller = SuiteKind::KafkaController.select(&all).len();
    assert_eq!((broker, controller, all.len()), (8, 15, 23));
}

#[test]
fn kafka_broker_suites() {
    let Some(env) = env_or_skip("kafka_broker") else {
        return;
    };
    let kafka = server(&env, "kafka");
    let own = suite(kafka, SuiteKind::KafkaBroker, &interop_scenarios());
    let ids: Vec<&str> = own.iter().map(|f| f.id.as_ref()).collect();
    assert_eq!(
        ids,
        [
            "kafka-broker-iac-duplicate-key",
            "kafka-broker-iac-invalid-value",
            "kafka-broker-iac-null-set",
            "kafka-broker-iac-unknown-resource-type",
            "kafka-broker-iac-valid",
            "kafka-broker-update-features-downgrade-as-upgrade",
            "kafka-broker-update-features-safe-downgrade",
            "kafka-broker-update-features-unknown-level",
        ]
    );
    assert!(all_pass(&own), "{own:#?}");
    let live_safe = suite(kafka, SuiteKind::BrokerLiveSafe, &conformance());
    assert_eq!(
        verdicts(&live_safe),
        [
            "av-negotiate-v3",
            "av-old-broker-push-config-refused",
            "av-old-broker-survives-push-config",
            "av-unsupported-version-v0-fallback",
            "av-v0-request-answered",
        ]
        .map(|id| (id, Verdict::Pass))
    );
}

#[test]
fn kafka_controller_suite() {
    let Some(env) = env_or_skip("kafka_controller") else {
        return;
    };
    let facts = suite(
        server(&env, "kafka-controller"),
        SuiteKind::KafkaController,
        &interop_scenarios(),
    );
    assert_eq!(facts.len(), 15, "{facts:#?}");
    assert!(all_pass(&facts), "{facts:#?}");
}

#[test]
fn kfake_and_rdkafka_mock_live_safe_without_push_config() {
    let Some(env) = env_or_skip("emulators") else {
        return;
    };
    let scenarios = without_push_config(conformance());
    let kfake = suite(server(&env, "kfake"), SuiteKind::BrokerLiveSafe, &scenarios);
    let got: Vec<(&str, bool)> = kfake
        .iter()
        .map(|f| (f.id.as_ref(), f.verdict.is_pass()))
        .collect();
    assert_eq!(
        got,
        [
            ("av-negotiate-v3", true),
            ("av-unsupported-version-v0-fallback", false),
            ("av-v0-request-answered", true),
        ],
        "{kfake:#?}"
    );
    match &kfake[1].verdict {
        Verdict::Finding { observed, .. } => assert_eq!(
            observed,
            "expected a response, but the target closed the connection: connection closed"
        ),
        other => panic!("kfake now gives the KIP-511 fallback: {other:?}"),
    }
    let mock = suite(
        server(&env, "rdkafka-mock"),
        SuiteKind::BrokerLiveSafe,
        &scenarios,
    );
    match &mock[0].verdict {
        Verdict::Finding { observed, .. } => {
            assert!(observed.contains("5 trailing bytes"), "{observed}")
        }
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
    let tansu = suite(peer, SuiteKind::BrokerLiveSafe, &conformance());
    let got: Vec<(&str, bool)> = tansu
        .iter()
        .map(|f| (f.id.as_ref(), f.verdict.is_pass()))
        .collect();
    assert_eq!(
        got,
        [
            ("av-negotiate-v3", true),
            ("av-old-broker-push-config-refused", true),
            ("av-old-broker-survives-push-config", true),
            ("av-unsupported-version-v0-fallback", false),
            ("av-v0-request-answered", true),
        ],
        "{tansu:#?}"
    );
    match &tansu[3].verdict {
        // tansu closes the connection on an ApiVersions version it does not know.
        Verdict::Finding { observed, .. } => assert_eq!(
            observed,
            "expected a response, but the target closed the connection: connection closed"
        ),
        other => panic!("tansu now gives the KIP-511 fallback: {other:?}"),
    }
}
