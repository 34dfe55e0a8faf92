//! The event stream of a run: what the runner tells every reporter. Reporters consume these
//! events only and never reach into runner state. Everything in an event is already
//! redacted (values of sensitive keys replaced by `<redacted:sha256-prefix>`).

use serde::Serialize;

pub use crate::scenario::{Grade, Mismatch};

/// Version of the `results.json` format (and of these event shapes).
pub const FORMAT_VERSION: u32 = 1;

/// The outcome of one scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every expectation held.
    Passed,
    /// An expectation did not hold: a finding about the target.
    Failed,
    /// The target lacks a capability the scenario needs (reported, not failed).
    Unsupported,
    /// Failed as the baseline says it should.
    ExpectedFailure,
    /// Listed in the baseline as failing, but passed: the baseline entry is stale.
    UnexpectedPass,
    /// The target crashed, hung past the scenario timeout, or could not be driven.
    Errored,
}

/// Why a scenario failed (or errored): enough to read the failure without rerunning it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// Index of the failing step (0-based); `None` for setup failures.
    pub step: Option<usize>,
    /// `file:line:col` of the failing step in the scenario file.
    pub location: String,
    /// The failing step as written (YAML).
    pub step_yaml: String,
    /// One-line description: the first mismatch.
    pub message: String,
    /// Expected value rendered as YAML (for side-by-side diffs), if the step compared values.
    pub expected: Option<String>,
    /// Actual value rendered as YAML, if any.
    pub actual: Option<String>,
    /// Every mismatch found.
    pub mismatches: Vec<Mismatch>,
    /// Raw bytes involved, as hex (e.g. an undecodable frame), if any.
    pub raw_hex: Option<String>,
}

/// The result of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioResult {
    /// Scenario id (= file stem).
    pub id: String,
    /// Title.
    pub title: String,
    /// KIP, e.g. `KIP-1324`.
    pub kip: String,
    /// KIP area: the folder under `scenarios/`, e.g. `kip1324-broker`.
    pub area: String,
    /// Path of the scenario file, relative to the scenarios root's parent.
    pub path: String,
    /// MUST or SHOULD.
    pub grade: Grade,
    /// Tags.
    pub tags: Vec<String>,
    /// Requirement ids from the ledger.
    pub requirements: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it was unsupported (missing capabilities), if so.
    pub unsupported_reason: Option<String>,
    /// Failure details for Failed, ExpectedFailure and Errored.
    pub failure: Option<Failure>,
    /// Wall-clock time spent.
    pub duration_ms: f64,
    /// Simulated time the scenario covered (virtual clock), in ms.
    pub simulated_ms: u64,
    /// The command that reruns exactly this scenario.
    pub reproduce: String,
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Passed.
    pub passed: usize,
    /// Failed (findings).
    pub failed: usize,
    /// Unsupported by the target.
    pub unsupported: usize,
    /// Failed as the baseline expects.
    pub expected_failures: usize,
    /// Baseline says failing, but passed.
    pub unexpected_passes: usize,
    /// Errored (crash, hang, cannot drive).
    pub errored: usize,
    /// All scenarios run.
    pub total: usize,
}

impl Summary {
    /// Adds one verdict.
    pub fn add(&mut self, v: Verdict) {
        self.total += 1;
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Unsupported => self.unsupported += 1,
            Verdict::ExpectedFailure => self.expected_failures += 1,
            Verdict::UnexpectedPass => self.unexpected_passes += 1,
            Verdict::Errored => self.errored += 1,
        }
    }

    /// True if the run is green for a CI gate: no failures, no errors, no stale baseline entries.
    pub fn is_green(&self) -> bool {
        self.failed == 0 && self.errored == 0 && self.unexpected_passes == 0
    }
}

/// Facts about the whole run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunInfo {
    /// Target description, e.g. `reference` or `tcp://127.0.0.1:9092`.
    pub target: String,
    /// The seed every scenario derives its randomness from.
    pub seed: u64,
    /// Scenarios selected.
    pub selected: usize,
    /// The command line that reproduces the run.
    pub command: String,
    /// kipcheck version.
    pub kipcheck_version: String,
}

/// What the runner reports, in order: one `Started`, then per scenario one
/// `ScenarioStarted` and one `ScenarioFinished` (scenarios may interleave when they run in
/// parallel), then one `Finished`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum RunEvent {
    /// The run begins.
    Started(RunInfo),
    /// A scenario begins.
    ScenarioStarted {
        /// Its id.
        id: String,
    },
    /// A scenario ended.
    ScenarioFinished(Box<ScenarioResult>),
    /// The run ended.
    Finished {
        /// Counts.
        summary: Summary,
        /// Wall-clock time of the whole run.
        duration_ms: f64,
        /// Simulated time covered by all scenarios together.
        simulated_ms: u64,
    },
}
