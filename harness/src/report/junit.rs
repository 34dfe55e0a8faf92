//! `junit.xml` (quick-junit): one test suite per KIP area, one test case per scenario
//! (classname = area, name = id). Failure message = the first mismatch, the full diff in
//! system-out; unsupported → skipped, errored → error, expected failure → success with a note,
//! unexpected pass → failure ("stale baseline entry"). The report and each suite carry the
//! run's start `timestamp` and each suite its `hostname`; each case carries `file` and `line`
//! (the scenario's `id:`), which CI annotators read. An aborted run adds a suite `kipcheck`
//! with one errored case `run` saying why. It maps verdicts; it never decides them.

use std::time::Duration;

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use super::labels::verdict_words;
use super::record::RunRecord;
use super::text::{failure_block, location_line, BlockOptions, STALE_MESSAGE};
use crate::runner::{ScenarioResult, Verdict};

/// File name of the JUnit report inside the report directory.
pub const JUNIT_FILE: &str = "junit.xml";

const FULL: BlockOptions = BlockOptions {
    color: false,
    full: true,
    max_hex_rows: usize::MAX,
    exchange_rows: usize::MAX,
};

fn millis(ms: f64) -> Duration {
    if ms.is_finite() && ms > 0.0 {
        Duration::from_secs_f64(ms / 1000.0)
    } else {
        Duration::ZERO
    }
}

fn test_case(r: &ScenarioResult) -> TestCase {
    let message = r.failure.as_ref().map(|f| f.message.as_str());
    let location = r.failure.as_ref().map(location_line);
    let (status, note) = match r.verdict {
        Verdict::Passed => (TestCaseStatus::success(), None),
        Verdict::ExpectedFailure => (
            TestCaseStatus::success(),
            Some(format!(
                "{} (listed in the baseline): {}\n\n",
                verdict_words(Verdict::ExpectedFailure),
                message.unwrap_or("no failure details")
            )),
        ),
        Verdict::Unsupported => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(format!(
                "{}: {}",
                verdict_words(Verdict::Unsupported),
                r.unsupported_reason.as_deref().unwrap_or("no reason given")
            ))
            .set_type(verdict_words(Verdict::Unsupported));
            (s, None)
        }
        Verdict::Failed | Verdict::Errored => {
            let kind = if r.verdict == Verdict::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message.unwrap_or("no failure details"))
                .set_type(verdict_words(r.verdict));
            if let Some(loc) = location {
                s.set_description(format!("at {loc}\nreproduce: {}", r.reproduce));
            }
            (s, None)
        }
        Verdict::UnexpectedPass => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(STALE_MESSAGE)
                .set_type(verdict_words(Verdict::UnexpectedPass))
                .set_description(format!("reproduce: {}", r.reproduce));
            (s, None)
        }
    };
    let (status, note) = flaky_or_quarantined(r, status, note, message);
    let mut case = TestCase::new(r.id.as_str(), status);
    case.set_classname(r.area.as_str())
        .set_time(millis(r.duration_ms));
    case.extra.insert("file".into(), r.path.as_str().into());
    case.extra.insert("line".into(), r.line.to_string().into());
    case.add_properties([
        Property::new("steps_judged", r.steps_judged.to_string()),
        Property::new("steps_not_observed", r.steps_not_observed.to_string()),
    ]);
    if let Some(endpoint) = &r.endpoint {
        case.add_property(Property::new("endpoint", endpoint.as_str()));
    }
    if r.verdict != Verdict::Passed && r.verdict != Verdict::Unsupported {
        let mut out = note.unwrap_or_default();
        out.push_str(&failure_block(r, FULL));
        case.set_system_out(out);
    }
    case
}

/// A flaky pass gets its failed attempt as a `<flakyFailure>` (nextest's shape; a
/// `--flaky-result fail` run keeps it a failure); a quarantined failure is `skipped` with the
/// reason and the failure, since the gate ignores it.
fn flaky_or_quarantined(
    r: &ScenarioResult,
    mut status: TestCaseStatus,
    note: Option<String>,
    message: Option<&str>,
) -> (TestCaseStatus, Option<String>) {
    if r.flaky {
        let mut rerun = TestRerun::new(NonSuccessKind::Failure);
        rerun.message = Some(
            format!(
                "flaky: passed on attempt {} of {}; the first failure: {}",
                r.attempts,
                r.attempts,
                message.unwrap_or("no failure details")
            )
            .into(),
        );
        rerun.ty = Some("flaky".into());
        status.add_rerun(rerun);
    }
    if let Some(reason) = r.quarantined.as_deref() {
        if matches!(r.verdict, Verdict::Failed | Verdict::Errored) {
            let mut s = TestCaseStatus::skipped();
            s.set_message(format!(
                "quarantined ({reason}): {}: {}",
                verdict_words(r.verdict),
                message.unwrap_or("no failure details")
            ))
            .set_type("quarantined");
            return (s, note);
        }
    }
    (status, note)
}

/// Renders `junit.xml`: suites ordered by area name, cases by id.
pub fn render_junit(record: &RunRecord) -> Result<String, quick_junit::SerializeError> {
    let mut report = Report::new("kipcheck");
    if let Some(ms) = record.duration_ms() {
        report.set_time(millis(ms));
    }
    let started = record.info().and_then(|i| {
        chrono::DateTime::from_timestamp_millis(i64::try_from(i.started_unix_ms).ok()?)
            .map(|t| t.fixed_offset())
    });
    if let Some(t) = started {
        report.set_timestamp(t);
    }
    if let Some(why) = record.aborted() {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_message(format!("aborted: {why}"))
            .set_type("aborted");
        let mut suite = TestSuite::new("kipcheck");
        suite.add_test_case(TestCase::new("run", status));
        report.add_test_suite(suite);
    }
    for (area, results) in record.by_area() {
        let mut suite = TestSuite::new(area);
        if let Some(info) = record.info() {
            suite.add_properties([
                Property::new("seed", info.seed.to_string()),
                Property::new("target", info.target.as_str()),
            ]);
            suite
                .extra
                .insert("hostname".into(), info.hostname.as_str().into());
        }
        if let Some(t) = started {
            suite.set_timestamp(t);
        }
        suite.set_time(millis(results.iter().map(|r| r.duration_ms).sum()));
        suite.add_test_cases(results.iter().map(|r| test_case(r)));
        report.add_test_suite(suite);
    }
    report.to_string()
}
