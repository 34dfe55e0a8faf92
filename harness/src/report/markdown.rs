//! `summary.md` for a CI job summary: a pass/fail header line, a table of verdict counts
//! with one row per KIP, the findings with their first mismatch and reproduction command, and
//! a collapsed `<details>` with the first diff of each. Everything from events is escaped; it
//! renders, it never decides verdicts.

use std::fmt::Write as _;

use super::labels::{
    count_of, counts_sentence, judged_sentence, record_outcome, scenarios, simulated,
    unsupported_groups, verdict_tag, wall, VERDICTS,
};
use super::record::RunRecord;
use super::text::{failure_diff, hex_block, location_line, mismatch_line, unified, STALE_MESSAGE};
use crate::runner::events::remedy;
use crate::runner::{ScenarioResult, Summary, Verdict};

/// File name of the Markdown summary inside the report directory.
pub const MARKDOWN_FILE: &str = "summary.md";

/// Column headers of the verdict table, in [`VERDICTS`] order.
const COLUMNS: [&str; 6] = [
    "Passed",
    "Failed",
    "Unsupported",
    "Expected failures",
    "Unexpected passes",
    "Errored",
];

/// Escapes Markdown and inline-HTML syntax in running text.
fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An inline code span that survives backticks, pipes and newlines in `s`.
fn md_code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ").replace('|', "\\|");
    let longest = longest_run(&s, '`');
    let fence = "`".repeat(longest + 1);
    if s.starts_with('`') || s.ends_with('`') || longest > 0 {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// A fenced block (```` ```info ````) long enough not to be closed by the content.
fn md_fence(info: &str, body: &str) -> String {
    let fence = "`".repeat(longest_run(body, '`').max(2) + 1);
    let mut out = format!("{fence}{info}\n{body}");
    if !body.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
    out
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for ch in s.chars() {
        cur = if ch == c { cur + 1 } else { 0 };
        best = best.max(cur);
    }
    best
}

fn table_row(label: &str, s: &Summary) -> String {
    let counts: Vec<String> = VERDICTS
        .iter()
        .map(|&v| count_of(s, v).to_string())
        .collect();
    format!("| {label} | {} | {} |\n", counts.join(" | "), s.total)
}

fn finding_item(r: &ScenarioResult) -> String {
    let mut out = format!(
        "- **{}** {} — {} ({}, {})\n",
        verdict_tag(r.verdict),
        md_code(&r.id),
        md_text(&r.title),
        md_text(&r.kip),
        super::labels::grade_word(r.grade)
    );
    if r.verdict == Verdict::UnexpectedPass {
        let _ = writeln!(out, "  - {}", md_text(STALE_MESSAGE));
    }
    if let Some(e) = &r.endpoint {
        let _ = writeln!(out, "  - on {}", md_code(e));
    }
    if let Some(f) = &r.failure {
        let _ = writeln!(out, "  - at {}", md_code(&location_line(f)));
        let _ = writeln!(out, "  - first mismatch: {}", md_code(&f.message));
    }
    let _ = writeln!(out, "  - reproduce: {}", md_code(&r.reproduce));
    out
}

fn details(r: &ScenarioResult) -> Option<String> {
    let f = r.failure.as_ref()?;
    let mut body = String::new();
    match failure_diff(f) {
        Some(diff) if !diff.is_identical() => body.push_str(&md_fence("diff", &unified(&diff))),
        _ if !f.mismatches.is_empty() => {
            let lines: Vec<String> = f.mismatches.iter().map(mismatch_line).collect();
            body.push_str(&md_fence("text", &lines.join("\n")));
        }
        _ => {}
    }
    if let Some(hex) = &f.raw_hex {
        let block = hex_block(hex, usize::MAX);
        let dump: Vec<&str> = block
            .lines()
            .map(|l| l.strip_prefix("  ").unwrap_or(l))
            .collect();
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&md_fence("text", &dump.join("\n")));
    }
    if body.is_empty() {
        return None;
    }
    Some(format!(
        "<details>\n<summary>{} <code>{}</code>: first diff</summary>\n\n{}\n</details>\n",
        verdict_tag(r.verdict),
        super::html::escape(&r.id),
        body
    ))
}

/// Renders `summary.md`.
pub fn render_markdown(record: &RunRecord) -> String {
    let s = record.summary();
    let mut out = String::new();
    let outcome = record_outcome(record);
    let icon = if outcome == "PASSED" { "✅" } else { "❌" };
    let _ = writeln!(out, "## {icon} kipcheck: {outcome}\n");
    if let Some(why) = record.aborted() {
        let _ = writeln!(out, "**aborted:** {}\n", md_text(why));
    }
    let mut facts = scenarios(s.total);
    if let Some(info) = record.info() {
        let _ = write!(
            facts,
            " against {} (seed {})",
            md_code(&info.target),
            md_code(&info.seed.to_string())
        );
    }
    let _ = write!(facts, ": {}", counts_sentence(&s));
    if let Some(ms) = record.duration_ms() {
        let _ = write!(
            facts,
            " · {} wall, {} simulated",
            wall(ms),
            simulated(record.simulated_ms())
        );
    }
    let _ = writeln!(out, "{facts}\n");
    let _ = writeln!(out, "{}\n", md_text(&judged_sentence(&s)));
    if s.flaky > 0 {
        let _ = writeln!(
            out,
            "{} flaky (passed only on a retry)\n",
            scenarios(s.flaky)
        );
    }
    if s.quarantined_findings > 0 {
        let _ = writeln!(
            out,
            "{} quarantined: failed or errored, ignored by the gate\n",
            scenarios(s.quarantined_findings)
        );
    }
    for p in &s.quarantine_problems {
        let _ = writeln!(out, "- {}", md_text(p));
    }
    if !s.quarantine_problems.is_empty() {
        out.push('\n');
    }
    let groups = unsupported_groups(&s);
    if !groups.is_empty() {
        let _ = writeln!(out, "### Unsupported, by cause\n");
        let target = record.info().map_or("", |i| i.target.as_str());
        let _ = writeln!(
            out,
            "| cause | scenarios | to declare it |\n| --- | ---: | --- |"
        );
        for (k, n) in groups {
            let r = remedy(k, target).unwrap_or_default();
            let _ = writeln!(out, "| {} | {n} | {} |", md_text(k), md_text(&r));
        }
        out.push('\n');
    }

    let _ = writeln!(out, "### By KIP\n");
    let _ = writeln!(out, "| KIP | {} | Total |", COLUMNS.join(" | "));
    let _ = writeln!(out, "| --- |{} ---: |", " ---: |".repeat(COLUMNS.len()));
    for (kip, counts) in record.by_kip() {
        out.push_str(&table_row(&md_text(kip), &counts));
    }
    out.push_str(&table_row("**All**", &s));

    let findings: Vec<&ScenarioResult> = record.findings().collect();
    if !findings.is_empty() {
        let _ = writeln!(out, "\n### Findings ({})\n", findings.len());
        for r in &findings {
            out.push_str(&finding_item(r));
        }
    }
    let expected: Vec<&ScenarioResult> = record
        .results()
        .filter(|r| r.verdict == Verdict::ExpectedFailure)
        .collect();
    if !expected.is_empty() {
        let _ = writeln!(out, "\n### Expected failures ({})\n", expected.len());
        for r in &expected {
            let msg = r.failure.as_ref().map(|f| f.message.as_str()).unwrap_or("");
            let _ = writeln!(out, "- {}: {}", md_code(&r.id), md_code(msg));
        }
    }
    let diffs: Vec<String> = findings.iter().filter_map(|r| details(r)).collect();
    if !diffs.is_empty() {
        let _ = writeln!(out, "\n### Diffs\n");
        out.push_str(&diffs.join("\n"));
    }
    out
}
