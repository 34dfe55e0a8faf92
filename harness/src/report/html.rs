//! `report.html`: one self-contained page (inline CSS and JS, no external resources) to
//! browse a run: the outcome (or why the run was aborted) with a link to the first finding,
//! summary by KIP, filters (verdict, KIP, text; kept in the URL's `#f=` fragment), the
//! scenarios with findings first, and per finding the failing step, the mismatches (error
//! codes named), expected vs actual side by side with changed tokens highlighted and fields
//! the match did not compare set apart, hex dumps of raw bytes, the exchange that led to the
//! failure (collapsible), the scenario's own source (collapsible, line-numbered, the failing
//! step's line highlighted) and the reproduction command. Flaky scenarios (passed on a retry)
//! carry a FLAKY badge with the attempt count; quarantined ones a QUARANTINED badge and the
//! quarantine's reason. Every value from the events is HTML-escaped here; nothing is decided
//! or redacted here.
//!
//! # The page stands alone
//!
//! An installed `kipcheck` runs its built-in suite: the `path` of a result
//! (`scenarios/kip1324-broker/x.yaml`) names no file on the reader's disk, so the page does
//! not link to it. Instead the source of every scenario with something to read (failed,
//! errored, unexpected pass, and flaky: each carries a failure or a stale baseline entry) is
//! embedded in the page. Where the text comes from:
//!
//! - a run of the built-in suite (the result's reproduction command names no
//!   `--scenarios`): [`embedded::file`]`(path)`, the very text the run loaded; a path the
//!   built-in suite lacks (a result from another source) falls back to the file below;
//! - a `--scenarios DIR` run: the file at `path` (relative to the directory kipcheck runs
//!   in, as the loader named it), read once when the page is rendered, if it still exists;
//!   only these results link to their file (`HtmlOptions::link_base` + path, or a `file://`
//!   URL for an absolute path), since only these files exist where the report is read.
//!
//! Reading a file is not a reporter's job, and this is the one place a reporter does: the
//! file may have changed between the run and the end of it, and the highlighted line would
//! then point into other text. The sound fix is for the runner to carry the loaded text in
//! the event (e.g. `ScenarioResult::source: Option<Arc<str>>`, set for results with a
//! failure, or on `Failure` itself), as it already carries `step_yaml`; this module then
//! reads no file. Until then the read is confined to [`scenario_source`].

use std::fmt::Write as _;

use super::diff::{pair_side_by_side, visible, DiffLine, LineDiff, LineTag};
use super::hex::{hex_dump, HexDump};
use super::labels::{
    code_value, count_of, counts_sentence, grade_word, judged_sentence, record_outcome, scenarios,
    simulated, steps_words, unsupported_groups, verdict_key, verdict_tag, verdict_words, wall,
    VERDICTS,
};
use super::record::{is_finding, RunRecord};
use super::text::{
    arrow, exchange_what, failure_diff, location_line, STALE_MESSAGE, UNCOMPARED_LEGEND,
};
use crate::runner::{Exchange, ExchangeEntry, Failure, ScenarioResult, Verdict};
use crate::scenario::embedded;
use crate::scenario::types::serde_name;

/// File name of the HTML report inside the report directory.
pub const HTML_FILE: &str = "report.html";

const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");

/// Escapes text for HTML element content and quoted attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Where scenario files are linked from: the relative `path` of a result of a
/// `--scenarios DIR` run (relative to the directory kipcheck ran in) is prefixed with this
/// (`../../` for `reports/latest`; empty: as is). Built-in scenarios are not linked: their
/// source is in the page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Prefix of every scenario file link.
    pub link_base: String,
}

/// A scenario's text and where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Source {
    text: String,
    built_in: bool,
}

/// Whether the result comes from a `--scenarios DIR` run: its reproduction command names the
/// folder.
fn from_folder(r: &ScenarioResult) -> bool {
    r.reproduce
        .split_whitespace()
        .any(|w| w == "--scenarios" || w.starts_with("--scenarios="))
}

/// The text of the scenario a result is about (see the module header for the order).
fn scenario_source(r: &ScenarioResult) -> Option<Source> {
    let built_in = || {
        embedded::file(&r.path).map(|t| Source {
            text: t.to_owned(),
            built_in: true,
        })
    };
    let on_disk = || {
        std::fs::read_to_string(&r.path).ok().map(|text| Source {
            text,
            built_in: false,
        })
    };
    if from_folder(r) {
        on_disk()
    } else {
        built_in().or_else(on_disk)
    }
}

/// The line of `location` (`file:line:col`) if it is in `path`.
fn location_in(location: &str, path: &str) -> Option<usize> {
    let mut parts = location.rsplitn(3, ':');
    let _col: usize = parts.next()?.parse().ok()?;
    let line: usize = parts.next()?.parse().ok()?;
    (parts.next()? == path && line >= 1).then_some(line)
}

/// Whether the page embeds a result's source: it has a failure to locate or is a finding.
fn embeds_source(r: &ScenarioResult) -> bool {
    is_finding(r.verdict) || r.flaky
}

/// The href of a scenario file of a `--scenarios DIR` run.
fn file_href(path: &str, options: &HtmlOptions) -> String {
    let mut url = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        url.push_str("file://");
    } else {
        url.push_str(&options.link_base);
    }
    for c in path.chars() {
        match c {
            '%' => url.push_str("%25"),
            ' ' => url.push_str("%20"),
            '#' => url.push_str("%23"),
            '?' => url.push_str("%3F"),
            '\\' => url.push('/'),
            c => url.push(c),
        }
    }
    url
}

/// The order scenarios are listed in: findings first, then what needs a look, then the rest.
fn listing_rank(v: Verdict) -> u8 {
    match v {
        Verdict::Failed => 0,
        Verdict::Errored => 1,
        Verdict::UnexpectedPass => 2,
        Verdict::ExpectedFailure => 3,
        Verdict::Unsupported => 4,
        Verdict::Passed => 5,
    }
}

/// Results in listing order: by [`listing_rank`], then id.
fn listed(record: &RunRecord) -> Vec<&ScenarioResult> {
    let mut v: Vec<&ScenarioResult> = record.results().collect();
    v.sort_by_key(|r| listing_rank(r.verdict));
    v
}

/// Renders `report.html` with scenario files linked as their paths say.
pub fn render_html(record: &RunRecord) -> String {
    render_html_with(record, &HtmlOptions::default())
}

/// Renders `report.html`.
pub fn render_html_with(record: &RunRecord, options: &HtmlOptions) -> String {
    let outcome = record_outcome(record);
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>kipcheck report: {outcome}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n"
    );
    header(&mut out, record);
    by_kip(&mut out, record);
    filters(&mut out, record);
    out.push_str("<main id=\"scenarios\">\n");
    for r in listed(record) {
        scenario(&mut out, r, options);
    }
    out.push_str("</main>\n");
    let _ = write!(out, "<script>\n{JS}</script>\n</body>\n</html>\n");
    out
}

fn header(out: &mut String, record: &RunRecord) {
    let s = record.summary();
    let outcome = record_outcome(record);
    let class = match outcome {
        "PASSED" => "passed",
        "ABORTED" => "aborted",
        _ => "failed",
    };
    let _ = writeln!(
        out,
        "<header class=\"run {class}\">\n<h1>kipcheck: {outcome}</h1>"
    );
    if let Some(why) = record.aborted() {
        let _ = writeln!(out, "<p class=\"aborted\">aborted: {}</p>", escape(why));
    }
    let _ = writeln!(
        out,
        "<p class=\"counts\">{}: {}</p>\n<p class=\"judged\">{}</p>",
        scenarios(s.total),
        counts_sentence(&s),
        escape(&judged_sentence(&s))
    );
    let findings: Vec<&ScenarioResult> = listed(record)
        .into_iter()
        .filter(|r| is_finding(r.verdict) && r.quarantined.is_none())
        .collect();
    if let Some(first) = findings.first() {
        let _ = write!(
            out,
            "<p class=\"first-finding\">first finding: <span class=\"badge v-{key}\">{tag}</span> <a href=\"#s-{id}\" class=\"to-scenario\">{id}</a>",
            key = verdict_key(first.verdict),
            tag = verdict_tag(first.verdict),
            id = escape(&first.id),
        );
        if let Some(f) = &first.failure {
            let _ = write!(out, ": <code>{}</code>", escape(&f.message));
        }
        if findings.len() > 1 {
            let _ = write!(
                out,
                " <span class=\"muted\">(and {} more)</span>",
                findings.len() - 1
            );
        }
        out.push_str("</p>\n");
    }
    if s.flaky > 0 || s.quarantined_findings > 0 {
        let _ = writeln!(
            out,
            "<p class=\"retries\">flaky (passed on a retry): <b>{}</b>; quarantined findings (reported, not counted): <b>{}</b></p>",
            s.flaky, s.quarantined_findings
        );
    }
    if !s.quarantine_problems.is_empty() {
        out.push_str("<ul class=\"quarantine-problems\">\n");
        for p in &s.quarantine_problems {
            let _ = writeln!(out, "<li>quarantine file: {}</li>", escape(p));
        }
        out.push_str("</ul>\n");
    }
    let groups = unsupported_groups(&s);
    if !groups.is_empty() {
        out.push_str("<p class=\"unsupported-causes\">unsupported, by cause:");
        for (k, n) in groups {
            let _ = write!(
                out,
                " <span class=\"cause\">{} <b>{n}</b></span>",
                escape(k)
            );
        }
        out.push_str("</p>\n");
    }
    out.push_str("<dl class=\"facts\">\n");
    let mut fact = |k: &str, v: &str, code: bool| {
        let v = escape(v);
        let v = if code { format!("<code>{v}</code>") } else { v };
        let _ = writeln!(out, "<dt>{k}</dt><dd>{v}</dd>");
    };
    if let Some(info) = record.info() {
        fact("target", &info.target, true);
        fact("seed", &info.seed.to_string(), true);
        fact("command", &info.command, true);
        fact("kipcheck", &info.kipcheck_version, false);
    }
    if let Some(ms) = record.duration_ms() {
        fact("wall time", &wall(ms), false);
    }
    fact("simulated time", &simulated(record.simulated_ms()), false);
    out.push_str("</dl>\n</header>\n");
}

fn by_kip(out: &mut String, record: &RunRecord) {
    out.push_str("<section id=\"by-kip\">\n<h2>Summary by KIP</h2>\n<table class=\"kips\">\n<thead><tr><th>KIP</th>");
    for v in VERDICTS {
        let _ = write!(out, "<th>{}</th>", verdict_words(v));
    }
    out.push_str("<th>total</th></tr></thead>\n<tbody>\n");
    let row = |out: &mut String, label: String, tr: &str, s: &crate::runner::Summary| {
        let _ = write!(out, "<tr{tr}><th>{label}</th>");
        for v in VERDICTS {
            let n = count_of(s, v);
            let zero = if n == 0 { " zero" } else { "" };
            let _ = write!(out, "<td class=\"n v-{}{zero}\">{n}</td>", verdict_key(v));
        }
        let _ = writeln!(out, "<td class=\"n\">{}</td></tr>", s.total);
    };
    for (kip, counts) in record.by_kip() {
        let k = escape(kip);
        row(
            out,
            format!("<a href=\"#scenarios\" class=\"kip-link\" data-kip=\"{k}\">{k}</a>"),
            "",
            &counts,
        );
    }
    row(out, "all".to_owned(), " class=\"all\"", &record.summary());
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn filters(out: &mut String, record: &RunRecord) {
    let s = record.summary();
    out.push_str("<section id=\"filters\">\n<h2>Scenarios</h2>\n<div class=\"filters\">\n");
    for v in VERDICTS {
        let key = verdict_key(v);
        let _ = writeln!(
            out,
            "<label class=\"v-{key}\"><input type=\"checkbox\" data-verdict=\"{key}\" checked> <span class=\"badge\">{}</span> ({})</label>",
            verdict_tag(v),
            count_of(&s, v)
        );
    }
    out.push_str(
        "<select id=\"kip-filter\" aria-label=\"KIP\"><option value=\"\">all KIPs</option>",
    );
    for kip in record.by_kip().keys() {
        let k = escape(kip);
        let _ = write!(out, "<option value=\"{k}\">{k}</option>");
    }
    out.push_str("</select>\n<input type=\"search\" id=\"text-filter\" placeholder=\"search id, title, tag, requirement, message\" aria-label=\"search\">\n");
    let _ = writeln!(
        out,
        "<span><span id=\"shown-count\">{0}</span> of {0} shown</span>\n<button type=\"button\" id=\"expand-all\">expand all</button>\n<button type=\"button\" id=\"collapse-all\">collapse all</button>\n</div>\n</section>",
        s.total
    );
}

fn search_text(r: &ScenarioResult) -> String {
    let mut parts = vec![
        r.id.as_str(),
        r.title.as_str(),
        r.kip.as_str(),
        r.area.as_str(),
    ];
    parts.extend(r.tags.iter().map(String::as_str));
    parts.extend(r.requirements.iter().map(String::as_str));
    if let Some(f) = &r.failure {
        parts.push(f.message.as_str());
    }
    if r.flaky {
        parts.push("flaky");
    }
    if r.quarantined.is_some() {
        parts.push("quarantined");
    }
    parts.join(" ").to_lowercase()
}

fn scenario(out: &mut String, r: &ScenarioResult, options: &HtmlOptions) {
    let key = verdict_key(r.verdict);
    let open = if is_finding(r.verdict) { " open" } else { "" };
    let _ = writeln!(
        out,
        "<details class=\"scenario v-{key}\" id=\"s-{id}\" data-verdict=\"{key}\" data-kip=\"{kip}\" data-search=\"{search}\"{open}>\n\
         <summary><span class=\"badge\">{tag}</span> <code class=\"id\">{id}</code> <span class=\"title\">{title}</span> \
         <span class=\"meta\">{kip} · {area} · {grade} · {wall} · {sim} simulated</span>{flags}{steps}</summary>\n<div class=\"body\">",
        flags = flags(r),
        steps = if matches!(r.verdict, Verdict::Unsupported | Verdict::Errored) {
            String::new()
        } else {
            format!(
                " <span class=\"badge steps{}\">{}</span>",
                if r.steps_not_observed > 0 { " partial" } else { "" },
                steps_words(r.steps_judged, r.steps_not_observed)
            )
        },
        id = escape(&r.id),
        kip = escape(&r.kip),
        search = escape(&search_text(r)),
        tag = verdict_tag(r.verdict),
        title = escape(&r.title),
        area = escape(&r.area),
        grade = grade_word(r.grade),
        wall = wall(r.duration_ms),
        sim = simulated(r.simulated_ms),
    );
    let source = embeds_source(r).then(|| scenario_source(r)).flatten();
    out.push_str("<dl class=\"facts\">\n");
    let place = format!("<code>{}:{}</code>", escape(&r.path), r.line);
    if from_folder(r) {
        let _ = writeln!(
            out,
            "<dt>file</dt><dd><a class=\"file\" href=\"{}\">{place}</a></dd>",
            escape(&file_href(&r.path, options))
        );
    } else if source.as_ref().is_some_and(|s| s.built_in) {
        let _ = writeln!(
            out,
            "<dt>file</dt><dd>{place} <span class=\"muted\">(built-in suite; <a href=\"#src-{}\" class=\"to-line\">source below</a>)</span></dd>",
            escape(&r.id)
        );
    } else {
        let _ = writeln!(out, "<dt>file</dt><dd>{place}</dd>");
    }
    if r.attempts > 1 {
        let _ = writeln!(
            out,
            "<dt>attempts</dt><dd>{}</dd>",
            attempts_words(r.flaky, r.attempts)
        );
    }
    if let Some(reason) = &r.quarantined {
        let _ = writeln!(
            out,
            "<dt>quarantined</dt><dd class=\"quarantined\">{}</dd>",
            escape(reason)
        );
    }
    if !r.tags.is_empty() {
        let _ = writeln!(out, "<dt>tags</dt><dd>{}</dd>", escape(&r.tags.join(", ")));
    }
    if !r.requirements.is_empty() {
        let _ = writeln!(
            out,
            "<dt>requirements</dt><dd>{}</dd>",
            escape(&r.requirements.join(", "))
        );
    }
    if let Some(reason) = &r.unsupported_reason {
        let _ = writeln!(out, "<dt>unsupported</dt><dd>{}</dd>", escape(reason));
    }
    out.push_str("</dl>\n");
    if r.verdict == Verdict::UnexpectedPass {
        let _ = writeln!(out, "<p class=\"message\">{}</p>", escape(STALE_MESSAGE));
    }
    if let Some(reason) = &r.quarantined {
        let _ = writeln!(
            out,
            "<p class=\"quarantined\">quarantined: {}</p>",
            escape(reason)
        );
    }
    let highlight = r
        .failure
        .as_ref()
        .and_then(|f| location_in(&f.location, &r.path));
    if let Some(f) = &r.failure {
        if r.flaky {
            out.push_str("<p class=\"muted\">the first attempt's failure:</p>\n");
        }
        let anchor = source
            .as_ref()
            .zip(highlight)
            .map(|(_, line)| format!("#src-{}-L{line}", escape(&r.id)));
        failure(out, f, anchor.as_deref());
    }
    if let Some(x) = r.exchange.as_ref().filter(|x| !x.entries.is_empty()) {
        exchange(out, x);
    }
    if let Some(src) = &source {
        source_listing(out, r, src, highlight);
    }
    let _ = writeln!(
        out,
        "<p class=\"repro\">reproduce: <code>{}</code></p>\n</div>\n</details>",
        escape(&r.reproduce)
    );
}

/// The FLAKY and QUARANTINED badges of a scenario's summary line (empty: neither).
fn flags(r: &ScenarioResult) -> String {
    let mut s = String::new();
    if r.flaky {
        let _ = write!(
            s,
            " <span class=\"badge flaky\" title=\"{}\">FLAKY ×{}</span>",
            attempts_words(true, r.attempts),
            r.attempts
        );
    }
    if r.quarantined.is_some() {
        s.push_str(" <span class=\"badge quarantined\">QUARANTINED</span>");
    }
    s
}

fn attempts_words(flaky: bool, attempts: u32) -> String {
    if flaky {
        format!("ran {attempts} times: failed first, passed on attempt {attempts}")
    } else {
        format!("ran {attempts} times, the same outcome each time")
    }
}

/// The scenario's text, line-numbered, the failing step's line highlighted (and the target
/// of the failing step's link).
fn source_listing(out: &mut String, r: &ScenarioResult, src: &Source, highlight: Option<usize>) {
    let id = escape(&r.id);
    let lines = src.text.lines().count();
    let _ = write!(
        out,
        "<details class=\"source\" id=\"src-{id}\"><summary>scenario source: <code>{}</code> ({lines} line{}, {})",
        escape(&r.path),
        if lines == 1 { "" } else { "s" },
        if src.built_in {
            "built into kipcheck"
        } else {
            "read from the file when the report was written"
        }
    );
    if let Some(line) = highlight.filter(|l| *l <= lines) {
        let _ = write!(out, "; failing step at line {line}");
    }
    out.push_str("</summary>\n<table class=\"src\">\n<tbody>\n");
    for (i, text) in src.text.lines().enumerate() {
        let n = i + 1;
        if highlight == Some(n) {
            let _ = writeln!(
                out,
                "<tr class=\"hl\" id=\"src-{id}-L{n}\"><td class=\"ln\">{n}</td><td>{}</td></tr>",
                escape(text)
            );
        } else {
            let _ = writeln!(
                out,
                "<tr><td class=\"ln\">{n}</td><td>{}</td></tr>",
                escape(text)
            );
        }
    }
    out.push_str("</tbody>\n</table>\n</details>\n");
}

fn failure(out: &mut String, f: &Failure, source_anchor: Option<&str>) {
    let place = match source_anchor {
        Some(href) => format!(
            "<a href=\"{href}\" class=\"to-line\"><code>{}</code></a>",
            escape(&location_line(f))
        ),
        None => format!("<code>{}</code>", escape(&location_line(f))),
    };
    let _ = writeln!(
        out,
        "<p class=\"message\">first mismatch: <code>{}</code></p>\n<p class=\"location\">failing step: {place}</p>",
        escape(&f.message),
    );
    if !f.step_yaml.trim().is_empty() {
        let _ = writeln!(
            out,
            "<pre class=\"step\">{}</pre>",
            escape(f.step_yaml.trim_end())
        );
    }
    if !f.mismatches.is_empty() {
        out.push_str("<table class=\"mismatches\">\n<thead><tr><th>path</th><th>expected</th><th>actual</th></tr></thead>\n<tbody>\n");
        for m in &f.mismatches {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                escape(&m.path),
                escape(&code_value(&m.path, &m.expected)),
                escape(&code_value(&m.path, &m.actual))
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    if let Some(diff) = failure_diff(f) {
        diff_table(out, &diff);
    }
    if let Some(hex) = &f.raw_hex {
        hex_table(out, hex);
    }
}

fn cell_text(line: &DiffLine, show_invisibles: bool) -> String {
    let mut s = String::new();
    for seg in &line.segments {
        let text = escape(&visible(&seg.text, show_invisibles));
        if seg.emphasized && line.tag != LineTag::Equal && !line.uncompared {
            let _ = write!(s, "<mark>{text}</mark>");
        } else {
            s.push_str(&text);
        }
    }
    s
}

fn side(line: Option<&DiffLine>, old: bool, show_invisibles: bool) -> String {
    match line {
        None => "<td class=\"ln\"></td><td class=\"empty\"></td>".to_owned(),
        Some(l) => {
            let n = if old { l.old_line } else { l.new_line };
            let class = match l.tag {
                _ if l.uncompared => "ign",
                LineTag::Equal => "eq",
                LineTag::Delete => "del",
                LineTag::Insert => "ins",
            };
            format!(
                "<td class=\"ln\">{}</td><td class=\"{class}\">{}</td>",
                n.map(|n| n.to_string()).unwrap_or_default(),
                cell_text(l, show_invisibles)
            )
        }
    }
}

fn diff_table(out: &mut String, diff: &LineDiff) {
    out.push_str("<p class=\"legend\"><span class=\"del\">−expected</span> <span class=\"ins\">+actual</span>");
    if diff.has_uncompared() {
        let _ = write!(out, " <span class=\"ign\">·{UNCOMPARED_LEGEND}</span>");
    }
    out.push_str("</p>\n");
    if diff.is_identical() {
        out.push_str("<p class=\"muted\">no differences in the rendered values; see the mismatches above</p>\n");
        return;
    }
    out.push_str("<table class=\"diff\">\n<colgroup><col class=\"ln\"><col><col class=\"ln\"><col></colgroup>\n<thead><tr><th colspan=\"2\">expected</th><th colspan=\"2\">actual</th></tr></thead>\n<tbody>\n");
    for (i, hunk) in diff.hunks.iter().enumerate() {
        if i > 0 {
            out.push_str("<tr class=\"hunk\"><td colspan=\"4\">┈┈┈</td></tr>\n");
        }
        for (left, right) in pair_side_by_side(hunk) {
            let _ = writeln!(
                out,
                "<tr>{}{}</tr>",
                side(left, true, diff.show_invisibles),
                side(right, false, diff.show_invisibles)
            );
        }
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The exchange log: a collapsible table, one row per entry, its body as JSON and its hex
/// behind a second disclosure.
fn exchange(out: &mut String, x: &Exchange) {
    let _ = write!(
        out,
        "<details class=\"exchange\"><summary>exchange that led here: {} entr{}",
        x.entries.len(),
        if x.entries.len() == 1 { "y" } else { "ies" }
    );
    if x.cut_before > 0 {
        let _ = write!(
            out,
            " <span class=\"muted\">({} earlier cut; the log keeps the last {})</span>",
            x.cut_before, x.max_entries
        );
    }
    out.push_str("</summary>\n<table class=\"wire\">\n<thead><tr><th>#</th><th>ms</th><th></th><th>peer</th><th>what</th></tr></thead>\n<tbody>\n");
    for e in &x.entries {
        exchange_row(out, e, x.max_frame_bytes);
    }
    out.push_str("</tbody>\n</table>\n</details>\n");
}

fn exchange_row(out: &mut String, e: &ExchangeEntry, max_frame_bytes: usize) {
    let what = exchange_what(e);
    let _ = write!(
        out,
        "<tr class=\"{kind} {dir}\"><td class=\"n\">{seq}</td><td class=\"n\">{at}</td><td class=\"dir\">{arrow}</td><td>{peer}</td><td>{what}",
        kind = serde_name(&e.kind),
        dir = serde_name(&e.direction),
        seq = e.seq,
        at = e.at_ms,
        arrow = arrow(e.direction),
        peer = escape(&e.peer),
        what = escape(&what),
    );
    if let Some(body) = &e.body {
        let text = match body {
            serde_json::Value::String(s) => s.clone(),
            v => serde_json::to_string_pretty(v).unwrap_or_default(),
        };
        let _ = write!(out, "<pre class=\"body\">{}</pre>", escape(&text));
    }
    if let Some(hex) = &e.hex {
        let _ = write!(out, "<details class=\"hex\"><summary>hex ({} bytes", e.len);
        if e.hex_cut > 0 {
            let _ = write!(out, ", first {max_frame_bytes} shown");
        }
        out.push_str(")</summary>");
        hex_table(out, hex);
        out.push_str("</details>");
    }
    out.push_str("</td></tr>\n");
}

fn hex_table(out: &mut String, hex: &str) {
    match hex_dump(hex) {
        HexDump::Rows { rows, len } => {
            let _ = writeln!(
                out,
                "<p>raw bytes ({len}):</p>\n<table class=\"hex\">\n<thead><tr><th>offset</th><th>hex</th><th>ascii</th></tr></thead>\n<tbody>"
            );
            for row in rows {
                let _ = writeln!(
                    out,
                    "<tr><td class=\"off\">{}</td><td class=\"hx\">{}</td><td class=\"asc\">{}</td></tr>",
                    row.offset_text(),
                    row.hex_text(),
                    escape(&row.ascii_text())
                );
            }
            out.push_str("</tbody>\n</table>\n");
        }
        HexDump::Invalid(text) => {
            let _ = writeln!(
                out,
                "<p>raw bytes (not valid hex): <code>{}</code></p>",
                escape(&text)
            );
        }
    }
}
