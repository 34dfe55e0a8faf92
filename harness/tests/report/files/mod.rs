//! The report files: `results.json`, `junit.xml`, `summary.md` and `report.html`, exact
//! where exactness matters, and the fan-out that writes them.

use crate::report_support::{
    assert_snapshot, events, exchange, fresh_dir, results, run_info, ACTUAL_YAML, EXPECTED_YAML,
    FAILED_ID, RAW_HEX,
};
use kipcheck::report::{
    file_reporters, render_html, render_html_with, render_json, render_junit, render_markdown,
    standard_reporters, FileFormat, FileReporter, HtmlOptions, ReportError, Reporter, Reporters,
    RunRecord, TerminalOptions, HTML_FILE, JSON_FILE, JUNIT_FILE, MARKDOWN_FILE,
};
use kipcheck::runner::RunEvent;
use quick_junit::{NonSuccessKind, TestCaseStatus};
use serde_json::json;

mod formats;
mod html_source;

fn record() -> RunRecord {
    RunRecord::from_events(&events())
}

fn scenario(
    id: &str,
    area: &str,
    kip: &str,
    verdict: &str,
    extra: serde_json::Value,
) -> serde_json::Value {
    let mut v = json!({
        "id": id,
        "title": format!("Title of {id}"),
        "kip": kip,
        "area": area,
        "path": format!("scenarios/{area}/{id}.yaml"),
        "grade": "MUST",
        "tags": [],
        "requirements": [],
        "verdict": verdict,
        "unsupported_reason": null,
        "unsupported_causes": [],
        "steps_judged": 2,
        "steps_not_observed": 0,
        "duration_ms": 1.5,
        "simulated_ms": 1000,
        "reproduce": format!("kipcheck run --target reference --seed 42 --id {id}"),
        "line": 2,
        "diff": null,
        "exchange": null,
    });
    for (k, val) in extra.as_object().expect("object") {
        v[k] = val.clone();
    }
    v
}
