//! Coverage maths and rendering on a small fixture ledger, exact numbers and exact text.

use std::path::Path;

use kipcheck::ledger::{
    coverage, parse_scenario_ref, Counts, Evidence, Judged, Kind, Kip, Ledger, ScenarioRef, Status,
};

const FIXTURE: &str = "\
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
    excluded: >-
      Java API
      only
  - id: kip1324.c
    kip: KIP-1324
    kind: should
    text: c
    source: here
  - id: kip1324.d
    kip: KIP-1324
    kind: must
    text: d
    source: here
    excluded: stale exclusion
  - id: kip1294.e
    kip: KIP-1294
    kind: must
    text: e
    source: here
";

fn ledger() -> Ledger {
    Ledger::parse(FIXTURE, Path::new("fixture.yaml")).unwrap()
}

fn scenario(id: &str, path: &str, reqs: &[&str]) -> ScenarioRef {
    ScenarioRef {
        id: id.to_string(),
        requirements: reqs.iter().map(|s| s.to_string()).collect(),
        path: path.to_string(),
        evidence: Evidence {
            wire: true,
            observation: false,
        },
    }
}

fn scenarios() -> Vec<ScenarioRef> {
    vec![
        scenario(
            "s2",
            "scenarios/b.yaml",
            &["kip1324.tp.a", "kip1324.d", "kip1324.nope", "kip1324.nope"],
        ),
        scenario("s1", "scenarios/a.yaml", &["kip1324.tp.a", "kip1324.tp.a"]),
        scenario("s3", "scenarios/c.yaml", &["kip1294.e", "kip9999.x"]),
    ]
}

fn counts(requirements: usize, covered: usize, excluded: usize, untested: usize) -> Counts {
    Counts {
        requirements,
        covered,
        excluded,
        untested,
    }
}

#[test]
fn coverage_numbers() {
    let cov = coverage(&ledger(), &scenarios());
    assert_eq!(cov.kips.len(), 2);
    assert_eq!(cov.kips[0].kip, Kip::Kip1324);
    assert_eq!(cov.kips[1].kip, Kip::Kip1294);

    let k1324 = &cov.kips[0];
    assert_eq!(k1324.totals.all, counts(4, 2, 1, 1));
    assert_eq!(
        k1324.requirements[0].status,
        Status::Covered {
            scenarios: vec!["s1".into(), "s2".into()]
        }
    );
    assert_eq!(
        k1324.requirements[1].status,
        Status::Excluded {
            reason: "Java API only".into()
        }
    );
    assert_eq!(k1324.requirements[2].status, Status::Untested);
    assert_eq!(
        k1324.requirements[3].status,
        Status::Covered {
            scenarios: vec!["s2".into()]
        }
    );
    assert_eq!(cov.kips[1].totals.all, counts(1, 1, 0, 0));

    assert_eq!(cov.totals.all, counts(5, 3, 1, 1));
    assert_eq!(cov.totals.by_kind[&Kind::TestPlan], counts(1, 1, 0, 0));
    assert_eq!(cov.totals.by_kind[&Kind::Must], counts(3, 2, 1, 0));
    assert_eq!(cov.totals.by_kind[&Kind::Should], counts(1, 0, 0, 1));
    assert!(!cov.totals.by_kind.contains_key(&Kind::May));

    assert_eq!(cov.excluded_but_covered, vec!["kip1324.d".to_string()]);
    assert!(!cov.passed);
}

#[test]
fn unknown_requirement_ids_are_reported_once_per_scenario() {
    let cov = coverage(&ledger(), &scenarios());
    let unknown: Vec<(&str, &str, &str)> = cov
        .unknown_references
        .iter()
        .map(|u| (u.scenario.as_str(), u.path.as_str(), u.requirement.as_str()))
        .collect();
    assert_eq!(
        unknown,
        vec![
            ("s2", "scenarios/b.yaml", "kip1324.nope"),
            ("s3", "scenarios/c.yaml", "kip9999.x"),
        ]
    );
    let failure = cov.check().unwrap_err();
    assert_eq!(failure.untested, vec!["kip1324.c".to_string()]);
    assert_eq!(
        failure.to_string(),
        "ledger check failed: 1 requirement untested: kip1324.c; \
         2 unknown requirement ids: s2 names kip1324.nope, s3 names kip9999.x"
    );
}

#[test]
fn check_fails_on_unknown_ids_alone() {
    let mut s = scenarios();
    s.push(scenario("s4", "scenarios/d.yaml", &["kip1324.c"]));
    let cov = coverage(&ledger(), &s);
    assert_eq!(cov.totals.all.untested, 0);
    let failure = cov.check().unwrap_err();
    assert!(failure.untested.is_empty());
    assert_eq!(failure.unknown_references.len(), 2);
}

#[test]
fn check_passes_when_everything_is_covered_or_excluded() {
    let s = vec![
        scenario("s1", "a.yaml", &["kip1324.tp.a", "kip1324.c"]),
        scenario("s3", "c.yaml", &["kip1294.e"]),
    ];
    let cov = coverage(&ledger(), &s);
    assert!(cov.passed);
    assert_eq!(cov.check(), Ok(()));
    assert_eq!(cov.totals.all, counts(5, 3, 2, 0));
    assert!(cov.excluded_but_covered.is_empty());
    assert!(cov.render_text().ends_with("\nledger check: passed\n"));
}

#[test]
fn no_scenarios_leaves_everything_untested_or_excluded() {
    let cov = coverage(&ledger(), &[]);
    assert_eq!(cov.totals.all, counts(5, 0, 2, 3));
    assert_eq!(cov.check().unwrap_err().untested.len(), 3);
}

#[test]
fn render_text_exact() {
    let cov = coverage(&ledger(), &scenarios());
    let expected = "\
KIP-1324 (4 requirements: 2 covered, 1 excluded, 1 untested)
  [test-plan] kip1324.tp.a -> [wire] s1, s2
  [must]      kip1324.b -> excluded: Java API only
  [should]    kip1324.c -> untested
  [must]      kip1324.d -> [wire] s2

KIP-1294 (1 requirement: 1 covered, 0 excluded, 0 untested)
  [must]      kip1294.e -> [wire] s3

Totals
  kind       total  covered  excluded  untested  coverage
  test-plan      1        1         0         0      100%
  must           3        2         1         0      100%
  should         1        0         0         1        0%
  all            5        3         1         1       75%

Judged (covered requirements): 3 wire

Unknown requirement ids (2)
  s2 (scenarios/b.yaml) names kip1324.nope
  s3 (scenarios/c.yaml) names kip9999.x

Excluded but covered: remove `excluded` (1)
  kip1324.d

ledger check: FAILED (1 untested requirement, 2 unknown requirement ids, 0 requirements judged by observations only)
";
    assert_eq!(cov.render_text(), expected);
}

#[test]
fn json_shape() {
    let cov = coverage(&ledger(), &scenarios());
    let v = serde_json::to_value(&cov).unwrap();
    assert_eq!(v["passed"], false);
    assert_eq!(v["totals"]["requirements"], 5);
    assert_eq!(v["totals"]["covered"], 3);
    assert_eq!(v["totals"]["by_kind"]["test-plan"]["covered"], 1);
    assert_eq!(v["kips"][0]["kip"], "KIP-1324");
    let first = &v["kips"][0]["requirements"][0];
    assert_eq!(first["id"], "kip1324.tp.a");
    assert_eq!(first["kind"], "test-plan");
    assert_eq!(first["status"], "covered");
    assert_eq!(first["scenarios"], serde_json::json!(["s1", "s2"]));
    let excluded = &v["kips"][0]["requirements"][1];
    assert_eq!(excluded["status"], "excluded");
    assert_eq!(excluded["reason"], "Java API only");
    assert_eq!(v["kips"][0]["requirements"][2]["status"], "untested");
    assert_eq!(v["unknown_references"][1]["requirement"], "kip9999.x");
    assert_eq!(v["excluded_but_covered"], serde_json::json!(["kip1324.d"]));
}

#[test]
fn evidence_comes_from_step_kinds_and_requires() {
    let at = Path::new("x.yaml");
    let of = |text: &str| parse_scenario_ref(text, at).unwrap().evidence;
    let wire_and_events = "id: x\nsteps:\n  - start\n  - expect_request: { api: ApiVersions }\n  - expect_event: { event: { event: e } }\n";
    assert_eq!(
        of(wire_and_events),
        Evidence {
            wire: true,
            observation: true
        }
    );
    let events_only = "id: x\nsteps:\n  - send: { api: ApiVersions, version: 3 }\n  - expect_no_event: { event: { event: e } }\n";
    assert_eq!(
        of(events_only),
        Evidence {
            wire: false,
            observation: true
        }
    );
    // A scenario that requires events never runs where only the wire is seen.
    let gated = "id: x\nrequires: [events]\nsteps:\n  - expect_response: {}\n";
    assert_eq!(of(gated), Evidence::default());
}

#[test]
fn observation_only_judging_fails_the_check_unless_the_ledger_says_why() {
    let observed = |id: &str, reqs: &[&str]| {
        let mut s = scenario(id, "o.yaml", reqs);
        s.evidence = Evidence {
            wire: false,
            observation: true,
        };
        s
    };
    let s = vec![
        scenario("s1", "a.yaml", &["kip1324.tp.a"]),
        observed("s2", &["kip1324.c", "kip1324.tp.a"]),
        observed("s3", &["kip1294.e"]),
    ];
    let cov = coverage(&ledger(), &s);
    let judged: Vec<_> = cov.kips[0]
        .requirements
        .iter()
        .map(|r| (r.id.as_str(), r.judged))
        .collect();
    assert_eq!(
        judged,
        vec![
            ("kip1324.tp.a", Some(Judged::Both)),
            ("kip1324.b", None),
            ("kip1324.c", Some(Judged::Observation)),
            ("kip1324.d", None),
        ]
    );
    assert_eq!(cov.wire_missing, vec!["kip1324.c", "kip1294.e"]);
    let failure = cov.check().unwrap_err();
    assert_eq!(failure.wire_missing, vec!["kip1324.c", "kip1294.e"]);
    assert_eq!(
        failure.to_string(),
        "ledger check failed: 2 requirements judged by observations only (add a wire \
         assertion, or mark the entry `observation_only` with the reason): kip1324.c, kip1294.e"
    );
    let marked = FIXTURE.replace(
        "    text: e\n",
        "    text: e\n    observation_only: only the policy call shows it\n",
    );
    let marked = Ledger::parse(&marked, Path::new("fixture.yaml")).unwrap();
    let cov = coverage(&marked, &s);
    assert_eq!(cov.wire_missing, vec!["kip1324.c"]);
    assert!(
        cov.render_text().contains(
            "  [must]      kip1294.e -> [observation] s3 (observation only: only the policy call shows it)\n"
        ),
        "{}",
        cov.render_text()
    );
}

/// The real ledger with no scenarios: every non-excluded entry is untested.
#[test]
fn real_ledger_without_scenarios() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/requirements.yaml");
    let ledger = Ledger::load(&path).unwrap();
    let cov = coverage(&ledger, &[]);
    assert_eq!(cov.totals.all.requirements, ledger.requirements.len());
    assert_eq!(cov.totals.all.excluded, 13);
    assert_eq!(cov.totals.all.untested, ledger.requirements.len() - 13);
    assert_eq!(cov.totals.by_kind[&Kind::TestPlan], counts(23, 0, 0, 23));
}
