//! The requirement ledger: `scenarios/requirements.yaml` lists every test-plan item and
//! normative statement of KIP-1324, KIP-1326 and KIP-1294 (plus the KIP-1256 cases KIP-1294
//! relies on); this module loads it strictly, scans scenarios for the requirement ids they
//! name, and reports coverage per KIP (covered / excluded / untested) as text or JSON.
//!
//! Responsible for the ledger's format, validation and coverage maths. It must not run
//! scenarios, parse the scenario format beyond `id` and `requirements`, print, or exit:
//! [`run_ledger`] returns the text and the verdict for the CLI to print.
//!
//! Files: `error` (errors with `path:line:col`), `requirements` (the ledger data),
//! `scan` (minimal scenario view), `coverage` (coverage maths and rendering).

pub mod coverage;
pub mod error;
pub mod requirements;
pub mod scan;

use std::path::Path;

pub use coverage::{
    coverage, CheckFailure, Counts, Coverage, Judged, KipCoverage, RequirementCoverage, Status,
    Totals, UnknownReference,
};
pub use error::{At, IdRule, LedgerError};
pub use requirements::{Kind, Kip, Ledger, Requirement};
pub use scan::{parse_scenario_ref, scan_scenarios, Evidence, ScenarioRef};

/// Everything `kipcheck ledger` does, for the CLI to call in one line: load the ledger at
/// `requirements`, scan `scenarios_dir`, compute the coverage and render it (JSON if `json`,
/// otherwise [`Coverage::render_text`]). Returns the text to print and whether the run
/// passed: always true without `check`; with `check`, true iff [`Coverage::check`] passes.
pub fn run_ledger(
    requirements: &Path,
    scenarios_dir: &Path,
    check: bool,
    json: bool,
) -> Result<(String, bool), LedgerError> {
    let ledger = Ledger::load(requirements)?;
    let scenarios = scan_scenarios(scenarios_dir)?;
    render_ledger(&ledger, &scenarios, check, json)
}

/// The second half of [`run_ledger`], for a ledger and scenarios that did not come from files
/// (the suite built into the binary): the coverage rendered, and whether the run passed.
pub fn render_ledger(
    ledger: &Ledger,
    scenarios: &[ScenarioRef],
    check: bool,
    json: bool,
) -> Result<(String, bool), LedgerError> {
    let cov = coverage(ledger, scenarios);
    let text = if json {
        let mut s = serde_json::to_string_pretty(&cov)?;
        s.push('\n');
        s
    } else {
        cov.render_text()
    };
    Ok((text, !check || cov.passed))
}
