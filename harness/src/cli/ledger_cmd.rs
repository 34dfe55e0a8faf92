//! `kipcheck ledger`: which scenarios cover each requirement of the three KIPs.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;

use super::EXIT_FINDING;

/// Arguments of `kipcheck ledger`.
#[derive(Debug, Args)]
pub struct LedgerArgs {
    /// The requirements ledger.
    #[arg(long, default_value = "scenarios/requirements.yaml")]
    requirements: PathBuf,
    /// Folder of scenario files.
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// Exit 1 if any requirement that is not excluded is untested, or a scenario names an
    /// unknown requirement.
    #[arg(long)]
    check: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `kipcheck ledger`.
pub fn run(a: LedgerArgs) -> anyhow::Result<ExitCode> {
    let (text, ok) = kipcheck::ledger::run_ledger(&a.requirements, &a.scenarios, a.check, a.json)
        .map_err(|e| anyhow!("{e}"))?;
    print!("{text}");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FINDING)
    })
}
