//! Where the scenarios come from (the suite built into the binary, or `--scenarios DIR`
//! instead) and selecting from them, shared by every command that reads scenarios: a bad
//! file is printed with its location and becomes exit code 2, a missing folder exit code 2
//! naming it, an empty selection exit code 4. [`load_all`] is the plain load for `serve` and
//! `interop` (a bad file is an error).

use std::path::{Path, PathBuf};

use clap::Args;
use std::process::ExitCode;

use kipcheck::runner::{select, Filters, Grade, Partition};
use kipcheck::scenario::{load_dir, load_embedded, LoadError, Scenario};

use super::{EXIT_NO_SCENARIOS, EXIT_USAGE};

/// The scenario source every scenario-reading command takes.
#[derive(Clone, Debug, Default, Args)]
pub(super) struct SuiteArgs {
    /// Read the scenarios from this folder instead of the suite built into kipcheck (the
    /// folder replaces the built-in suite; it is not added to it). Default: the built-in
    /// suite, the repository's `scenarios/` when kipcheck was built.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
}

/// Why the suite could not be read.
#[derive(Debug)]
pub(super) enum SuiteError {
    /// `--scenarios` names no folder.
    Missing(PathBuf),
    /// Files that do not load (each located).
    Load(Vec<LoadError>),
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SuiteError::Missing(dir) => write!(f, "--scenarios {}: no such folder", dir.display()),
            SuiteError::Load(errors) => write!(
                f,
                "{} scenario file(s) could not be loaded (first: {})",
                errors.len(),
                errors.first().map(|e| e.to_string()).unwrap_or_default()
            ),
        }
    }
}

impl SuiteArgs {
    /// Every scenario of the source, sorted by id.
    pub(super) fn load(&self) -> Result<Vec<Scenario>, SuiteError> {
        match &self.scenarios {
            None => load_embedded().map_err(SuiteError::Load),
            Some(dir) if !dir.is_dir() => Err(SuiteError::Missing(dir.clone())),
            Some(dir) => load_dir(dir).map_err(SuiteError::Load),
        }
    }

    /// The folder given with `--scenarios`, if any (for reproduction commands).
    pub(super) fn dir(&self) -> Option<&Path> {
        self.scenarios.as_deref()
    }
}

/// Every scenario of `suite`, or the exit code to end with (after printing why).
pub(super) fn load_or_exit(suite: &SuiteArgs) -> Result<Vec<Scenario>, ExitCode> {
    suite.load().map_err(|e| {
        match &e {
            SuiteError::Missing(_) => eprintln!("kipcheck: {e}"),
            SuiteError::Load(errors) => {
                for e in errors {
                    eprintln!("{e}");
                }
                eprintln!(
                    "kipcheck: {} scenario file(s) could not be loaded",
                    errors.len()
                );
            }
        }
        ExitCode::from(EXIT_USAGE)
    })
}

/// The scenarios of `suite` that `filters` and `partition` select, or the exit code to end
/// with (after printing why).
pub(super) fn load_selection(
    suite: &SuiteArgs,
    filters: &Filters,
    partition: Option<Partition>,
) -> Result<Vec<Scenario>, ExitCode> {
    let chosen = select(load_or_exit(suite)?, filters, partition);
    if chosen.is_empty() {
        eprintln!("kipcheck: no scenarios selected");
        return Err(ExitCode::from(EXIT_NO_SCENARIOS));
    }
    Ok(chosen)
}

/// Every scenario of `suite`; a bad file is an error naming how many failed and the first one
/// (with its file:line:col), a missing folder one naming it.
pub(super) fn load_all(suite: &SuiteArgs) -> anyhow::Result<Vec<Scenario>> {
    suite.load().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Which scenarios `run` and `list` take: the source, the filters, the grade and the shard.
#[derive(Clone, Debug, Default, Args)]
pub(super) struct SelectArgs {
    /// `--scenarios DIR` (default: the built-in suite).
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// `--id`, `--kip`, `--tag`.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Only MUST or SHOULD scenarios.
    #[arg(long, value_parser = parse_grade)]
    pub grade: Option<Grade>,
    /// A shard of the suite: `hash:M/N` (stable FNV-1a of the id) or `count:M/N`.
    #[arg(long)]
    pub partition: Option<Partition>,
}

impl SelectArgs {
    /// The selected scenarios, or the exit code to end with (after printing why).
    pub(super) fn select(&self) -> Result<Vec<Scenario>, ExitCode> {
        load_selection(
            &self.suite,
            &self.filters.filters(self.grade),
            self.partition,
        )
    }
}

fn parse_grade(s: &str) -> Result<Grade, String> {
    match s.to_ascii_uppercase().as_str() {
        "MUST" => Ok(Grade::Must),
        "SHOULD" => Ok(Grade::Should),
        _ => Err(format!("grade {s:?}: expected MUST or SHOULD")),
    }
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
    pub(super) fn filters(&self, grade: Option<Grade>) -> Filters {
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
