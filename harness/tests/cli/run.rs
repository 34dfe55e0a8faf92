//! `kipcheck run` and `kipcheck ledger` as a user runs them: the documented exit codes, the
//! report files, and the printed seed and reproduction command.

use crate::cli_support::{code, kipcheck, suite, text};
use std::path::{Path, PathBuf};

/// A fresh folder `<test tmp>/cli_run/<name>` with an empty `scenarios/area/`.
fn dir(name: &str) -> PathBuf {
    suite("cli_run", name, &[])
}

const OK: &str = "title: t\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

fn run_in(d: &Path, files: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    for (id, body) in files {
        std::fs::write(
            d.join(format!("scenarios/area/{id}.yaml")),
            format!("id: {id}\n{body}"),
        )
        .unwrap();
    }
    let out = kipcheck()
        .arg("run")
        .args(["--scenarios", d.join("scenarios").to_str().unwrap()])
        .args(["--report-dir", d.join("reports").to_str().unwrap()])
        .args(args)
        .output()
        .expect("runs");
    (code(&out), text(&out.stdout), text(&out.stderr))
}

#[test]
fn all_pass_exits_0_and_writes_every_report() {
    let d = dir("pass");
    let (code, stdout, _) = run_in(&d, &[("a", OK)], &["--seed", "5"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("PASSED (seed 5, target reference)"),
        "{stdout}"
    );
    for f in ["results.json", "junit.xml", "report.html", "summary.md"] {
        assert!(d.join("reports").join(f).is_file(), "{f} missing");
    }
}

#[test]
fn findings_exit_1_with_a_reproduction_command() {
    let d = dir("fail");
    let bad = OK.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG");
    let (code, stdout, _) = run_in(&d, &[("a", OK), ("b", &bad)], &["--seed", "9"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("--seed 9 --id b"), "{stdout}");
}

#[test]
fn a_bad_scenario_file_exits_2_with_its_location() {
    let d = dir("bad_file");
    let (code, _, stderr) = run_in(
        &d,
        &[(
            "a",
            "title: t\nkip: KIP-9\ngrade: MUST\nroles: [broker]\nsteps: []\n",
        )],
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("a.yaml:1:1: unknown kip \"KIP-9\""),
        "{stderr}"
    );
}

#[test]
fn no_scenario_selected_exits_4() {
    let d = dir("none");
    let (code, _, stderr) = run_in(&d, &[("a", OK)], &["--id", "nothing-*"]);
    assert_eq!(code, 4);
    assert!(stderr.contains("no scenarios selected"), "{stderr}");
}

#[test]
fn an_unknown_target_is_a_usage_error() {
    let d = dir("target");
    let (code, _, stderr) = run_in(&d, &[("a", OK)], &["--target", "carrier-pigeon"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unknown target \"carrier-pigeon\""),
        "{stderr}"
    );
}

#[test]
fn a_generated_seed_is_printed() {
    let d = dir("seed");
    let (code, _, stderr) = run_in(&d, &[("a", OK)], &[]);
    assert_eq!(code, 0);
    assert!(
        stderr.contains("kipcheck: seed ") && stderr.contains("(rerun with --seed "),
        "{stderr}"
    );
}

#[test]
fn a_stale_baseline_entry_exits_1_and_prints_the_update_command() {
    let d = dir("stale");
    let baseline = d.join("baseline.yaml");
    std::fs::write(
        &baseline,
        "expected_failures:\n  - id: a\n    reason: was broken\n",
    )
    .unwrap();
    let (code, _, stderr) = run_in(
        &d,
        &[("a", OK)],
        &["--seed", "1", "--baseline", baseline.to_str().unwrap()],
    );
    assert_eq!(code, 1);
    assert!(stderr.contains("--write-baseline"), "{stderr}");
}

#[test]
fn ledger_check_passes_on_the_real_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = kipcheck()
        .current_dir(&root)
        .args(["ledger", "--check"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.ends_with("ledger check: passed\n"), "{stdout}");
}

#[test]
fn export_corpus_writes_frames_the_decode_targets_accept() {
    let d = dir("export");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = kipcheck()
        .current_dir(&root)
        .args([
            "export-corpus",
            "--corpus",
            d.join("corpus").to_str().unwrap(),
        ])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let numbers = kipcheck::codec::ProvisionalNumbers::default();
    let mut requests = 0;
    for e in std::fs::read_dir(d.join("corpus/decode_request"))
        .unwrap()
        .flatten()
    {
        let bytes = std::fs::read(e.path()).unwrap();
        // Every request kipcheck or the reference sent decodes (raw malformed sends aside).
        if kipcheck::codec::decode_request_frame(&bytes, 1 << 20, &numbers).is_ok() {
            requests += 1;
        }
    }
    let mut responses = 0;
    for e in std::fs::read_dir(d.join("corpus/decode_response"))
        .unwrap()
        .flatten()
    {
        let bytes = std::fs::read(e.path()).unwrap();
        let info = &kipcheck::codec::ResponseBody::KNOWN[usize::from(bytes[0])];
        let version = info.valid.min + i16::from(bytes[1]);
        kipcheck::codec::decode_response_frame(&bytes[2..], 1 << 20, info.api_key, version)
            .unwrap_or_else(|e2| panic!("{}: {e2}", e.path().display()));
        responses += 1;
    }
    assert!(
        requests > 100 && responses > 100,
        "{requests} requests, {responses} responses"
    );
}

/// `kipcheck serve` on a free port, and its address.
fn serve() -> (std::process::Child, String) {
    serve_with(&[])
}

/// `kipcheck serve` on a free port with `extra` arguments, and its address.
fn serve_with(extra: &[&str]) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = kipcheck()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("serve prints its address");
    let addr = line
        .trim()
        .rsplit(' ')
        .next()
        .expect("an address")
        .to_owned();
    (child, addr)
}

#[test]
fn reproduce_command_keeps_a_live_targets_role_and_capabilities() {
    let d = dir("reproduce_role");
    let (mut server, addr) = serve();
    // The live broker answers ApiVersions with NONE: the scenario fails and prints its
    // reproduction.
    let bad = OK.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG");
    let target = format!("tcp://{addr}");
    let (code, stdout, stderr) = run_in(
        &d,
        &[("s1", &bad)],
        &[
            "--target",
            &target,
            "--role",
            "broker",
            "--capability",
            "policy_control",
            "--seed",
            "5",
        ],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let want = format!(
        "reproduce: kipcheck run --target {target} --role broker --capability policy_control --scenarios {} --seed 5 --id s1",
        d.join("scenarios").display()
    );
    assert!(stdout.contains(&want), "{stdout}");
}

/// Every option that selected the run or shaped its verdicts is in the reproduction line: the
/// profile, the filters, the time limit, the jobs and the judged threshold (issue 31 §11).
#[test]
fn reproduce_command_keeps_every_option_that_shaped_the_verdict() {
    let d = dir("reproduce_all");
    let bad = OK.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG");
    let profile = d.join("p.yaml");
    std::fs::write(&profile, "size_measure: configs_array\n").unwrap();
    let (code, stdout, stderr) = run_in(
        &d,
        &[("s1", &bad)],
        &[
            "--profile",
            profile.to_str().unwrap(),
            "--kip",
            "1324",
            "--tag",
            "x",
            "--timeout-ms",
            "5000",
            "--jobs",
            "1",
            "--min-judged",
            "1",
            "--seed",
            "5",
        ],
    );
    // `--tag x` selects nothing: exit 4 before any run. Without it the scenario fails.
    assert_eq!(code, 4, "{stdout}\n{stderr}");
    let (code, stdout, stderr) = run_in(
        &d,
        &[],
        &[
            "--profile",
            profile.to_str().unwrap(),
            "--kip",
            "1324",
            "--grade",
            "MUST",
            "--timeout-ms",
            "5000",
            "--jobs",
            "1",
            "--min-judged",
            "1",
            "--seed",
            "5",
        ],
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let want = format!(
        "reproduce: kipcheck run --target reference --scenarios {} --profile {} --kip 1324 --grade MUST --timeout-ms 5000 --jobs 1 --seed 5 --id s1",
        d.join("scenarios").display(),
        profile.display()
    );
    assert!(stdout.contains(&want), "{stdout}");
    // The run's own command keeps the threshold too.
    let json = std::fs::read_to_string(d.join("reports/results.json")).unwrap();
    assert!(
        json.contains("--jobs 1 --min-judged 1 --seed 5\""),
        "{json}"
    );
}

const ONLY_EVENTS: &str = "title: o\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_event: { event: { event: api_versions_answered } }\n";

#[test]
fn a_run_that_judges_nothing_exits_5_and_never_says_passed() {
    let d = dir("nothing-judged");
    let (code, stdout, stderr) = run_in(
        &d,
        &[("o", ONLY_EVENTS)],
        &["--seed", "1", "--observe", "none"],
    );
    assert_eq!(code, 5, "{stdout}{stderr}");
    assert!(!stdout.contains("PASSED"), "{stdout}");
    assert!(
        stdout.contains("NOTHING JUDGED (seed 1, target reference)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("0 of 1 scenario judged (0 steps); 1 observation step not observed"),
        "{stdout}"
    );
    assert!(
        stderr.contains("kipcheck: nothing judged: the target could not be asked any of the 1 selected scenario(s)"),
        "{stderr}"
    );
    // Observed, the same scenario is judged and passes.
    let (code, stdout, _) = run_in(&d, &[], &["--seed", "1"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn min_judged_fails_a_run_that_judged_fewer() {
    let d = dir("min-judged");
    let files = [("a", OK), ("o", ONLY_EVENTS)];
    let (code, _, stderr) = run_in(
        &d,
        &files,
        &["--seed", "1", "--observe", "none", "--min-judged", "2"],
    );
    assert_eq!(code, 5, "{stderr}");
    assert!(
        stderr.contains("kipcheck: 1 scenario(s) judged, fewer than --min-judged 2"),
        "{stderr}"
    );
    let (code, _, stderr) = run_in(
        &d,
        &[],
        &["--seed", "1", "--observe", "none", "--min-judged", "1"],
    );
    assert_eq!(code, 0, "{stderr}");
}

/// Every output says the outcome the exit code says: the terminal's closing line, the JSON's
/// `outcome`, the Markdown summary's first line and the HTML header (issue 34 §1).
#[test]
fn every_output_carries_the_exit_codes_outcome() {
    let failing = OK.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG");
    /// Name, scenario files, extra arguments, exit code, outcome word.
    type Case<'a> = (
        &'a str,
        &'a [(&'a str, &'a str)],
        &'a [&'a str],
        i32,
        &'a str,
    );
    let cases: [Case; 4] = [
        ("passed", &[("a", OK)], &[], 0, "PASSED"),
        ("failed", &[("a", &failing)], &[], 1, "FAILED"),
        (
            "nothing",
            &[("o", ONLY_EVENTS)],
            &["--observe", "none"],
            5,
            "NOTHING JUDGED",
        ),
        (
            "not-enough",
            &[("a", OK), ("o", ONLY_EVENTS)],
            &["--observe", "none", "--min-judged", "2"],
            5,
            "NOT ENOUGH JUDGED",
        ),
    ];
    for (name, files, extra, want_code, word) in cases {
        let d = dir(&format!("outcome-{name}"));
        let mut args = vec!["--seed", "1"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run_in(&d, files, &args);
        assert_eq!(code, want_code, "{name}: {stdout}{stderr}");
        assert!(
            stdout.contains(&format!("\n{word} (seed 1, target reference)")),
            "{name}: {stdout}"
        );
        let reports = d.join("reports");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(reports.join("results.json")).unwrap())
                .unwrap();
        let snake = word.to_lowercase().replace(' ', "_");
        assert_eq!(json["outcome"], serde_json::json!(snake), "{name}");
        let md = std::fs::read_to_string(reports.join("summary.md")).unwrap();
        let first = md.lines().next().unwrap_or("");
        assert!(
            first.contains(&format!("kipcheck: {word}")),
            "{name}: {first}"
        );
        assert_eq!(first.contains("✅"), word == "PASSED", "{name}: {first}");
        let html = std::fs::read_to_string(reports.join("report.html")).unwrap();
        assert!(html.contains(word), "{name}: the HTML report lacks {word}");
        if word != "PASSED" {
            assert!(
                !md.contains("PASSED") && !stdout.contains("\nPASSED"),
                "{name}"
            );
        }
    }
}

#[test]
fn a_bad_profile_file_is_a_usage_error() {
    let d = dir("bad-profile");
    std::fs::write(d.join("p.yaml"), "no_such_reading: 1\n").unwrap();
    let (code, _, stderr) = run_in(
        &d,
        &[("a", OK)],
        &[
            "--target",
            "tcp://127.0.0.1:1",
            "--profile",
            d.join("p.yaml").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--profile"), "{stderr}");
}

/// A controller scenario that injects an MV validator (kipcheck's made-up level 10).
const INJECTS: &str = "title: m\nkip: KIP-1294\ngrade: MUST\nroles: [controller]\nrequires: [metadata_version]\nsetup:\n  controller:\n    metadata_version: 10\n    mv_validators:\n      - { key: log.segment.bytes, level: 10, validator: { at_least: 1 } }\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";

#[test]
fn a_live_controller_without_a_manifest_cannot_take_injected_validators() {
    let d = dir("manifest");
    let (mut server, addr) = serve();
    let target = format!("tcp://{addr}");
    let args = ["--target", &target, "--role", "controller", "--seed", "5"];
    let (code, stdout, stderr) = run_in(&d, &[("m", INJECTS)], &args);
    assert!(
        stdout.contains(
            "setup.controller.mv_validators injects MV validators on log.segment.bytes: a live \
             controller cannot be given definitions or a metadata.version; --target-manifest \
             FILE declares its own"
        ),
        "{code}\n{stdout}\n{stderr}"
    );
    assert!(!stdout.contains("lacks metadata_version"), "{stdout}");
    // A wrapped target (`--observe none`) binds as the target it wraps does.
    let mut unobserved = args.to_vec();
    unobserved.extend(["--observe", "none"]);
    let (_, stdout, _) = run_in(&d, &[], &unobserved);
    assert!(
        stdout
            .contains("setup.controller.mv_validators injects MV validators on log.segment.bytes"),
        "{stdout}"
    );
    // A manifest with an unknown key is refused where it is, before any scenario runs.
    let manifest = d.join("m.yaml");
    std::fs::write(
        &manifest,
        "software: X\nmetadata_version: { min: 1, max: 9, finalized: 9 }\nconfigs:\n  a.b:\n    resource: broker\n    type: INT\n    mv_validator: {}\n",
    )
    .unwrap();
    let mut with = args.to_vec();
    with.extend(["--target-manifest", manifest.to_str().unwrap()]);
    let (code, stdout, stderr) = run_in(&d, &[], &with);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("--target-manifest {}:7:5: ", manifest.display())),
        "{stderr}"
    );
    // With a manifest that has no MV validator, the reason names what is missing.
    std::fs::write(
        &manifest,
        "software: X 1\nmetadata_version: { min: 1, max: 9, finalized: 9 }\nconfigs:\n  a.b:\n    resource: broker\n    type: INT\n    static_validator: { violating: \"0\", compliant: \"1\" }\n",
    )
    .unwrap();
    let (_, stdout, stderr) = run_in(&d, &[], &with);
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        stdout.contains(
            "the manifest (X 1) declares no broker config of type INT with a static validator \
             and MV validators at 1 level (1 at or below the scenario's metadata.version 10, 0 \
             above) to bind log.segment.bytes to"
        ),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn serve_on_one_thread_answers_a_paced_load_on_new_connections() {
    let (mut server, addr) = serve_with(&["--threads", "1"]);
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
        .args(["--new-connection", "--rate", "40"])
        .output()
        .expect("load runs");
    let _ = server.kill();
    let _ = server.wait();
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    // 40/s over 2 connections: one every 50 ms each, the first at once: at most 21 each.
    let n = report["handshakes"].as_u64().expect("a count");
    assert!(n > 0 && n <= 42, "{report}");
    assert_eq!(report["errors"], 0);
    // No thread count of 0.
    let bad = kipcheck()
        .args(["serve", "--listen", "127.0.0.1:0", "--threads", "0"])
        .output()
        .expect("serve runs");
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
}

/// `--quarantine FILE`: a quarantined failure leaves the gate green (exit 0); an expired entry
/// fails it (exit 1, named on stderr); a malformed file is a usage error (exit 2).
#[test]
fn quarantine_file_rules_decide_the_exit_code() {
    let d = dir("quarantine");
    let bad = OK.replace("ErrorCode: NONE", "ErrorCode: INVALID_CONFIG");
    let q = d.join("q.yaml");
    let write = |text: &str| std::fs::write(&q, text).unwrap();
    write("quarantine:\n  - { id: f1, reason: known flaky, expires: 2999-12-31 }\n");
    let args = ["--seed", "1", "--quarantine", q.to_str().unwrap()];
    let (code, stdout, stderr) = run_in(&d, &[("a", OK), ("f1", &bad)], &args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("QUARANTINED (known flaky)"), "{stdout}");
    assert!(stdout.contains("1 scenario quarantined"), "{stdout}");
    write("quarantine:\n  - { id: f1, reason: known flaky, expires: 2020-01-01 }\n");
    let (code, _, stderr) = run_in(&d, &[], &args);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("quarantine entry \"f1\" expired on 2020-01-01"),
        "{stderr}"
    );
    write("quarantine:\n  - { id: f1, reason: known flaky, expires: tomorrow }\n");
    let (code, _, stderr) = run_in(&d, &[], &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("expires \"tomorrow\" is not a date"),
        "{stderr}"
    );
}
