//! Loading the scenario folder and selecting from it, shared by `run` and `mutants`: a bad
//! file is printed with its location and becomes exit code 2, an empty selection exit code 4.
//! [`load_all`] is the plain load for `serve` and `interop` (a bad file is an error).

use std::path::Path;

use clap::Args;
use std::process::ExitCode;

use kipcheck::runner::{select, Filters, Grade, Partition};
use kipcheck::scenario::{load_dir, Scenario};

use super::{EXIT_NO_SCENARIOS, EXIT_USAGE};

/// The scenarios of `dir` that `filters` and `partition` select, or the exit code to end with
/// (after printing why).
pub(super) fn load_selection(
    dir: &Path,
    filters: &Filters,
    partition: Option<Partition>,
) -> Result<Vec<Scenario>, ExitCode> {
    let scenarios = load_dir(dir).map_err(|errors| {
        for e in &errors {
            eprintln!("{e}");
        }
        eprintln!(
            "kipcheck: {} scenario file(s) could not be loaded",
            errors.len()
        );
        ExitCode::from(EXIT_USAGE)
    })?;
    let chosen = select(scenarios, filters, partition);
    if chosen.is_empty() {
        eprintln!("kipcheck: no scenarios selected");
        return Err(ExitCode::from(EXIT_NO_SCENARIOS));
    }
    Ok(chosen)
}

/// Every scenario of `dir`; a bad file is an error naming how many failed and the first one
/// (with its file:line:col).
pub(super) fn load_all(dir: &Path) -> anyhow::Result<Vec<Scenario>> {
    load_dir(dir).map_err(|errors| {
        anyhow::anyhow!(
            "{} scenario file(s) could not be loaded (first: {})",
            errors.len(),
            errors.first().map(|e| e.to_string()).unwrap_or_default()
        )
    })
}

/// The scenario filters `run` and `mutants` share.
#[derive(Clone, Debug, Default, Args)]
pub(super) struct FilterArgs {
    /// Only scenarios whose id matches this glob (repeatable).
    #[arg(long = "id", value_name = "GLOB")]
    pub ids: Vec<String>,
    /// Only scenarios of this KIP (`KIP-1324` or `1324`; repeatable).
    #[arg(long = "kip")]
    pub kips: Vec<String>,
    /// Only scenarios with this tag (repeatable).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
}

impl FilterArgs {
    /// The runner's filters, with `grade` (only `run` has `--grade`).
    pub fn filters(&self, grade: Option<Grade>) -> Filters {
        Filters {
            ids: self.ids.clone(),
            kips: self.kips.clone(),
            tags: self.tags.clone(),
            grade,
        }
    }
}

/// Whether the target's reported events are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Observe {
    /// Use the events the target reports (where it reports any).
    Target,
    /// Ignore them: judge on the wire only.
    None,
}
