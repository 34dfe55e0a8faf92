//! A failure in `report.html`: the first mismatch and the failing step, the mismatch table,
//! expected vs actual side by side (changed tokens marked, uncompared fields set apart), hex
//! dumps of raw bytes, and the exchange log that led to it. Renders what the events say;
//! decides and redacts nothing.

use std::fmt::Write as _;

use super::escape::escape;
use crate::report::diff::{pair_side_by_side, visible, DiffLine, LineDiff, LineTag};
use crate::report::hex::{hex_dump, HexDump};
use crate::report::labels::code_value;
use crate::report::text::{arrow, exchange_what, failure_diff, location_line, UNCOMPARED_LEGEND};
use crate::runner::{Exchange, ExchangeEntry, Failure};
use crate::scenario::types::serde_name;

pub(super) fn failure(out: &mut String, f: &Failure, source_anchor: Option<&str>) {
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
pub(super) fn exchange(out: &mut String, x: &Exchange) {
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
