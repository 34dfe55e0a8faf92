//! Computes the structured line diff of an expected and an actual YAML rendering (with
//! `similar`: patience algorithm, 500 ms budget, word-level emphasis inside changed lines).
//! Rendering is left to each format; this file neither colours nor escapes anything.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::time::Duration;

use similar::{Algorithm, ChangeTag, TextDiff};

/// Lines of unchanged context around each hunk.
pub const CONTEXT_LINES: usize = 3;

/// Time budget for one diff (insta's), after which `similar` falls back to a coarser diff.
const DIFF_BUDGET: Duration = Duration::from_millis(500);

/// What a diff line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineTag {
    /// In both texts.
    Equal,
    /// Only in the expected text.
    Delete,
    /// Only in the actual text.
    Insert,
}

/// A run of text within a line; `emphasized` marks the changed tokens of a changed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Whether this run differs from the other side.
    pub emphasized: bool,
    /// The text, without the line's newline.
    pub text: String,
}

/// One line of a diff with its line numbers (1-based) on each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    /// Equal, deleted (expected only) or inserted (actual only).
    pub tag: LineTag,
    /// Line number in the expected text.
    pub old_line: Option<usize>,
    /// Line number in the actual text.
    pub new_line: Option<usize>,
    /// The line's text in runs, without its newline.
    pub segments: Vec<Segment>,
    /// An actual-only line about a field the match did not compare (see
    /// [`LineDiff::mark_uncompared`]): shown apart from mismatches.
    pub uncompared: bool,
}

impl DiffLine {
    /// The whole line's text, without its newline.
    pub fn text(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }
}

/// The diff of two texts: hunks of changed lines with [`CONTEXT_LINES`] of context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDiff {
    /// Hunks in order; empty when the texts are identical.
    pub hunks: Vec<Vec<DiffLine>>,
    /// True when control characters (other than `\n`) occur in either text, so renderers
    /// should make them visible with [`visible`].
    pub show_invisibles: bool,
}

impl LineDiff {
    /// True when there is nothing to show: the texts are equal.
    pub fn is_identical(&self) -> bool {
        self.hunks.is_empty()
    }

    /// Marks the inserted (actual-only) lines whose actual line number is in `lines` (from
    /// [`uncompared_lines`]) as not compared.
    pub fn mark_uncompared(&mut self, lines: &BTreeSet<usize>) {
        for l in self.hunks.iter_mut().flatten() {
            l.uncompared =
                l.tag == LineTag::Insert && l.new_line.is_some_and(|n| lines.contains(&n));
        }
    }

    /// True when some line is marked not compared.
    pub fn has_uncompared(&self) -> bool {
        self.hunks.iter().flatten().any(|l| l.uncompared)
    }

    /// The widest line number, for gutter widths.
    pub fn max_line_number(&self) -> usize {
        self.hunks
            .iter()
            .flatten()
            .flat_map(|l| [l.old_line, l.new_line])
            .flatten()
            .max()
            .unwrap_or(0)
    }
}

/// Diffs `expected` against `actual` line by line, then word by word inside changed lines.
pub fn diff_lines(expected: &str, actual: &str) -> LineDiff {
    let show_invisibles = has_invisibles(expected) || has_invisibles(actual);
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .timeout(DIFF_BUDGET)
        .diff_lines(expected, actual);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_inline_changes(op) {
                let tag = match change.tag() {
                    ChangeTag::Equal => LineTag::Equal,
                    ChangeTag::Delete => LineTag::Delete,
                    ChangeTag::Insert => LineTag::Insert,
                };
                let mut segments: Vec<Segment> = Vec::new();
                for (emphasized, value) in change.iter_strings_lossy() {
                    let text = value.trim_end_matches('\n');
                    if text.is_empty() {
                        continue;
                    }
                    match segments.last_mut() {
                        Some(last) if last.emphasized == emphasized => last.text.push_str(text),
                        _ => segments.push(Segment {
                            emphasized,
                            text: text.to_owned(),
                        }),
                    }
                }
                lines.push(DiffLine {
                    tag,
                    old_line: change.old_index().map(|i| i + 1),
                    new_line: change.new_index().map(|i| i + 1),
                    segments,
                    uncompared: false,
                });
            }
        }
        hunks.push(lines);
    }
    LineDiff {
        hunks,
        show_invisibles,
    }
}

/// Pairs a hunk's lines for a side-by-side view: equal lines face each other, and each run
/// of deleted lines faces the run of inserted lines that follows it.
pub fn pair_side_by_side(hunk: &[DiffLine]) -> Vec<(Option<&DiffLine>, Option<&DiffLine>)> {
    let mut rows = Vec::new();
    let mut i = 0;
    while i < hunk.len() {
        if hunk[i].tag == LineTag::Equal {
            rows.push((Some(&hunk[i]), Some(&hunk[i])));
            i += 1;
            continue;
        }
        let dels: Vec<&DiffLine> = hunk[i..]
            .iter()
            .take_while(|l| l.tag == LineTag::Delete)
            .collect();
        i += dels.len();
        let ins: Vec<&DiffLine> = hunk[i..]
            .iter()
            .take_while(|l| l.tag == LineTag::Insert)
            .collect();
        i += ins.len();
        for k in 0..dels.len().max(ins.len()) {
            rows.push((dels.get(k).copied(), ins.get(k).copied()));
        }
    }
    rows
}

/// Makes control characters other than `\n` visible as control pictures (`␉`, `␍`, `␛`,
/// `␡`, …) when `show` is set (see [`LineDiff::show_invisibles`]).
pub fn visible(text: &str, show: bool) -> Cow<'_, str> {
    if !show || !text.chars().any(is_invisible) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\u{7f}' => '␡',
                c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
                c => c,
            })
            .collect(),
    )
}

/// The path of every line of a block-style YAML rendering (as the runner writes expected
/// and actual values): `Configs[3].ConfigValue` for the line `  ConfigValue: x` inside the
/// fourth item of `Configs`. Index `i` is line `i + 1`; a line that is no key or item (a
/// continuation of a multi-line scalar, a comment) gets its enclosing path.
pub fn yaml_paths(text: &str) -> Vec<String> {
    // (column, path, is a list item) of each open key or item.
    let mut open: Vec<(usize, String, bool)> = Vec::new();
    let mut next_index: std::collections::BTreeMap<String, usize> = Default::default();
    let mut out = Vec::new();
    for line in text.lines() {
        let mut col = line.len() - line.trim_start_matches(' ').len();
        let mut rest = &line[col..];
        let mut path = open.last().map(|o| o.1.clone()).unwrap_or_default();
        if rest.is_empty() || rest.starts_with('#') {
            out.push(path);
            continue;
        }
        while let Some(item) = rest.strip_prefix("- ").or((rest == "-").then_some("")) {
            while open
                .last()
                .is_some_and(|o| o.0 > col || (o.0 == col && o.2))
            {
                open.pop();
            }
            let parent = open.last().map(|o| o.1.clone()).unwrap_or_default();
            let i = next_index.entry(parent.clone()).or_insert(0);
            path = format!("{parent}[{i}]");
            *i += 1;
            next_index.remove(&path);
            open.push((col, path.clone(), true));
            col += 2;
            rest = item;
        }
        if let Some(key) = yaml_key(rest) {
            while open.last().is_some_and(|o| o.0 >= col) {
                open.pop();
            }
            let parent = open.last().map(|o| o.1.as_str()).unwrap_or_default();
            path = if parent.is_empty() {
                key.to_owned()
            } else {
                format!("{parent}.{key}")
            };
            next_index.remove(&path);
            open.push((col, path.clone(), false));
        }
        out.push(path);
    }
    out
}

/// The key of a `key: value` or `key:` line, unquoted.
fn yaml_key(rest: &str) -> Option<&str> {
    let end = rest
        .find(": ")
        .or_else(|| rest.ends_with(':').then(|| rest.len() - 1))?;
    let key = rest[..end].trim();
    let key = key
        .strip_prefix('\'')
        .and_then(|k| k.strip_suffix('\''))
        .or_else(|| key.strip_prefix('"').and_then(|k| k.strip_suffix('"')))
        .unwrap_or(key);
    (!key.is_empty() && !key.contains(' ')).then_some(key)
}

/// The actual-side line numbers (1-based) of lines no mismatch is about: fields the
/// subset match did not compare. A mismatch path (`body.Configs[3].ConfigValue`, with the
/// body's root `body` dropped, as the body is rendered alone; a `.length` mismatch is about
/// the list itself; `version`, `node` as they are, for the scalar checks) covers its own
/// line, its ancestors and its descendants. Empty when there are no mismatches (nothing to tell apart).
pub fn uncompared_lines(actual: &str, mismatch_paths: &[&str]) -> BTreeSet<usize> {
    if mismatch_paths.is_empty() {
        return BTreeSet::new();
    }
    let covered: Vec<&str> = mismatch_paths
        .iter()
        .map(|p| {
            let p = p.strip_suffix(".length").unwrap_or(p);
            match p.strip_prefix("body") {
                Some("") => "",
                Some(rest) if rest.starts_with('[') => rest,
                Some(rest) => rest.strip_prefix('.').unwrap_or(p),
                None => p,
            }
        })
        .collect();
    let related = |a: &str, b: &str| {
        let under = |long: &str, short: &str| {
            short.is_empty()
                || long == short
                || (long.starts_with(short)
                    && matches!(long.as_bytes().get(short.len()), Some(b'.' | b'[')))
        };
        under(a, b) || under(b, a)
    };
    yaml_paths(actual)
        .iter()
        .enumerate()
        .filter(|(_, path)| !covered.iter().any(|c| related(path, c)))
        .map(|(i, _)| i + 1)
        .collect()
}

fn is_invisible(c: char) -> bool {
    c != '\n' && (c.is_ascii_control())
}

fn has_invisibles(text: &str) -> bool {
    text.chars().any(is_invisible)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_have_no_hunks() {
        assert!(diff_lines("a: 1\n", "a: 1\n").is_identical());
    }

    #[test]
    fn changed_line_emphasizes_the_changed_token() {
        let d = diff_lines("a: 1\nb: 2\n", "a: 1\nb: 3\n");
        let lines = &d.hunks[0];
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].tag, LineTag::Delete);
        assert_eq!(lines[1].old_line, Some(2));
        assert!(lines[1]
            .segments
            .iter()
            .any(|s| s.emphasized && s.text == "2"));
        assert_eq!(lines[2].new_line, Some(2));
        let rows = pair_side_by_side(lines);
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn yaml_lines_get_their_paths_in_both_list_styles() {
        let text = "ErrorCode: 0\nConfigs:\n- ConfigKey: a\n  ConfigValue: '1'\n- ConfigKey: b\nNested:\n  Inner:\n    - 5\n    - 6\n  After: x\nTop: 1\n";
        assert_eq!(
            yaml_paths(text),
            [
                "ErrorCode",
                "Configs",
                "Configs[0].ConfigKey",
                "Configs[0].ConfigValue",
                "Configs[1].ConfigKey",
                "Nested",
                "Nested.Inner",
                "Nested.Inner[0]",
                "Nested.Inner[1]",
                "Nested.After",
                "Top",
            ]
        );
    }

    #[test]
    fn lines_no_mismatch_touches_are_uncompared() {
        let actual = "ErrorCode: 37\nErrorMessage: bad\nThrottleTimeMs: 0\nConfigs:\n- ConfigKey: a\n  ConfigValue: x\n";
        let set = uncompared_lines(actual, &["body.ErrorCode", "body.Configs[0].ConfigValue"]);
        // ErrorMessage, ThrottleTimeMs and the ConfigKey of item 0 were not compared; the
        // list and its item are ancestors of a mismatch.
        assert_eq!(set.into_iter().collect::<Vec<_>>(), [2, 3, 5]);
        assert!(uncompared_lines(actual, &[]).is_empty());
        assert!(uncompared_lines(actual, &["body"]).is_empty());
        // A scalar check's path is not under the body.
        assert_eq!(
            uncompared_lines("node: 2\nversion: 1\n", &["version"])
                .into_iter()
                .collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(
            uncompared_lines(actual, &["body.Configs.length"])
                .into_iter()
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
    }

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(visible("a\tb\u{1b}", true), "a␉b␛");
        assert_eq!(visible("a\tb", false), "a\tb");
    }
}
