//! Knowing what will run, and the command line's conventions: `kipcheck list` and
//! `run --dry-run` (the runner's own gate, per target), `run --help`, completions, and the
//! usage errors and exit codes of `run` and `load` (`--jobs 0`, `--timeout-ms 0`, capabilities
//! a target cannot have, an unreachable target, `--fail-fast`, a load against a closed port).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kipcheck::exit;

fn kipcheck() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kipcheck"));
    c.env("NO_COLOR", "1");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

const HEAD: &str = "kip: KIP-1324\ngrade: MUST\n";
const AV: &str = "  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

/// A suite of four: a broker scenario, one that `requires: [events]`, a SHOULD broker
/// scenario with tags, and a client scenario.
fn suite(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_list")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    let area = d.join("scenarios/area");
    std::fs::create_dir_all(&area).expect("mkdir");
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
    for (id, body) in files {
        std::fs::write(area.join(format!("{id}.yaml")), format!("id: {id}\n{body}")).unwrap();
    }
    d
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

fn run(args: &[&str]) -> Output {
    kipcheck().arg("run").args(args).output().expect("runs")
}

#[test]
fn jobs_and_timeout_of_zero_are_usage_errors() {
    for (flag, value) in [("--jobs", "0"), ("--timeout-ms", "0")] {
        let out = run(&[flag, value]);
        assert_eq!(code(&out), i32::from(exit::USAGE), "{flag}");
        assert!(
            text(&out.stderr).contains(&format!("invalid value '0' for '{flag}")),
            "{}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("must be at least 1"));
    }
}

#[test]
fn capabilities_a_target_cannot_have_are_refused_with_the_reason() {
    let cases = [
        (
            "tcp://127.0.0.1:1",
            "events",
            "--capability events: a live peer reports no model events (only what it sends is judged)",
        ),
        (
            "client-cmd:true {bootstrap}",
            "virtual_clock",
            "--capability virtual_clock: a live peer's clock is real and cannot be advanced",
        ),
        (
            "reference",
            "policy_control",
            "--capability policy_control: only a live target (tcp://, client-cmd:) takes declared capabilities; the reference and its variants have every capability",
        ),
    ];
    for (target, cap, why) in cases {
        let out = run(&["--target", target, "--capability", cap]);
        assert_eq!(code(&out), i32::from(exit::USAGE), "{target} {cap}");
        assert_eq!(text(&out.stderr), format!("kipcheck: {why}\n"));
    }
}

#[test]
fn an_unreachable_tcp_target_stops_the_run_with_exit_3_before_any_scenario() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let d = suite("unreachable");
    let reports = d.join("reports");
    let out = run(&[
        "--target",
        &format!("tcp://{addr}"),
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), i32::from(exit::TARGET));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "kipcheck: target unreachable: cannot connect to {addr}: "
        )),
        "{stderr}"
    );
    assert!(!reports.exists(), "nothing ran, so no report");
    // `list` says the same.
    let out = list(&d, &["--target", &format!("tcp://{addr}")]);
    assert_eq!(code(&out), i32::from(exit::TARGET));
}

#[test]
fn fail_fast_stops_after_the_first_finding() {
    let d = suite("fail-fast");
    let area = d.join("scenarios/area");
    for f in ["a-broker", "c-should", "d-client", "b-events"] {
        std::fs::remove_file(area.join(format!("{f}.yaml"))).unwrap();
    }
    for id in ["f1", "f2", "f3"] {
        std::fs::write(
            area.join(format!("{id}.yaml")),
            format!(
                "id: {id}\ntitle: f\n{HEAD}roles: [broker]\nsteps:\n{}",
                AV.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG")
            ),
        )
        .unwrap();
    }
    let reports = d.join("reports");
    let go = |extra: &[&str]| {
        let mut args = vec![
            "--scenarios",
            d.join("scenarios").to_str().unwrap().to_owned().leak(),
            "--report-dir",
            reports.to_str().unwrap().to_owned().leak(),
            "--seed",
            "1",
            "--jobs",
            "1",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(reports.join("results.json")).unwrap())
                .unwrap();
        (out, r)
    };
    let (out, r) = go(&["--fail-fast"]);
    assert_eq!(code(&out), i32::from(exit::FINDING));
    assert_eq!(r["summary"]["total"], 1);
    assert_eq!(r["summary"]["failed"], 1);
    assert!(
        text(&out.stderr).contains(
            "kipcheck: --fail-fast: stopped after the first finding; 2 of 3 selected scenario(s) not run"
        ),
        "{}",
        text(&out.stderr)
    );
    let (out, r) = go(&[]);
    assert_eq!(code(&out), i32::from(exit::FINDING));
    assert_eq!(r["summary"]["failed"], 3);
}

#[test]
fn load_against_a_closed_port_exits_3() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    drop(l);
    let out = kipcheck()
        .args([
            "load",
            "--connect",
            &addr,
            "--connections",
            "2",
            "--duration",
            "1",
        ])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::TARGET));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["handshakes"], 0);
    assert!(report["errors"].as_u64().unwrap() > 0);
    assert!(
        text(&out.stderr).contains("kipcheck: load: every attempt failed"),
        "{}",
        text(&out.stderr)
    );
    let out = kipcheck()
        .args(["load", "--connect", &addr, "--idle", "3", "--duration", "1"])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::TARGET));
}
