//! `results.json`: the machine-readable result of a run (format [`FORMAT_VERSION`]), with
//! scenarios sorted by id so the file does not depend on completion order. It serializes what
//! the events said and never adds judgement of its own.

use serde::Serialize;

use super::labels::record_outcome;
use super::record::RunRecord;
use crate::runner::{
    Exchange, Failure, Grade, Summary, TimingCheck, UnsupportedCause, Verdict, FORMAT_VERSION,
};

/// File name of the JSON report inside the report directory.
pub const JSON_FILE: &str = "results.json";

#[derive(Serialize)]
struct ResultsFile<'a> {
    format_version: u32,
    outcome: String,
    aborted: Option<&'a str>,
    summary: Summary,
    seed: Option<u64>,
    target: Option<&'a str>,
    command: Option<&'a str>,
    kipcheck_version: Option<&'a str>,
    started_unix_ms: Option<u64>,
    hostname: Option<&'a str>,
    duration_ms: Option<f64>,
    simulated_ms: u64,
    scenarios: Vec<ScenarioEntry<'a>>,
}

#[derive(Serialize)]
struct ScenarioEntry<'a> {
    id: &'a str,
    title: &'a str,
    kip: &'a str,
    area: &'a str,
    path: &'a str,
    line: usize,
    grade: Grade,
    tags: &'a [String],
    requirements: &'a [String],
    verdict: Verdict,
    unsupported_reason: Option<&'a str>,
    unsupported_causes: &'a [UnsupportedCause],
    steps_judged: usize,
    steps_not_observed: usize,
    duration_ms: f64,
    simulated_ms: u64,
    reproduce: &'a str,
    diff: Option<&'a Failure>,
    /// Timings judged on a real clock (absent on a virtual clock).
    #[serde(skip_serializing_if = "<[TimingCheck]>::is_empty")]
    timings: &'a [TimingCheck],
    exchange: Option<&'a Exchange>,
    /// Runs it took (`--retries`); absent when 1.
    #[serde(skip_serializing_if = "crate::runner::events::is_one")]
    attempts: u32,
    /// Passed only on a retry.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    flaky: bool,
    /// The quarantine entry's reason: the gate ignores this verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    quarantined: Option<&'a str>,
    /// The target that ran it, in a run over several `--target`s.
    #[serde(skip_serializing_if = "Option::is_none")]
    endpoint: Option<&'a str>,
}

/// Renders `results.json` (pretty-printed, with a final newline). Run facts missing from the
/// stream (no `Started`, no `Finished`) are `null`.
pub fn render_json(record: &RunRecord) -> Result<String, serde_json::Error> {
    let info = record.info();
    let file = ResultsFile {
        format_version: FORMAT_VERSION,
        outcome: record_outcome(record).to_lowercase().replace(' ', "_"),
        aborted: record.aborted(),
        summary: record.summary(),
        seed: info.map(|i| i.seed),
        target: info.map(|i| i.target.as_str()),
        command: info.map(|i| i.command.as_str()),
        kipcheck_version: info.map(|i| i.kipcheck_version.as_str()),
        started_unix_ms: info.map(|i| i.started_unix_ms),
        hostname: info.map(|i| i.hostname.as_str()),
        duration_ms: record.duration_ms(),
        simulated_ms: record.simulated_ms(),
        scenarios: record
            .results()
            .map(|r| ScenarioEntry {
                id: &r.id,
                title: &r.title,
                kip: &r.kip,
                area: &r.area,
                path: &r.path,
                line: r.line,
                grade: r.grade,
                tags: &r.tags,
                requirements: &r.requirements,
                verdict: r.verdict,
                unsupported_reason: r.unsupported_reason.as_deref(),
                unsupported_causes: &r.unsupported_causes,
                steps_judged: r.steps_judged,
                steps_not_observed: r.steps_not_observed,
                duration_ms: r.duration_ms,
                simulated_ms: r.simulated_ms,
                reproduce: &r.reproduce,
                diff: r.failure.as_ref(),
                timings: &r.timings,
                exchange: r.exchange.as_ref(),
                attempts: r.attempts,
                flaky: r.flaky,
                quarantined: r.quarantined.as_deref(),
                endpoint: r.endpoint.as_deref(),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&file)?;
    text.push('\n');
    Ok(text)
}
