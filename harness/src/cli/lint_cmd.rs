//! `kipcheck lint`: refuses scenario files that assert what no KIP says (a MUST check of
//! ErrorMessage text, a metadata-log offset, an `expect_no_event` on any record at all) and,
//! unless `--static-only`, scenarios that depend on a contested reading without pinning it
//! (the reference declaring each reading, [`kipcheck::runner::reading_findings`]). Each
//! finding is `file:line:col: rule: what (the KIP sentence it protects)`. Argument handling
//! and printing only.

use std::process::ExitCode;

use clap::Args;
use kipcheck::runner::reading_findings;
use kipcheck::scenario::embedded;
use kipcheck::scenario::{lint_scenario, LintFinding};

use super::selection::{load_or_exit, SuiteArgs};
use super::EXIT_FINDING;

/// `kipcheck lint` arguments.
#[derive(Debug, Args)]
pub(super) struct LintArgs {
    #[command(flatten)]
    suite: SuiteArgs,
    /// Only the rules that read the files (skip running the reference under each reading).
    #[arg(long)]
    static_only: bool,
}

/// Runs `kipcheck lint`: exit 0 when nothing is found, 1 with findings, 2 when a file does
/// not load.
pub(super) fn run(a: LintArgs) -> anyhow::Result<ExitCode> {
    let scenarios = match load_or_exit(&a.suite) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let mut findings: Vec<LintFinding> = Vec::new();
    for s in &scenarios {
        let text = match a.suite.dir() {
            Some(_) => std::fs::read_to_string(&s.path).ok(),
            None => embedded::file(&s.path.to_string_lossy()).map(str::to_owned),
        };
        findings.extend(lint_scenario(s, text.as_deref()));
    }
    if !a.static_only {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        findings.extend(runtime.block_on(reading_findings(&scenarios)));
    }
    findings.sort();
    for f in &findings {
        println!("{f}");
    }
    if findings.is_empty() {
        println!("lint: {} scenarios, no findings", scenarios.len());
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "lint: {} scenarios, {} findings",
            scenarios.len(),
            findings.len()
        );
        Ok(ExitCode::from(EXIT_FINDING))
    }
}
