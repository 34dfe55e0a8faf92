//! Knowing what will run: `kipcheck list` and `run --dry-run` (the runner's own gate, per
//! target), `run --help` naming every target kind, and shell completions.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli_support::{code, kipcheck, text};
use kipcheck::exit;

const HEAD: &str = "kip: KIP-1324\ngrade: MUST\n";
const AV: &str = "  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

/// A suite of four: a broker scenario, one that `requires: [events]`, a SHOULD broker
/// scenario with tags, and a client scenario.
fn suite(name: &str) -> PathBuf {
    let files = [
        ("a-broker", format!("title: a\n{HEAD}roles: [broker]\nsteps:\n{AV}")),
        (
            "b-events",
            format!("title: b\n{HEAD}roles: [broker]\nrequires: [events]\nsteps:\n{AV}"),
        ),
        (
            "c-should",
            format!("title: c\nkip: KIP-1324\ngrade: SHOULD\nroles: [broker]\ntags: [x, y]\nsteps:\n{AV}"),
        ),
        (
            "d-client",
            format!("title: d\n{HEAD}roles: [client]\nsteps:\n  - start\n  - expect_request: {{ api: ApiVersions }}\n"),
        ),
    ];
    crate::cli_support::suite("cli_list", name, &files)
}

fn list(d: &Path, args: &[&str]) -> Output {
    kipcheck()
        .arg("list")
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn list_prints_each_scenario_with_kip_roles_grade_tags_and_whether_it_runs() {
    let d = suite("table");
    let out = list(&d, &["--observe", "none"]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .take(5)
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(rows[0], ["ID", "KIP", "ROLES", "GRADE", "TAGS", "RUNS"]);
    assert_eq!(rows[1], ["a-broker", "KIP-1324", "broker", "MUST", "yes"]);
    assert_eq!(
        rows[2],
        [
            "b-events",
            "KIP-1324",
            "broker",
            "MUST",
            "no: target lacks events"
        ]
    );
    assert_eq!(
        rows[3],
        ["c-should", "KIP-1324", "broker", "SHOULD", "x,y", "yes"]
    );
    assert_eq!(rows[4], ["d-client", "KIP-1324", "client", "MUST", "yes"]);
    assert!(
        stdout.ends_with(
            "\n4 selected, 3 would run against reference, 1 would not\n     1  lacks events\n"
        ),
        "{stdout}"
    );
}

#[test]
fn list_json_names_the_causes_for_a_live_client_target() {
    let d = suite("json");
    // client-cmd: starts nothing until a scenario runs, so listing needs no client.
    let out = list(
        &d,
        &[
            "--target",
            "client-cmd:true {bootstrap}",
            "--grade",
            "MUST",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["target"], "client-cmd:true {bootstrap}");
    assert_eq!(v["selected"], 3);
    assert_eq!(v["would_run"], 1);
    assert_eq!(v["would_not_run"], 2);
    let by_id = |id: &str| {
        v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} listed"))
    };
    let a = by_id("a-broker");
    assert_eq!(a["runs"], false);
    assert_eq!(a["kip"], "KIP-1324");
    assert_eq!(a["grade"], "MUST");
    assert_eq!(a["roles"], serde_json::json!(["broker"]));
    assert_eq!(
        a["path"],
        format!("{}/area/a-broker.yaml", d.join("scenarios").display())
    );
    assert_eq!(
        a["unsupported_causes"],
        serde_json::json!([{ "cause": "missing_role", "detail": "broker" }])
    );
    assert_eq!(a["unsupported_reason"], "target does not play broker");
    let b = by_id("b-events");
    assert_eq!(
        b["unsupported_causes"],
        serde_json::json!([
            { "cause": "missing_role", "detail": "broker" },
            { "cause": "missing_capability", "detail": "events" }
        ])
    );
    let dc = by_id("d-client");
    assert_eq!(dc["runs"], true);
    assert_eq!(dc["unsupported_causes"], serde_json::json!([]));
    assert!(dc["unsupported_reason"].is_null());
    assert_eq!(
        v["unsupported_by_cause"],
        serde_json::json!({ "does not play broker": 2, "lacks events": 1 })
    );
}

#[test]
fn dry_run_prints_the_list_and_runs_nothing() {
    let d = suite("dry");
    let reports = d.join("reports");
    let out = kipcheck()
        .args(["run", "--dry-run", "--observe", "none"])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", reports.to_str().unwrap()])
        .output()
        .expect("runs");
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        text(&list(&d, &["--observe", "none"]).stdout)
    );
    assert!(!reports.exists(), "a dry run writes no reports");
}

#[test]
fn run_help_lists_every_target_kind() {
    let out = kipcheck().args(["run", "--help"]).output().expect("runs");
    let help = text(&out.stdout);
    for kind in [
        "  reference ",
        "  mutant:NAME ",
        "  tcp://HOST:PORT ",
        "  client-cmd:\"CMD {bootstrap}\" ",
        "  exec:\"CMD\" ",
    ] {
        assert!(help.contains(kind), "{kind:?} missing from:\n{help}");
    }
}

#[test]
fn completions_are_generated_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "complete -F _kipcheck"),
        ("zsh", "#compdef kipcheck"),
        ("fish", "complete -c kipcheck"),
    ] {
        let out = kipcheck()
            .args(["completions", shell])
            .output()
            .expect("runs");
        assert_eq!(code(&out), 0, "{shell}");
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell}: {marker:?} missing");
        assert!(script.contains("dry-run"), "{shell}: run's flags missing");
    }
    let out = kipcheck()
        .args(["completions", "tcsh"])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::USAGE));
}

/// Planning needs no running target: `list` (and `run --dry-run`) against a `tcp://` address
/// where nothing listens says what would run from the declared role and capabilities; a
/// malformed address is a usage error (issue 34 §3).
#[test]
fn list_plans_a_live_target_that_is_not_running_and_refuses_a_malformed_one() {
    let d = suite("not-running");
    // Port 9 (discard) on loopback: nothing listens there on a test machine.
    let out = list(&d, &["--target", "tcp://127.0.0.1:9", "--role", "broker"]);
    assert_eq!(
        code(&out),
        i32::from(exit::SUCCESS),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("a-broker"),
        "{}",
        text(&out.stdout)
    );
    for bad in ["tcp://127.0.0.1:99999", "tcp://nohost", "tcp://:9092"] {
        let out = list(&d, &["--target", bad]);
        assert_eq!(
            code(&out),
            i32::from(exit::USAGE),
            "{bad}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("expected tcp://HOST:PORT"),
            "{bad}: {}",
            text(&out.stderr)
        );
    }
    // A run still needs the target: exit 3.
    let out = kipcheck()
        .args(["run", "--target", "tcp://127.0.0.1:9", "--role", "broker"])
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", d.join("reports").to_str().unwrap()])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::TARGET), "{}", text(&out.stderr));
}
