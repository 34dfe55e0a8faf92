//! Numbers the documentation states that the tool can produce are checked here against what
//! it produces: the scenario count (whole suite and per role), the number of built-in faulty
//! variants (all and client-side), the `exec:` example adapter's pass count (as
//! `exec_adapter.rs` asserts it) and the fuzz targets `fuzz/README.md` names. The
//! counts `kipcheck mutants` produces are checked in `docs_kill_matrix`.
//!
//! Two kinds of check. Explicit claims (a file and a phrase with the number in it) must be
//! there, word for word. And a scan of every doc (`README.md`, `docs/*.md` but `docs/spec`,
//! `fuzz/README.md`) for phrases that state a count (`the N scenarios`, `of the N broker
//! scenarios`, `N faulty variants`, `N/N variants caught`, ...): each must be the current
//! count unless its sentence, or the heading of its section, carries the date it was measured
//! (`2026-12-01`): a dated figure is history and says so.

use kipcheck::faulty::Fault;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kipcheck::scenario::load_dir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

pub(super) fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every doc the checks cover, by repository path.
fn docs() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_owned(), "fuzz/README.md".to_owned()];
    let mut in_docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    in_docs.sort();
    names.extend(in_docs);
    names
        .into_iter()
        .map(|n| (read(&n), n))
        .map(|(t, n)| (n, t))
        .collect()
}

/// What the suite holds now.
#[derive(Debug)]
pub(super) struct Suite {
    pub(super) total: usize,
    by_role: BTreeMap<String, usize>,
    by_area: BTreeMap<String, usize>,
}

pub(super) fn suite() -> Suite {
    let scenarios = load_dir(&repo().join("scenarios")).expect("the suite loads");
    let mut by_role = BTreeMap::new();
    let mut by_area = BTreeMap::new();
    for s in &scenarios {
        for r in &s.file.roles {
            *by_role.entry(r.name()).or_insert(0) += 1;
        }
        *by_area.entry(s.area.clone()).or_insert(0) += 1;
    }
    Suite {
        total: scenarios.len(),
        by_role,
        by_area,
    }
}

fn client_faults() -> usize {
    Fault::ALL
        .iter()
        .filter(|f| f.bug().starts_with("Client:"))
        .count()
}

/// Words of `text` with their byte offsets, punctuation and Markdown marks trimmed.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                let w = &text[s..i];
                let lead = w.len() - w.trim_start_matches(['(', '*', '`', '"']).len();
                let w = w
                    .trim_start_matches(['(', '*', '`', '"'])
                    .trim_end_matches([',', '.', ';', ':', ')', '*', '`', '"']);
                out.push((s + lead, w));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

fn number(w: &str) -> Option<usize> {
    (!w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
        .then(|| w.parse().ok())
        .flatten()
}

/// Whether `s` holds a date `YYYY-MM-DD`.
fn has_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(10).any(|w| {
        w.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        }) && w.starts_with(b"20")
    })
}

/// Whether the figure at `pos` is dated: its sentence (or list item) or the heading of its
/// section names the day it was measured.
fn dated(text: &str, pos: usize) -> bool {
    let before = &text[..pos];
    let start = [". ", ".\n", "\n\n", "\n- ", "\n|"]
        .iter()
        .filter_map(|m| before.rfind(m).map(|i| i + m.len()))
        .max()
        .unwrap_or(0);
    let after = &text[pos..];
    let end = [". ", ".\n", "\n\n", "\n- ", "|\n"]
        .iter()
        .filter_map(|m| after.find(m))
        .min()
        .map_or(text.len(), |i| pos + i);
    let heading = before
        .lines()
        .rev()
        .find(|l| l.starts_with('#'))
        .unwrap_or("");
    has_date(&text[start..end]) || has_date(heading)
}

/// One count a doc states.
#[derive(Debug, PartialEq, Eq)]
struct Claim {
    doc: String,
    line: usize,
    phrase: String,
    stated: usize,
    actual: usize,
}

/// Every undated count in the docs, with what it should be.
fn stated_counts(suite: &Suite) -> Vec<Claim> {
    claims_in(&docs(), suite)
}

/// The undated counts in `docs` (name, text), with what each should be.
fn claims_in(docs: &[(String, String)], suite: &Suite) -> Vec<Claim> {
    let roles = ["broker", "controller", "client"];
    let faults = Fault::ALL.len();
    let mut out = Vec::new();
    for (doc, text) in docs {
        let w = words(text);
        for i in 0..w.len() {
            let at = |k: usize| w.get(i + k).map_or("", |x| x.1);
            let prev = if i > 0 {
                w[i - 1].1.to_lowercase()
            } else {
                String::new()
            };
            let mut claim = |len: usize, stated: usize, actual: usize| {
                let pos = w[i].0;
                if dated(text, pos) {
                    return;
                }
                let end = w[i + len - 1].0 + w[i + len - 1].1.len();
                out.push(Claim {
                    doc: doc.clone(),
                    line: text[..pos].lines().count().max(1),
                    phrase: text[pos..end]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                    stated,
                    actual,
                });
            };
            if let Some((a, b)) = w[i].1.split_once('/') {
                // `85/85 variants caught`: every variant caught, out of all of them.
                if let (Some(a), Some(b)) = (number(a), number(b)) {
                    if at(1) == "variants" && at(2) == "caught" {
                        claim(3, a, faults);
                        claim(3, b, faults);
                    }
                }
                continue;
            }
            let Some(n) = number(w[i].1) else { continue };
            let after_the = matches!(prev.as_str(), "the" | "all");
            if after_the && at(1) == "scenarios" {
                claim(2, n, suite.total);
            } else if after_the && roles.contains(&at(1)) && at(2) == "scenarios" {
                claim(3, n, suite.by_role[at(1)]);
            } else if at(1) == "selected" {
                claim(2, n, suite.total);
            } else if at(1) == "faulty" {
                claim(2, n, faults);
            } else if at(1) == "built-in" && at(2) == "faulty" {
                claim(3, n, faults);
            } else if at(1) == "client" && matches!(at(2), "faulty" | "variants") {
                claim(3, n, client_faults());
            } else if prev == "all" && at(1) == "are" && at(2) == "caught" {
                claim(3, n, faults);
            } else if prev == "the" && at(1) == "bugs" {
                claim(2, n, faults);
            }
        }
    }
    out
}

#[test]
fn the_counting_sees_the_suite_and_the_variants() {
    let s = suite();
    assert!(s.total >= 290, "{s:?}");
    assert_eq!(s.by_role.values().sum::<usize>(), s.total, "one role each");
    assert_eq!(s.by_area.values().sum::<usize>(), s.total);
    assert_eq!(
        s.by_role.keys().collect::<Vec<_>>(),
        ["broker", "client", "controller"]
    );
    // The built-in suite is the folder.
    assert_eq!(
        kipcheck::scenario::load_embedded()
            .expect("built-in suite")
            .len(),
        s.total
    );
    assert!(client_faults() > 0 && client_faults() < Fault::ALL.len());
    // The scan finds what it is meant to find, and dated figures are left alone.
    let text = "As measured: the 12 scenarios, of the 3 broker scenarios, 7/7 variants \
                caught, 9 built-in faulty variants, all 4 are caught.\n\n\
                On 2026-12-01 the 11 scenarios ran.\n\n## Measured (2026-11-30)\n\n\
                the 10 scenarios\n";
    let claims = claims_in(&[("x.md".to_owned(), text.to_owned())], &s);
    let got: Vec<(&str, usize, usize)> = claims
        .iter()
        .map(|c| (c.phrase.as_str(), c.stated, c.actual))
        .collect();
    let f = Fault::ALL.len();
    assert_eq!(
        got,
        [
            ("12 scenarios", 12, s.total),
            ("3 broker scenarios", 3, s.by_role["broker"]),
            ("7/7 variants caught", 7, f),
            ("7/7 variants caught", 7, f),
            ("9 built-in faulty", 9, f),
            ("4 are caught", 4, f),
        ]
    );
    assert!(claims.iter().all(|c| c.doc == "x.md" && c.line == 1));
}

#[test]
fn every_undated_count_in_the_docs_is_the_current_one() {
    let s = suite();
    let claims = stated_counts(&s);
    let wrong: Vec<String> = claims
        .iter()
        .filter(|c| c.stated != c.actual)
        .map(|c| {
            format!(
                "{}:{}: \"{}\" says {}, it is {} (fix it, or date it if it is a measurement)",
                c.doc, c.line, c.phrase, c.stated, c.actual
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The scan found the claims this test exists for (it cannot pass by finding nothing).
    for (doc, phrase) in [
        ("README.md", format!("{} scenarios", s.total)),
        ("README.md", format!("{} built-in faulty", Fault::ALL.len())),
        ("docs/mutants.md", format!("{} bugs", Fault::ALL.len())),
        ("docs/mutants.md", format!("{} faulty", Fault::ALL.len())),
        ("docs/verdicts.md", format!("{} faulty", Fault::ALL.len())),
        ("docs/cli.md", format!("{} selected", s.total)),
    ] {
        assert!(
            claims.iter().any(|c| c.doc == doc && c.phrase == phrase),
            "{doc}: \"{phrase}\" not found: {claims:#?}"
        );
    }
}

/// Explicit claims: the phrase must be in the doc, word for word (whitespace folded).
pub(super) fn assert_states(doc: &str, phrase: &str) {
    let text = read(doc).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains(phrase), "{doc} does not say \"{phrase}\"");
}

#[test]
fn suite_and_variant_counts_are_stated_where_the_docs_state_them() {
    let s = suite();
    let faults = Fault::ALL.len();
    assert_states(
        "README.md",
        &format!("works from any directory, with all {} scenarios", s.total),
    );
    assert_states(
        "README.md",
        &format!("against {faults} built-in faulty variants of the reference"),
    );
    assert_states("README.md", &format!("All {faults} are caught"));
    assert_states(
        "docs/mutants.md",
        &format!("kipcheck ships {faults} faulty variants of its reference"),
    );
    assert_states(
        "docs/mutants.md",
        &format!(
            "{faults}/{faults} variants caught** by the {} scenarios",
            s.total
        ),
    );
}

/// The example output of `kipcheck list --target tcp://127.0.0.1:9092` in docs/cli.md is
/// the real one (run against a closed port: nothing answers, it plans from what was declared).
#[test]
fn the_list_example_in_cli_md_is_what_list_prints() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .unwrap()
        .port();
    let target = format!("tcp://127.0.0.1:{port}");
    let out = Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args(["list", "--target", &target])
        .output()
        .expect("run kipcheck list");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let summary = stdout
        .lines()
        .find(|l| l.contains(" selected, "))
        .expect("a summary line")
        .replace(&target, "tcp://127.0.0.1:9092");
    let s = suite();
    assert!(
        summary.starts_with(&format!("{} selected, ", s.total)),
        "{summary}"
    );
    assert_states("docs/cli.md", &summary);
    // The roles a broker target does not play, one count each.
    for role in ["client", "controller"] {
        let line = format!("{}  does not play {role}", s.by_role[role]);
        assert!(stdout.lines().any(|l| l.trim() == line), "{stdout}");
    }
    // Every count line the example shows under the summary is one the command prints.
    let doc = read("docs/cli.md");
    let shown: Vec<&str> = doc
        .lines()
        .skip_while(|l| !l.contains(" selected, "))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .filter(|l| l.trim() != "…")
        .collect();
    assert!(shown.len() >= 4, "{shown:?}");
    for line in shown {
        assert!(
            stdout.lines().any(|l| l.trim() == line.trim()),
            "docs/cli.md shows \"{line}\", kipcheck list prints:\n{stdout}"
        );
    }
}

/// The live client gate the README states is the one CI applies (`.ci/run`), out of the
/// current client scenarios and client variants.
#[test]
fn the_live_client_gate_in_the_readme_is_cis() {
    let ci = read(".ci/run");
    let marker = "KIPCHECK_REPORT_DIR=target/ci-live-client KIPCHECK_MIN_JUDGED=";
    let i = ci
        .find(marker)
        .expect(".ci/run gates the live client suite");
    let gate: String = ci[i + marker.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(!gate.is_empty());
    let s = suite();
    assert_states(
        "README.md",
        &format!(
            "requires {gate} judged, all passing: {gate} of the {} client scenarios",
            s.by_role["client"]
        ),
    );
    assert_states(
        "README.md",
        &format!(
            "of the {} client faulty variants are caught live",
            client_faults()
        ),
    );
}

#[test]
fn the_exec_adapter_count_in_ci_md_is_the_one_its_test_asserts() {
    let test = read("harness/tests/peers/exec_adapter/mod.rs");
    let marker = "assert_eq!(summary.passed, ";
    let i = test
        .find(marker)
        .expect("exec_adapter/mod.rs asserts the pass count");
    let n: String = test[i + marker.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(!n.is_empty());
    assert_states(
        "docs/ci.md",
        &format!("(`examples/python-broker`): {n} broker scenarios pass"),
    );
}

#[test]
fn fuzz_readme_names_every_fuzz_target_and_no_other() {
    let mut targets: Vec<String> = std::fs::read_dir(repo().join("fuzz/fuzz_targets"))
        .expect("fuzz/fuzz_targets")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_owned))
        .collect();
    targets.sort();
    assert!(targets.len() >= 10, "{targets:?}");
    let readme = read("fuzz/README.md");
    let section = readme
        .split("## Targets")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("fuzz/README.md has a Targets section");
    let mut named: Vec<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |").map(|(n, _)| n.to_owned()))
        .collect();
    named.sort();
    assert_eq!(named, targets, "fuzz/README.md's target table");
    // And each is a bin of the fuzz crate.
    let cargo = read("fuzz/Cargo.toml");
    for t in &targets {
        assert!(
            cargo.contains(&format!("name = \"{t}\"")),
            "fuzz/Cargo.toml lacks {t}"
        );
    }
}
