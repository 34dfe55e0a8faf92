//! Runs a selection of scenarios against a target: in parallel (bounded), each with its own
//! seed derived from the run seed, a wall-clock timeout, and panic isolation, so a crashing
//! or hanging target becomes a verdict rather than a harness crash. Emits the event stream.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;

use super::baseline::Baseline;
use super::events::{Failure, RunEvent, RunInfo, ScenarioResult, Summary, Verdict};
use super::execute::{execute_into, ExchangeSink, ScenarioOutcome};
use super::pacing::{longest_first, Pace, Pacer};
use super::quarantine::Quarantine;
use super::select::scenario_seed;
use crate::adapter::Target;
use crate::scenario::{Capability, Scenario};

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The run seed.
    pub seed: u64,
    /// Scenarios in flight at once.
    pub jobs: usize,
    /// Wall-clock limit per scenario.
    pub scenario_timeout: Duration,
    /// Expected failures.
    pub baseline: Option<Baseline>,
    /// The command line that reproduces the run (without `--id`).
    pub command: String,
    /// `--min-judged N`: the run is not green when fewer scenarios judged the target.
    pub min_judged: Option<usize>,
    /// `--retries`, `--flaky-result` and `--quarantine`: how a live target's flaky
    /// scenarios are run again and judged.
    pub flaky: FlakyOptions,
    /// `--active-jobs`: on a real-clock target, at most this many of the scenarios in flight
    /// are busy (outside a long quiet watch) at once ([`super::pacing`]); `None`: no limit.
    pub active_jobs: Option<usize>,
}

/// How flaky scenarios are handled (live targets on a real clock).
#[derive(Clone, Debug, Default)]
pub struct FlakyOptions {
    /// `--retries N`: a failed or errored scenario runs again, up to N more times.
    pub retries: u32,
    /// `--flaky-result`: what a pass after a failure counts as.
    pub result: FlakyResult,
    /// `--quarantine FILE`: scenarios the gate ignores, each until its expiry.
    pub quarantine: Option<Quarantine>,
}

/// What a scenario that passed only on a retry counts as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlakyResult {
    /// A pass, reported as flaky (nextest's default).
    #[default]
    Pass,
    /// The failure it first was.
    Fail,
}

/// Runs `scenarios` on `target`, calling `on_event` for every event; returns the results in
/// id order and the summary.
pub async fn run_suite(
    target: Arc<dyn Target>,
    scenarios: Vec<Scenario>,
    options: &RunOptions,
    on_event: &mut (dyn FnMut(&RunEvent) + Send),
) -> (Vec<ScenarioResult>, Summary) {
    run_suite_until(target, scenarios, options, on_event, &|_| false).await
}

/// [`run_suite`] that stops starting scenarios once `stop` holds for a finished one
/// (`--fail-fast`: the first failed, errored or unexpectedly passing scenario); scenarios
/// still in flight are abandoned, and the results and summary hold only the finished ones.
pub async fn run_suite_until(
    target: Arc<dyn Target>,
    scenarios: Vec<Scenario>,
    options: &RunOptions,
    on_event: &mut (dyn FnMut(&RunEvent) + Send),
    stop: &(dyn Fn(&ScenarioResult) -> bool + Sync),
) -> (Vec<ScenarioResult>, Summary) {
    let started = Instant::now();
    on_event(&RunEvent::Started(RunInfo {
        target: target.name(),
        seed: options.seed,
        selected: scenarios.len(),
        command: options.command.clone(),
        min_judged: options.min_judged,
        kipcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        hostname: hostname(),
    }));
    let mut results = Vec::new();
    let mut summary = Summary::default();
    let mut simulated = 0u64;
    let target_name = target.name();
    let selected_ids: Vec<String> = scenarios.iter().map(|s| s.file.id.clone()).collect();
    // On a real clock, long quiet watches dominate: start the longest first and let only
    // `active_jobs` scenarios be busy at once (runner::pacing).
    let real_clock = target
        .capabilities()
        .capabilities
        .contains(&Capability::RealClock);
    let mut scenarios = scenarios;
    if real_clock {
        longest_first(&mut scenarios);
    }
    let pacer = options.active_jobs.filter(|_| real_clock).map(Pacer::new);
    let mut stream = futures::stream::iter(scenarios.into_iter().map(|s| {
        let target = Arc::clone(&target);
        let pacer = pacer.clone();
        let seed = scenario_seed(options.seed, &s.file.id);
        // The limit is per run: a `repeat:` scenario gets it once for each of its runs.
        let runs = s.file.repeat.as_ref().map_or(1, |r| r.value.runs);
        let timeout = options.scenario_timeout.saturating_mul(runs);
        let retries = options.flaky.retries;
        async move {
            let t0 = Instant::now();
            let mut outcome = attempt(&target, &s, seed, timeout, pacer.as_ref()).await;
            let mut attempts = 1u32;
            let mut first_failure = None;
            while attempts <= retries
                && matches!(outcome.verdict, Verdict::Failed | Verdict::Errored)
            {
                first_failure.get_or_insert_with(|| outcome.clone());
                attempts += 1;
                outcome = attempt(&target, &s, seed, timeout, pacer.as_ref()).await;
            }
            let flaky = first_failure.filter(|_| outcome.verdict == Verdict::Passed);
            (s, outcome, attempts, flaky, t0.elapsed())
        }
    }))
    .buffer_unordered(options.jobs.max(1));
    // `buffer_unordered` starts futures lazily; report a start when each is polled first.
    while let Some((s, mut outcome, attempts, flaky, elapsed)) = stream.next().await {
        // A pass after a failed attempt is flaky: reported as such, with the first failure;
        // `--flaky-result fail` counts it as the failure it first was.
        let is_flaky = flaky.is_some();
        if let Some(first) = flaky {
            if options.flaky.result == FlakyResult::Fail {
                outcome.verdict = Verdict::Failed;
            }
            outcome.failure = first.failure;
            outcome.exchange = first.exchange;
        }
        on_event(&RunEvent::ScenarioStarted {
            id: s.file.id.clone(),
        });
        let mut r = ScenarioResult {
            id: s.file.id.clone(),
            title: s.file.title.clone(),
            kip: s.file.kip.clone(),
            area: s.area.clone(),
            path: s.path.display().to_string(),
            grade: s.file.grade,
            tags: s.file.tags.clone(),
            requirements: s.file.requirements.clone(),
            verdict: outcome.verdict,
            unsupported_reason: outcome.unsupported_reason,
            unsupported_causes: outcome.unsupported_causes,
            steps_judged: outcome.steps_judged,
            steps_not_observed: outcome.steps_not_observed,
            failure: outcome.failure,
            duration_ms: elapsed.as_secs_f64() * 1000.0,
            simulated_ms: outcome.simulated_ms,
            timings: outcome.timings,
            reproduce: format!(
                "{} --seed {} --id {}",
                base_command(&options.command),
                options.seed,
                s.file.id
            ),
            line: id_line(&s.path),
            exchange: outcome.exchange,
            attempts,
            flaky: is_flaky,
            quarantined: options
                .flaky
                .quarantine
                .as_ref()
                .and_then(|q| q.entry(&s.file.id))
                .map(|e| e.reason.clone()),
            // The target `bind` chose, for a scenario it was asked (not one gated out).
            endpoint: (outcome.verdict != Verdict::Unsupported)
                .then(|| target.endpoint(&s.file.id))
                .flatten(),
        };
        if let Some(b) = &options.baseline {
            b.apply(&mut r);
        }
        simulated += r.simulated_ms;
        summary.add(&r);
        on_event(&RunEvent::ScenarioFinished(Box::new(r.clone())));
        let stopping = stop(&r);
        results.push(r);
        if stopping {
            break;
        }
    }
    drop(stream);
    let _ = target_name;
    if let Some(q) = &options.flaky.quarantine {
        let ids: Vec<&str> = selected_ids.iter().map(String::as_str).collect();
        summary.quarantine_problems = q.problems(&ids, today());
    }
    results.sort_by(|a, b| a.id.cmp(&b.id));
    on_event(&RunEvent::Finished {
        summary: summary.clone(),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        simulated_ms: simulated,
    });
    (results, summary)
}

/// One attempt at a scenario in its own task, within `timeout`: a hang or a panic is an
/// errored outcome carrying the exchange so far. With a `pacer`, it first waits for a busy
/// slot (outside the timeout: waiting for a slot is not the target's time).
async fn attempt(
    target: &Arc<dyn Target>,
    s: &Scenario,
    seed: u64,
    timeout: Duration,
    pacer: Option<&Pacer>,
) -> ScenarioOutcome {
    let pace = match pacer {
        Some(p) => p.admit().await,
        None => Pace::default(),
    };
    // The exchange so far survives a timeout or a panic, for the errored verdict.
    let sink = ExchangeSink::default();
    let handle = tokio::spawn({
        let target = Arc::clone(target);
        let s = s.clone();
        let sink = sink.clone();
        let pace = pace.clone();
        async move {
            tokio::time::timeout(timeout, async {
                execute_into(target.as_ref(), &s, seed, sink, &pace).await
            })
            .await
        }
    });
    let mut outcome = match handle.await {
        Ok(Ok(o)) => o,
        Ok(Err(_)) => errored(
            s,
            format!(
                "the target did not finish within {} ms",
                timeout.as_millis()
            ),
        ),
        Err(join) if join.is_panic() => errored(s, "the target panicked".into()),
        Err(_) => errored(s, "the scenario task was cancelled".into()),
    };
    pace.release();
    if outcome.verdict == Verdict::Errored && outcome.exchange.is_none() {
        outcome.exchange = sink.take();
    }
    outcome
}

/// Today, in days since 1970-01-01 (UTC), for quarantine expiry.
fn today() -> i64 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (secs / 86_400) as i64
}

/// The host's name: the kernel's (Linux), else `HOSTNAME` or `COMPUTERNAME`, else
/// `localhost`.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .or_else(|| std::env::var("COMPUTERNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The 1-based line of the top-level `id:` key in a scenario file, or 1 when the file cannot
/// be read or has none (reports point annotators at it).
fn id_line(path: &std::path::Path) -> usize {
    // The file on disk, else the built-in suite's text (an installed binary has no scenarios/).
    std::fs::read_to_string(path)
        .ok()
        .or_else(|| crate::scenario::embedded::file(&path.to_string_lossy()).map(str::to_owned))
        .and_then(|text| text.lines().position(|l| l.starts_with("id:")))
        .map_or(1, |i| i + 1)
}

/// The command without the `--seed`/`--id` parts the reproduction command sets itself.
fn base_command(command: &str) -> String {
    let mut out = Vec::new();
    let mut skip = false;
    for w in command.split_whitespace() {
        if skip {
            skip = false;
            continue;
        }
        match w {
            // One scenario's line names it with --id: a shard or a judged threshold of the
            // whole run would select or fail the wrong thing. Filters stay (they still hold).
            "--seed" | "--id" | "--partition" | "--min-judged" => skip = true,
            w if w.starts_with("--seed=")
                || w.starts_with("--id=")
                || w.starts_with("--partition=")
                || w.starts_with("--min-judged=") => {}
            w => out.push(w.to_owned()),
        }
    }
    out.join(" ")
}

fn errored(s: &Scenario, message: String) -> ScenarioOutcome {
    ScenarioOutcome::errored(Failure {
        step: None,
        location: format!("{}:1:1", s.path.display()),
        step_yaml: String::new(),
        message,
        expected: None,
        actual: None,
        mismatches: Vec::new(),
        raw_hex: None,
    })
}
