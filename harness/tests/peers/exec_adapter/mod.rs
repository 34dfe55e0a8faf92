//! The `exec:` target end to end with real subprocesses: the Python example broker passes
//! every broker-role KIP-1324 scenario it declares capabilities for (exact counts), and each
//! way an adapter can misbehave (crash at start, crash mid-scenario, garbage, a wrong message
//! type, silence, a wrong protocol version, an over-long line) gives its exact error kind and
//! an Errored verdict carrying the stderr tail, within a bounded wall-clock time, with the
//! process group killed afterwards; base64 frames pass through byte for byte; and `kipcheck
//! run` exits 3 when the adapter cannot even say hello; `advance` with `until` stops the
//! virtual clock exactly at a client's next request, and a clock moved too far is refused; and
//! after a `disconnect` or a `timeout` a client's answers are decoded against the requests they
//! answer (JSON encoding), not against the ones the connection lost.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use kipcheck::adapter::{
    target_from_spec, AdapterError, ConnOutput, Crash, ExecOptions, ExecTarget, FrameEncoding,
    Moment, Outbound, PeerAction, ProcessEnd, ProtocolViolation, SessionConfig, SetupError, Target,
    TargetOptions, TimedOut, Violation, Waiting,
};
use kipcheck::codec::{
    self, ApiKey, ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody, ResponseHeader,
};
use kipcheck::emulate::emulated_api_versions;
use kipcheck::runner::{
    execute, run_suite, select, Filters, RunOptions, ScenarioResult, Summary, Verdict,
};
use kipcheck::scenario::{load_dir, Scenario};

mod misbehave;

/// Every test finishes within this, whatever the adapter does.
const TEST_BOUND: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_owned()
}

fn python_broker() -> String {
    format!(
        "python3 {}",
        repo().join("examples/python-broker/adapter.py").display()
    )
}

fn misbehave(mode: &str) -> String {
    format!(
        "python3 {} {mode}",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/exec_fixtures/misbehave.py")
            .display()
    )
}

/// Small bounds so misbehaviour is detected quickly (Python may start slowly on a loaded
/// machine, hence not smaller).
fn small() -> ExecOptions {
    ExecOptions {
        call_timeout: Duration::from_secs(5),
        max_line_bytes: 64 * 1024,
        ..ExecOptions::default()
    }
}

fn kip(number: &str) -> Vec<Scenario> {
    let all = load_dir(&repo().join("scenarios")).expect("suite loads");
    let filters = Filters {
        kips: vec![number.into()],
        ..Filters::default()
    };
    select(all, &filters, None)
}

fn kip1324() -> Vec<Scenario> {
    kip("1324")
}

fn one(id: &str) -> Scenario {
    kip1324()
        .into_iter()
        .find(|s| s.file.id == id)
        .expect("scenario exists")
}

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(TEST_BOUND, f)
        .await
        .expect("the test finished within its wall-clock bound")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_broker_passes_every_broker_scenario_it_declares() {
    let target: Arc<dyn Target> =
        Arc::new(ExecTarget::start(&python_broker(), ExecOptions::default()).expect("hello probe"));
    let caps = target.capabilities();
    assert_eq!(
        serde_json::to_value(&caps.capabilities).unwrap(),
        serde_json::json!([
            "events",
            "virtual_clock",
            "policy_control",
            "max_bytes",
            "throttle",
            "static_configs"
        ])
    );
    let scenarios = kip1324();
    let broker = scenarios
        .iter()
        .filter(|s| s.area == "kip1324-broker")
        .count();
    assert_eq!(broker, 81);
    let (results, summary) = run_python_broker(target, scenarios).await;
    let passed_in = |area: &str| {
        results
            .iter()
            .filter(|r| r.area == area && r.verdict == Verdict::Passed)
            .count()
    };
    // Every broker scenario, the three that register first (KIP-1326) included, but the two
    // that deny the client CLUSTER_ACTION (the example declares no `authorization`).
    assert_eq!(passed_in("kip1324-broker"), 79);
    // The live-safe ApiVersions scenarios (broker role) pass too.
    assert_eq!(passed_in("apiversions"), 5);
    assert_eq!(summary.passed, 84);
    // Unsupported: every client and controller scenario.
    assert_eq!(summary.unsupported, summary.total - 84);
}

/// Runs `scenarios` against the Python example broker; nothing may fail or error.
async fn run_python_broker(
    target: Arc<dyn Target>,
    scenarios: Vec<Scenario>,
) -> (Vec<ScenarioResult>, Summary) {
    let options = RunOptions {
        seed: 7,
        jobs: 2,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "kipcheck run --target exec:...".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let (results, summary) = bounded(run_suite(target, scenarios, &options, &mut |_| {})).await;
    let failures: Vec<_> = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Failed | Verdict::Errored))
        .map(|r| (r.id.clone(), r.failure.as_ref().map(|f| f.message.clone())))
        .collect();
    assert_eq!(failures, vec![]);
    assert_eq!(summary.failed + summary.errored, 0);
    (results, summary)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_broker_reports_static_configs_from_the_definitions_it_is_told() {
    // The exact-set scenarios (8 validated built-in definitions) are judgeable because the
    // open message carries the broker's effective definitions.
    let target: Arc<dyn Target> =
        Arc::new(ExecTarget::start(&python_broker(), ExecOptions::default()).expect("hello probe"));
    let scenarios: Vec<Scenario> = kip("1326")
        .into_iter()
        .filter(|s| s.file.roles == [kipcheck::scenario::Role::Broker])
        .collect();
    assert_eq!(scenarios.len(), 18);
    let (results, summary) = run_python_broker(target, scenarios).await;
    assert_eq!(summary.passed, 18, "{results:?}");
}

#[test]
fn registry_builds_exec_targets_and_rejects_an_empty_command() {
    let spec = format!("exec:\"{}\"", python_broker());
    let t = target_from_spec(&spec, &TargetOptions::default()).expect("exec target");
    assert_eq!(t.name(), format!("exec:{}", python_broker()));
    match target_from_spec("exec:", &TargetOptions::default()) {
        Err(AdapterError::Setup(e)) => match *e {
            SetupError::NeedsCommand { example } => {
                assert_eq!(example, "exec:\"python3 adapter.py\"")
            }
            other => panic!("{other:?}"),
        },
        other => panic!("expected Setup, got {:?}", other.map(|t| t.name())),
    }
}
