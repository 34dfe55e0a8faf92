//! The whole shipped suite (`scenarios/`) against the built-in reference: every scenario
//! passes. This is also the test command cargo-mutants runs against mutated model code
//! (`.cargo/mutants.toml`), so a model change the suite does not notice survives here.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use kipcheck::adapter::ReferenceTarget;
use kipcheck::runner::{run_suite, RunEvent, RunOptions, Verdict};
use kipcheck::scenario::load_dir;

#[tokio::test]
async fn every_shipped_scenario_passes_against_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let scenarios = load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"));
    let total = scenarios.len();
    assert!(total >= 226, "the suite shrank to {total} scenarios");
    let options = RunOptions {
        seed: 1,
        jobs: 2,
        scenario_timeout: Duration::from_secs(20),
        baseline: None,
        command: "cargo test --test conformance_suite".into(),
    };
    let mut sink = |_: &RunEvent| {};
    let (results, summary) =
        run_suite(Arc::new(ReferenceTarget), scenarios, &options, &mut sink).await;
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::Passed)
        .map(|r| format!("{} {:?}: {:?}", r.id, r.verdict, r.failure))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {total} did not pass:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(summary.passed, total);
}
