//! `kipcheck mutants`: runs the suite against every built-in faulty variant (or those named
//! with `--mutant`), prints the kill matrix, writes `mutants.json` and `mutants.html`, and
//! exits 1 if any variant survives. `--list` prints the variants and their bugs; `--doc-tables`
//! regenerates the kill-matrix tables of docs/mutants.md (rendered by `report::kill_tables`).

use kipcheck::faulty::Fault;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, Context};
use clap::Args;
use kipcheck::report::{
    render_mutants_text_with, splice_tables, write_mutants_reports, ColorChoice, MatrixView,
    TerminalOptions, MUTANTS_JSON_FILE,
};
use kipcheck::runner::{kill_matrix, KillMatrix, RunOptions};

use super::run_cmd::at_least_one;
use super::selection::{load_selection, FilterArgs, Observe, SuiteArgs};
use super::{EXIT_FINDING, EXIT_USAGE};

/// Arguments of `kipcheck mutants`.
#[derive(Debug, Args)]
pub(super) struct MutantsArgs {
    /// Only this variant (repeatable); default: every variant.
    #[arg(long = "mutant", value_name = "NAME")]
    mutants: Vec<String>,
    /// Print every variant with its bug (a Markdown list) and exit.
    #[arg(long)]
    list: bool,
    /// `--scenarios DIR` (default: the built-in suite).
    #[command(flatten)]
    suite: SuiteArgs,
    /// Where `mutants.json` and `mutants.html` are written.
    #[arg(long, default_value = "reports/latest")]
    report_dir: PathBuf,
    /// Run seed (fixed by default so the matrix is reproducible).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// `--id`, `--kip`, `--tag`.
    #[command(flatten)]
    filters: FilterArgs,
    /// Scenarios in flight at once (at least 1).
    #[arg(long, default_value_t = 4, value_parser = at_least_one::<usize>)]
    jobs: usize,
    /// Wall-clock limit per scenario, in ms (at least 1).
    #[arg(long, default_value_t = 30_000, value_parser = at_least_one::<u64>)]
    timeout_ms: u64,
    /// `none`: hide every target's events, so the matrix shows what the wire alone catches.
    #[arg(long, value_enum, default_value_t = Observe::Target)]
    observe: Observe,
    /// Terminal colours: `auto` (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces
    /// them; TERM=dumb turns them off), `always` or `never`.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// Regenerate the kill-matrix tables between this doc's `<!-- generated: NAME -->`
    /// markers (docs/mutants.md) from this run (with events) and `--wire-json`.
    #[arg(long, value_name = "DOC", requires = "wire_json")]
    doc_tables: Option<PathBuf>,
    /// The `mutants.json` of a `--observe none` run with the same seed (for `--doc-tables`).
    #[arg(long, value_name = "FILE", requires = "doc_tables")]
    wire_json: Option<PathBuf>,
}

/// The `--list` text: one Markdown bullet per variant.
fn list() -> String {
    Fault::ALL
        .iter()
        .map(|f| format!("- `{}`: {}\n", f.name(), f.bug()))
        .collect()
}

/// Runs `kipcheck mutants`.
pub(super) fn run(a: MutantsArgs) -> anyhow::Result<ExitCode> {
    if a.list {
        print!("{}", list());
        return Ok(ExitCode::SUCCESS);
    }
    let mut faults = Vec::new();
    for name in &a.mutants {
        match Fault::from_name(name) {
            Some(f) if !faults.contains(&f) => faults.push(f),
            Some(_) => {}
            None => {
                eprintln!(
                    "kipcheck: unknown mutant {name:?} (available: {})",
                    Fault::names()
                );
                return Ok(ExitCode::from(EXIT_USAGE));
            }
        }
    }
    if a.doc_tables.is_some() && a.observe != Observe::Target {
        eprintln!("kipcheck: --doc-tables renders from a run with events (drop --observe none)");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    if faults.is_empty() {
        faults = Fault::ALL.to_vec();
    }
    let filters = a.filters.filters(None);
    let chosen = match load_selection(&a.suite, &filters, None) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    eprintln!(
        "kipcheck {}: running {} scenarios against the reference and {} faulty variant(s) (seed {})",
        env!("CARGO_PKG_VERSION"),
        chosen.len(),
        faults.len(),
        a.seed
    );
    let options = RunOptions {
        seed: a.seed,
        jobs: a.jobs,
        scenario_timeout: Duration::from_millis(a.timeout_ms),
        baseline: None,
        command: format!("kipcheck mutants --seed {}", a.seed),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let matrix = runtime.block_on(kill_matrix(
        &faults,
        chosen,
        &options,
        a.observe == Observe::Target,
        &mut |_| {},
    ));
    let color = TerminalOptions::detect_with(a.color).color;
    print!("{}", render_mutants_text_with(&matrix, color));
    write_mutants_reports(&a.report_dir, &matrix).map_err(|e| anyhow!("{e}"))?;
    eprintln!(
        "kipcheck: wrote {}",
        a.report_dir.join(MUTANTS_JSON_FILE).display()
    );
    if let (Some(doc), Some(wire)) = (&a.doc_tables, &a.wire_json) {
        write_doc_tables(doc, wire, &matrix)?;
    }
    if matrix.all_caught() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(EXIT_FINDING))
    }
}

/// Regenerates the kill-matrix tables of `doc` from `matrix` and the wire-only `wire` result.
fn write_doc_tables(doc: &Path, wire: &Path, matrix: &KillMatrix) -> anyhow::Result<()> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))
    };
    let wire =
        MatrixView::from_json(&read(wire)?).with_context(|| format!("{}", wire.display()))?;
    let text = splice_tables(&read(doc)?, &MatrixView::from(matrix), &wire)
        .with_context(|| format!("{}", doc.display()))?;
    std::fs::write(doc, text).with_context(|| format!("cannot write {}", doc.display()))?;
    eprintln!(
        "kipcheck: regenerated the kill-matrix tables in {}",
        doc.display()
    );
    Ok(())
}
