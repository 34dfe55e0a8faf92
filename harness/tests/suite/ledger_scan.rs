//! Scanning scenario files for `id` and `requirements`, and `run_ledger` end to end on a
//! temporary directory.

use std::fs;
use std::path::{Path, PathBuf};

use kipcheck::ledger::{parse_scenario_ref, run_ledger, scan_scenarios, LedgerError};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("kipcheck-ledger-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const LEDGER: &str = "\
requirements:
  - id: kip1324.tp.a
    kip: KIP-1324
    kind: test-plan
    text: Test a
    source: here
  - id: kip1324.b
    kip: KIP-1324
    kind: must
    text: b
    source: here
";

fn suite(name: &str) -> TempDir {
    let t = TempDir::new(name);
    t.write("requirements.yaml", LEDGER);
    t.write(
        "kip1324/a.yaml",
        "id: a\ntitle: A\nrequirements: [kip1324.tp.a]\nsteps:\n  - send: {Configs: []}\n  - raw: !hex 00ff\n",
    );
    t.write(
        "kip1324/nested/b.yml",
        "requirements:\n  - kip1324.tp.a\n  - kip1324.b\nanything: [1, {x: y}]\n",
    );
    t.write("schema.yaml", "not: a scenario\n");
    t.write(
        "kip1324/_draft.yaml",
        "id: draft\nrequirements: [kip1324.zzz]\n",
    );
    t.write(
        "kip1324/.hidden.yaml",
        "id: hidden\nrequirements: [kip1324.zzz]\n",
    );
    t.write("README.md", "# not yaml\n");
    t
}

#[test]
fn scan_reads_only_id_and_requirements() {
    let t = suite("scan");
    let found = scan_scenarios(&t.0).unwrap();
    let got: Vec<(&str, Vec<&str>)> = found
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                s.requirements.iter().map(|r| r.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a", vec!["kip1324.tp.a"]),
            // No `id`: the file stem.
            ("b", vec!["kip1324.tp.a", "kip1324.b"]),
        ]
    );
    assert_eq!(
        found[0].path,
        t.0.join("kip1324/a.yaml").display().to_string()
    );
}

#[test]
fn scan_of_an_empty_directory_is_empty() {
    let t = TempDir::new("empty");
    assert!(scan_scenarios(&t.0).unwrap().is_empty());
}

#[test]
fn scan_of_a_missing_directory_is_an_io_error() {
    let err = scan_scenarios(Path::new("/nonexistent/scenarios")).unwrap_err();
    assert!(matches!(err, LedgerError::Io { .. }), "{err}");
}

#[test]
fn malformed_requirements_key_reports_line_and_column() {
    let err = parse_scenario_ref(
        "id: x\ntitle: t\nrequirements: {a: b}\n",
        Path::new("scenarios/x.yaml"),
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("scenarios/x.yaml:3:15: "),
        "{err}"
    );
}

#[test]
fn run_ledger_text_and_verdict() {
    let t = suite("run");
    let ledger = t.0.join("requirements.yaml");
    let (text, ok) = run_ledger(&ledger, &t.0, false, false).unwrap();
    assert!(ok, "without --check the run passes");
    assert!(
        text.starts_with("KIP-1324 (2 requirements: 2 covered, 0 excluded, 0 untested)\n"),
        "{text}"
    );
    assert!(
        text.contains("  [test-plan] kip1324.tp.a -> a, b\n"),
        "{text}"
    );
    assert!(text.ends_with("ledger check: passed\n"), "{text}");
    let (_, ok) = run_ledger(&ledger, &t.0, true, false).unwrap();
    assert!(ok);

    // A scenario naming an unknown id fails the check.
    t.write("kip1324/c.yaml", "id: c\nrequirements: [kip1324.nope]\n");
    let (text, ok) = run_ledger(&ledger, &t.0, true, false).unwrap();
    assert!(!ok);
    assert!(text.contains("  c ("), "{text}");
    assert!(
        text.ends_with(
            "ledger check: FAILED (0 untested requirements, 1 unknown requirement id, 0 requirements judged by observations only)\n"
        ),
        "{text}"
    );
    let (_, ok) = run_ledger(&ledger, &t.0, false, false).unwrap();
    assert!(ok, "without --check the run passes");
}

#[test]
fn run_ledger_json() {
    let t = suite("json");
    t.write("kip1324/nested/b.yml", "requirements: [kip1324.tp.a]\n");
    let (text, ok) = run_ledger(&t.0.join("requirements.yaml"), &t.0, true, true).unwrap();
    assert!(!ok, "kip1324.b is untested");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["passed"], false);
    assert_eq!(v["totals"]["untested"], 1);
    assert_eq!(v["kips"][0]["requirements"][1]["id"], "kip1324.b");
    assert_eq!(v["kips"][0]["requirements"][1]["status"], "untested");
    assert_eq!(
        v["kips"][0]["requirements"][0]["scenarios"],
        serde_json::json!(["a", "b"])
    );
}

#[test]
fn run_ledger_reports_ledger_errors() {
    let t = TempDir::new("bad");
    t.write(
        "requirements.yaml",
        "requirements:\n  - id: kip1324.a\n    kip: KIP-1\n",
    );
    let err = run_ledger(&t.0.join("requirements.yaml"), &t.0, true, false).unwrap_err();
    let path = t.0.join("requirements.yaml").display().to_string();
    assert!(
        err.to_string().starts_with(&format!("{path}:3:10: ")),
        "{err}"
    );
}
