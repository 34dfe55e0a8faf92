//! The `report.html` page around the scenarios: the document with its inline CSS and JS, the
//! run's header (outcome, first finding, counts, facts), the summary by KIP and the filters,
//! and the listing order. One scenario's block is `scenario.rs`'; nothing is decided here.

use std::fmt::Write as _;

use super::escape::escape;
use super::scenario::{scenario, HtmlOptions};
use crate::report::labels::{
    count_of, counts_sentence, judged_sentence, record_outcome, scenarios, simulated,
    unsupported_groups, verdict_key, verdict_tag, verdict_words, wall, VERDICTS,
};
use crate::report::record::{is_finding, RunRecord};
use crate::runner::{ScenarioResult, Verdict};

/// File name of the HTML report inside the report directory.
pub const HTML_FILE: &str = "report.html";

const CSS: &str = include_str!("../assets/report.css");

const JS: &str = include_str!("../assets/report.js");

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
