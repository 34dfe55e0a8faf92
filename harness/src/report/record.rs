//! Accumulates a run's events into one ordered record that the file reporters render at the
//! end. Ordering is by scenario id, so outputs do not depend on completion order. It must not
//! reinterpret verdicts: it stores what the runner said.

use std::collections::BTreeMap;

use crate::runner::{RunEvent, RunInfo, ScenarioResult, Summary, Verdict};

/// What the runner's `Finished` event said about the whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunTotals {
    /// Counts.
    pub summary: Summary,
    /// Wall-clock time of the whole run, in ms.
    pub duration_ms: f64,
    /// Simulated time covered by all scenarios together, in ms.
    pub simulated_ms: u64,
}

/// Everything the events of one run said, with scenario results ordered by id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunRecord {
    info: Option<RunInfo>,
    results: BTreeMap<String, ScenarioResult>,
    totals: Option<RunTotals>,
    aborted: Option<String>,
}

impl RunRecord {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a record from a whole event stream.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a RunEvent>) -> Self {
        let mut record = Self::new();
        for event in events {
            record.record(event);
        }
        record
    }

    /// Takes one event into account. `ScenarioStarted` carries nothing a report keeps.
    pub fn record(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Started(info) => self.info = Some(info.clone()),
            RunEvent::ScenarioStarted { .. } => {}
            RunEvent::ScenarioFinished(result) => {
                self.results.insert(result.id.clone(), (**result).clone());
            }
            RunEvent::Finished {
                summary,
                duration_ms,
                simulated_ms,
            } => {
                self.totals = Some(RunTotals {
                    summary: summary.clone(),
                    duration_ms: *duration_ms,
                    simulated_ms: *simulated_ms,
                })
            }
        }
    }

    /// Marks the run as aborted, with why (the target did not start, the user interrupted
    /// it, ...). A record without `Finished` and without a reason is reported as a run that
    /// did not finish.
    pub fn abort(&mut self, reason: impl Into<String>) {
        self.aborted = Some(reason.into());
    }

    /// Why the run was aborted: the reason given to [`abort`](Self::abort), or a generic one
    /// when the run has not finished; `None` for a finished run.
    pub fn aborted(&self) -> Option<&str> {
        match (&self.aborted, &self.totals) {
            (Some(r), _) => Some(r.as_str()),
            (None, None) => Some(NOT_FINISHED),
            (None, Some(_)) => None,
        }
    }

    /// The run's facts, if `Started` was seen.
    pub fn info(&self) -> Option<&RunInfo> {
        self.info.as_ref()
    }

    /// The `Finished` totals, if the run finished.
    pub fn totals(&self) -> Option<&RunTotals> {
        self.totals.as_ref()
    }

    /// Scenario results, ordered by id.
    pub fn results(&self) -> impl Iterator<Item = &ScenarioResult> + '_ {
        self.results.values()
    }

    /// Results whose verdict needs a person's attention or explanation (failed, errored,
    /// unexpected pass), ordered by id.
    pub fn findings(&self) -> impl Iterator<Item = &ScenarioResult> + '_ {
        self.results().filter(|r| is_finding(r.verdict))
    }

    /// The run's counts: the runner's own when it finished, otherwise counted from the
    /// results seen so far.
    pub fn summary(&self) -> Summary {
        match &self.totals {
            Some(t) => t.summary.clone(),
            None => count(self.results()),
        }
    }

    /// Wall-clock time of the run, if it finished.
    pub fn duration_ms(&self) -> Option<f64> {
        self.totals.as_ref().map(|t| t.duration_ms)
    }

    /// Simulated time: the runner's total, or the sum over results seen so far.
    pub fn simulated_ms(&self) -> u64 {
        match &self.totals {
            Some(t) => t.simulated_ms,
            None => self.results().map(|r| r.simulated_ms).sum(),
        }
    }

    /// Counts per KIP (e.g. `KIP-1324`), ordered by KIP.
    pub fn by_kip(&self) -> BTreeMap<&str, Summary> {
        let mut out: BTreeMap<&str, Summary> = BTreeMap::new();
        for r in self.results() {
            out.entry(r.kip.as_str()).or_default().add(r);
        }
        out
    }

    /// Results grouped per KIP area (the folder under `scenarios/`), both levels ordered.
    pub fn by_area(&self) -> BTreeMap<&str, Vec<&ScenarioResult>> {
        let mut out: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
        for r in self.results() {
            out.entry(r.area.as_str()).or_default().push(r);
        }
        out
    }
}

/// Why a record without `Finished` was not finished, when nobody said.
pub(super) const NOT_FINISHED: &str =
    "the run did not finish (it is still running, or was killed before writing its reports)";

/// True for verdicts that make a run red: failed, errored, unexpected pass.
pub(crate) fn is_finding(v: Verdict) -> bool {
    matches!(
        v,
        Verdict::Failed | Verdict::Errored | Verdict::UnexpectedPass
    )
}

fn count<'a>(results: impl Iterator<Item = &'a ScenarioResult>) -> Summary {
    let mut s = Summary::default();
    for r in results {
        s.add(r);
    }
    s
}
