//! The report files: `results.json`, `junit.xml`, `summary.md` and `report.html`, exact
//! where exactness matters, and the fan-out that writes them.

mod report_support;

use kipcheck::report::{
    file_reporters, render_html, render_html_with, render_json, render_junit, render_markdown,
    standard_reporters, FileFormat, FileReporter, HtmlOptions, ReportError, Reporter, Reporters,
    RunRecord, TerminalOptions, HTML_FILE, JSON_FILE, JUNIT_FILE, MARKDOWN_FILE,
};
use kipcheck::runner::RunEvent;
use quick_junit::{NonSuccessKind, TestCaseStatus};
use report_support::{
    assert_snapshot, events, exchange, fresh_dir, results, run_info, ACTUAL_YAML, EXPECTED_YAML,
    FAILED_ID, RAW_HEX,
};
use serde_json::json;

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

#[test]
fn results_json_has_the_exact_content_sorted_by_id() {
    let text = render_json(&record()).expect("json");
    assert!(text.ends_with("}\n"));
    let actual: serde_json::Value = serde_json::from_str(&text).expect("parses");
    let expected = json!({
        "format_version": 1,
        "outcome": "failed",
        "aborted": null,
        "summary": {
            "passed": 1, "failed": 1, "unsupported": 1, "expected_failures": 1,
            "unexpected_passes": 1, "errored": 1, "total": 6,
            "judged": 4, "steps_judged": 8, "steps_not_observed": 0,
            "unsupported_by_cause": {
                "declined: target lacks capability: client type streams": 1
            }
        },
        "seed": 42,
        "target": "reference",
        "command": "kipcheck run --target reference --seed 42",
        "kipcheck_version": "0.1.0",
        "started_unix_ms": 1_764_590_400_000u64,
        "hostname": "ci-runner-7",
        "duration_ms": 12.5,
        "simulated_ms": 126500,
        "scenarios": [
            scenario("audit-upgrade-static", "kip1294-validation", "KIP-1294", "unexpected_pass", json!({})),
            scenario("floor-below-lowest", "kip1294-validation", "KIP-1294", "expected_failure", json!({
                "diff": {
                    "step": 0,
                    "location": "scenarios/kip1294-validation/floor-below-lowest.yaml:9:3",
                    "step_yaml": "expect:\n  error_code: INVALID_CONFIG\n",
                    "message": "error_code: expected INVALID_CONFIG, actual NONE",
                    "expected": "error_code: INVALID_CONFIG\n",
                    "actual": "error_code: NONE\n",
                    "mismatches": [
                        {"path": "error_code", "expected": "INVALID_CONFIG", "actual": "NONE"}
                    ],
                    "raw_hex": null
                }
            })),
            scenario("push-once-per-instance", "kip1324-client", "KIP-1324", "passed", json!({
                "tags": ["reconnect"],
                "requirements": ["KIP-1324-TP-07"],
                "duration_ms": 1.25,
                "simulated_ms": 120000
            })),
            scenario("registration-rejected", "kip1294-validation", "KIP-1294", "errored", json!({
                "steps_judged": 0,
                "diff": {
                    "step": null,
                    "location": "scenarios/kip1294-validation/registration-rejected.yaml:1:1",
                    "step_yaml": "",
                    "message": "target crashed: connection reset by peer",
                    "expected": null,
                    "actual": null,
                    "mismatches": [],
                    "raw_hex": null
                }
            })),
            scenario(FAILED_ID, "kip1324-client", "KIP-1324", "failed", json!({
                "title": "Rejects <script>alert('x')</script> & oversize pushes",
                "tags": ["size", "boundary"],
                "requirements": ["KIP-1324-TP-03", "KIP-1324-MUST-12"],
                "duration_ms": 2.5,
                "simulated_ms": 3500,
                "diff": {
                    "step": 2,
                    "location": "scenarios/kip1324-client/size-max-plus-one.yaml:14:5",
                    "step_yaml": "expect:\n  message: PushConfigsRequest\n  version: 0\n",
                    "message": "body.Configs[3].ConfigValue: expected \"500\", actual \"5000\"",
                    "expected": EXPECTED_YAML,
                    "actual": ACTUAL_YAML,
                    "mismatches": [
                        {"path": "version", "expected": "0", "actual": "1"},
                        {"path": "body.Configs[3].ConfigValue", "expected": "\"500\"", "actual": "\"5000\""}
                    ],
                    "raw_hex": RAW_HEX
                },
                "exchange": serde_json::to_value(exchange()).unwrap(),
            })),
            scenario("streams-single-handshake", "kip1324-client", "KIP-1324", "unsupported", json!({
                "grade": "SHOULD",
                "unsupported_reason": "target lacks capability: client type streams",
                "unsupported_causes": [
                    {"cause": "target", "detail": "target lacks capability: client type streams"}
                ],
                "steps_judged": 0,
                "duration_ms": 0.25,
                "simulated_ms": 0
            })),
        ]
    });
    assert_eq!(actual, expected);
    // The exchange's wire shape, spelled out once.
    let x = &actual["scenarios"][4]["exchange"];
    assert_eq!(x["cut_before"], 1);
    assert_eq!(x["max_entries"], 32);
    assert_eq!(
        x["entries"][2],
        json!({
            "seq": 3, "at_ms": 6, "direction": "sent", "kind": "response", "peer": "node 1",
            "api": "PushConfig", "version": 0, "correlation_id": 7,
            "body": {"ErrorCode": 37, "ErrorMessage": "a <b>"}, "note": null,
            "len": 600, "hex": "00".repeat(512), "hex_cut": 88
        })
    );
    assert_eq!(x["entries"][0]["kind"], "action");
    assert_eq!(x["entries"][1]["direction"], "received");
    // Top-level keys come in the documented order.
    let keys: Vec<&str> = actual
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut in_text: Vec<(usize, &str)> = keys
        .iter()
        .map(|k| (text.find(&format!("\n  \"{k}\"")).expect("key"), *k))
        .collect();
    in_text.sort();
    let ordered: Vec<&str> = in_text.into_iter().map(|(_, k)| k).collect();
    assert_eq!(
        ordered,
        [
            "format_version",
            "outcome",
            "aborted",
            "summary",
            "seed",
            "target",
            "command",
            "kipcheck_version",
            "started_unix_ms",
            "hostname",
            "duration_ms",
            "simulated_ms",
            "scenarios"
        ]
    );
}

#[test]
fn outputs_do_not_depend_on_completion_order() {
    let forward = record();
    let mut reversed_events = events();
    let last = reversed_events.len() - 1;
    reversed_events[1..last].reverse();
    let reversed = RunRecord::from_events(&reversed_events);
    assert_eq!(
        render_json(&forward).unwrap(),
        render_json(&reversed).unwrap()
    );
    assert_eq!(
        render_junit(&forward).unwrap(),
        render_junit(&reversed).unwrap()
    );
    assert_eq!(render_markdown(&forward), render_markdown(&reversed));
    assert_eq!(render_html(&forward), render_html(&reversed));
}

#[test]
fn unfinished_run_counts_what_it_saw_and_leaves_run_facts_null() {
    let evs = events();
    let partial = RunRecord::from_events(
        evs.iter()
            .filter(|e| matches!(e, RunEvent::ScenarioFinished(r) if r.id == FAILED_ID)),
    );
    let v: serde_json::Value = serde_json::from_str(&render_json(&partial).unwrap()).unwrap();
    assert_eq!(v["summary"]["failed"], 1);
    assert_eq!(v["summary"]["total"], 1);
    assert_eq!(v["seed"], serde_json::Value::Null);
    assert_eq!(v["duration_ms"], serde_json::Value::Null);
    assert_eq!(v["simulated_ms"], 3500);
}

#[test]
fn junit_has_one_suite_per_area_and_maps_every_verdict() {
    let xml = render_junit(&record()).expect("junit");
    assert_snapshot("junit.xml", &xml);
    let report = quick_junit::Report::deserialize_from_str(&xml).expect("parses back");
    assert_eq!(report.tests, 6);
    assert_eq!(report.failures, 2);
    assert_eq!(report.errors, 1);
    let names: Vec<&str> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["kip1294-validation", "kip1324-client"]);
    let case = |id: &str| {
        report
            .test_suites
            .iter()
            .flat_map(|s| &s.test_cases)
            .find(|c| c.name.as_str() == id)
            .unwrap_or_else(|| panic!("no case {id}"))
    };
    for s in &report.test_suites {
        for c in &s.test_cases {
            assert_eq!(
                c.classname.as_ref().map(|n| n.as_str()),
                Some(s.name.as_str())
            );
        }
    }

    let failed = case(FAILED_ID);
    match &failed.status {
        TestCaseStatus::NonSuccess { kind, message, .. } => {
            assert_eq!(*kind, NonSuccessKind::Failure);
            assert_eq!(
                message.as_ref().unwrap().as_str(),
                "body.Configs[3].ConfigValue: expected \"500\", actual \"5000\""
            );
        }
        other => panic!("{other:?}"),
    }
    // Where annotators point: the scenario file and the line of its `id:`; when and where.
    assert_eq!(
        failed.extra.get("file").map(|v| v.as_str()),
        Some("scenarios/kip1324-client/size-max-plus-one.yaml")
    );
    assert_eq!(failed.extra.get("line").map(|v| v.as_str()), Some("2"));
    for s in &report.test_suites {
        assert_eq!(
            s.extra.get("hostname").map(|v| v.as_str()),
            Some("ci-runner-7")
        );
        assert_eq!(
            s.timestamp.map(|t| t.to_rfc3339()),
            Some("2025-12-01T12:00:00+00:00".into())
        );
    }
    assert_eq!(
        report.timestamp.map(|t| t.timestamp_millis()),
        Some(1_764_590_400_000)
    );
    let out = failed.system_out.as_ref().unwrap().as_str();
    assert!(out.contains("   10     │-    ConfigValue: \"500\""));
    // The whole exchange, one head line per entry, in system-out.
    assert!(
        out.contains("  exchange (3 entries, 1 earlier not shown):\n"),
        "{out}"
    );
    assert!(
        out.contains("    #3      6 ms → node 1 PushConfig v0 response corr 7 (600 bytes)\n"),
        "{out}"
    );
    assert!(out.contains(
        "    00000000  00 00 00 17 00 00 00 0d  00 05 6b 69 70 63 68 65  |..........kipche|"
    ));

    assert!(matches!(
        &case("streams-single-handshake").status,
        TestCaseStatus::Skipped { message: Some(m), .. }
            if m.as_str() == "unsupported: target lacks capability: client type streams"
    ));
    assert!(matches!(
        &case("registration-rejected").status,
        TestCaseStatus::NonSuccess { kind: NonSuccessKind::Error, message: Some(m), .. }
            if m.as_str() == "target crashed: connection reset by peer"
    ));
    let xfail = case("floor-below-lowest");
    assert!(matches!(xfail.status, TestCaseStatus::Success { .. }));
    assert!(xfail
        .system_out
        .as_ref()
        .unwrap()
        .as_str()
        .starts_with("expected failure (listed in the baseline): error_code: expected INVALID_CONFIG, actual NONE\n"));
    assert!(matches!(
        &case("audit-upgrade-static").status,
        TestCaseStatus::NonSuccess { kind: NonSuccessKind::Failure, message: Some(m), .. }
            if m.as_str().starts_with("stale baseline entry")
    ));
    assert!(matches!(
        case("push-once-per-instance").status,
        TestCaseStatus::Success { .. }
    ));
}

#[test]
fn summary_md_is_exact() {
    assert_snapshot("summary.md", &render_markdown(&record()));
}

#[test]
fn html_is_self_contained_escaped_and_filterable() {
    let html = render_html(&record());
    // Self-contained.
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script src"));
    assert!(!html.contains("<link"));
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(html.contains("<style>") && html.contains("<script>"));
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "only the inline filter script"
    );
    // The injected title is escaped everywhere.
    assert!(!html.contains("<script>alert"));
    assert!(html
        .contains("Rejects &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; oversize pushes"));
    // Filters: verdict checkboxes, KIP select, text search.
    for key in [
        "passed",
        "failed",
        "unsupported",
        "expected_failure",
        "unexpected_pass",
        "errored",
    ] {
        assert!(html.contains(&format!(
            "<input type=\"checkbox\" data-verdict=\"{key}\" checked>"
        )));
        assert!(html.contains(&format!("data-verdict=\"{key}\" data-kip=")));
    }
    assert!(html.contains(
        "<option value=\"KIP-1294\">KIP-1294</option><option value=\"KIP-1324\">KIP-1324</option>"
    ));
    assert!(html.contains("<input type=\"search\" id=\"text-filter\""));
    // Summary by KIP.
    assert!(html.contains("<tr><th><a href=\"#scenarios\" class=\"kip-link\" data-kip=\"KIP-1324\">KIP-1324</a></th><td class=\"n v-passed\">1</td><td class=\"n v-failed\">1</td><td class=\"n v-unsupported\">1</td>"));
    // Side-by-side diff with changed tokens marked and values escaped.
    assert!(html.contains(
        "<tr><td class=\"ln\">10</td><td class=\"del\">    ConfigValue: <mark>&quot;500&quot;</mark></td>\
         <td class=\"ln\">11</td><td class=\"ins\">    ConfigValue: <mark>&quot;5000&quot;</mark></td></tr>"
    ), "{html}");
    assert!(html.contains(
        "<tr><td class=\"ln\">8</td><td class=\"eq\">    ConfigValue: &quot;5&quot;</td><td class=\"ln\">9</td><td class=\"eq\">    ConfigValue: &quot;5&quot;</td></tr>"
    ));
    // The field the pattern does not name is not shown as a mismatch.
    assert!(html.contains(
        "<tr><td class=\"ln\"></td><td class=\"empty\"></td><td class=\"ln\">2</td><td class=\"ign\">ClientVersion: 4.4.0</td></tr>"
    ), "{html}");
    assert!(
        html.contains("<span class=\"ign\">·not compared (the pattern does not name it)</span>")
    );
    // Findings first, the first one linked from the header; the badge says the count word.
    let first = html.find("id=\"s-size-max-plus-one\"").unwrap();
    let errored = html.find("id=\"s-registration-rejected\"").unwrap();
    let stale = html.find("id=\"s-audit-upgrade-static\"").unwrap();
    let passed = html.find("id=\"s-push-once-per-instance\"").unwrap();
    assert!(first < errored && errored < stale && stale < passed);
    assert!(html.contains("<p class=\"first-finding\">first finding: <span class=\"badge v-failed\">FAILED</span> <a href=\"#s-size-max-plus-one\" class=\"to-scenario\">size-max-plus-one</a>: <code>body.Configs[3].ConfigValue: expected &quot;500&quot;, actual &quot;5000&quot;</code> <span class=\"muted\">(and 2 more)</span></p>"), "{html}");
    for tag in ["SKIP", "XFAIL", "STALE", ">PASS<", ">FAIL<", ">ERROR<"] {
        assert!(!html.contains(tag), "old badge word {tag}");
    }
    assert!(html.contains("<span class=\"badge\">EXPECTED FAILURE</span> (1)"));
    // The scenario file is named with the line of its id, but not linked: the run read no
    // folder (no `--scenarios`), so the file is not on the reader's disk; and the built-in
    // suite has no such file, so there is no source to embed either.
    assert!(html.contains(
        "<dt>file</dt><dd><code>scenarios/kip1324-client/size-max-plus-one.yaml:2</code></dd>"
    ));
    assert!(!html.contains("<a class=\"file\""), "no dead link");
    assert!(!html.contains("<details class=\"source\""));
    // The exchange, collapsible, with bodies escaped and the hex behind its own disclosure.
    assert!(html.contains("<details class=\"exchange\"><summary>exchange that led here: 3 entries <span class=\"muted\">(1 earlier cut; the log keeps the last 32)</span></summary>"));
    assert!(html.contains("<tr class=\"response sent\"><td class=\"n\">3</td><td class=\"n\">6</td><td class=\"dir\">→</td><td>node 1</td><td>PushConfig v0 response corr 7 (600 bytes)<pre class=\"body\">{\n  &quot;ErrorCode&quot;: 37,\n  &quot;ErrorMessage&quot;: &quot;a &lt;b&gt;&quot;\n}</pre><details class=\"hex\"><summary>hex (600 bytes, first 512 shown)</summary>"), "{html}");
    assert!(
        html.contains("<tr class=\"hunk\">"),
        "two hunks, one separator"
    );
    // Hex dump rows.
    assert!(html.contains("<tr><td class=\"off\">00000000</td><td class=\"hx\">00 00 00 17 00 00 00 0d  00 05 6b 69 70 63 68 65</td><td class=\"asc\">..........kipche</td></tr>"));
    let padding = " ".repeat(48 - "63 6b 3c 3e 26".len());
    assert!(html.contains(&format!("<tr><td class=\"off\">00000010</td><td class=\"hx\">63 6b 3c 3e 26{padding}</td><td class=\"asc\">ck&lt;&gt;&amp;</td></tr>")));
    // The failing step with file:line and the reproduction command.
    assert!(html.contains("failing step: <code>scenarios/kip1324-client/size-max-plus-one.yaml:14:5 (step index 2)</code>"));
    assert!(html.contains(
        "<pre class=\"step\">expect:\n  message: PushConfigsRequest\n  version: 0</pre>"
    ));
    assert!(html.contains(
        "reproduce: <code>kipcheck run --target reference --seed 42 --id size-max-plus-one</code>"
    ));
}

#[test]
fn file_reporters_write_every_file_into_a_new_directory() {
    let dir = fresh_dir("report_standard").join("nested/latest");
    // The standard set is the terminal plus the file reporters; feed only the files here so
    // the test does not print to stdout.
    let standard = standard_reporters(&dir, TerminalOptions::default()).expect("create");
    assert_eq!(standard.len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
    let mut reporters = file_reporters(&dir).expect("create");
    assert_eq!(reporters.len(), 1);
    for event in events() {
        reporters.on_event(&event).expect("event");
    }
    reporters.finish().expect("finish");
    reporters.finish().expect("finishing twice is harmless");
    let rec = record();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect(f);
    assert_eq!(read(JSON_FILE), render_json(&rec).unwrap());
    assert_eq!(read(JUNIT_FILE), render_junit(&rec).unwrap());
    assert_eq!(read(MARKDOWN_FILE), render_markdown(&rec));
    // The directory is absolute: scenario files are linked from the working directory.
    let cwd = std::env::current_dir().unwrap();
    let linked = HtmlOptions {
        link_base: format!("file://{}/", cwd.display()),
    };
    assert_eq!(read(HTML_FILE), render_html_with(&rec, &linked));
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn write_errors_name_the_file_and_do_not_stop_other_files() {
    let dir = fresh_dir("report_errors");
    // A directory where results.json should go: that one file cannot be written.
    std::fs::create_dir_all(dir.join(JSON_FILE)).unwrap();
    let mut reporters = Reporters::new();
    reporters.push(FileReporter::new(&dir, &FileFormat::ALL));
    for event in events() {
        reporters.on_event(&event).unwrap();
    }
    let err = reporters
        .finish()
        .expect_err("results.json cannot be written");
    assert!(matches!(&err, ReportError::Write { path, .. } if path == &dir.join(JSON_FILE)));
    assert!(err.to_string().contains(JSON_FILE), "{err}");
    for f in [JUNIT_FILE, HTML_FILE, MARKDOWN_FILE] {
        assert!(dir.join(f).is_file(), "{f} was still written");
    }
}

#[test]
fn creating_the_report_directory_fails_with_its_path() {
    let dir = fresh_dir("report_blocked");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let err = standard_reporters(&file.join("sub"), TerminalOptions::default()).unwrap_err();
    assert!(matches!(err, ReportError::CreateDir { .. }));
    assert!(err.to_string().contains("a-file"), "{err}");
}

#[test]
fn a_new_run_replaces_the_previous_reports_at_once_and_an_aborted_run_says_why() {
    let dir = fresh_dir("report_stale");
    let mut good = file_reporters(&dir).expect("create");
    for event in events()
        .into_iter()
        .filter(|e| !matches!(e, RunEvent::ScenarioFinished(r) if r.verdict != kipcheck::runner::Verdict::Passed))
    {
        good.on_event(&event).expect("event");
    }
    good.finish().expect("finish");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect(f);
    assert!(
        read(HTML_FILE).contains("<h1>kipcheck: FAILED</h1>"),
        "the fixture's summary is red"
    );
    // The next run starts: before any event, no file says what the previous one did.
    let mut next = file_reporters(&dir).expect("create");
    for (f, headline) in [
        (HTML_FILE, "<h1>kipcheck: ABORTED</h1>"),
        (MARKDOWN_FILE, "## ❌ kipcheck: ABORTED\n"),
    ] {
        let text = read(f);
        assert!(text.contains(headline), "{f}: {text}");
        assert!(!text.contains("kipcheck: FAILED"), "{f}");
        assert!(text.contains("the run did not finish"), "{f}");
    }
    let json: serde_json::Value = serde_json::from_str(&read(JSON_FILE)).unwrap();
    assert_eq!(json["outcome"], "aborted");
    assert_eq!(json["summary"]["total"], 0);
    assert!(read(JUNIT_FILE).contains("<testcase name=\"run\""));
    // It is aborted with a reason after it started.
    next.on_event(&events()[0]).expect("started");
    next.abort("the target did not start: connection refused")
        .expect("abort");
    let html = read(HTML_FILE);
    assert!(html.contains("<h1>kipcheck: ABORTED</h1>"));
    assert!(html.contains(
        "<p class=\"aborted\">aborted: the target did not start: connection refused</p>"
    ));
    let json: serde_json::Value = serde_json::from_str(&read(JSON_FILE)).unwrap();
    assert_eq!(
        json["aborted"],
        "the target did not start: connection refused"
    );
    assert_eq!(json["target"], "reference");
    let junit = read(JUNIT_FILE);
    assert!(
        junit.contains(
            "message=\"aborted: the target did not start: connection refused\" type=\"aborted\""
        ),
        "{junit}"
    );
    assert!(
        read(MARKDOWN_FILE).contains("**aborted:** the target did not start: connection refused")
    );
}

/// A record of `results` as a finished run (summary counted from them).
fn record_of(results: Vec<kipcheck::runner::ScenarioResult>) -> RunRecord {
    let mut summary = kipcheck::runner::Summary::default();
    let mut events = vec![RunEvent::Started(run_info())];
    for r in results {
        summary.add(&r);
        events.push(RunEvent::ScenarioFinished(Box::new(r)));
    }
    events.push(RunEvent::Finished {
        summary,
        duration_ms: 1.0,
        simulated_ms: 0,
    });
    RunRecord::from_events(&events)
}

/// The fixture's failed result, renamed to `id` at `path`, failing at `line`.
fn failed_at(
    id: &str,
    path: &str,
    line: usize,
    reproduce: &str,
) -> kipcheck::runner::ScenarioResult {
    let mut r = results()
        .into_iter()
        .find(|r| r.id == FAILED_ID)
        .expect("fixture");
    r.id = id.into();
    r.path = path.into();
    r.reproduce = reproduce.into();
    r.exchange = None;
    let f = r.failure.as_mut().expect("failure");
    f.location = format!("{path}:{line}:5");
    r
}

/// HTML escaping written again here, so the test does not trust the reporter's.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The listing the page must hold for `text`, `line` highlighted, built independently.
fn listing(id: &str, text: &str, line: usize) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let n = i + 1;
            if n == line {
                format!("<tr class=\"hl\" id=\"src-{id}-L{n}\"><td class=\"ln\">{n}</td><td>{}</td></tr>\n", esc(l))
            } else {
                format!("<tr><td class=\"ln\">{n}</td><td>{}</td></tr>\n", esc(l))
            }
        })
        .collect()
}

#[test]
fn html_embeds_a_built_in_failing_scenarios_source_with_the_failing_line_marked() {
    let path = "scenarios/apiversions/av-negotiate-v3.yaml";
    let text = kipcheck::scenario::embedded::file(path).expect("built in");
    // The built-in text is the repository's file, byte for byte.
    let on_disk = std::fs::read_to_string(format!("../{path}")).expect("repository file");
    assert_eq!(text, on_disk);
    let r = failed_at(
        "av-negotiate-v3",
        path,
        14,
        "kipcheck run --target reference --seed 42 --id av-negotiate-v3",
    );
    // An unexpected pass of the built-in suite: its source too, nothing highlighted.
    let mut stale = results()
        .into_iter()
        .find(|r| r.id == "audit-upgrade-static")
        .expect("fixture");
    stale.path = "scenarios/apiversions/av-v0-request-answered.yaml".into();
    let stale_text = kipcheck::scenario::embedded::file(&stale.path).expect("built in");
    let html = render_html(&record_of(vec![r, stale]));

    // No link to a file the reader does not have: a jump to the embedded source instead.
    assert!(!html.contains("<a class=\"file\""), "{html}");
    assert!(html.contains("<dt>file</dt><dd><code>scenarios/apiversions/av-negotiate-v3.yaml:2</code> <span class=\"muted\">(built-in suite; <a href=\"#src-av-negotiate-v3\" class=\"to-line\">source below</a>)</span></dd>"), "{html}");
    // The failing step links to its highlighted line.
    assert!(html.contains("failing step: <a href=\"#src-av-negotiate-v3-L14\" class=\"to-line\"><code>scenarios/apiversions/av-negotiate-v3.yaml:14:5 (step index 2)</code></a>"), "{html}");
    let n = text.lines().count();
    let expected = format!(
        "<details class=\"source\" id=\"src-av-negotiate-v3\"><summary>scenario source: <code>{path}</code> ({n} lines, built into kipcheck); failing step at line 14</summary>\n<table class=\"src\">\n<tbody>\n{}</tbody>\n</table>\n</details>\n",
        listing("av-negotiate-v3", text, 14)
    );
    assert!(html.contains(&expected), "{html}");
    // Exact rows, typed out: escaped text, the one highlighted line and its neighbours.
    assert!(html.contains("<tr><td class=\"ln\">5</td><td>title: ApiVersions v3 is answered with NONE and an ApiVersions entry 0..&gt;=3</td></tr>\n"));
    assert!(html.contains("<tr><td class=\"ln\">13</td><td>  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: kipcheck, ClientSoftwareVersion: &quot;0.1.0&quot; } }</td></tr>\n<tr class=\"hl\" id=\"src-av-negotiate-v3-L14\"><td class=\"ln\">14</td><td>  - expect_response:</td></tr>\n<tr><td class=\"ln\">15</td><td>      body:</td></tr>\n"), "{html}");
    assert_eq!(
        html.matches("<tr class=\"hl\"").count(),
        1,
        "one line marked"
    );

    let m = stale_text.lines().count();
    let expected = format!(
        "<details class=\"source\" id=\"src-audit-upgrade-static\"><summary>scenario source: <code>scenarios/apiversions/av-v0-request-answered.yaml</code> ({m} lines, built into kipcheck)</summary>\n<table class=\"src\">\n<tbody>\n{}</tbody>\n</table>\n</details>\n",
        listing("audit-upgrade-static", stale_text, 0)
    );
    assert!(html.contains(&expected), "{html}");
    // The source follows the failure and precedes the reproduction command.
    let src = html
        .find("<details class=\"source\" id=\"src-av-negotiate-v3\"")
        .unwrap();
    assert!(html.find("first mismatch:").unwrap() < src);
    assert!(src < html.find("reproduce: <code>kipcheck run --target reference --seed 42 --id av-negotiate-v3</code>").unwrap());
}

#[test]
fn html_reads_and_links_the_file_of_a_scenarios_dir_run() {
    let dir = fresh_dir("report_html_source");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.yaml");
    let text =
        "id: mine\ntitle: \"<b>bold</b> & 'quoted'\"\nsteps:\n  - send: { api: ApiVersions }\n";
    std::fs::write(&file, text).unwrap();
    let path = file.display().to_string();
    let reproduce = format!(
        "kipcheck run --target reference --scenarios {} --seed 42 --id mine",
        dir.display()
    );
    let r = failed_at("mine", &path, 4, &reproduce);
    // A result of the same run that passed: linked, its file not read (relative, with a
    // space: percent-encoded after the link base).
    let mut passed = results()
        .into_iter()
        .find(|r| r.id == "push-once-per-instance")
        .expect("fixture");
    passed.path = "my suite/a#1.yaml".into();
    passed.reproduce = "kipcheck run --scenarios 'my suite' --id push-once-per-instance".into();
    let rec = record_of(vec![r, passed]);
    let html = render_html_with(
        &rec,
        &HtmlOptions {
            link_base: "../../".into(),
        },
    );
    assert!(
        html.contains(&format!(
            "<dt>file</dt><dd><a class=\"file\" href=\"file://{}\"><code>{}:2</code></a></dd>",
            esc(&path),
            esc(&path)
        )),
        "{html}"
    );
    assert!(html.contains("<dt>file</dt><dd><a class=\"file\" href=\"../../my%20suite/a%231.yaml\"><code>my suite/a#1.yaml:2</code></a></dd>"), "{html}");
    let expected = format!(
        "<details class=\"source\" id=\"src-mine\"><summary>scenario source: <code>{}</code> (4 lines, read from the file when the report was written); failing step at line 4</summary>\n<table class=\"src\">\n<tbody>\n\
         <tr><td class=\"ln\">1</td><td>id: mine</td></tr>\n\
         <tr><td class=\"ln\">2</td><td>title: &quot;&lt;b&gt;bold&lt;/b&gt; &amp; &#39;quoted&#39;&quot;</td></tr>\n\
         <tr><td class=\"ln\">3</td><td>steps:</td></tr>\n\
         <tr class=\"hl\" id=\"src-mine-L4\"><td class=\"ln\">4</td><td>  - send: {{ api: ApiVersions }}</td></tr>\n\
         </tbody>\n</table>\n</details>\n",
        esc(&path)
    );
    assert!(html.contains(&expected), "{html}");
    assert_eq!(
        html.matches("<details class=\"source\"").count(),
        1,
        "passed: no source"
    );
    // The file is gone: no source, the link stays (the report says where it was).
    std::fs::remove_file(&file).unwrap();
    let html = render_html_with(&rec, &HtmlOptions::default());
    assert!(!html.contains("<details class=\"source\""));
    assert!(html.contains("failing step: <code>"));
}

#[test]
fn html_marks_flaky_and_quarantined_scenarios() {
    let mut flaky = results()
        .into_iter()
        .find(|r| r.id == FAILED_ID)
        .expect("fixture");
    flaky.verdict = kipcheck::runner::Verdict::Passed;
    flaky.flaky = true;
    flaky.attempts = 3;
    let mut quarantined = results()
        .into_iter()
        .find(|r| r.id == "registration-rejected")
        .expect("fixture");
    quarantined.quarantined = Some("KAFKA-1 <flaky> on CI".into());
    let mut steady = results()
        .into_iter()
        .find(|r| r.id == "floor-below-lowest")
        .expect("fixture");
    steady.attempts = 2;
    let html = render_html(&record_of(vec![flaky, quarantined, steady]));
    assert!(html.contains("<span class=\"meta\">KIP-1324 · kip1324-client · MUST · 2.50 ms · 3.5 s simulated</span> <span class=\"badge flaky\" title=\"ran 3 times: failed first, passed on attempt 3\">FLAKY ×3</span> <span class=\"badge steps\">"), "{html}");
    assert!(
        html.contains("<dt>attempts</dt><dd>ran 3 times: failed first, passed on attempt 3</dd>")
    );
    assert!(html.contains("<p class=\"muted\">the first attempt's failure:</p>\n<p class=\"message\">first mismatch: "));
    assert!(html.contains("<dt>attempts</dt><dd>ran 2 times, the same outcome each time</dd>"));
    assert_eq!(html.matches("FLAKY ×").count(), 1);
    assert!(
        html.contains(
            "simulated</span> <span class=\"badge quarantined\">QUARANTINED</span></summary>"
        ),
        "{html}"
    );
    assert!(html.contains(
        "<dt>quarantined</dt><dd class=\"quarantined\">KAFKA-1 &lt;flaky&gt; on CI</dd>"
    ));
    assert!(html.contains("<p class=\"quarantined\">quarantined: KAFKA-1 &lt;flaky&gt; on CI</p>"));
    assert_eq!(html.matches(">QUARANTINED<").count(), 1);
    assert!(html.contains("<p class=\"retries\">flaky (passed on a retry): <b>1</b>; quarantined findings (reported, not counted): <b>1</b></p>"), "{html}");
    // A quarantined failure is not the run's first finding; nothing else is one here.
    assert!(!html.contains("first finding:"), "{html}");
    assert!(html.contains("data-search=\"size-max-plus-one rejects &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; oversize pushes kip-1324 kip1324-client size boundary kip-1324-tp-03 kip-1324-must-12 body.configs[3].configvalue: expected &quot;500&quot;, actual &quot;5000&quot; flaky\""), "{html}");
}
