//! The built-in faulty variants and `kipcheck mutants`: every variant is caught by the real
//! suite (exact names, each with a witness scenario), the reference is unchanged by the
//! fault machinery, `mutant:NAME` parses exactly, `mutants.json` has an exact shape, and the
//! command's exit codes are the documented ones.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kipcheck::adapter::{target_from_spec, ReferenceTarget, Target, TargetOptions, TARGET_KINDS};
use kipcheck::model::{ClientModel, ClientType, Fault, Faults, SpecProfile};
use kipcheck::report::render_mutants_json;
use kipcheck::runner::{kill_matrix, KillMatrix, RunOptions, VariantOutcome};
use kipcheck::scenario::load_dir;

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// Every variant, in declaration order, with one scenario that must catch it.
const WITNESSES: &[(&str, &str)] = &[
    ("no-security-infix-rule", "c1324-sensitive-infix"),
    ("no-classes-suffix-rule", "c1324-sensitive-suffix"),
    ("password-rule-first", "c1324-sensitive-password-type"),
    ("no-class-type-rule", "c1324-sensitive-class-type"),
    ("sends-undefined-keys", "c1324-sensitive-custom-key"),
    (
        "sends-allowed-keys-list",
        "c1324-allowed-keys-replace-default",
    ),
    (
        "empty-push-when-nothing-left",
        "c1324-all-sensitive-no-request",
    ),
    ("no-client-budget", "c1324-budget-fits-max-bytes"),
    ("client-older-type-numbering", "c1324-value-rendering"),
    (
        "is-default-always-false",
        "c1324-is-default-explicit-default-value",
    ),
    ("ignores-enable-switch", "c1324-disabled-consumer"),
    (
        "retriable-errors-not-retried",
        "c1324-retry-coordinator-load-in-progress",
    ),
    (
        "does-not-block-user-requests",
        "c1324-user-request-blocked-until-response",
    ),
    (
        "retries-config-too-large",
        "c1324-config-too-large-not-retried",
    ),
    ("retries-invalid-config", "c1324-invalid-config-not-retried"),
    ("ignores-throttle", "c1324-throttle-waits-before-retry"),
    ("no-backoff-cap", "c1324-backoff-exponential-growth"),
    ("jitter-out-of-bounds", "c1324-backoff-exponential-growth"),
    ("handshake-per-connection", "c1324-once-not-per-connection"),
    (
        "push-to-unadvertising-broker",
        "c1324-mixed-push-only-to-new",
    ),
    ("fixed-node-choice", "c1324-random-node-varies-across-runs"),
    (
        "embedded-clients-handshake",
        "c1324-streams-embedded-producer-no-handshake",
    ),
    (
        "producer-deadline-from-start",
        "c1324-deadline-producer-late-send",
    ),
    ("blocks-past-deadline", "c1324-deadline-default-60000"),
    (
        "push-before-api-versions-answer",
        "c1324-handshake-waits-for-api-versions",
    ),
    (
        "ignores-min-version",
        "c1324-mixed-range-without-v0-push-to-v0-node",
    ),
    (
        "describe-configs-type-numbering",
        "c1324-consumer-default-keys-exact",
    ),
    (
        "list-rendered-with-tostring",
        "c1324-allowed-keys-self-listed",
    ),
    (
        "is-default-by-value",
        "c1324-is-default-explicit-default-value",
    ),
    (
        "null-value-sent-empty",
        "c1324-null-only-allowed-key-no-request",
    ),
    (
        "retries-every-other-code",
        "c1324-policy-violation-not-retried",
    ),
    ("hard-coded-retriable-set", "c1324-retry-not-controller"),
    (
        "backoff-exponent-off-by-one",
        "c1324-backoff-exponential-growth",
    ),
    (
        "shrinks-after-config-too-large",
        "c1324-config-too-large-no-handshake-on-other-node",
    ),
    (
        "rehandshake-after-rejection",
        "c1324-invalid-config-no-handshake-on-reconnect",
    ),
    (
        "rejection-keeps-requests-held",
        "c1324-policy-violation-not-retried",
    ),
    (
        "push-before-authentication",
        "c1324-push-after-sasl-authenticate",
    ),
    (
        "push-after-failed-authentication",
        "c1324-no-push-after-sasl-authentication-failed",
    ),
    (
        "advertises-without-policy",
        "b1324-no-policy-not-advertised-every-version",
    ),
    ("no-size-check", "b1324-size-body-over-max-rejected"),
    (
        "size-check-after-policy",
        "b1324-rejecting-policy-oversized-gets-too-large",
    ),
    ("size-limit-inclusive", "b1324-size-body-at-max-accepted"),
    (
        "measures-frame-prefix",
        "b1324-size-body-max-minus-one-accepted",
    ),
    (
        "broker-older-type-numbering",
        "b1324-config-def-numbering-int-2-short-3",
    ),
    (
        "accepts-sensitive-types",
        "b1324-broker-checks-sensitive-types-rejected",
    ),
    (
        "skips-value-parsing",
        "b1324-broker-checks-unparsable-values-rejected",
    ),
    (
        "drops-sensitive-entries",
        "b1324-config-type-class-rejected",
    ),
    (
        "drops-throttle-time",
        "b1324-throttle-time-returned-on-success",
    ),
    (
        "reports-never-configs",
        "k1326-broker-never-with-validator-excluded",
    ),
    (
        "reports-validatorless-configs",
        "k1326-broker-no-validator-excluded",
    ),
    (
        "reports-password-configs",
        "k1326-broker-password-with-validator-excluded",
    ),
    (
        "policy-violation-instead-of-invalid-config",
        "b1324-policy-reject-invalid-config",
    ),
    ("size-counts-header", "b1324-size-body-at-max-accepted"),
    (
        "refuses-empty-configs",
        "b1324-empty-configs-rejecting-policy",
    ),
    (
        "closes-after-error-response",
        "b1324-policy-reject-connection-stays-open",
    ),
    ("drops-policy-message", "b1324-policy-reject-invalid-config"),
    (
        "persists-below-enabling-version",
        "k1326-ctrl-no-persist-below-level",
    ),
    (
        "persists-only-above-enabling-version",
        "k1326-ctrl-persist-at-level",
    ),
    (
        "loses-static-configs-on-failover",
        "k1326-ctrl-failover-static-survives",
    ),
    ("mv-validator-ceiling", "k1294-floor-between-levels"),
    (
        "no-registration-audit",
        "k1294-registration-reject-invalid-registration",
    ),
    (
        "registration-wrong-error-code",
        "k1294-registration-reject-invalid-registration",
    ),
    (
        "audit-on-upgrade-only",
        "k1294-audit-downgrade-dynamic-violation",
    ),
    (
        "alter-configs-skips-mv-validators",
        "k1294-alter-configs-invalid-config",
    ),
    (
        "incremental-alter-skips-mv-validators",
        "k1294-iac-invalid-config",
    ),
    (
        "incremental-alter-skips-static-validator",
        "k1294-iac-static-validator-refused",
    ),
    (
        "validate-only-writes",
        "k1294-alter-configs-validate-only-valid",
    ),
    ("kip1256-wrong-error-code", "k1294-k1256-duplicate-key"),
    ("every-topic-exists", "k1294-k1256-unknown-topic"),
    (
        "static-configs-string-value-of",
        "k1326-broker-list-convert-to-string",
    ),
    (
        "reports-only-explicit-configs",
        "k1326-broker-v6-defaults-exact-set",
    ),
    ("reports-password-as-null", "k1326-broker-values-never-null"),
    (
        "drops-default-static-configs",
        "k1326-ctrl-default-value-persisted-as-given",
    ),
    (
        "static-configs-wrong-tag",
        "k1326-ctrl-default-value-persisted-as-given",
    ),
    (
        "registration-audit-at-broker-max",
        "k1294-registration-below-lowest-level-accepted",
    ),
    (
        "fenced-record-for-refused-registration",
        "k1294-registration-rejected-then-fixed",
    ),
    ("mv-floor-strictly-below", "k1294-floor-exact-lowest-level"),
    (
        "applies-every-mv-validator",
        "k1294-audit-against-target-level-only",
    ),
    (
        "mv-validator-replaces-static",
        "k1294-static-validator-still-applies",
    ),
    (
        "list-op-validates-delta",
        "k1294-iac-append-validates-resulting-list",
    ),
    (
        "validate-only-skips-audit",
        "k1294-audit-validate-only-dynamic-violation",
    ),
    ("audit-error-per-feature", "k1294-audit-update-features-v2"),
    (
        "audit-skips-static-configs",
        "k1294-audit-default-valued-static-violation",
    ),
    (
        "audit-at-current-level",
        "k1294-audit-upgrade-static-violation",
    ),
    (
        "forwarded-response-without-header",
        "k1294-envelope-iac-compliant-stored",
    ),
];

fn options(seed: u64) -> RunOptions {
    RunOptions {
        seed,
        jobs: 2,
        scenario_timeout: Duration::from_secs(30),
        baseline: None,
        command: "kipcheck mutants".into(),
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
            .with_faults(Faults::none());
        assert_eq!(plain.selected_request(), none.selected_request());
        let faulty = ClientModel::new(ClientType::Consumer, user, &profile, 9)
            .unwrap()
            .with_faults(Faults::one(Fault::SendsAllowedKeysList));
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
