//! The HTML report's embedded scenario sources, their failing lines and flaky/quarantined marks.

use super::*;

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
