//! The whole shipped suite (`scenarios/`) against the built-in reference: every scenario
//! passes, and every built-in faulty variant fails its witness scenario. This is also the test
//! command cargo-mutants runs against mutated model code (`.cargo/mutants.toml`), so a model
//! change the suite does not notice survives here; a mutant that disables a variant's fault
//! branch is caught by the witness check (the whole kill matrix is `tests/mutants.rs`).

use kipcheck::faulty::Fault;
use std::sync::Arc;
use std::time::Duration;

use kipcheck::adapter::ReferenceTarget;
use kipcheck::runner::{kill_matrix, run_suite, RunEvent, RunOptions, Verdict};
use kipcheck::scenario::load_dir;

use crate::suite_support::{suite_dir, WITNESSES};

fn options() -> RunOptions {
    RunOptions {
        seed: 1,
        jobs: 2,
        scenario_timeout: Duration::from_secs(20),
        baseline: None,
        command: "cargo test --test conformance_suite".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    }
}

#[tokio::test]
async fn every_shipped_scenario_passes_against_the_reference() {
    let scenarios = load_dir(&suite_dir()).unwrap_or_else(|e| panic!("{e:?}"));
    let total = scenarios.len();
    assert!(total >= 226, "the suite shrank to {total} scenarios");
    let mut sink = |_: &RunEvent| {};
    let (results, summary) =
        run_suite(Arc::new(ReferenceTarget), scenarios, &options(), &mut sink).await;
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

/// Each variant against its witness alone (one scenario, not the whole suite): cheap enough
/// to run once per cargo-mutants mutant, and exact about which scenario must fail.
#[tokio::test]
async fn every_faulty_variant_fails_its_witness() {
    let scenarios = load_dir(&suite_dir()).unwrap_or_else(|e| panic!("{e:?}"));
    let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
    let listed: Vec<&str> = WITNESSES.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names, listed,
        "WITNESSES lists every variant in declaration order"
    );
    let mut missed = Vec::new();
    for (&fault, (name, witness)) in Fault::ALL.iter().zip(WITNESSES) {
        let one: Vec<_> = scenarios
            .iter()
            .filter(|s| s.file.id == *witness)
            .cloned()
            .collect();
        assert_eq!(
            one.len(),
            1,
            "witness {witness} of {name} is not in the suite"
        );
        let m = kill_matrix(&[fault], one, &options(), true, &mut |_| {}).await;
        assert_eq!(m.reference_failures, Vec::<String>::new(), "{witness}");
        if m.variants[0].killed_by != [witness.to_string()] {
            missed.push(format!("{name} (witness {witness})"));
        }
    }
    assert_eq!(
        missed,
        Vec::<String>::new(),
        "variants their witness no longer catches"
    );
}
