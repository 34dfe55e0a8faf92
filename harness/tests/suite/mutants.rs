//! The built-in faulty variants and `kipcheck mutants`: every variant is caught by the real
//! suite (exact names, each with a witness scenario), the reference is unchanged by the
//! fault machinery, `mutant:NAME` parses exactly, `mutants.json` has an exact shape, and the
//! command's exit codes are the documented ones.

use kipcheck::faulty::{Fault, Faults};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kipcheck::adapter::{target_from_spec, ReferenceTarget, Target, TargetOptions, TARGET_KINDS};
use kipcheck::faulty::Faulty;
use kipcheck::model::{ClientModel, ClientType, SpecProfile};
use kipcheck::report::render_mutants_json;
use kipcheck::runner::{kill_matrix, KillMatrix, RunOptions, VariantOutcome};
use kipcheck::scenario::load_dir;

use crate::suite_support::{suite_dir, WITNESSES};

fn options(seed: u64) -> RunOptions {
    RunOptions {
        seed,
        jobs: 2,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "kipcheck mutants".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_variant_is_caught_by_the_suite() {
    let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
    let expected: Vec<&str> = WITNESSES.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, expected);
    assert!(Fault::ALL.len() >= 32);
    let scenarios = load_dir(&suite_dir()).expect("suite loads");
    let total = scenarios.len();
    let mut seen = Vec::new();
    let m = kill_matrix(Fault::ALL, scenarios, &options(1), true, &mut |v| {
        seen.push(v.name.clone())
    })
    .await;
    assert_eq!(
        seen, expected,
        "progress callback once per variant, in order"
    );
    assert_eq!(m.reference_failures, Vec::<String>::new());
    assert_eq!(m.survivors(), Vec::<&str>::new());
    assert_eq!(m.caught(), Fault::ALL.len());
    assert!(m.all_caught());
    assert_eq!(m.scenarios.len(), total);
    for ((name, witness), v) in WITNESSES.iter().zip(&m.variants) {
        assert_eq!(v.name, *name);
        assert!(
            v.killed_by.iter().any(|s| s == witness),
            "{name} not caught by {witness}: {:?}",
            v.killed_by
        );
    }
}

#[test]
fn no_faults_is_the_reference() {
    let profile = SpecProfile::default();
    let configs: [&[(&str, &str)]; 3] = [
        &[("group.id", "g")],
        &[
            (
                "config.push.allowed.keys",
                "interceptor.classes,my.custom,client.id",
            ),
            ("interceptor.classes", "a.B"),
            ("my.custom", "x"),
        ],
        &[("enable.config.push", "false")],
    ];
    for cfg in configs {
        let user: BTreeMap<String, String> = cfg
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let plain = ClientModel::new(ClientType::Consumer, user.clone(), &profile, 9).unwrap();
        let none = ClientModel::new(ClientType::Consumer, user.clone(), &profile, 9)
            .unwrap()
            .with_decisions(Faulty::client(&Faults::none()));
        assert_eq!(plain.selected_request(), none.selected_request());
        let faulty = ClientModel::new(ClientType::Consumer, user, &profile, 9)
            .unwrap()
            .with_decisions(Faulty::client(&Faults::one(Fault::SendsAllowedKeysList)));
        if cfg.len() > 1 {
            assert_ne!(plain.selected_request(), faulty.selected_request());
        }
    }
    assert!(Faults::none().is_empty());
}

#[test]
fn mutant_target_specs_parse_exactly() {
    let opts = TargetOptions::default();
    let t = target_from_spec("mutant:no-size-check", &opts).expect("known mutant");
    assert_eq!(t.name(), "mutant:no-size-check");
    assert_eq!(t.capabilities(), ReferenceTarget.capabilities());
    let names = Fault::ALL
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ");
    for (spec, shown) in [("mutant:nope", "nope"), ("mutant:", "")] {
        let err = target_from_spec(spec, &opts).err().expect("unknown mutant");
        assert_eq!(
            err.to_string(),
            format!("target setup failed: unknown mutant {shown:?} (available: {names})")
        );
    }
    let err = target_from_spec("mutants:no-size-check", &opts)
        .err()
        .expect("not a target kind");
    assert!(TARGET_KINDS.contains("mutant:NAME"), "{TARGET_KINDS}");
    assert_eq!(
        err.to_string(),
        format!("target setup failed: unknown target \"mutants:no-size-check\" (available: {TARGET_KINDS})")
    );
}

#[test]
fn mutants_json_has_an_exact_shape() {
    let m = KillMatrix {
        seed: 7,
        scenarios: vec!["a".into(), "b".into(), "c".into()],
        reference_failures: vec![],
        variants: vec![
            VariantOutcome {
                name: "no-size-check".into(),
                bug: "Broker: no size check.".into(),
                killed_by: vec!["a".into(), "b".into()],
            },
            VariantOutcome {
                name: "drops-throttle-time".into(),
                bug: "Broker: no throttle.".into(),
                killed_by: vec![],
            },
        ],
        observed: true,
    };
    let expected = r#"{
  "format_version": 1,
  "seed": 7,
  "observed": true,
  "scenarios": 3,
  "variants_total": 2,
  "caught": 1,
  "survivors": [
    "drops-throttle-time"
  ],
  "reference_failures": [],
  "variants": [
    {
      "name": "no-size-check",
      "bug": "Broker: no size check.",
      "caught": true,
      "killed_by": [
        "a",
        "b"
      ]
    },
    {
      "name": "drops-throttle-time",
      "bug": "Broker: no throttle.",
      "caught": false,
      "killed_by": []
    }
  ],
  "scenarios_catching": {
    "a": [
      "no-size-check"
    ],
    "b": [
      "no-size-check"
    ],
    "c": []
  },
  "dead_weight": [
    "c"
  ]
}
"#;
    assert_eq!(render_mutants_json(&m).unwrap(), expected);
    assert!(!m.all_caught());
}

fn kipcheck_mutants(report: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .env("NO_COLOR", "1")
        .arg("mutants")
        .args(["--scenarios", suite_dir().to_str().unwrap()])
        .args(["--report-dir", report.to_str().unwrap()])
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn report_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("mutants")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn cli_all_caught_exits_0_and_writes_both_reports() {
    let d = report_dir("caught");
    let (code, stdout, stderr) = kipcheck_mutants(
        &d,
        &[
            "--seed",
            "1",
            "--mutant",
            "no-size-check",
            "--id",
            "b1324-size-body-over-max-rejected",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("1/1 faulty variants caught by 1 scenarios (seed 1)"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(
        json["variants"][0]["killed_by"],
        serde_json::json!(["b1324-size-body-over-max-rejected"])
    );
    let html = std::fs::read_to_string(d.join("mutants.html")).unwrap();
    assert!(html.contains("<code>no-size-check</code>"), "{html}");
}

#[test]
fn cli_a_survivor_exits_1() {
    let d = report_dir("survivor");
    let (code, stdout, _) = kipcheck_mutants(
        &d,
        &[
            "--mutant",
            "drops-throttle-time",
            "--id",
            "b1324-size-body-over-max-rejected",
        ],
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("SURVIVED drops-throttle-time"), "{stdout}");
    assert!(
        stdout.contains(
            "dead weight: 1 scenario(s) catch no variant: b1324-size-body-over-max-rejected"
        ),
        "{stdout}"
    );
}

#[test]
fn cli_usage_errors_and_list() {
    let d = report_dir("usage");
    let (code, _, stderr) = kipcheck_mutants(&d, &["--mutant", "nope"]);
    assert_eq!(code, 2);
    assert!(
        stderr
            .starts_with("kipcheck: unknown mutant \"nope\" (available: no-security-infix-rule, "),
        "{stderr}"
    );
    let (code, _, _) = kipcheck_mutants(&d, &["--id", "no-such-scenario"]);
    assert_eq!(code, 4);
    let (code, stdout, _) = kipcheck_mutants(&d, &["--list"]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), Fault::ALL.len());
    assert_eq!(
        stdout.lines().find(|l| l.contains("`no-size-check`")),
        Some("- `no-size-check`: Broker: no `client.config.max.bytes` check at all.")
    );
}
