//! `kipcheck run`: loads the suite, selects scenarios, runs them against a target, writes
//! the reports, and maps the outcome to the documented exit codes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use kipcheck::report::{
    file_reporters, standard_reporters, ColorChoice, JsonLinesReporter, MessageFormat, Reporter,
    Reporters, TerminalOptions, TerminalReporter,
};
use kipcheck::runner::quarantine::Quarantine;
use kipcheck::runner::{
    run_suite_until, Baseline, FlakyOptions, FlakyResult, Partition, RunEvent, RunOptions,
    ScenarioResult, Verdict,
};

use super::list_cmd::{grade_name, plan, prepare};
use super::selection::{Observe, SelectArgs};
use super::target_args::{Reach, TargetArgs};
use super::{EXIT_FINDING, EXIT_NOTHING_JUDGED, EXIT_TARGET, EXIT_USAGE};

/// Exit code of a run interrupted by Ctrl-C (128 + SIGINT, as shells report it).
const EXIT_INTERRUPTED: u8 = 130;

/// Arguments of `kipcheck run`.
#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// `--target` and the options of live and `exec:` targets.
    #[command(flatten)]
    target: TargetArgs,
    /// `--scenarios`, `--id`, `--kip`, `--tag`, `--grade`, `--partition`.
    #[command(flatten)]
    select: SelectArgs,
    /// Where reports are written.
    #[arg(long, default_value = "reports/latest")]
    report_dir: PathBuf,
    /// Run seed (printed when generated).
    #[arg(long)]
    seed: Option<u64>,
    /// Expected failures (a YAML baseline file).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Write this run's failures as a baseline file.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Scenarios in flight at once (at least 1).
    #[arg(long, default_value_t = DEFAULT_JOBS, value_parser = at_least_one::<usize>)]
    jobs: usize,
    /// On a real-clock target (`client-cmd:`, `tcp://`): of the `--jobs` scenarios in flight, at
    /// most N are busy at once; the others are in a long quiet watch ("no request within …"),
    /// which needs no CPU. Longest scenarios start first. Default: the number of CPUs.
    #[arg(long, value_name = "N", value_parser = at_least_one::<usize>)]
    active_jobs: Option<usize>,
    /// Wall-clock limit per scenario, in ms (at least 1).
    #[arg(long, default_value_t = DEFAULT_TIMEOUT_MS, value_parser = at_least_one::<u64>)]
    timeout_ms: u64,
    /// Stop starting scenarios after the first failed, errored or unexpectedly passing one
    /// (scenarios in flight are abandoned; the reports hold the finished ones).
    #[arg(long)]
    fail_fast: bool,
    /// Print what would run against the target, and why the rest would not (as
    /// `kipcheck list --target` does), without running anything or writing reports.
    #[arg(long)]
    dry_run: bool,
    /// With `--dry-run`: print JSON.
    #[arg(long, requires = "dry_run")]
    json: bool,
    /// Show every scenario, not only failures.
    #[arg(long, short)]
    verbose: bool,
    /// Terminal colours: `auto` (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces
    /// them; TERM=dumb turns them off), `always` or `never`.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// Fail the run (exit 5) if fewer than N scenarios judged the target: a CI gate that
    /// notices when a target stops being asked what it used to be.
    #[arg(long, value_name = "N")]
    min_judged: Option<usize>,
    /// Run a failed or errored scenario again, up to N more times (live targets on a real
    /// clock); one that then passes is reported as flaky in every format.
    #[arg(long, value_name = "N", default_value_t = 0)]
    retries: u32,
    /// What a scenario that passed only on a retry counts as: `pass` (reported flaky) or
    /// `fail` (the failure it first was).
    #[arg(long, value_enum, default_value_t = FlakyArg::Pass, value_name = "AS")]
    flaky_result: FlakyArg,
    /// Known-flaky scenarios (YAML: `quarantine: [{id, reason, expires: YYYY-MM-DD}]`): they
    /// run and are reported, but the gate ignores them; an expired entry, or one matching no
    /// selected scenario, fails the run.
    #[arg(long, value_name = "FILE")]
    quarantine: Option<PathBuf>,
    /// What stdout gets: `human` (progress, findings, summary) or `json` (one JSON object per
    /// run event and line, flushed as it happens; the human output goes to stderr).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human, value_name = "FMT")]
    message_format: MessageFormat,
}

/// `--flaky-result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FlakyArg {
    /// A pass, reported as flaky.
    Pass,
    /// A failure.
    Fail,
}

/// `--jobs` when not given.
const DEFAULT_JOBS: usize = 4;
/// `--timeout-ms` when not given.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// A number that must be at least 1 (`--jobs 0` would run nothing, `--timeout-ms 0` would
/// time out every scenario).
pub(super) fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialEq + From<u8>,
{
    let n: T = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if n == T::from(0) {
        return Err("must be at least 1".into());
    }
    Ok(n)
}

/// Runs `kipcheck run`.
pub(super) fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    if a.dry_run {
        let (target, chosen) = match prepare(&a.target, &a.select, Reach::NotNeeded) {
            Ok(p) => p,
            Err((code, _)) => return Ok(code),
        };
        print!("{}", plan(&chosen, target.as_ref(), a.json)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut terminal = TerminalOptions::detect_with(a.color);
    terminal.verbose = a.verbose;
    // At once, so no earlier run's report outlives a run that stops before writing its own.
    let mut reporters = match a.message_format {
        MessageFormat::Human => standard_reporters(&a.report_dir, terminal),
        MessageFormat::Json => json_stream_reporters(&a),
    }
    .map_err(|e| anyhow!("{e}"))?;
    let (target, chosen) = match prepare(&a.target, &a.select, Reach::Required) {
        Ok(p) => p,
        Err((code, why)) => {
            let _ = reporters.abort(&why);
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
    let quarantine = match &a.quarantine {
        Some(p) => match Quarantine::load(p) {
            Ok(q) => Some(q),
            Err(e) => {
                eprintln!("kipcheck: --quarantine {e}");
                let _ = reporters.abort(&format!("--quarantine {e}"));
                return Ok(ExitCode::from(EXIT_USAGE));
            }
        },
        None => None,
    };
    let flaky = FlakyOptions {
        retries: a.retries,
        result: match a.flaky_result {
            FlakyArg::Pass => FlakyResult::Pass,
            FlakyArg::Fail => FlakyResult::Fail,
        },
        quarantine,
    };
    let command = command_line(&a, seed);
    let selected = chosen.len();
    let options = RunOptions {
        seed,
        jobs: a.jobs,
        scenario_timeout: Duration::from_millis(a.timeout_ms),
        baseline,
        command,
        min_judged: a.min_judged,
        flaky,
        active_jobs: Some(a.active_jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })),
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
        let stop = |r: &ScenarioResult| {
            a.fail_fast
                && matches!(
                    r.verdict,
                    Verdict::Failed | Verdict::Errored | Verdict::UnexpectedPass
                )
        };
        tokio::select! {
            done = run_suite_until(target, chosen, &options, &mut on_event, &stop) => Some(done),
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
    if a.fail_fast && summary.total < selected {
        eprintln!(
            "kipcheck: --fail-fast: stopped after the first finding; {} of {selected} selected scenario(s) not run",
            selected - summary.total
        );
    }
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
    for p in &summary.quarantine_problems {
        eprintln!("kipcheck: {p}");
    }
    if summary.failed > 0
        || summary.unexpected_passes > 0
        || !summary.quarantine_problems.is_empty()
    {
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

/// `--message-format json`: the JSON lines on stdout, the file reports, and the human output
/// on stderr (coloured by stderr's terminal, never a progress bar: it draws on stdout).
fn json_stream_reporters(a: &RunArgs) -> Result<Reporters, kipcheck::report::ReportError> {
    use std::io::IsTerminal;
    let mut reporters = file_reporters(&a.report_dir)?;
    reporters.push(JsonLinesReporter::new(std::io::stdout()));
    let mut human = TerminalOptions::resolve(a.color, std::io::stderr().is_terminal(), |k| {
        std::env::var_os(k).map(|v| v.to_string_lossy().into_owned())
    });
    human.progress = false;
    human.verbose = a.verbose;
    reporters.push(TerminalReporter::new(std::io::stderr(), human));
    Ok(reporters)
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
    let t = &a.target;
    let mut c = vec!["kipcheck".to_string(), "run".into()];
    // Every --target, --target-manifest and --metadata-log, each in its order (they pair up).
    for spec in &t.target {
        c.push("--target".into());
        c.push(shell_word(spec));
    }
    // A live target's role and declared capabilities change what runs: keep them.
    if let Some(role) = &t.role {
        c.push("--role".into());
        c.push(role.name());
    }
    for cap in &t.capabilities {
        c.push("--capability".into());
        c.push(cap.name());
    }
    if let Some(ms) = t.exec_call_timeout_ms {
        c.push(format!("--exec-call-timeout-ms {ms}"));
    }
    if let Some(n) = t.exec_max_line_bytes {
        c.push(format!("--exec-max-line-bytes {n}"));
    }
    if let Some(dir) = a.select.suite.dir() {
        c.push("--scenarios".into());
        c.push(shell_word(&dir.display().to_string()));
    }
    if t.observe == Observe::None {
        c.push("--observe none".into());
    }
    for p in &t.profile {
        c.push("--profile".into());
        c.push(shell_word(&p.display().to_string()));
    }
    if let Some(f) = t.time_scale {
        c.push(format!("--time-scale {f}"));
    }
    if let Some(h) = &t.policy_host {
        c.push("--policy-host".into());
        c.push(shell_word(h));
    }
    for m in &t.target_manifest {
        c.push("--target-manifest".into());
        c.push(shell_word(&m.display().to_string()));
    }
    for m in &t.metadata_log {
        c.push("--metadata-log".into());
        c.push(shell_word(m));
    }
    // What selects the run and shapes its verdicts and outcome (per-scenario lines add --id).
    let f = &a.select.filters;
    for (flag, values) in [("--kip", &f.kips), ("--tag", &f.tags)] {
        for v in values {
            c.push(flag.into());
            c.push(shell_word(v));
        }
    }
    if let Some(g) = a.select.grade {
        c.push(format!("--grade {}", grade_name(g)));
    }
    if let Some(p) = &a.select.partition {
        let (kind, m, n) = match *p {
            Partition::Hash { m, n } => ("hash", m, n),
            Partition::Count { m, n } => ("count", m, n),
        };
        c.push(format!("--partition {kind}:{m}/{n}"));
    }
    if a.timeout_ms != DEFAULT_TIMEOUT_MS {
        c.push(format!("--timeout-ms {}", a.timeout_ms));
    }
    if a.jobs != DEFAULT_JOBS {
        c.push(format!("--jobs {}", a.jobs));
    }
    if let Some(n) = a.active_jobs {
        c.push(format!("--active-jobs {n}"));
    }
    if let Some(n) = a.min_judged {
        c.push(format!("--min-judged {n}"));
    }
    if a.retries > 0 {
        c.push(format!("--retries {}", a.retries));
    }
    if a.flaky_result == FlakyArg::Fail {
        c.push("--flaky-result fail".into());
    }
    if let Some(q) = &a.quarantine {
        c.push("--quarantine".into());
        c.push(shell_word(&q.display().to_string()));
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
