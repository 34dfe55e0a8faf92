//! The `client-cmd:` target end to end with real client processes: a stdlib-only Python
//! client without KIP-1324 passes every `live-client` scenario (exact counts), one that sends
//! PushConfig fails them with the exact finding, one that sends an unframeable stream, exits
//! non-zero, or exits 0 before its stdin is closed errors them with the exact reason (its
//! exit status and stderr tail); `{config}` and `{profile}` hold exactly the documented bytes;
//! a command without `{config}` cannot run a scenario that configures its client; a client
//! that authenticates as Java does (a second ApiVersions after SASL) passes the SASL order
//! scenario and one that pushes before authenticating fails it;
//! kafka-python passes them when `KIPCHECK_PYTHON` names a venv with it (skipped, with a
//! message, when unset, unless `KIPCHECK_REQUIRE_PEERS=1`). Every test is bounded in
//! wall-clock time.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kipcheck::adapter::{target_from_spec, AdapterError, SetupError, TargetOptions};
use kipcheck::model::SpecProfile;
use kipcheck::runner::{run_suite, select, Filters, RunOptions, ScenarioResult, Summary};
use kipcheck::scenario::{load_dir, Capability};

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
    let filters = Filters {
        tags: vec!["live-client".into()],
        ..Filters::default()
    };
    run_selected(command, &filters, 2, &TargetOptions::default()).await
}

/// Runs the `count` scenarios `filters` select against `client-cmd:"COMMAND"` with `opts`.
async fn run_selected(
    command: &str,
    filters: &Filters,
    count: usize,
    opts: &TargetOptions,
) -> (Vec<ScenarioResult>, Summary) {
    let all = load_dir(&repo().join("scenarios")).expect("suite loads");
    let scenarios = select(all, filters, None);
    assert_eq!(scenarios.len(), count, "the selected scenarios");
    let spec = format!("client-cmd:\"{command}\"");
    let target = target_from_spec(&spec, opts).expect("client-cmd target");
    let options = RunOptions {
        seed: 1,
        jobs: 2,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "kipcheck run --target client-cmd:...".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
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
        "python3 {} {{bootstrap}} {mode} {{config}}",
        fixture("older_client.py")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_client_passes_every_live_client_scenario() {
    let (results, summary) = run_live(&older_client("normal")).await;
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
                   a size prefix of -5 bytes (the cap is 104857600)";
    for (id, verdict, m) in verdicts(&results) {
        assert_eq!(verdict, "Errored", "{id}");
        assert_eq!(m.as_deref(), Some(message), "{id}");
    }
    assert_eq!((summary.passed, summary.failed, summary.errored), (0, 0, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_client_errors_the_scenario_with_its_stderr_tail() {
    let (results, summary) = run_live(&older_client("crash")).await;
    for (id, verdict, m) in verdicts(&results) {
        assert_eq!(verdict, "Errored", "{id}");
        let m = m.expect("a message");
        assert!(m.starts_with("target failed: client \"python3 "), "{m}");
        assert!(
            m.ends_with(
                "exited (exit status: 3) before kipcheck closed its stdin; stderr tail:\n\
                 older_client: simulated crash after ApiVersions"
            ),
            "{m}"
        );
    }
    assert_eq!((summary.passed, summary.failed, summary.errored), (0, 0, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_exits_0_before_its_stdin_is_closed_errors_the_scenario() {
    let (results, summary) = run_live(&older_client("exit")).await;
    for (id, verdict, m) in verdicts(&results) {
        assert_eq!(verdict, "Errored", "{id}");
        let m = m.expect("a message");
        assert!(m.starts_with("target failed: client \"python3 "), "{m}");
        assert!(m.contains(" exit /"), "{m}");
        assert!(
            m.ends_with(
                "client.properties\" exited (exit status: 0) before kipcheck closed its stdin; \
                 stderr tail:\nolder_client: done, exiting early"
            ),
            "{m}"
        );
    }
    assert_eq!((summary.passed, summary.failed, summary.errored), (0, 0, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_and_profile_files_hold_the_documented_bytes() {
    let out = std::env::temp_dir().join(format!("kipcheck-cfg-test-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let o = out.display();
    let id = "c1324-live-older-client-no-push";
    let command = format!(
        "cp {{config}} {o}/config && cp {{profile}} {o}/profile && echo {{client_type}} {{bootstrap}} > {o}/args && {}",
        older_client("normal")
    );
    let filters = Filters {
        ids: vec![id.into()],
        ..Filters::default()
    };
    let (results, _) = run_selected(&command, &filters, 1, &TargetOptions::default()).await;
    assert_eq!(
        verdicts(&results),
        vec![(id.to_owned(), "Passed".to_owned(), None)]
    );
    let args = std::fs::read_to_string(out.join("args")).unwrap();
    let (client_type, bootstrap) = args.trim().split_once(' ').unwrap();
    assert_eq!(client_type, "admin");
    let seed = kipcheck::runner::scenario_seed(1, id);
    assert_eq!(
        std::fs::read_to_string(out.join("config")).unwrap(),
        format!(
            "# kipcheck scenario {id} (seed {seed})\n\
             bootstrap.servers={}\n\
             enable.config.push=false\n\
             kipcheck.client.embedded=false\n\
             kipcheck.client.type=admin\n",
            bootstrap.replace(':', "\\:")
        )
    );
    let scenario = select(load_dir(&repo().join("scenarios")).unwrap(), &filters, None).remove(0);
    assert_eq!(
        std::fs::read_to_string(out.join("profile")).unwrap(),
        format!(
            "{}\n",
            serde_json::to_string_pretty(&scenario.profile).unwrap()
        )
    );
    std::fs::remove_dir_all(&out).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_without_config_cannot_run_a_scenario_that_configures_its_client() {
    let command = format!("python3 {} {{bootstrap}}", fixture("older_client.py"));
    let (results, summary) = run_live(&command).await;
    for r in &results {
        assert_eq!(format!("{:?}", r.verdict), "Unsupported", "{}", r.id);
        assert_eq!(
            r.unsupported_reason.as_deref(),
            Some("the command has no {config}: the client cannot be configured")
        );
    }
    assert_eq!(summary.unsupported, 2);
}

/// The setup error `spec` is refused with (panics if it is not refused so).
fn setup_error(spec: &str, opts: &TargetOptions) -> SetupError {
    match target_from_spec(spec, opts) {
        Err(AdapterError::Setup(e)) => *e,
        other => panic!("{spec}: expected Setup, got {:?}", other.map(|t| t.name())),
    }
}

/// The (option, requirement) of a `SetupError::Misused`.
fn misused(e: SetupError) -> (&'static str, &'static str) {
    match e {
        SetupError::Misused {
            option,
            requirement,
        } => (option, requirement),
        other => panic!("expected Misused, got {other:?}"),
    }
}

#[test]
fn a_command_without_the_bootstrap_placeholder_is_refused() {
    let opts = TargetOptions::default();
    assert_eq!(
        misused(setup_error("client-cmd:\"python3 x.py\"", &opts)),
        (
            "client-cmd",
            "the command must contain {bootstrap} (where the client's bootstrap address goes)"
        )
    );
    match setup_error("client-cmd:", &opts) {
        SetupError::NeedsCommand { example } => {
            assert_eq!(example, "client-cmd:\"python3 client.py {bootstrap}\"")
        }
        other => panic!("{other:?}"),
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
        "{python} {} {{bootstrap}} {{config}}",
        fixture("kafka_python_client.py")
    );
    let (results, summary) = run_live(&command).await;
    assert_both_passed(&results, &summary);
}

/// The one scenario the user-request tests run: an old broker, so a client without KIP-1324
/// (the fixture) is right to release the user request at the ApiVersions answer.
fn old_broker_only() -> Filters {
    Filters {
        ids: vec!["c1324-old-broker-only-skip".into()],
        ..Filters::default()
    }
}

/// `--time-scale 0.02` (the scenario's 120 s watch becomes 2.4 s) and a generous tolerance
/// (2 s: the test must not depend on a loaded machine's scheduling).
fn scaled_options(capabilities: Vec<Capability>) -> TargetOptions {
    let mut profile = SpecProfile::default();
    profile.timing.tolerance_ms = 2000;
    TargetOptions {
        capabilities,
        readings: Some(profile),
        time_scale: Some(0.02),
        ..TargetOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_request_channel_judges_releases_on_the_real_clock() {
    let opts = scaled_options(vec![Capability::UserRequests]);
    let (results, summary) =
        run_selected(&older_client("normal"), &old_broker_only(), 1, &opts).await;
    assert_eq!(
        verdicts(&results),
        vec![("c1324-old-broker-only-skip".into(), "Passed".into(), None)]
    );
    assert_eq!((summary.passed, summary.steps_judged), (1, 4));
    // Each judged timing is recorded with its window: (step, check, expected, accepted).
    let t: Vec<_> = results[0]
        .timings
        .iter()
        .map(|t| {
            (
                t.step,
                t.check.as_str(),
                t.expected.as_str(),
                t.accepted.as_str(),
                t.ok,
            )
        })
        .collect();
    assert_eq!(
        t,
        vec![
            // The first request after start may take the client's start-up time.
            (2, "within_ms", "1000", "10000", true),
            (5, "within_ms", "0", "2000", true),
            // after_ms: 0 -> 0 ms scaled, then 2000 ms + 10 % either way.
            (5, "after_ms", "0", "{\"$range\":[0,2000]}", true),
            // The user request made after the release is released at once too.
            (7, "within_ms", "0", "2000", true),
            (7, "after_ms", "0", "{\"$range\":[0,2000]}", true),
            // 120000 ms x 0.02 = 2400 ms, less 2000 ms + 240 ms.
            (8, "no_request_within_ms", "120000", "160", true),
        ]
    );
    let released = results[0].timings[2].measured_ms.expect("measured");
    assert!(released <= 2000, "{released}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_user_requests_capability_user_request_scenarios_are_unsupported() {
    let opts = scaled_options(Vec::new());
    let (results, _) = run_selected(&older_client("normal"), &old_broker_only(), 1, &opts).await;
    assert_eq!(
        results[0].unsupported_reason.as_deref(),
        Some("target lacks user_requests")
    );
}

#[test]
fn a_time_scale_outside_0_to_1_or_without_config_is_refused() {
    let spec = format!("client-cmd:\"{}\"", older_client("normal"));
    for bad in [0.0, -1.0, 1.5, f64::NAN] {
        let opts = TargetOptions {
            time_scale: Some(bad),
            ..TargetOptions::default()
        };
        match setup_error(&spec, &opts) {
            e @ SetupError::TimeScale { value } => {
                assert_eq!(value.to_bits(), bad.to_bits());
                assert_eq!(
                    e.to_string(),
                    format!("--time-scale {bad}: must be more than 0 and at most 1")
                );
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    let opts = TargetOptions {
        time_scale: Some(0.5),
        ..TargetOptions::default()
    };
    assert_eq!(
        misused(setup_error("client-cmd:\"x {bootstrap}\"", &opts)),
        (
            "client-cmd",
            "--time-scale needs {config} in the command (the client's timings are scaled through it)"
        )
    );
    assert_eq!(
        target_from_spec(&spec, &opts).map(|t| t.time_scale()).ok(),
        Some(0.5)
    );
}

/// `kipcheck client` (the live reference client) on the two scenarios whose `connect` steps
/// travel over the connect channel: nodes 2 and 3 given after the push, and node 1 given back
/// after a disconnect with the PushConfig in flight. Without `connect_requests` both are
/// unsupported with that reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connect_channel_gives_a_live_client_its_connections() {
    let command = format!(
        "{} client --bootstrap {{bootstrap}} --config {{config}} --profile {{profile}}",
        env!("CARGO_BIN_EXE_kipcheck")
    );
    let filters = Filters {
        ids: vec![
            "c1324-once-not-per-connection".into(),
            "c1324-retry-on-disconnect".into(),
        ],
        ..Filters::default()
    };
    let mut opts = scaled_options(vec![Capability::UserRequests, Capability::ConnectRequests]);
    opts.time_scale = Some(0.1);
    let (results, summary) = run_selected(&command, &filters, 2, &opts).await;
    assert_eq!(
        verdicts(&results),
        vec![
            (
                "c1324-once-not-per-connection".into(),
                "Passed".into(),
                None
            ),
            ("c1324-retry-on-disconnect".into(), "Passed".into(), None),
        ]
    );
    assert_eq!((summary.passed, summary.failed, summary.errored), (2, 0, 0));
    let opts = scaled_options(vec![Capability::UserRequests]);
    let (results, _) = run_selected(&command, &filters, 2, &opts).await;
    for r in &results {
        assert_eq!(
            r.unsupported_reason.as_deref(),
            Some("target lacks connect_requests"),
            "{}",
            r.id
        );
    }
}

/// A `repeat:` scenario on a live client: each run is a new `kipcheck client` process whose
/// seed is the run's (`--seed {seed}`), so its node choice varies across the 16 runs and the
/// scenario passes; the same client with `fixed-node-choice` retries on node 2 in every run
/// and fails with the values it took; and a client that ignores the run seed (none passed:
/// always seed 0) is as deterministic as that bug, so it fails the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_scenario_judges_a_live_clients_node_choice_across_runs() {
    let bin = env!("CARGO_BIN_EXE_kipcheck");
    let base =
        format!("{bin} client --bootstrap {{bootstrap}} --config {{config}} --profile {{profile}}");
    let filters = Filters {
        ids: vec!["c1324-random-node-varies-across-runs".into()],
        ..Filters::default()
    };
    let mut opts = scaled_options(vec![Capability::UserRequests, Capability::ConnectRequests]);
    opts.time_scale = Some(0.1);
    let (results, _) = run_selected(&format!("{base} --seed {{seed}}"), &filters, 1, &opts).await;
    assert_eq!(
        verdicts(&results),
        vec![(
            "c1324-random-node-varies-across-runs".into(),
            "Passed".into(),
            None
        )]
    );
    // Six judged expect_request steps a run, and the distinct judgement.
    assert_eq!(results[0].steps_judged, 16 * 6 + 1);
    for (command, node) in [
        (
            format!("{base} --seed {{seed}} --fault fixed-node-choice"),
            Some("2"),
        ),
        (base.clone(), None),
    ] {
        let (results, _) = run_selected(&command, &filters, 1, &opts).await;
        let failure = results[0].failure.as_ref().expect("a failure");
        assert_eq!(
            results[0].verdict,
            kipcheck::runner::Verdict::Failed,
            "{command}"
        );
        assert!(
            failure
                .message
                .starts_with("\"retry_node\" took 1 different value(s) over 16 runs (seeds "),
            "{}",
            failure.message
        );
        let actual = failure.actual.as_deref().expect("the values taken");
        let taken: Vec<&str> = actual.split(", ").collect();
        assert_eq!(taken.len(), 16, "{actual}");
        assert!(taken.iter().all(|n| *n == taken[0]), "{actual}");
        if let Some(node) = node {
            assert_eq!(taken[0], node, "{actual}");
        }
    }
}

/// A client that authenticates as Java's does (SASL/PLAIN, then a second ApiVersions on the
/// authenticated connection, then PushConfig) passes the SASL order scenario: its optional
/// ApiVersions step takes and answers that request on the real clock. The same client with
/// PushConfig sent before SaslAuthenticate fails it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_optional_api_versions_after_sasl_is_taken_and_answered() {
    let filters = Filters {
        ids: vec!["c1324-no-push-before-sasl-authenticate".into()],
        ..Filters::default()
    };
    let opts = TargetOptions::default();
    let (results, summary) = run_selected(&older_client("sasl"), &filters, 1, &opts).await;
    assert_eq!(
        (summary.passed, summary.failed, summary.errored),
        (1, 0, 0),
        "{:?}",
        verdicts(&results)
    );
    let (results, _) = run_selected(&older_client("sasl-early"), &filters, 1, &opts).await;
    let got = verdicts(&results);
    assert_eq!(got[0].1, "Failed", "{got:?}");
    let message = got[0].2.as_deref().unwrap_or_default();
    assert_eq!(
        message,
        "expected a SaslAuthenticate request, the target sent PushConfig to node 1"
    );
}
