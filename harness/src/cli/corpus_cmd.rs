//! `kipcheck export-corpus`: runs the suite against the reference with a recording target
//! and writes every frame exchanged into the fuzz corpus, so seeds follow the protocol.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::selection::{load_all, SuiteArgs};
use super::EXIT_FINDING;
use anyhow::Context;
use clap::Args;
use kipcheck::adapter::{RecordingTarget, ReferenceTarget, Target};
use kipcheck::runner::{fnv1a64, run_suite, RunOptions};

/// Arguments of `kipcheck export-corpus`.
#[derive(Debug, Args)]
pub(super) struct ExportArgs {
    /// `--scenarios DIR` (default: the built-in suite).
    #[command(flatten)]
    suite: SuiteArgs,
    /// The corpus root: frames go to `<corpus>/decode_request/` and `<corpus>/decode_response/`.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
}

/// Runs `kipcheck export-corpus`.
pub(super) fn run(a: ExportArgs) -> anyhow::Result<ExitCode> {
    let scenarios = load_all(&a.suite)?;
    let recorder = Arc::new(RecordingTarget::new(Arc::new(ReferenceTarget)));
    let target: Arc<dyn Target> = recorder.clone();
    let options = RunOptions {
        seed: 1,
        jobs: 4,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "kipcheck export-corpus".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (_, summary) = runtime.block_on(run_suite(target, scenarios, &options, &mut |_| {}));
    let mut written = 0usize;
    let mut seen = BTreeSet::new();
    for f in recorder.frames() {
        let Some((dir, bytes)) = f.fuzz_input() else {
            continue;
        };
        let name = format!(
            "suite-{:016x}.bin",
            fnv1a64(&kipcheck::codec::to_hex(&bytes))
        );
        if !seen.insert((dir, name.clone())) {
            continue;
        }
        let folder = a.corpus.join(dir);
        std::fs::create_dir_all(&folder)
            .with_context(|| format!("creating {}", folder.display()))?;
        let path = folder.join(&name);
        if !path.exists() {
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
            written += 1;
        }
    }
    println!(
        "exported {} distinct frames ({} new files) from {} scenarios into {}",
        seen.len(),
        written,
        summary.total,
        a.corpus.display()
    );
    Ok(if summary.is_green() {
        ExitCode::SUCCESS
    } else {
        eprintln!("kipcheck: the suite did not pass against the reference; frames exported anyway");
        ExitCode::from(EXIT_FINDING)
    })
}
