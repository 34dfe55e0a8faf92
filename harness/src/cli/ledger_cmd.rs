//! `kipcheck ledger`: which scenarios cover each requirement of the three KIPs. The ledger
//! and the scenarios default to the ones built into the binary, so it works from anywhere.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use kipcheck::ledger::{parse_scenario_ref, render_ledger, scan_scenarios, Ledger};
use kipcheck::scenario::embedded;

use super::selection::{SuiteArgs, SuiteError};
use super::EXIT_FINDING;

/// Arguments of `kipcheck ledger`.
#[derive(Debug, Args)]
pub(super) struct LedgerArgs {
    /// The requirements ledger (default: the built-in `scenarios/requirements.yaml`).
    #[arg(long, value_name = "FILE")]
    requirements: Option<PathBuf>,
    /// `--scenarios DIR` (default: the built-in suite).
    #[command(flatten)]
    suite: SuiteArgs,
    /// Exit 1 if any requirement that is not excluded is untested, or a scenario names an
    /// unknown requirement.
    #[arg(long)]
    check: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `kipcheck ledger`.
pub(super) fn run(a: LedgerArgs) -> anyhow::Result<ExitCode> {
    let ledger = match &a.requirements {
        Some(path) => Ledger::load(path),
        None => {
            let text = embedded::requirements()
                .ok_or_else(|| anyhow!("this kipcheck was built without requirements.yaml"))?;
            Ledger::parse(text, Path::new("scenarios/requirements.yaml"))
        }
    }
    .map_err(|e| anyhow!("{e}"))?;
    let scenarios = match a.suite.dir() {
        Some(dir) if !dir.is_dir() => return Err(anyhow!("{}", SuiteError::Missing(dir.into()))),
        Some(dir) => scan_scenarios(dir),
        None => embedded::scenario_files()
            .map(|f| parse_scenario_ref(f.text, Path::new(f.path)))
            .collect(),
    }
    .map_err(|e| anyhow!("{e}"))?;
    let (text, ok) =
        render_ledger(&ledger, &scenarios, a.check, a.json).map_err(|e| anyhow!("{e}"))?;
    print!("{text}");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FINDING)
    })
}
