//! One scenario's block of `report.html`: its summary line and badges, facts, file link (a
//! `--scenarios DIR` run) or embedded source (the built-in suite; see the module doc for
//! where the text comes from: this is the one place a reporter reads a file), the failure
//! and the exchange (`failure.rs`), and the reproduction command. Decides nothing.

use std::fmt::Write as _;

use super::escape::escape;
use super::failure::{exchange, failure};
use crate::report::labels::{grade_word, simulated, steps_words, verdict_key, verdict_tag, wall};
use crate::report::record::is_finding;
use crate::report::text::STALE_MESSAGE;
use crate::runner::{ScenarioResult, Verdict};
use crate::scenario::embedded;

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

pub(super) fn scenario(out: &mut String, r: &ScenarioResult, options: &HtmlOptions) {
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
