//! The kill counts and tables the docs take from `kipcheck mutants`: runs it over the built-in
//! suite with `--observe none` (the wire-only counts README.md, docs/ci.md, docs/verdicts.md
//! and docs/mutants.md state) and with events, regenerating docs/mutants.md's kill-matrix
//! tables (`--doc-tables`) into a copy that must equal the doc. Both runs together take about
//! a minute in a debug build. Helpers are `docs_numbers`'; nothing here writes the real doc.

use kipcheck::faulty::Fault;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::docs_numbers::{assert_states, read, suite};

/// `kipcheck mutants --observe none`, then with events (`--doc-tables` on a copy of
/// docs/mutants.md) over the built-in suite: the wire-only counts the docs state, and the
/// generated kill-matrix tables of docs/mutants.md, are what the tool produces now.
#[test]
fn kill_counts_and_tables_are_what_kipcheck_mutants_prints() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs_numbers_mutants");
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args([
            "mutants",
            "--seed",
            "1",
            "--observe",
            "none",
            "--report-dir",
        ])
        .arg(&dir)
        .output()
        .expect("run kipcheck mutants");
    // Exit 1: some variant survives on the wire alone (as the docs say).
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("mutants.json")).unwrap()).unwrap();
    let total = json["variants_total"].as_u64().unwrap();
    let caught = json["caught"].as_u64().unwrap();
    let dead: Vec<&str> = json["dead_weight"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(total as usize, Fault::ALL.len());
    assert_eq!(json["scenarios"].as_u64().unwrap() as usize, suite().total);
    assert!(caught < total);
    let areas = dead
        .iter()
        .filter(|id| id.starts_with("k1294-") || id.starts_with("k1326-"))
        .count();
    assert_states(
        "README.md",
        &format!("and {caught} on wire evidence alone (`--observe none`)"),
    );
    assert_states(
        "docs/mutants.md",
        &format!("{caught}/{total} with `--observe none` (wire evidence only)"),
    );
    assert_states(
        "docs/mutants.md",
        &format!(
            "with `--observe none` (wire evidence only), where {} scenarios catch none of the {total} bugs",
            dead.len()
        ),
    );
    assert_states(
        "docs/mutants.md",
        &format!("; {areas} with `--observe none`:"),
    );
    assert_states("docs/ci.md", &format!("at least {caught} of the {total}"));
    assert_states(
        "docs/verdicts.md",
        &format!("**{caught} of the {total} faulty variants are caught on the wire alone**"),
    );
    assert_tables_are_generated(&dir.join("mutants.json"), &dead);
}

/// Runs `kipcheck mutants --seed 1` with events, regenerating the tables into a copy of
/// docs/mutants.md from it and `wire_json`; the copy must be the doc. Also checks the
/// KIP-1326/KIP-1294 dead-weight counts stated next to the tables (`wire_dead`: the
/// wire-only run's dead weight) and that each KIP-1326 table variant is caught by two or more.
fn assert_tables_are_generated(wire_json: &Path, wire_dead: &[&str]) {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs_numbers_tables");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let doc = read("docs/mutants.md");
    let copy = tmp.join("mutants.md");
    std::fs::write(&copy, &doc).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args(["mutants", "--seed", "1", "--report-dir"])
        .arg(tmp.join("observed"))
        .arg("--wire-json")
        .arg(wire_json)
        .arg("--doc-tables")
        .arg(&copy)
        .output()
        .expect("run kipcheck mutants");
    assert_eq!(
        out.status.code(),
        Some(0),
        "every variant is caught with events: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let regenerated = std::fs::read_to_string(&copy).unwrap();
    let differ: Vec<String> = doc
        .lines()
        .zip(regenerated.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| format!("docs/mutants.md:{}:\n  doc: {a}\n  now: {b}", i + 1))
        .take(5)
        .collect();
    assert!(
        doc == regenerated,
        "docs/mutants.md's generated kill-matrix tables are stale; regenerate them from the \
         repository root with\n  {}\n{}",
        kipcheck::report::DOC_TABLES_COMMAND,
        differ.join("\n")
    );
    // The prose beside the KIP-1326 table: each variant caught by at least two, both modes.
    let observed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.join("observed/mutants.json")).unwrap())
            .unwrap();
    let wire: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(wire_json).unwrap()).unwrap();
    let kip1326 = &kipcheck::report::TABLES[0];
    assert_eq!(kip1326.name, "kill-matrix-kip1326");
    for json in [&observed, &wire] {
        for v in json["variants"].as_array().unwrap() {
            let name = v["name"].as_str().unwrap();
            if kip1326.variants.contains(&name) {
                let n = v["killed_by"].as_array().unwrap().len();
                assert!(
                    n >= 2,
                    "{name} is caught by {n}: docs/mutants.md says at least two"
                );
            }
        }
    }
    let areas = |dead: Vec<&str>| {
        dead.into_iter()
            .filter(|id| id.starts_with("k1294-") || id.starts_with("k1326-"))
            .count()
    };
    let observed_dead: Vec<&str> = observed["dead_weight"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_states(
        "docs/mutants.md",
        &format!(
            "With events observed, {} scenarios catch none.",
            observed_dead.len()
        ),
    );
    let (with_events, wire_only) = (areas(observed_dead), areas(wire_dead.to_vec()));
    assert_states(
        "docs/mutants.md",
        &format!(
            "{with_events} scenarios under `scenarios/kip1326/` and `scenarios/kip1294/` catch none of the bugs (seed 1; {wire_only} with `--observe none`: {} more catch their variants only through events",
            wire_only - with_events
        ),
    );
}
