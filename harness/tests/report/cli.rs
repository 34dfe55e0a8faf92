//! The report files as `kipcheck run` leaves them: a run that stops before judging (the
//! target does not start, Ctrl-C) never leaves the previous run's PASSED in place; it says
//! ABORTED and why.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli_support::kipcheck;
use std::time::{Duration, Instant};

const OK: &str = "id: a\ntitle: t\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

/// A client scenario that waits long for a request the client never sends.
const WAITS: &str = "id: w\ntitle: w\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup:\n  client:\n    type: consumer\n    config: {}\nsteps:\n  - start\n  - expect_request: { from: 1, api: ApiVersions, within_ms: 60000 }\n";

fn setup(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("report_cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("scenarios/area")).expect("mkdir");
    std::fs::write(d.join("scenarios/area/a.yaml"), OK).unwrap();
    std::fs::write(d.join("scenarios/area/w.yaml"), WAITS).unwrap();
    d
}

fn run(d: &Path, args: &[&str]) -> Command {
    let mut c = kipcheck();
    c.arg("run")
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", d.join("reports").to_str().unwrap()])
        .args(["--seed", "1"])
        .args(args);
    c
}

fn read(d: &Path, f: &str) -> String {
    std::fs::read_to_string(d.join("reports").join(f)).unwrap_or_else(|e| panic!("{f}: {e}"))
}

fn good_run(d: &Path) {
    let out = run(d, &["--id", "a"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(read(d, "report.html").contains("<h1>kipcheck: PASSED</h1>"));
}

fn assert_aborted(d: &Path, why: &str) {
    let html = read(d, "report.html");
    assert!(html.contains("<h1>kipcheck: ABORTED</h1>"), "{html}");
    assert!(!html.contains("kipcheck: PASSED"));
    assert!(
        html.contains(&format!("<p class=\"aborted\">aborted: {why}")),
        "{html}"
    );
    let json: serde_json::Value = serde_json::from_str(&read(d, "results.json")).unwrap();
    assert_eq!(json["outcome"], "aborted");
    assert!(json["aborted"].as_str().unwrap().starts_with(why), "{json}");
    assert!(read(d, "summary.md").contains("kipcheck: ABORTED"));
    let junit = read(d, "junit.xml");
    assert!(junit.contains("<testcase name=\"run\""), "{junit}");
    assert!(junit.contains("type=\"aborted\""));
}

#[test]
fn a_target_that_does_not_start_replaces_a_passed_report_with_aborted() {
    let d = setup("no_start");
    good_run(&d);
    // An exec: adapter that exits before its hello: a target failure, exit 3.
    let out = run(&d, &["--target", "exec:true"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_aborted(&d, "the target did not start: ");
}

#[test]
fn ctrl_c_stops_the_run_with_130_and_reports_it_aborted() {
    let d = setup("ctrl_c");
    good_run(&d);
    let mut child = run(
        &d,
        &[
            "--target",
            "client-cmd:sleep 120 # {bootstrap}",
            "--id",
            "w",
            "--timeout-ms",
            "90000",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("spawns");
    // Wait until the run has replaced the reports (it started), then interrupt it.
    let t0 = Instant::now();
    while !read(&d, "report.html").contains("ABORTED") {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let t1 = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        assert!(
            t1.elapsed() < Duration::from_secs(20),
            "no exit after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(code, Some(130));
    assert_aborted(&d, "interrupted (Ctrl-C)");
}
