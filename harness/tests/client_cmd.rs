//! The `client-cmd:` target end to end with real client processes: a stdlib-only Python
//! client without KIP-1324 passes every `live-client` scenario (exact counts), one that sends
//! PushConfig fails them with the exact finding, one that sends an unframeable stream or
//! exits non-zero errors them with the exact reason (and its output tail); kafka-python
//! passes them when `KIPCHECK_PYTHON` names a venv with it (skipped, with a message, when
//! unset, unless `KIPCHECK_REQUIRE_PEERS=1`). Every test is bounded in wall-clock time.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kipcheck::adapter::{target_from_spec, AdapterError, TargetOptions};
use kipcheck::runner::{run_suite, select, Filters, RunOptions, ScenarioResult, Summary};
use kipcheck::scenario::load_dir;

/// Every test finishes within this, whatever the client does.
const TEST_BOUND: Duration = Duration::from_secs(90);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_owned()
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/client_cmd_fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Runs the `live-client` scenarios against `client-cmd:"COMMAND"`.
async fn run_live(command: &str) -> (Vec<ScenarioResult>, Summary) {
    let all = load_dir(&repo().join("scenarios")).expect("suite loads");
    let filters = Filters {
        tags: vec!["live-client".into()],
        ..Filters::default()
    };
    let scenarios = select(all, &filters, None);
    assert_eq!(scenarios.len(), 2, "the live-client scenarios");
    let spec = format!("client-cmd:\"{command}\"");
    let target = target_from_spec(&spec, &TargetOptions::default()).expect("client-cmd target");
    let options = RunOptions {
        seed: 1,
        jobs: 2,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "kipcheck run --target client-cmd:...".into(),
    };
    tokio::time::timeout(
        TEST_BOUND,
        run_suite(target, scenarios, &options, &mut |_| {}),
    )
    .await
    .expect("the run finished within its wall-clock bound")
}

/// `(id, verdict, failure message)` of every result, sorted by id.
fn verdicts(results: &[ScenarioResult]) -> Vec<(String, String, Option<String>)> {
    let mut v: Vec<_> = results
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                format!("{:?}", r.verdict),
                r.failure.as_ref().map(|f| f.message.clone()),
            )
        })
        .collect();
    v.sort();
    v
}

/// Both live-client scenarios passed.
fn assert_both_passed(results: &[ScenarioResult], summary: &Summary) {
    assert_eq!(
        verdicts(results),
        vec![
            (
                "c1324-live-older-client-no-push".into(),
                "Passed".into(),
                None
            ),
            (
                "c1324-live-older-client-no-push-two-brokers".into(),
                "Passed".into(),
                None
            ),
        ]
    );
    assert_eq!((summary.passed, summary.failed, summary.errored), (2, 0, 0));
}

fn older_client(mode: &str) -> String {
    format!(
        "python3 {} {{bootstrap}} {mode}",
        fixture("older_client.py")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_client_passes_every_live_client_scenario() {
    let (results, summary) = run_live(&older_client("")).await;
    assert_both_passed(&results, &summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_push_config_is_caught() {
    let (results, summary) = run_live(&older_client("push")).await;
    let expected = |id: &str| {
        (
            id.to_owned(),
            "Failed".to_owned(),
            Some("expected no request, but the target sent PushConfig to node 1".to_owned()),
        )
    };
    let got: Vec<_> = verdicts(&results)
        .into_iter()
        .map(|(id, v, m)| {
            // The elapsed time after "node 1" is real time: cut it off.
            (
                id,
                v,
                m.map(|m| m.split(" after ").next().unwrap_or("").to_owned()),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            expected("c1324-live-older-client-no-push"),
            expected("c1324-live-older-client-no-push-two-brokers"),
        ]
    );
    assert_eq!((summary.passed, summary.failed, summary.errored), (0, 2, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_from_the_client_errors_the_scenario() {
    let (results, summary) = run_live(&older_client("garbage")).await;
    let message = "target failed: the client sent an unframeable stream to node 1: \
                   frame size at byte 0: negative frame size -5";
    for (id, verdict, m) in verdicts(&results) {
        assert_eq!(verdict, "Errored", "{id}");
        assert_eq!(m.as_deref(), Some(message), "{id}");
    }
    assert_eq!((summary.passed, summary.failed, summary.errored), (0, 0, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_client_errors_the_scenario_with_its_output_tail() {
    let (results, summary) = run_live(&older_client("crash")).await;
    for (id, verdict, m) in verdicts(&results) {
        assert_eq!(verdict, "Errored", "{id}");
        let m = m.expect("a message");
        assert!(m.starts_with("target failed: client \"python3 "), "{m}");
        assert!(
            m.ends_with(
                "crash\" exited (exit status: 3); output tail:\n\
                 older_client: simulated crash after ApiVersions"
            ),
            "{m}"
        );
    }
    assert_eq!((summary.passed, summary.failed, summary.errored), (0, 0, 2));
}

#[test]
fn a_command_without_the_bootstrap_placeholder_is_refused() {
    match target_from_spec("client-cmd:\"python3 x.py\"", &TargetOptions::default()) {
        Err(AdapterError::Setup(m)) => assert_eq!(
            m,
            "client-cmd: the command must contain {bootstrap} (where the client's bootstrap address goes)"
        ),
        other => panic!("expected Setup, got {:?}", other.map(|t| t.name())),
    }
    match target_from_spec("client-cmd:", &TargetOptions::default()) {
        Err(AdapterError::Setup(m)) => assert_eq!(
            m,
            "needs a command, e.g. client-cmd:\"python3 client.py {bootstrap}\""
        ),
        other => panic!("expected Setup, got {:?}", other.map(|t| t.name())),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_python_passes_every_live_client_scenario() {
    let python = match std::env::var("KIPCHECK_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ => {
            assert!(
                std::env::var("KIPCHECK_REQUIRE_PEERS").as_deref() != Ok("1"),
                "KIPCHECK_REQUIRE_PEERS=1 but KIPCHECK_PYTHON is not set"
            );
            eprintln!("skipped: KIPCHECK_PYTHON is not set (the venv with kafka-python)");
            return;
        }
    };
    let command = format!(
        "{python} {} {{bootstrap}}",
        fixture("kafka_python_client.py")
    );
    let (results, summary) = run_live(&command).await;
    assert_both_passed(&results, &summary);
}
