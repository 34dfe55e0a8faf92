//! Plain-text (optionally ANSI-coloured) rendering of one scenario's failure: header,
//! failing step, first mismatch, the insta-style diff table (legend, two line-number gutters,
//! context hunks, emphasized tokens, visible invisibles), hex dump and reproduction command.
//! Shared by the terminal and by `junit.xml`'s system-out; it writes nothing itself.

use std::fmt::Write as _;

use super::diff::{diff_lines, uncompared_lines, DiffLine, LineDiff, LineTag, Segment};
use super::hex::{hex_dump, HexDump};
use super::labels::{code_value, grade_word, verdict_tag};
use crate::runner::{
    Direction, ExchangeEntry, ExchangeKind, Failure, Mismatch, ScenarioResult, Verdict,
};

/// How much to show and whether to colour it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockOptions {
    /// Emit ANSI colour codes.
    pub color: bool,
    /// Include the step YAML and every mismatch (otherwise only the first mismatch).
    pub full: bool,
    /// At most this many hex rows (the rest is summarised).
    pub max_hex_rows: usize,
    /// At most this many (last) entries of the exchange log.
    pub exchange_rows: usize,
}

/// ANSI styling that degrades to plain text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paint {
    pub color: bool,
}

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.color && !s.is_empty() {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
    pub(super) fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }
    pub(super) fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
    pub(super) fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
    pub(super) fn magenta(self, s: &str) -> String {
        self.wrap("35", s)
    }
    pub(super) fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }
    pub(super) fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    /// Colours a verdict tag.
    pub(super) fn verdict(self, v: Verdict) -> String {
        let tag = verdict_tag(v);
        match v {
            Verdict::Passed => self.green(tag),
            Verdict::Failed | Verdict::Errored => self.wrap("1;31", tag),
            Verdict::Unsupported | Verdict::ExpectedFailure => self.yellow(tag),
            Verdict::UnexpectedPass => self.wrap("1;35", tag),
        }
    }
    /// A diff line's segments: changed tokens underlined and bold inside the line colour.
    fn segments(self, tag: LineTag, segments: &[Segment], show_invisibles: bool) -> String {
        let line_code = match tag {
            LineTag::Equal => "2",
            LineTag::Delete => "31",
            LineTag::Insert => "32",
        };
        let mut out = String::new();
        for seg in segments {
            let text = super::diff::visible(&seg.text, show_invisibles);
            if seg.emphasized && tag != LineTag::Equal {
                out.push_str(&self.wrap(&format!("{line_code};1;4"), &text));
            } else {
                out.push_str(&self.wrap(line_code, &text));
            }
        }
        out
    }
}

/// `path: expected X, actual Y` (error codes named: `37 (INVALID_CONFIG)`).
pub(crate) fn mismatch_line(m: &Mismatch) -> String {
    format!(
        "{}: expected {}, actual {}",
        m.path,
        code_value(&m.path, &m.expected),
        code_value(&m.path, &m.actual)
    )
}

/// Where the failure happened: `file:line:col (step index N)` or `(setup)`.
pub(crate) fn location_line(f: &Failure) -> String {
    match f.step {
        Some(i) => format!("{} (step index {i})", f.location),
        None => format!("{} (setup)", f.location),
    }
}

/// The line diff of a failure's expected and actual renderings, if it has either, with the
/// actual-only lines no mismatch is about marked as not compared.
pub(crate) fn failure_diff(f: &Failure) -> Option<LineDiff> {
    if f.expected.is_none() && f.actual.is_none() {
        return None;
    }
    let actual = f.actual.as_deref().unwrap_or("");
    let mut diff = diff_lines(f.expected.as_deref().unwrap_or(""), actual);
    if f.expected.is_some() {
        let paths: Vec<&str> = f.mismatches.iter().map(|m| m.path.as_str()).collect();
        diff.mark_uncompared(&uncompared_lines(actual, &paths));
    }
    Some(diff)
}

/// The sign of a diff line: ` `, `-`, `+`, or `·` for a field the match did not compare.
pub(crate) fn diff_sign(line: &DiffLine) -> char {
    match line.tag {
        _ if line.uncompared => '·',
        LineTag::Equal => ' ',
        LineTag::Delete => '-',
        LineTag::Insert => '+',
    }
}

/// The legend's words for lines marked `·`.
pub(crate) const UNCOMPARED_LEGEND: &str = "not compared (the pattern does not name it)";

/// `→` for what kipcheck sent, `←` for what it received.
pub(crate) fn arrow(d: Direction) -> &'static str {
    match d {
        Direction::Sent => "→",
        Direction::Received => "←",
    }
}

/// One exchange entry's head: `#3      6 ms → node 1 PushConfig v0 response corr 7 (600 bytes)`.
pub(crate) fn exchange_head(e: &ExchangeEntry) -> String {
    format!(
        "#{} {:>6} ms {} {} {}",
        e.seq,
        e.at_ms,
        arrow(e.direction),
        e.peer,
        exchange_what(e)
    )
}

/// What an entry is, without its position, time and peer:
/// `PushConfig v0 response corr 7 (600 bytes)`, `closed the connection`, `disconnect`.
pub(crate) fn exchange_what(e: &ExchangeEntry) -> String {
    let mut out = String::new();
    match e.kind {
        ExchangeKind::Action => return e.note.clone().unwrap_or_else(|| "action".into()),
        ExchangeKind::Close => return "closed the connection".into(),
        ExchangeKind::Request | ExchangeKind::Response => {}
    }
    if let Some(api) = &e.api {
        let _ = write!(out, "{api} ");
    }
    if let Some(v) = e.version {
        let _ = write!(out, "v{v} ");
    }
    out.push_str(match e.kind {
        ExchangeKind::Request => "request",
        _ => "response",
    });
    if let Some(c) = e.correlation_id {
        let _ = write!(out, " corr {c}");
    }
    let _ = write!(out, " ({} bytes)", e.len);
    if let Some(n) = &e.note {
        let _ = write!(out, ": {n}");
    }
    out
}

/// The compact body of an entry, at most `max` characters: `{"ErrorCode":37,...}`.
pub(crate) fn exchange_body(e: &ExchangeEntry, max: usize) -> Option<String> {
    let text = match e.body.as_ref()? {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if text.chars().count() <= max {
        return Some(text);
    }
    Some(format!("{}…", text.chars().take(max).collect::<String>()))
}

/// Characters of a body shown per entry on the terminal.
const TERMINAL_BODY_CHARS: usize = 100;

/// The message shown for a stale baseline entry.
pub(crate) const STALE_MESSAGE: &str =
    "stale baseline entry: the baseline expects this scenario to fail, but it passed";

/// Renders the block for one scenario that needs explaining. Every line ends with `\n`.
pub(crate) fn failure_block(r: &ScenarioResult, opts: BlockOptions) -> String {
    let p = Paint { color: opts.color };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} {}",
        p.verdict(r.verdict),
        p.bold(&r.id),
        p.dim(&format!(
            "({} · {} · {})",
            r.kip,
            r.area,
            grade_word(r.grade)
        ))
    );
    let _ = writeln!(out, "  {}", r.title);
    if r.verdict == Verdict::UnexpectedPass {
        let _ = writeln!(out, "  {}", p.magenta(STALE_MESSAGE));
    }
    if let Some(reason) = &r.unsupported_reason {
        let _ = writeln!(out, "  unsupported: {reason}");
    }
    if let Some(f) = &r.failure {
        let _ = writeln!(out, "  at {}", location_line(f));
        let _ = writeln!(out, "  first mismatch: {}", p.bold(&f.message));
        if opts.full && !f.mismatches.is_empty() {
            let _ = writeln!(out, "  mismatches ({}):", f.mismatches.len());
            for m in &f.mismatches {
                let _ = writeln!(out, "    - {}", mismatch_line(m));
            }
        }
        if opts.full && !f.step_yaml.trim().is_empty() {
            let _ = writeln!(out, "  step:");
            for line in f.step_yaml.trim_end().lines() {
                let _ = writeln!(out, "    {} {line}", p.dim("│"));
            }
        }
        if let Some(diff) = failure_diff(f) {
            out.push_str(&diff_table(&diff, p));
        }
        if let Some(hex) = &f.raw_hex {
            out.push_str(&hex_block(hex, opts.max_hex_rows));
        }
    }
    if opts.full && !r.timings.is_empty() {
        let _ = writeln!(out, "  timings on the real clock ({}):", r.timings.len());
        for t in &r.timings {
            let _ = writeln!(out, "    - {}", timing_line(t));
        }
    }
    if let Some(x) = r.exchange.as_ref().filter(|x| !x.entries.is_empty()) {
        let shown = x.entries.len().min(opts.exchange_rows);
        let skipped = x.cut_before + x.entries.len() - shown;
        let _ = writeln!(
            out,
            "  exchange ({} entr{}{}):",
            shown,
            if shown == 1 { "y" } else { "ies" },
            if skipped > 0 {
                format!(", {skipped} earlier not shown")
            } else {
                String::new()
            }
        );
        for e in &x.entries[x.entries.len() - shown..] {
            let _ = writeln!(out, "    {}", exchange_head(e));
            let max = if opts.full {
                usize::MAX
            } else {
                TERMINAL_BODY_CHARS
            };
            if let Some(body) = exchange_body(e, max) {
                let _ = writeln!(out, "      {}", p.dim(&body));
            }
        }
    }
    let _ = writeln!(out, "  reproduce: {}", p.bold(&r.reproduce));
    out
}

/// One judged timing (step index 0-based, as in results.json): `step 5 after_ms: expected 0, accepted {"$range":[0,25]}, measured 3 ms`.
pub(crate) fn timing_line(t: &crate::runner::TimingCheck) -> String {
    let measured = t
        .measured_ms
        .map_or_else(|| "nothing came".to_owned(), |m| format!("measured {m} ms"));
    format!(
        "step {} {}: expected {}, accepted {}, {measured}{}",
        t.step,
        t.check,
        t.expected,
        t.accepted,
        if t.ok { "" } else { " (rejected)" }
    )
}

/// The insta-style table: legend, two right-aligned gutters, `│`, dotted hunk separators.
pub(crate) fn diff_table(diff: &LineDiff, p: Paint) -> String {
    let mut out = String::new();
    if diff.has_uncompared() {
        let _ = writeln!(
            out,
            "  {} {} {}",
            p.red("-expected"),
            p.green("+actual"),
            p.dim(&format!("·{UNCOMPARED_LEGEND}"))
        );
    } else {
        let _ = writeln!(out, "  {} {}", p.red("-expected"), p.green("+actual"));
    }
    if diff.is_identical() {
        let _ = writeln!(
            out,
            "  {}",
            p.dim("no differences in the rendered values; see the mismatch above")
        );
        return out;
    }
    let w = diff.max_line_number().to_string().len().max(3);
    for (i, hunk) in diff.hunks.iter().enumerate() {
        if i > 0 {
            let _ = writeln!(
                out,
                "  {}",
                p.dim(&format!("{}┼{}", "┈".repeat(2 * w + 2), "┈".repeat(8)))
            );
        }
        for line in hunk {
            let old = line.old_line.map(|n| n.to_string()).unwrap_or_default();
            let new = line.new_line.map(|n| n.to_string()).unwrap_or_default();
            let sign = diff_sign(line).to_string();
            let (sign, text) = if line.uncompared {
                (
                    p.dim(&sign),
                    p.dim(&super::diff::visible(&line.text(), diff.show_invisibles)),
                )
            } else {
                let sign = match line.tag {
                    LineTag::Equal => p.dim(&sign),
                    LineTag::Delete => p.red(&sign),
                    LineTag::Insert => p.green(&sign),
                };
                (
                    sign,
                    p.segments(line.tag, &line.segments, diff.show_invisibles),
                )
            };
            let _ = writeln!(
                out,
                "  {} {} │{}{}",
                p.dim(&format!("{old:>w$}")),
                p.dim(&format!("{new:>w$}")),
                sign,
                text
            );
        }
    }
    out
}

/// A plain unified rendering (`@@ -a,b +c,d @@`, then ` `/`-`/`+` lines, `·` for lines not
/// compared) for Markdown.
pub(crate) fn unified(diff: &LineDiff) -> String {
    let mut out = String::from("--- expected\n+++ actual\n");
    if diff.has_uncompared() {
        let _ = writeln!(out, "# · {UNCOMPARED_LEGEND}");
    }
    for hunk in &diff.hunks {
        let old: Vec<usize> = hunk.iter().filter_map(|l| l.old_line).collect();
        let new: Vec<usize> = hunk.iter().filter_map(|l| l.new_line).collect();
        let range = |v: &[usize]| match (v.first(), v.len()) {
            (Some(first), n) => format!("{first},{n}"),
            (None, _) => "0,0".to_owned(),
        };
        let _ = writeln!(out, "@@ -{} +{} @@", range(&old), range(&new));
        for line in hunk {
            let sign = diff_sign(line);
            let text = line.text();
            let _ = writeln!(
                out,
                "{sign}{}",
                super::diff::visible(&text, diff.show_invisibles)
            );
        }
    }
    out
}

/// `raw bytes (N):` and the dump rows, at most `max_rows`.
pub(crate) fn hex_block(hex: &str, max_rows: usize) -> String {
    let mut out = String::new();
    match hex_dump(hex) {
        HexDump::Rows { rows, len } => {
            let _ = writeln!(out, "  raw bytes ({len}):");
            for row in rows.iter().take(max_rows) {
                let _ = writeln!(out, "    {}", row.line());
            }
            if rows.len() > max_rows {
                let shown = max_rows * super::hex::BYTES_PER_ROW;
                let _ = writeln!(out, "    … {} more bytes", len - shown);
            }
        }
        HexDump::Invalid(text) => {
            let _ = writeln!(out, "  raw bytes (not valid hex): {text}");
        }
    }
    out
}

#[cfg(test)]
mod timing_tests {
    use super::timing_line;
    use crate::runner::TimingCheck;

    #[test]
    fn a_timing_line_shows_expected_accepted_and_measured() {
        let mut t = TimingCheck {
            step: 5,
            check: "after_ms".into(),
            expected: "0".into(),
            accepted: "{\"$range\":[0,25]}".into(),
            measured_ms: Some(3),
            ok: true,
        };
        assert_eq!(
            timing_line(&t),
            "step 5 after_ms: expected 0, accepted {\"$range\":[0,25]}, measured 3 ms"
        );
        t.measured_ms = None;
        t.ok = false;
        assert_eq!(
            timing_line(&t),
            "step 5 after_ms: expected 0, accepted {\"$range\":[0,25]}, nothing came (rejected)"
        );
    }
}
