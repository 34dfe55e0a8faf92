//! Each report file's content, the fan-out that writes them and the replacement of a previous run's reports.

use super::*;

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
