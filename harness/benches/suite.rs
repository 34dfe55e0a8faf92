//! Benchmark of kipcheck's main job: the whole scenario suite against the reference target
//! (virtual time, in-process), as `kipcheck run` does it minus report writing. Prints the
//! simulated time the suite covers, to show the speed-up over real time.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use kipcheck::adapter::ReferenceTarget;
use kipcheck::runner::{run_suite, RunEvent, RunOptions};
use kipcheck::scenario::{load_dir, Scenario};

fn suite() -> Vec<Scenario> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"))
}

fn run_once(rt: &tokio::runtime::Runtime, scenarios: Vec<Scenario>) -> u64 {
    let options = RunOptions {
        seed: 1,
        jobs: 4,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "bench".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    rt.block_on(async {
        let mut simulated = 0;
        let mut sink = |e: &RunEvent| {
            if let RunEvent::Finished { simulated_ms, .. } = e {
                simulated = *simulated_ms;
            }
        };
        let (_, summary) =
            run_suite(Arc::new(ReferenceTarget), scenarios, &options, &mut sink).await;
        assert!(
            summary.is_green(),
            "the suite must pass against the reference: {summary:?}"
        );
        simulated
    })
}

fn main() {
    let scenarios = suite();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let simulated = run_once(&rt, scenarios.clone());
    println!(
        "suite: {} scenarios covering {:.1} s of simulated time per run",
        scenarios.len(),
        simulated as f64 / 1000.0
    );
    divan::main();
}

#[divan::bench(sample_count = 20)]
fn whole_suite_against_reference(b: divan::Bencher) {
    let scenarios = suite();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    b.bench_local(|| run_once(&rt, scenarios.clone()));
}
