//! Small shared wording: verdict names and duration formatting, so every format says the
//! same thing the same way. No I/O and no layout here.

use crate::runner::{Grade, Summary, Verdict};

/// Every verdict, in report order.
pub(crate) const VERDICTS: [Verdict; 6] = [
    Verdict::Passed,
    Verdict::Failed,
    Verdict::Unsupported,
    Verdict::ExpectedFailure,
    Verdict::UnexpectedPass,
    Verdict::Errored,
];

/// The snake_case key of a verdict, as in `results.json`.
pub(crate) fn verdict_key(v: Verdict) -> &'static str {
    match v {
        Verdict::Passed => "passed",
        Verdict::Failed => "failed",
        Verdict::Unsupported => "unsupported",
        Verdict::ExpectedFailure => "expected_failure",
        Verdict::UnexpectedPass => "unexpected_pass",
        Verdict::Errored => "errored",
    }
}

/// Human words for a verdict (singular).
pub(crate) fn verdict_words(v: Verdict) -> &'static str {
    match v {
        Verdict::Passed => "passed",
        Verdict::Failed => "failed",
        Verdict::Unsupported => "unsupported",
        Verdict::ExpectedFailure => "expected failure",
        Verdict::UnexpectedPass => "unexpected pass",
        Verdict::Errored => "errored",
    }
}

/// The upper-case tag for status columns and badges: the count words of
/// [`verdict_words`], so a badge and a count never name a verdict differently.
pub(crate) fn verdict_tag(v: Verdict) -> &'static str {
    match v {
        Verdict::Passed => "PASSED",
        Verdict::Failed => "FAILED",
        Verdict::Unsupported => "UNSUPPORTED",
        Verdict::ExpectedFailure => "EXPECTED FAILURE",
        Verdict::UnexpectedPass => "UNEXPECTED PASS",
        Verdict::Errored => "ERRORED",
    }
}

/// Width of the widest [`verdict_tag`], for aligned status columns.
pub(crate) const TAG_WIDTH: usize = 16;

/// A mismatch value with the error-code name added when its path names an error code:
/// `37` at `body.ErrorCode` becomes `37 (INVALID_CONFIG)` (Kafka's names, the codec's table;
/// a value already named, or not a number, stays as it is).
pub(crate) fn code_value(path: &str, value: &str) -> String {
    let field = path.rsplit('.').next().unwrap_or(path);
    if field.ends_with("ErrorCode") {
        if let Ok(n) = value.trim().parse::<i16>() {
            if let Some(name) = crate::codec::ErrorCode(n).name() {
                return format!("{value} ({name})");
            }
        }
    }
    value.to_owned()
}

/// The run's outcome word for a record: [`outcome_word`] of a finished run, `ABORTED` for
/// one that did not finish.
pub(crate) fn record_outcome(record: &super::record::RunRecord) -> &'static str {
    if record.aborted().is_some() || record.totals().is_none() {
        "ABORTED"
    } else {
        outcome_word(&record.summary(), record.info().and_then(|i| i.min_judged))
    }
}

/// `MUST` or `SHOULD`.
pub(crate) fn grade_word(g: Grade) -> &'static str {
    match g {
        Grade::Must => "MUST",
        Grade::Should => "SHOULD",
    }
}

/// The count of one verdict in a summary.
pub(crate) fn count_of(s: &Summary, v: Verdict) -> usize {
    match v {
        Verdict::Passed => s.passed,
        Verdict::Failed => s.failed,
        Verdict::Unsupported => s.unsupported,
        Verdict::ExpectedFailure => s.expected_failures,
        Verdict::UnexpectedPass => s.unexpected_passes,
        Verdict::Errored => s.errored,
    }
}

/// `1 passed, 2 failed, 0 unsupported, 1 expected failure, 0 unexpected passes, 0 errored`.
pub(crate) fn counts_sentence(s: &Summary) -> String {
    VERDICTS
        .iter()
        .map(|&v| {
            let n = count_of(s, v);
            let words = match (v, n) {
                (Verdict::ExpectedFailure, n) if n != 1 => "expected failures",
                (Verdict::UnexpectedPass, n) if n != 1 => "unexpected passes",
                _ => verdict_words(v),
            };
            format!("{n} {words}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The run's outcome word ([`crate::runner::Outcome::word`]) for a CI gate requiring at
/// least `min_judged` scenarios judged: `PASSED`, `FAILED`, `NOTHING JUDGED` or `NOT ENOUGH
/// JUDGED`, as the exit code says.
pub(crate) fn outcome_word(s: &Summary, min_judged: Option<usize>) -> &'static str {
    s.outcome(min_judged).word()
}

/// `228 of 236 scenarios judged (500 steps); 384 observation steps not observed`.
pub(crate) fn judged_sentence(s: &Summary) -> String {
    let mut out = format!(
        "{} of {} judged ({} step{})",
        s.judged,
        scenarios(s.total),
        s.steps_judged,
        if s.steps_judged == 1 { "" } else { "s" }
    );
    if s.steps_not_observed > 0 {
        out.push_str(&format!(
            "; {} observation step{} not observed",
            s.steps_not_observed,
            if s.steps_not_observed == 1 { "" } else { "s" }
        ));
    }
    out
}

/// Unsupported scenarios per cause, most first: `[("lacks virtual_clock", 40), ...]`.
pub(crate) fn unsupported_groups(s: &Summary) -> Vec<(&str, usize)> {
    let mut v: Vec<(&str, usize)> = s
        .unsupported_by_cause
        .iter()
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// A scenario's step counts: `3 judged` or `3 judged, 2 not observed`.
pub(crate) fn steps_words(judged: usize, not_observed: usize) -> String {
    if not_observed == 0 {
        format!("{judged} judged")
    } else {
        format!("{judged} judged, {not_observed} not observed")
    }
}

/// `"1 scenario"` / `"3 scenarios"`.
pub(crate) fn scenarios(n: usize) -> String {
    if n == 1 {
        "1 scenario".to_owned()
    } else {
        format!("{n} scenarios")
    }
}

/// Wall-clock milliseconds: `0.42 ms`, `12.5 ms`, `1.25 s`.
pub(crate) fn wall(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        "? ms".to_owned()
    } else if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// Simulated milliseconds: `250 ms`, `3.5 s`, `12.0 min`, `2.5 h`.
pub(crate) fn simulated(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{:.1} min", ms as f64 / 60_000.0)
    } else {
        format!("{:.1} h", ms as f64 / 3_600_000.0)
    }
}
