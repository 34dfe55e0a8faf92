//! The command line's conventions and exit codes: usage errors (`--jobs 0`, `--timeout-ms 0`,
//! capabilities a target cannot have), scenario load errors located with a caret and naming
//! the field, its type and the value found, an unreachable target, `--fail-fast`, and `load`
//! against a closed port.

use std::process::Output;

use crate::cli_support::{code, kipcheck, text};
use kipcheck::exit;

const HEAD: &str = "kip: KIP-1324\ngrade: MUST\nroles: [broker]\n";
const AV: &str = "  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

fn suite(name: &str, files: &[(&str, String)]) -> std::path::PathBuf {
    crate::cli_support::suite("cli_errors", name, files)
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
    let d = suite(
        "unreachable",
        &[("a", format!("title: a\n{HEAD}steps:\n{AV}"))],
    );
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
    // Nothing ran: the report says the run was aborted and why (no earlier run's verdict
    // survives it).
    let results = std::fs::read_to_string(reports.join("results.json")).expect("results.json");
    let v: serde_json::Value = serde_json::from_str(&results).expect("json");
    assert!(
        v["aborted"]
            .as_str()
            .is_some_and(|why| why.contains("unreachable")),
        "{results}"
    );
    // `list` plans without it (issue 34 §3), and says it could not reach it.
    let out = kipcheck()
        .args(["list", "--target", &format!("tcp://{addr}")])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::SUCCESS));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("target unreachable"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn fail_fast_stops_after_the_first_finding() {
    let failing = format!(
        "title: f\n{HEAD}steps:\n{}",
        AV.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG")
    );
    let d = suite(
        "fail-fast",
        &[
            ("f1", failing.clone()),
            ("f2", failing.clone()),
            ("f3", failing),
        ],
    );
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

#[test]
fn a_bad_value_in_a_sent_body_is_located_at_the_field_with_its_type_and_value() {
    let body = "title: t\nkip: KIP-1294\ngrade: MUST\nroles: [controller]\nsteps:\n  - send:\n      api: AlterConfigs\n      version: 2\n      body:\n        Resources:\n          - { ResourceType: 70000, ResourceName: \"1\", Configs: [] }\n        ValidateOnly: false\n  - expect_response: { body: { ThrottleTimeMs: 0 } }\n";
    let d = suite("bad-value", &[("s", body.to_owned())]);
    let out = kipcheck()
        .args([
            "run",
            "--scenarios",
            d.join("scenarios").to_str().unwrap(),
            "--report-dir",
            d.join("reports").to_str().unwrap(),
        ])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::USAGE));
    let path = d.join("scenarios/area/s.yaml");
    let want = [
        format!(
            "{}:12:15: send: body.Resources[0].ResourceType: 70000 is not an int8 (-128 to 127) (in AlterConfigsRequest v2)",
            path.display()
        ),
        " 12 |           - { ResourceType: 70000, ResourceName: \"1\", Configs: [] }".into(),
        "    |               ^".into(),
        "kipcheck: 1 scenario file(s) could not be loaded".into(),
        String::new(),
    ];
    assert_eq!(text(&out.stderr), want.join("\n"));
}

#[test]
fn a_misspelt_field_in_a_sent_body_names_the_fields_there() {
    let body = format!(
        "title: t\n{HEAD}steps:\n  - send: {{ api: ApiVersions, version: 3, body: {{ ClientSoftwareNam: k }} }}\n  - expect_response: {{ body: {{ ErrorCode: NONE }} }}\n"
    );
    let d = suite("misspelt", &[("s", body)]);
    let out = kipcheck()
        .args(["run", "--scenarios", d.join("scenarios").to_str().unwrap()])
        .output()
        .expect("runs");
    assert_eq!(code(&out), i32::from(exit::USAGE));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(":7:51: send: body.ClientSoftwareNam: no such field in ApiVersionsRequest v3; fields there: ClientSoftwareName, ClientSoftwareVersion\n"),
        "{stderr}"
    );
    let caret = format!("\n   | {}^\n", " ".repeat(50));
    assert!(stderr.contains(&caret), "{stderr}");
}
