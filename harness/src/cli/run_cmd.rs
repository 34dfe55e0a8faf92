//! `kipcheck run`: loads the suite, selects scenarios, runs them against a target, writes
//! the reports, and maps the outcome to the documented exit codes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use kipcheck::adapter::{target_from_spec, AdapterError, Target, TargetOptions, Unobserved};
use kipcheck::model::SpecProfile;
use kipcheck::report::{standard_reporters, ColorChoice, Reporter, TerminalOptions};
use kipcheck::runner::{run_suite, Baseline, Grade, Partition, RunEvent, RunOptions};
use kipcheck::scenario::{Capability, Role};

use super::selection::{load_selection, FilterArgs, Observe};
use super::{EXIT_FINDING, EXIT_NOTHING_JUDGED, EXIT_TARGET, EXIT_USAGE};

/// Exit status of a run interrupted with Ctrl-C (128 + SIGINT, as shells report it).
const EXIT_INTERRUPTED: u8 = 130;

/// Arguments of `kipcheck run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The implementation under test: `reference` (built in).
    #[arg(long, default_value = "reference")]
    target: String,
    /// The role a live target plays (`client`, `broker` or `controller`).
    #[arg(long, value_parser = parse_role)]
    role: Option<Role>,
    /// A capability of a live target that cannot be discovered over the wire (repeatable),
    /// e.g. `policy_control`.
    #[arg(long = "capability", value_parser = parse_capability)]
    capabilities: Vec<Capability>,
    /// `exec:` targets: wall-clock limit for one message exchange with the process, in ms
    /// (default 10000); a slower answer makes the scenario errored.
    #[arg(long, value_name = "MS")]
    exec_call_timeout_ms: Option<u64>,
    /// `exec:` targets: longest line accepted from the process, in bytes (default 16 MiB).
    #[arg(long, value_name = "BYTES")]
    exec_max_line_bytes: Option<usize>,
    /// Folder of scenario files.
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// Where reports are written.
    #[arg(long, default_value = "reports/latest")]
    report_dir: PathBuf,
    /// Run seed (printed when generated).
    #[arg(long)]
    seed: Option<u64>,
    /// `--id`, `--kip`, `--tag`.
    #[command(flatten)]
    filters: FilterArgs,
    /// Only MUST or SHOULD scenarios.
    #[arg(long, value_parser = parse_grade)]
    grade: Option<Grade>,
    /// A shard of the suite: `hash:M/N` (stable FNV-1a of the id) or `count:M/N`.
    #[arg(long)]
    partition: Option<Partition>,
    /// Expected failures (a YAML baseline file).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Write this run's failures as a baseline file.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Scenarios in flight at once.
    #[arg(long, default_value_t = 4)]
    jobs: usize,
    /// Wall-clock limit per scenario, in ms.
    #[arg(long, default_value_t = 30_000)]
    timeout_ms: u64,
    /// Show every scenario, not only failures.
    #[arg(long, short)]
    verbose: bool,
    /// Terminal colours: `auto` (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces
    /// them; TERM=dumb turns them off), `always` or `never`.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// `none`: judge the target as one that reports no model events (observation steps are
    /// recorded as not observed), to measure what the wire alone shows. `target` (default):
    /// observe what the target reports.
    #[arg(long, value_enum, default_value_t = Observe::Target)]
    observe: Observe,
    /// `tcp://` and `client-cmd:`: the spec profile (YAML, the format of the built-in
    /// default profile) whose readings the live target follows. Scenarios that set a reading
    /// differently are unsupported with that reason. Default: the built-in profile.
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// `client-cmd:`: run the client's timeline F times as fast (0 < F <= 1): timing keys of
    /// its `{config}` and every timing window are multiplied by F (docs/live-clients.md).
    #[arg(long, value_name = "F")]
    time_scale: Option<f64>,
    /// Fail the run (exit 5) if fewer than N scenarios judged the target: a CI gate that
    /// notices when a target stops being asked what it used to be.
    #[arg(long, value_name = "N")]
    min_judged: Option<usize>,
}

fn parse_role(s: &str) -> Result<Role, String> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase()))
        .map_err(|_| format!("role {s:?}: expected client, broker or controller"))
}

fn parse_capability(s: &str) -> Result<Capability, String> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase()))
        .map_err(|e| format!("capability {s:?}: {e}"))
}

fn parse_grade(s: &str) -> Result<Grade, String> {
    match s.to_ascii_uppercase().as_str() {
        "MUST" => Ok(Grade::Must),
        "SHOULD" => Ok(Grade::Should),
        _ => Err(format!("grade {s:?}: expected MUST or SHOULD")),
    }
}

fn target_for(a: &RunArgs) -> anyhow::Result<Arc<dyn Target>> {
    let readings = match &a.profile {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| AdapterError::Setup(format!("--profile {}: {e}", path.display())))?;
            Some(
                SpecProfile::from_yaml(&text).map_err(|e| {
                    AdapterError::Setup(format!("--profile {}: {e}", path.display()))
                })?,
            )
        }
        None => None,
    };
    let opts = TargetOptions {
        role: a.role,
        capabilities: a.capabilities.clone(),
        exec_call_timeout: a.exec_call_timeout_ms.map(Duration::from_millis),
        exec_max_line_bytes: a.exec_max_line_bytes,
        readings,
        time_scale: a.time_scale,
    };
    let target = target_from_spec(&a.target, &opts)?;
    Ok(match a.observe {
        Observe::Target => target,
        Observe::None => Arc::new(Unobserved(target)),
    })
}

/// Runs `kipcheck run`.
pub fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    let mut terminal = TerminalOptions::detect_with(a.color);
    terminal.verbose = a.verbose;
    // At once, so no earlier run's report outlives a run that stops before writing its own.
    let mut reporters = standard_reporters(&a.report_dir, terminal).map_err(|e| anyhow!("{e}"))?;
    let target = match target_for(&a) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kipcheck: {e:#}");
            let _ = reporters.abort(&format!("the target did not start: {e:#}"));
            // A bad specification is a usage error; a target that crashed, hung or broke its
            // protocol while starting (e.g. an exec: adapter's hello) is a target failure.
            let code = match e.downcast_ref::<AdapterError>() {
                None | Some(AdapterError::Setup(_)) => EXIT_USAGE,
                Some(_) => EXIT_TARGET,
            };
            return Ok(ExitCode::from(code));
        }
    };
    let filters = a.filters.filters(a.grade);
    let chosen = match load_selection(&a.scenarios, &filters, a.partition) {
        Ok(c) => c,
        Err(code) => {
            let _ = reporters.abort("the scenarios did not load (see the error above)");
            return Ok(code);
        }
    };
    let baseline = match &a.baseline {
        Some(p) => Some(Baseline::load(p).map_err(|e| anyhow!("{e}"))?),
        None => None,
    };
    let seed = a.seed.unwrap_or_else(generated_seed);
    if a.seed.is_none() {
        eprintln!("kipcheck: seed {seed} (rerun with --seed {seed})");
    }
    let command = command_line(&a, seed);
    let options = RunOptions {
        seed,
        jobs: a.jobs,
        scenario_timeout: Duration::from_millis(a.timeout_ms),
        baseline,
        command,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut report_error = None;
    let ran = runtime.block_on(async {
        let mut on_event = |ev: &RunEvent| {
            if let Err(e) = reporters.on_event(ev) {
                report_error.get_or_insert(e);
            }
        };
        tokio::select! {
            done = run_suite(target, chosen, &options, &mut on_event) => Some(done),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    let Some((results, summary)) = ran else {
        eprintln!("kipcheck: interrupted");
        reporters
            .abort("interrupted (Ctrl-C) before every scenario finished")
            .map_err(|e| anyhow!("{e}"))?;
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    };
    reporters.finish().map_err(|e| anyhow!("{e}"))?;
    if let Some(e) = report_error {
        return Err(anyhow!("{e}"));
    }
    if let Some(path) = &a.write_baseline {
        let b = Baseline::from_results(&results, &format!("recorded from run seed {seed}"));
        std::fs::write(path, b.to_yaml())?;
        eprintln!(
            "kipcheck: wrote {} expected failure(s) to {}",
            b.expected_failures.len(),
            path.display()
        );
    }
    if summary.unexpected_passes > 0 {
        eprintln!(
            "kipcheck: {} baseline entr{} now pass; update the baseline with: {} --write-baseline {}",
            summary.unexpected_passes,
            if summary.unexpected_passes == 1 { "y" } else { "ies" },
            options.command,
            a.baseline.as_ref().map_or("FILE".into(), |p| p.display().to_string())
        );
    }
    if summary.errored > 0 {
        return Ok(ExitCode::from(EXIT_TARGET));
    }
    if summary.failed > 0 || summary.unexpected_passes > 0 {
        return Ok(ExitCode::from(EXIT_FINDING));
    }
    if summary.nothing_judged() {
        eprintln!(
            "kipcheck: nothing judged: the target could not be asked any of the {} selected scenario(s)",
            summary.total
        );
        return Ok(ExitCode::from(EXIT_NOTHING_JUDGED));
    }
    if let Some(min) = a.min_judged {
        if summary.judged < min {
            eprintln!(
                "kipcheck: {} scenario(s) judged, fewer than --min-judged {min}",
                summary.judged
            );
            return Ok(ExitCode::from(EXIT_NOTHING_JUDGED));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn generated_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    kipcheck::runner::fnv1a64(&format!("{nanos}:{}", std::process::id()))
}

/// `s` as one POSIX shell word (quoted when needed), so a printed command can be pasted back:
/// `--target exec:"python3 adapter.py"` must keep its command together.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn command_line(a: &RunArgs, seed: u64) -> String {
    let mut c = vec![
        "kipcheck".to_string(),
        "run".into(),
        "--target".into(),
        shell_word(&a.target),
    ];
    // A live target's role and declared capabilities change what runs: keep them.
    if let Some(role) = &a.role {
        c.push("--role".into());
        c.push(role.name());
    }
    for cap in &a.capabilities {
        c.push("--capability".into());
        c.push(cap.name());
    }
    if let Some(ms) = a.exec_call_timeout_ms {
        c.push(format!("--exec-call-timeout-ms {ms}"));
    }
    if let Some(n) = a.exec_max_line_bytes {
        c.push(format!("--exec-max-line-bytes {n}"));
    }
    if a.scenarios != std::path::Path::new("scenarios") {
        c.push("--scenarios".into());
        c.push(a.scenarios.display().to_string());
    }
    if a.observe == Observe::None {
        c.push("--observe none".into());
    }
    if let Some(p) = &a.profile {
        c.push("--profile".into());
        c.push(shell_word(&p.display().to_string()));
    }
    if let Some(f) = a.time_scale {
        c.push(format!("--time-scale {f}"));
    }
    if let Some(b) = &a.baseline {
        c.push("--baseline".into());
        c.push(b.display().to_string());
    }
    c.push("--seed".into());
    c.push(seed.to_string());
    c.join(" ")
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words_quote_only_when_needed() {
        assert_eq!(shell_word("reference"), "reference");
        assert_eq!(shell_word("tcp://127.0.0.1:9092"), "tcp://127.0.0.1:9092");
        assert_eq!(
            shell_word("exec:python3 adapter.py"),
            "'exec:python3 adapter.py'"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
