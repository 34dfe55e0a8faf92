//! An installed `kipcheck` needs no checkout: the shipped suite, its requirements ledger and
//! the default profile are built into the binary, so `run` and `ledger` work from `/`.
//! `--scenarios DIR` replaces the built-in suite; a missing folder is a usage error.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli_support::{code, text};
use kipcheck::exit;
use kipcheck::scenario::{embedded, load_dir, load_embedded};

/// The binary, run from `/`: far from any checkout.
fn kipcheck() -> Command {
    let mut c = crate::cli_support::kipcheck();
    c.current_dir("/");
    c
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_install")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

fn results(dir: &Path) -> serde_json::Value {
    let t = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
    serde_json::from_str(&t).expect("json")
}

#[test]
fn the_built_in_suite_is_the_scenarios_folder() {
    let on_disk = load_dir(&repo().join("scenarios")).expect("suite loads");
    let built_in = load_embedded().expect("built-in suite loads");
    assert_eq!(built_in.len(), on_disk.len());
    for (b, d) in built_in.iter().zip(&on_disk) {
        assert_eq!(b.file, d.file);
        assert_eq!(b.area, d.area);
        assert_eq!(
            b.path,
            Path::new("scenarios")
                .join(&b.area)
                .join(format!("{}.yaml", b.file.id))
        );
    }
    for name in ["requirements.yaml", "schema.json"] {
        let disk = std::fs::read_to_string(repo().join("scenarios").join(name)).expect(name);
        assert_eq!(
            embedded::file(&format!("scenarios/{name}")),
            Some(disk.as_str())
        );
    }
}

#[test]
fn run_from_the_root_directory_runs_the_whole_built_in_suite() {
    let reports = tmp("from_root");
    let out = kipcheck()
        .args([
            "run",
            "--seed",
            "1",
            "--report-dir",
            reports.to_str().unwrap(),
        ])
        .output()
        .expect("runs");
    assert_eq!(code(&out), 0, "{}{}", text(&out.stdout), text(&out.stderr));
    let r = results(&reports);
    let expected = load_dir(&repo().join("scenarios"))
        .expect("suite loads")
        .len();
    assert_eq!(r["summary"]["total"], expected);
    assert_eq!(r["summary"]["passed"], expected);
    let first = &r["scenarios"][0];
    let path = first["path"].as_str().expect("path");
    assert!(
        path.starts_with("scenarios/") && path.ends_with(".yaml"),
        "{path}"
    );
    // From `/` the files are not on disk: each `line` (the `id:` line annotators point at) comes
    // from the built-in text, exactly as in the repository's file.
    let disk = std::fs::read_to_string(repo().join(path)).expect("the scenario file");
    let want = disk.lines().position(|l| l.starts_with("id:")).unwrap() + 1;
    assert!(want > 1, "{path} has a header before its id");
    assert_eq!(first["line"], want, "{path}");
}

#[test]
fn ledger_check_passes_from_the_root_directory() {
    let out = kipcheck()
        .args(["ledger", "--check"])
        .output()
        .expect("runs");
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("ledger check: passed\n"));
}

#[test]
fn a_scenarios_folder_replaces_the_built_in_suite() {
    let d = tmp("replace");
    let area = d.join("scenarios/apiversions");
    std::fs::create_dir_all(&area).unwrap();
    let id = "av-negotiate-v3";
    std::fs::copy(
        repo().join(format!("scenarios/apiversions/{id}.yaml")),
        area.join(format!("{id}.yaml")),
    )
    .unwrap();
    let reports = d.join("reports");
    let out = kipcheck()
        .args(["run", "--seed", "1"])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", reports.to_str().unwrap()])
        .output()
        .expect("runs");
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let r = results(&reports);
    assert_eq!(r["summary"]["total"], 1);
    assert_eq!(r["scenarios"][0]["id"], id);
}

#[test]
fn a_missing_scenarios_folder_is_a_usage_error_naming_it() {
    for cmd in [&["run"][..], &["list"], &["ledger"], &["mutants"]] {
        let out = kipcheck()
            .args(cmd)
            .args(["--scenarios", "/nonexistent/suite"])
            .output()
            .expect("runs");
        assert_eq!(code(&out), i32::from(exit::USAGE), "{cmd:?}");
        assert!(
            text(&out.stderr).contains("--scenarios /nonexistent/suite: no such folder"),
            "{cmd:?}: {}",
            text(&out.stderr)
        );
    }
}
