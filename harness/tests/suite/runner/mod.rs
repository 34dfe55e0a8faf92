//! The runner end to end on small scenario folders: verdicts, unsupported capabilities,
//! a hanging or panicking target becoming a verdict, baselines (expected failures, stale
//! entries, different failures), partitions, per-scenario seeds, and redaction of secrets.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use kipcheck::adapter::{
    AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, ReferenceTarget, Session,
    SessionConfig, Target,
};
use kipcheck::runner::{
    run_suite, select, Baseline, BaselineEntry, Filters, Partition, RunEvent, RunOptions,
    ScenarioResult, Summary, UnsupportedCause, Verdict,
};
use kipcheck::scenario::{load_dir, Role, Scenario};
use serde_json::Value;

mod retries;
mod selection;
mod verdicts;

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("suite_runner")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("area")).expect("mkdir");
    d
}

fn scenarios(name: &str, files: &[(&str, &str)]) -> Vec<Scenario> {
    let root = dir(name);
    for (id, body) in files {
        std::fs::write(
            root.join("area").join(format!("{id}.yaml")),
            format!("id: {id}\n{body}"),
        )
        .expect("write");
    }
    load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"))
}

const PASSING: &str = "title: ApiVersions answers
kip: KIP-1324
grade: MUST
roles: [broker]
steps:
  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }
  - expect_response: { body: { ErrorCode: NONE } }
";

const FAILING: &str = "title: wrong expectation
kip: KIP-1324
grade: MUST
roles: [broker]
steps:
  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }
  - expect_response: { body: { ErrorCode: INVALID_REQUEST } }
";

fn options(seed: u64) -> RunOptions {
    RunOptions {
        seed,
        jobs: 2,
        scenario_timeout: Duration::from_secs(5),
        baseline: None,
        command: "kipcheck run --target reference".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    }
}

async fn run(
    target: Arc<dyn Target>,
    s: Vec<Scenario>,
    o: &RunOptions,
) -> (Vec<ScenarioResult>, Summary, Vec<RunEvent>) {
    let mut events = Vec::new();
    let mut sink = |e: &RunEvent| events.push(e.clone());
    let (r, sum) = run_suite(target, s, o, &mut sink).await;
    (r, sum, events)
}
