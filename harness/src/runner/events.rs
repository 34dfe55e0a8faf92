//! The event stream of a run: what the runner tells every reporter. Reporters consume these
//! events only and never reach into runner state. Everything in an event is already
//! redacted (values of sensitive keys replaced by `<redacted:sha256-prefix>`).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::scenario::{Capability, Role};
pub use crate::scenario::{Grade, Mismatch};

/// One reason a scenario could not be judged on a target. The summary counts scenarios per
/// cause, so a user sees at once what their target could not be asked.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case", tag = "cause", content = "detail")]
pub enum UnsupportedCause {
    /// The target does not play a role the scenario needs.
    MissingRole(Role),
    /// The target lacks a capability the scenario needs.
    MissingCapability(Capability),
    /// The target follows another reading of a contested point than the scenario's profile
    /// (a live target is never told a scenario's profile).
    Reading {
        /// The profile field, e.g. `size_measure`.
        reading: String,
        /// The target's value (JSON).
        target: String,
        /// The scenario's value (JSON).
        scenario: String,
    },
    /// Every step that could have judged the target was an observation the target does not
    /// report: nothing was judged.
    NothingJudged,
    /// The target itself declined the scenario.
    Target(String),
}

/// What the user of `target` (a run's target name) can do about a cause group
/// ([`UnsupportedCause::group`]): the exact flag to declare a capability or play a role, or why
/// it cannot be declared. `None` where there is nothing to declare (the reference, a cause
/// that is the scenario's own).
pub fn remedy(group: &str, target: &str) -> Option<String> {
    let live = target.starts_with("tcp://") || target.starts_with("client-cmd:");
    let exec = target.starts_with("exec:");
    if let Some(cap) = group.strip_prefix("lacks ") {
        let c: crate::scenario::Capability =
            serde_json::from_value(serde_json::Value::String(cap.to_owned())).ok()?;
        return match (crate::adapter::unclaimable_live(c), live, exec) {
            (Some(why), true, _) => Some(format!("not declarable: {why}")),
            (None, true, _) => Some(format!("if the target has it, add --capability {cap}")),
            (_, _, true) => Some(format!(
                "if the adapter has it, list \"{cap}\" in its hello's capabilities"
            )),
            _ => None,
        };
    }
    if let Some(role) = group.strip_prefix("does not play ") {
        return (live || exec).then(|| format!("run the target that plays it with --role {role}"));
    }
    if let Some(reading) = group.strip_prefix("follows another reading of ") {
        return live.then(|| {
            format!("pinned to another value; declare yours: --profile FILE ({reading})")
        });
    }
    None
}

impl UnsupportedCause {
    /// The key the summary groups by: the cause without scenario-specific values.
    pub fn group(&self) -> String {
        match self {
            Self::MissingRole(r) => format!("does not play {}", r.name()),
            Self::MissingCapability(c) => format!("lacks {}", c.name()),
            Self::Reading { reading, .. } => format!("follows another reading of {reading}"),
            Self::NothingJudged => "nothing judged (observation steps only)".into(),
            Self::Target(reason) => format!("declined: {reason}"),
        }
    }

    /// One sentence for a scenario's causes, e.g. `target does not play broker and lacks
    /// virtual_clock`.
    pub fn sentence(causes: &[UnsupportedCause]) -> String {
        let roles: Vec<String> = causes
            .iter()
            .filter_map(|c| match c {
                Self::MissingRole(r) => Some(r.name()),
                _ => None,
            })
            .collect();
        let caps: Vec<String> = causes
            .iter()
            .filter_map(|c| match c {
                Self::MissingCapability(c) => Some(c.name()),
                _ => None,
            })
            .collect();
        let mut parts = Vec::new();
        match (roles.is_empty(), caps.is_empty()) {
            (true, true) => {}
            (false, true) => parts.push(format!("target does not play {}", roles.join(", "))),
            (true, false) => parts.push(format!("target lacks {}", caps.join(", "))),
            (false, false) => parts.push(format!(
                "target does not play {} and lacks {}",
                roles.join(", "),
                caps.join(", ")
            )),
        }
        for c in causes {
            match c {
                Self::Reading {
                    reading,
                    target,
                    scenario,
                } => parts.push(format!(
                    "target follows {reading} = {target}, the scenario needs {scenario}"
                )),
                Self::NothingJudged => parts.push(
                    "nothing judged: every check is an observation the target does not report"
                        .into(),
                ),
                Self::Target(reason) => parts.push(reason.clone()),
                Self::MissingRole(_) | Self::MissingCapability(_) => {}
            }
        }
        parts.join("; ")
    }
}

impl fmt::Display for UnsupportedCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Self::sentence(std::slice::from_ref(self)))
    }
}

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

/// One timing judged on a real clock (docs/live-clients.md): what the scenario expects, the
/// window accepted on this target (after `--time-scale` and the profile's tolerance), and
/// what was measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimingCheck {
    /// Index of the step (0-based).
    pub step: usize,
    /// What was timed: `after_ms` (a request or release since the previous step ended),
    /// `within_ms` (a request or release due within), `no_request_within_ms`,
    /// `no_release_within_ms` (a watch that nothing comes).
    pub check: String,
    /// The expectation as the scenario writes it (JSON), e.g. `{"$range":[80,120]}` or `1000`.
    pub expected: String,
    /// What was accepted on this target, e.g. `{"$range":[47,157]}`, or the watched/waited
    /// ms for `within_ms` and the watches.
    pub accepted: String,
    /// Measured ms since the previous step ended; `None`: nothing came.
    pub measured_ms: Option<u64>,
    /// Whether the measured value was accepted.
    pub ok: bool,
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
    /// Why it was unsupported, one cause each.
    pub unsupported_causes: Vec<UnsupportedCause>,
    /// Steps whose expectation was checked against the target.
    pub steps_judged: usize,
    /// Observation steps not observed (the target reports no events).
    pub steps_not_observed: usize,
    /// Failure details for Failed, ExpectedFailure and Errored.
    pub failure: Option<Failure>,
    /// Wall-clock time spent.
    pub duration_ms: f64,
    /// Simulated time the scenario covered (virtual clock), in ms.
    pub simulated_ms: u64,
    /// Timings judged on a real clock, in step order (empty on a virtual clock, where every
    /// timing is exact and the step's own result says it all).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timings: Vec<TimingCheck>,
    /// The command that reruns exactly this scenario.
    pub reproduce: String,
    /// Line of the scenario's `id:` in `path` (1 when it cannot be found), for annotators.
    pub line: usize,
    /// The frames exchanged up to the failure, for failed and errored scenarios (`None` for
    /// the others, and for scenarios that failed before a session opened).
    pub exchange: Option<Exchange>,
    /// How many times it ran (`--retries N`: a failed or errored scenario runs again, up to
    /// N more times; 1 without retries).
    #[serde(skip_serializing_if = "is_one")]
    pub attempts: u32,
    /// It failed or errored, then passed on a retry. Its verdict is `Passed` (or `Failed`
    /// under `--flaky-result fail`); `failure` keeps the first attempt's failure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// `--quarantine FILE` lists it, with this reason: it ran and is reported, but the gate
    /// ignores its verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quarantined: Option<String>,
    /// Which target ran it, in a run over several (`--target` given more than once:
    /// [`crate::adapter::Routed`]); `None` with one target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// `skip_serializing_if` for an attempt count of 1 (no retry), here and in `results.json`.
pub(crate) fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Which way a logged frame went, seen from kipcheck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// kipcheck to the target.
    Sent,
    /// The target to kipcheck.
    Received,
}

/// What a logged entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExchangeKind {
    /// A request frame.
    Request,
    /// A response frame.
    Response,
    /// The connection closed.
    Close,
    /// A step that acts without a frame (start, connect, disconnect, timeout, advance, ...).
    Action,
}

/// One entry of a scenario's exchange log: a frame, a close or an action.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExchangeEntry {
    /// Position in the whole exchange (0-based), counting entries that were cut.
    pub seq: usize,
    /// The session clock when it happened, in ms (simulated for the reference).
    pub at_ms: u64,
    /// Sent by kipcheck or received from the target.
    pub direction: Direction,
    /// Request, response, close or action.
    pub kind: ExchangeKind,
    /// The other end: `conn N` (a connection kipcheck opened to a broker or controller
    /// target) or `node N` (a node kipcheck emulates for a client target).
    pub peer: String,
    /// Kafka's API name, when known.
    pub api: Option<String>,
    /// The API version, when known.
    pub version: Option<i16>,
    /// The header's correlation id, when it decoded.
    pub correlation_id: Option<i32>,
    /// The decoded body (redacted); a string ending in `…` when cut to
    /// [`Exchange::max_body_bytes`].
    pub body: Option<Value>,
    /// What the log could not show or decode (e.g. `does not decode: ...`), or the action.
    pub note: Option<String>,
    /// Size of the whole frame in bytes (size prefix included); 0 for closes and actions.
    pub len: usize,
    /// The frame's first [`Exchange::max_frame_bytes`] bytes as hex; `None` when the frame
    /// holds a redacted value.
    pub hex: Option<String>,
    /// Bytes of the frame not in `hex`.
    pub hex_cut: usize,
}

/// The exchange that led to a failure: the last [`max_entries`](Self::max_entries) entries,
/// bounded per frame, with what was cut counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Exchange {
    /// Entries, oldest first.
    pub entries: Vec<ExchangeEntry>,
    /// Entries cut at the start to keep the last `max_entries`.
    pub cut_before: usize,
    /// The entry cap.
    pub max_entries: usize,
    /// The cap on a body's JSON rendering, in bytes.
    pub max_body_bytes: usize,
    /// The cap on a frame's bytes shown as hex.
    pub max_frame_bytes: usize,
}

/// Counts of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
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
    /// Scenarios that judged the target (passed, failed, expected failures, unexpected
    /// passes): the rest were unsupported or errored.
    pub judged: usize,
    /// Steps judged, over all scenarios.
    pub steps_judged: usize,
    /// Observation steps not observed, over all scenarios.
    pub steps_not_observed: usize,
    /// Unsupported scenarios per cause ([`UnsupportedCause::group`]); a scenario with two
    /// causes counts under each.
    pub unsupported_by_cause: BTreeMap<String, usize>,
    /// Scenarios that passed only on a retry (counted under their verdict too).
    #[serde(skip_serializing_if = "is_zero")]
    pub flaky: usize,
    /// Quarantined scenarios that failed or errored: reported, not counted as findings (and
    /// not under `failed` or `errored`).
    #[serde(skip_serializing_if = "is_zero")]
    pub quarantined_findings: usize,
    /// What is wrong with the quarantine file for this run (an expired entry, one that
    /// matches no selected scenario): each fails the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quarantine_problems: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Adds one scenario's result.
    pub fn add(&mut self, r: &ScenarioResult) {
        if r.flaky {
            self.flaky += 1;
        }
        if r.quarantined.is_some() && matches!(r.verdict, Verdict::Failed | Verdict::Errored) {
            // Counted as run and judged, never as a finding.
            self.total += 1;
            self.judged += usize::from(r.verdict == Verdict::Failed);
            self.quarantined_findings += 1;
        } else {
            self.add_verdict(r.verdict);
        }
        self.steps_judged += r.steps_judged;
        self.steps_not_observed += r.steps_not_observed;
        for c in &r.unsupported_causes {
            *self.unsupported_by_cause.entry(c.group()).or_default() += 1;
        }
    }

    /// Adds one verdict alone (no step counts).
    pub fn add_verdict(&mut self, v: Verdict) {
        self.total += 1;
        if matches!(
            v,
            Verdict::Passed | Verdict::Failed | Verdict::ExpectedFailure | Verdict::UnexpectedPass
        ) {
            self.judged += 1;
        }
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Unsupported => self.unsupported += 1,
            Verdict::ExpectedFailure => self.expected_failures += 1,
            Verdict::UnexpectedPass => self.unexpected_passes += 1,
            Verdict::Errored => self.errored += 1,
        }
    }

    /// True if the run is green for a CI gate: it judged something, and there are no
    /// failures, no errors, no stale baseline entries.
    pub fn is_green(&self) -> bool {
        self.judged > 0
            && self.failed == 0
            && self.errored == 0
            && self.unexpected_passes == 0
            && self.quarantine_problems.is_empty()
    }

    /// True if no scenario judged the target (all unsupported or errored).
    pub fn nothing_judged(&self) -> bool {
        self.judged == 0
    }

    /// The run's outcome for a CI gate that requires at least `min_judged` scenarios judged
    /// (the exit code follows it: 0, 1 or 3, 5).
    pub fn outcome(&self, min_judged: Option<usize>) -> Outcome {
        if self.failed > 0
            || self.errored > 0
            || self.unexpected_passes > 0
            || !self.quarantine_problems.is_empty()
        {
            Outcome::Failed
        } else if self.nothing_judged() {
            Outcome::NothingJudged
        } else if min_judged.is_some_and(|min| self.judged < min) {
            Outcome::NotEnoughJudged
        } else {
            Outcome::Passed
        }
    }
}

/// What a finished run amounts to, the same in every output and in the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Green: something judged, nothing failed.
    Passed,
    /// A finding (failed, errored, unexpected pass).
    Failed,
    /// No scenario judged the target.
    NothingJudged,
    /// Fewer scenarios judged the target than `--min-judged` requires.
    NotEnoughJudged,
}

impl Outcome {
    /// The word reports print: `PASSED`, `FAILED`, `NOTHING JUDGED`, `NOT ENOUGH JUDGED`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Passed => "PASSED",
            Self::Failed => "FAILED",
            Self::NothingJudged => "NOTHING JUDGED",
            Self::NotEnoughJudged => "NOT ENOUGH JUDGED",
        }
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
    /// `--min-judged N`: fewer scenarios judged makes the run NOT ENOUGH JUDGED (exit 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_judged: Option<usize>,
    /// kipcheck version.
    pub kipcheck_version: String,
    /// When the run started, in ms since the Unix epoch (UTC).
    pub started_unix_ms: u64,
    /// The host the run ran on.
    pub hostname: String,
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

#[cfg(test)]
mod remedy_tests {
    use super::remedy;

    #[test]
    fn each_cause_names_the_exact_flag_for_the_targets_kind() {
        let live = "tcp://127.0.0.1:9092";
        assert_eq!(
            remedy("lacks policy_control", live).as_deref(),
            Some("if the target has it, add --capability policy_control")
        );
        assert!(
            remedy("lacks virtual_clock", "client-cmd:\"c {bootstrap}\"")
                .is_some_and(|r| r.starts_with("not declarable: "))
        );
        assert_eq!(
            remedy("lacks throttle", "exec:\"python3 a.py\"").as_deref(),
            Some("if the adapter has it, list \"throttle\" in its hello's capabilities")
        );
        assert_eq!(
            remedy("does not play controller", live).as_deref(),
            Some("run the target that plays it with --role controller")
        );
        assert!(remedy("follows another reading of size_measure", live)
            .is_some_and(|r| r.contains("--profile FILE")));
        assert_eq!(remedy("lacks events", "reference"), None);
        assert_eq!(
            remedy("nothing judged (observation steps only)", live),
            None
        );
    }
}
