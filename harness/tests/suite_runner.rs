//! The runner end to end on small scenario folders: verdicts, unsupported capabilities,
//! a hanging or panicking target becoming a verdict, baselines (expected failures, stale
//! entries, different failures), partitions, per-scenario seeds, and redaction of secrets.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use kipcheck::adapter::{
    AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, ReferenceTarget, Session,
    SessionConfig, Target,
};
use kipcheck::runner::{
    run_suite, select, Baseline, BaselineEntry, Filters, Partition, RunEvent, RunOptions,
    ScenarioResult, Summary, UnsupportedCause, Verdict,
};
use kipcheck::scenario::{load_dir, Role, Scenario};
use serde_json::Value;

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("suite_runner")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("area")).expect("mkdir");
    d
}

fn scenarios(name: &str, files: &[(&str, &str)]) -> Vec<Scenario> {
    let root = dir(name);
    for (id, body) in files {
        std::fs::write(
            root.join("area").join(format!("{id}.yaml")),
            format!("id: {id}\n{body}"),
        )
        .expect("write");
    }
    load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"))
}

const PASSING: &str = "title: ApiVersions answers
kip: KIP-1324
grade: MUST
roles: [broker]
steps:
  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }
  - expect_response: { body: { ErrorCode: NONE } }
";

const FAILING: &str = "title: wrong expectation
kip: KIP-1324
grade: MUST
roles: [broker]
steps:
  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }
  - expect_response: { body: { ErrorCode: INVALID_REQUEST } }
";

fn options(seed: u64) -> RunOptions {
    RunOptions {
        seed,
        jobs: 2,
        scenario_timeout: Duration::from_secs(5),
        baseline: None,
        command: "kipcheck run --target reference".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    }
}

async fn run(
    target: Arc<dyn Target>,
    s: Vec<Scenario>,
    o: &RunOptions,
) -> (Vec<ScenarioResult>, Summary, Vec<RunEvent>) {
    let mut events = Vec::new();
    let mut sink = |e: &RunEvent| events.push(e.clone());
    let (r, sum) = run_suite(target, s, o, &mut sink).await;
    (r, sum, events)
}

#[tokio::test]
async fn verdicts_and_event_stream() {
    let s = scenarios("verdicts", &[("p1", PASSING), ("f1", FAILING)]);
    let (results, summary, events) = run(Arc::new(ReferenceTarget), s, &options(7)).await;
    assert_eq!(summary.passed, 1);
    assert_eq!(summary.failed, 1);
    assert_eq!(summary.total, 2);
    assert!(!summary.is_green());
    let f = results.iter().find(|r| r.id == "f1").expect("f1");
    assert_eq!(f.verdict, Verdict::Failed);
    let failure = f.failure.as_ref().expect("failure");
    assert_eq!(failure.step, Some(1));
    assert!(
        failure.location.ends_with("area/f1.yaml:8:5"),
        "{}",
        failure.location
    );
    assert_eq!(
        failure.message,
        "body.ErrorCode: expected INVALID_REQUEST (42), got 0 (NONE)"
    );
    assert_eq!(
        f.reproduce,
        "kipcheck run --target reference --seed 7 --id f1"
    );
    assert!(matches!(events.first(), Some(RunEvent::Started(_))));
    assert!(matches!(events.last(), Some(RunEvent::Finished { .. })));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, RunEvent::ScenarioFinished(_)))
            .count(),
        2
    );
}

#[tokio::test]
async fn missing_capabilities_are_unsupported_not_failed() {
    struct BrokerOnly;
    #[async_trait]
    impl Target for BrokerOnly {
        fn name(&self) -> String {
            "broker-only".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                roles: vec![Role::Broker],
                capabilities: vec![],
                readings: None,
            }
        }
        async fn open(&self, c: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
            ReferenceTarget.open(c).await
        }
    }
    // An observation step on a target without events is recorded as not observed; the wire
    // steps still judge the scenario.
    let with_event =
        format!("{PASSING}  - expect_event: {{ event: {{ event: api_versions_answered }} }}\n");
    // Only observations: nothing can be judged, so unsupported (never passed).
    let only_events = "title: o\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_event: { event: { event: api_versions_answered } }\n";
    // `requires: [events]` gates explicitly.
    let requires = format!("{PASSING}requires: [events]\n");
    let client = "title: c\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: { client: { type: admin } }\nsteps: [start]\n";
    let s = scenarios(
        "unsupported",
        &[
            ("u1", &with_event),
            ("u2", client),
            ("u3", only_events),
            ("u4", &requires),
            ("p1", PASSING),
        ],
    );
    let (results, summary, _) = run(Arc::new(BrokerOnly), s, &options(1)).await;
    assert_eq!((summary.passed, summary.unsupported), (2, 3));
    assert_eq!((summary.judged, summary.steps_judged), (2, 2));
    assert_eq!(summary.steps_not_observed, 2);
    let by_id = |id: &str| results.iter().find(|r| r.id == id).unwrap().clone();
    let u1 = by_id("u1");
    assert_eq!(u1.verdict, Verdict::Passed);
    assert_eq!((u1.steps_judged, u1.steps_not_observed), (1, 1));
    assert_eq!(
        by_id("u2").unsupported_reason.as_deref(),
        Some("target does not play client")
    );
    let u3 = by_id("u3");
    assert_eq!(u3.verdict, Verdict::Unsupported);
    assert_eq!(u3.unsupported_causes, vec![UnsupportedCause::NothingJudged]);
    assert_eq!((u3.steps_judged, u3.steps_not_observed), (0, 1));
    assert_eq!(
        by_id("u4").unsupported_reason.as_deref(),
        Some("target lacks events")
    );
    let groups: Vec<(&str, usize)> = summary
        .unsupported_by_cause
        .iter()
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(
        groups,
        vec![
            ("does not play client", 1),
            ("lacks events", 1),
            ("nothing judged (observation steps only)", 1)
        ]
    );
}

#[tokio::test]
async fn a_live_target_that_follows_other_readings_is_not_asked() {
    struct Fixed;
    #[async_trait]
    impl Target for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                roles: vec![Role::Broker],
                capabilities: vec![],
                readings: Some(kipcheck::model::SpecProfile::default()),
            }
        }
        async fn open(&self, c: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
            ReferenceTarget.open(c).await
        }
    }
    let other = format!("{PASSING}profile: {{ size_measure: configs_array }}\n");
    let s = scenarios("readings", &[("r1", &other), ("p1", PASSING)]);
    let (results, summary, _) = run(Arc::new(Fixed), s, &options(1)).await;
    assert_eq!((summary.passed, summary.unsupported), (1, 1));
    let r1 = results.iter().find(|r| r.id == "r1").unwrap();
    assert_eq!(
        r1.unsupported_causes,
        vec![UnsupportedCause::Reading {
            reading: "size_measure".into(),
            target: "\"request_body\"".into(),
            scenario: "\"configs_array\"".into(),
        }]
    );
    assert_eq!(
        r1.unsupported_reason.as_deref(),
        Some(
            "target follows size_measure = \"request_body\", the scenario needs \"configs_array\""
        )
    );
}

/// A target that declares readings other than the default is asked every scenario that does
/// not pin them, and runs it under its own readings (here other provisional numbers: the
/// PushConfig goes out under API key 99); only a scenario pinning another value is not asked.
#[tokio::test]
async fn a_scenario_that_pins_nothing_runs_under_the_targets_readings() {
    let defaults = kipcheck::model::SpecProfile::default();
    let declared = kipcheck::model::SpecProfile {
        size_measure: kipcheck::model::SizeMeasure::ConfigsArray,
        provisional: kipcheck::codec::ProvisionalNumbers {
            push_config_api_key: kipcheck::codec::ApiKey(99),
            ..defaults.provisional
        },
        ..defaults
    };
    /// Follows its own readings whatever the session is told, as a live broker does.
    struct Live(kipcheck::model::SpecProfile);
    #[async_trait]
    impl Target for Live {
        fn name(&self) -> String {
            "live".into()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                readings: Some(self.0.clone()),
                ..kipcheck::adapter::reference::reference_capabilities()
            }
        }
        async fn open(&self, mut c: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
            c.profile = self.0.clone();
            ReferenceTarget.open(c).await
        }
    }
    let target = Arc::new(Live(declared));
    let push = "title: p\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsetup: { broker: { policy: accept } }\nsteps:\n  - send: { api: PushConfig, version: 0, body: { Configs: [ { ConfigKey: client.id, ConfigValue: a, ConfigType: 5, IsDefault: false } ] } }\n  - expect_response: { body: { ErrorCode: NONE } }\n";
    let same = format!("{push}profile: {{ size_measure: configs_array }}\n");
    let other = format!("{push}profile: {{ size_measure: request_body }}\n");
    let s = scenarios(
        "rebased",
        &[("unpinned", push), ("same", &same), ("other", &other)],
    );
    let (results, summary, _) = run(target, s, &options(1)).await;
    let verdicts: Vec<(String, Verdict)> =
        results.iter().map(|r| (r.id.clone(), r.verdict)).collect();
    assert_eq!(
        verdicts,
        vec![
            ("other".into(), Verdict::Unsupported),
            ("same".into(), Verdict::Passed),
            ("unpinned".into(), Verdict::Passed),
        ]
    );
    assert_eq!((summary.passed, summary.unsupported), (2, 1));
}

#[tokio::test]
async fn a_run_that_judges_nothing_is_not_green() {
    let only_events = "title: o\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\nsteps:\n  - send: { api: ApiVersions, version: 3, body: { ClientSoftwareName: k, ClientSoftwareVersion: '1' } }\n  - expect_event: { event: { event: api_versions_answered } }\n";
    let s = scenarios("nothing", &[("o1", only_events)]);
    let target = Arc::new(kipcheck::adapter::Unobserved(Arc::new(ReferenceTarget)));
    let (_, summary, _) = run(target, s, &options(1)).await;
    assert_eq!(
        (summary.total, summary.judged, summary.unsupported),
        (1, 0, 1)
    );
    assert!(summary.nothing_judged());
    assert!(!summary.is_green());
}

/// A target whose sessions hang on `recv` or panic on `send`.
struct Broken {
    panic: bool,
}

struct BrokenSession {
    panic: bool,
}

#[async_trait]
impl Session for BrokenSession {
    async fn send(&mut self, _: u32, _: Vec<u8>) -> Result<(), AdapterError> {
        assert!(!self.panic, "the implementation under test crashed");
        Ok(())
    }
    async fn recv(&mut self, _: u32, _: u64) -> Result<Option<ConnOutput>, AdapterError> {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(None)
    }
    async fn act(&mut self, _: PeerAction) -> Result<(), AdapterError> {
        Ok(())
    }
    async fn next_request(&mut self, _: u64) -> Result<Option<OutRequest>, AdapterError> {
        Ok(None)
    }
    async fn respond(&mut self, _: i32, _: Vec<u8>) -> Result<(), AdapterError> {
        Ok(())
    }
    async fn next_release(&mut self, _: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        Ok(None)
    }
    async fn advance(&mut self, _: u64) -> Result<(), AdapterError> {
        Ok(())
    }
    fn now_ms(&self) -> u64 {
        0
    }
    fn events(&self) -> Vec<Value> {
        Vec::new()
    }
}

#[async_trait]
impl Target for Broken {
    fn name(&self) -> String {
        "broken".into()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceTarget.capabilities()
    }
    async fn open(&self, _: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        Ok(Box::new(BrokenSession { panic: self.panic }))
    }
}

#[tokio::test(start_paused = true)]
async fn a_hanging_target_is_an_errored_verdict() {
    let s = scenarios("hang", &[("h1", PASSING)]);
    let mut o = options(1);
    o.scenario_timeout = Duration::from_millis(250);
    let (results, summary, _) = run(Arc::new(Broken { panic: false }), s, &o).await;
    assert_eq!(summary.errored, 1);
    assert_eq!(
        results[0].failure.as_ref().unwrap().message,
        "the target did not finish within 250 ms"
    );
}

#[tokio::test]
async fn a_panicking_target_is_an_errored_verdict() {
    let s = scenarios("panic", &[("x1", PASSING)]);
    let (results, summary, _) = run(Arc::new(Broken { panic: true }), s, &options(1)).await;
    assert_eq!(summary.errored, 1);
    assert_eq!(
        results[0].failure.as_ref().unwrap().message,
        "the target panicked"
    );
}

#[tokio::test]
async fn baseline_expected_failure_stale_entry_and_different_failure() {
    let s = scenarios(
        "baseline",
        &[("p1", PASSING), ("f1", FAILING), ("f2", FAILING)],
    );
    let mut o = options(3);
    o.baseline = Some(Baseline {
        expected_failures: vec![
            BaselineEntry {
                id: "p1".into(),
                reason: "was broken".into(),
                message: None,
            },
            BaselineEntry {
                id: "f1".into(),
                reason: "known".into(),
                message: Some("body.ErrorCode: expected INVALID_REQUEST (42), got 0 (NONE)".into()),
            },
            BaselineEntry {
                id: "f2".into(),
                reason: "known".into(),
                message: Some("something else".into()),
            },
        ],
    });
    let (results, summary, _) = run(Arc::new(ReferenceTarget), s, &o).await;
    let v = |id: &str| results.iter().find(|r| r.id == id).unwrap().verdict;
    assert_eq!(v("p1"), Verdict::UnexpectedPass);
    assert_eq!(v("f1"), Verdict::ExpectedFailure);
    assert_eq!(v("f2"), Verdict::Failed);
    assert_eq!(
        (
            summary.unexpected_passes,
            summary.expected_failures,
            summary.failed
        ),
        (1, 1, 1)
    );
    assert!(!summary.is_green(), "a stale entry fails the run");
    let f2 = results.iter().find(|r| r.id == "f2").unwrap();
    assert!(f2
        .failure
        .as_ref()
        .unwrap()
        .message
        .ends_with("(baseline expected: something else)"));
    // A baseline written from this run lists exactly the failures, with their messages.
    let written = Baseline::from_results(&results, "r");
    let ids: Vec<&str> = written
        .expected_failures
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(ids, ["f1", "f2"]);
    let reloaded: Baseline = serde_saphyr::from_str(&written.to_yaml()).expect("round trip");
    assert_eq!(reloaded, written);
}

#[test]
fn partitions_are_stable_disjoint_and_complete() {
    let files: Vec<(String, String)> = (0..20)
        .map(|i| (format!("s{i:02}"), PASSING.to_string()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let all = scenarios("partitions", &refs);
    for kind in ["hash", "count"] {
        let mut seen = Vec::new();
        for m in 1..=3 {
            let p: Partition = format!("{kind}:{m}/3").parse().unwrap();
            let part = select(all.clone(), &Filters::default(), Some(p));
            if kind == "count" {
                assert!((6..=7).contains(&part.len()), "count shards are balanced");
            }
            seen.extend(part.into_iter().map(|s| s.file.id));
        }
        seen.sort();
        let ids: Vec<String> = all.iter().map(|s| s.file.id.clone()).collect();
        assert_eq!(seen, ids, "{kind}: every scenario in exactly one shard");
    }
    // The hash is FNV-1a 64 of the id, documented and fixed.
    assert_eq!(kipcheck::runner::fnv1a64(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(kipcheck::runner::fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
    let hash1: Vec<String> = select(all, &Filters::default(), Some("hash:1/3".parse().unwrap()))
        .into_iter()
        .map(|s| s.file.id)
        .collect();
    let expected: Vec<String> = (0..20)
        .map(|i| format!("s{i:02}"))
        .filter(|id| kipcheck::runner::fnv1a64(id).is_multiple_of(3))
        .collect();
    assert_eq!(hash1, expected);
    assert!("hash:0/3".parse::<Partition>().is_err());
    assert!("hash:4/3".parse::<Partition>().is_err());
    assert!("mod:1/3".parse::<Partition>().is_err());
}

#[test]
fn filters_by_glob_kip_tag_and_grade() {
    let tagged = PASSING.replace("roles: [broker]", "roles: [broker]\ntags: [boundary]");
    let should = PASSING
        .replace("grade: MUST", "grade: SHOULD")
        .replace("KIP-1324", "KIP-1326");
    let all = scenarios(
        "filters",
        &[("size-a", &tagged), ("size-b", PASSING), ("other", &should)],
    );
    let ids = |f: Filters| -> Vec<String> {
        select(all.clone(), &f, None)
            .into_iter()
            .map(|s| s.file.id)
            .collect()
    };
    assert_eq!(
        ids(Filters {
            ids: vec!["size-*".into()],
            ..Default::default()
        }),
        ["size-a", "size-b"]
    );
    assert_eq!(
        ids(Filters {
            kips: vec!["1326".into()],
            ..Default::default()
        }),
        ["other"]
    );
    assert_eq!(
        ids(Filters {
            tags: vec!["boundary".into()],
            ..Default::default()
        }),
        ["size-a"]
    );
    assert_eq!(
        ids(Filters {
            grade: Some(kipcheck::runner::Grade::Should),
            ..Default::default()
        }),
        ["other"]
    );
}

#[tokio::test]
async fn secrets_never_appear_in_failures() {
    let secret = "hunter2-very-secret";
    let body = format!(
        "title: leaks?
kip: KIP-1324
grade: MUST
roles: [broker]
setup: {{ broker: {{ server_properties: {{ ssl.keystore.password: {secret} }} }} }}
steps:
  - send: {{ api: PushConfig, version: 0, body: {{ Configs: [ {{ ConfigKey: x, ConfigValue: {secret}, ConfigType: 1, IsDefault: false }} ] }} }}
  - expect_response: {{ body: {{ ErrorCode: INVALID_CONFIG, ErrorMessage: {secret} }} }}
"
    );
    let s = scenarios("redaction", &[("r1", &body)]);
    let (results, _, events) = run(Arc::new(ReferenceTarget), s, &options(1)).await;
    assert_eq!(results[0].verdict, Verdict::Failed);
    let all = serde_json::to_string(&events).unwrap();
    assert!(!all.contains(secret), "secret leaked: {all}");
    assert!(all.contains("<redacted:"), "{all}");
}

#[tokio::test]
async fn the_whole_suite_passes_against_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let all = load_dir(&root).unwrap_or_else(|errs| {
        panic!(
            "{}",
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let n = all.len();
    let (results, summary, _) = run(Arc::new(ReferenceTarget), all, &options(0x6b69_7063)).await;
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::Passed)
        .map(|r| {
            format!(
                "{} {:?}: {:?}",
                r.id,
                r.verdict,
                r.failure.as_ref().map(|f| &f.message)
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {n} did not pass:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(summary.passed, n);
}

#[tokio::test]
async fn the_rust_builder_speaks_the_same_vocabulary_as_yaml() {
    use kipcheck::scenario::ScenarioBuilder;
    use serde_json::json;
    let b = ScenarioBuilder::new("built", "ApiVersions from Rust", "KIP-1324")
        .role(Role::Broker)
        .tag("builder")
        .send(
            "ApiVersions",
            3,
            json!({"ClientSoftwareName": "k", "ClientSoftwareVersion": "1"}),
        )
        .expect_response(
            json!({"ErrorCode": "NONE", "ApiKeys": {"$contains": [{"ApiKey": "PushConfig"}]}}),
        );
    // The YAML it renders is a valid scenario file that loads to the same steps.
    let root = dir("builder");
    std::fs::write(root.join("area/built.yaml"), b.to_yaml()).unwrap();
    let loaded = load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"));
    let built = b.clone().build().expect("valid");
    let steps = |s: &Scenario| {
        s.file
            .steps
            .iter()
            .map(|x| x.value.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(steps(&loaded[0]), steps(&built));
    let (results, summary, _) = run(Arc::new(ReferenceTarget), vec![built], &options(1)).await;
    assert_eq!(summary.passed, 1, "{:?}", results[0].failure);
    // Validation is shared: a bad step is refused by the builder too.
    let bad = ScenarioBuilder::new("bad", "t", "KIP-1324")
        .role(Role::Broker)
        .send("NoSuchApi", 0, json!({}))
        .build()
        .expect_err("refused");
    assert_eq!(bad.message(), "send: unknown API \"NoSuchApi\"");
}

/// A client scenario whose PushConfig must fit `max` bytes of `measure`.
fn sized(max: usize, measure: &str) -> String {
    format!(
        "title: s\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: {{ client: {{ type: consumer, config: {{ group.id: g }} }} }}\nsteps:\n  - start\n  - expect_request: {{ api: ApiVersions }}\n  - respond: {{ to: 1 }}\n  - expect_request: {{ api: PushConfig, encoded_size: {{ max: {max}, measure: {measure} }} }}\n"
    )
}

#[tokio::test]
async fn encoded_size_judges_the_bytes_the_target_sent() {
    let s = scenarios(
        "encoded-size",
        &[
            ("fits", &sized(10240, "request_body")),
            ("too-small", &sized(10, "request_body")),
            ("too-small-array", &sized(10, "configs_array")),
        ],
    );
    let (results, summary, _) = run(Arc::new(ReferenceTarget), s, &options(1)).await;
    assert_eq!((summary.passed, summary.failed), (1, 2));
    let failure = |id: &str| {
        let r = results.iter().find(|r| r.id == id).unwrap();
        let m = &r.failure.as_ref().unwrap().mismatches[0];
        (m.path.clone(), m.expected.clone(), m.actual.clone())
    };
    // The consumer's default push (group.id plus the default keys): the body is one byte
    // longer than its Configs array (the empty tagged-field section).
    let (path, expected, body) = failure("too-small");
    assert_eq!(path, "encoded_size");
    assert_eq!(expected, "at most 10 bytes of request_body");
    let (_, expected, array) = failure("too-small-array");
    assert_eq!(expected, "at most 10 bytes of configs_array");
    let n = |s: &str| s.split(' ').next().unwrap().parse::<usize>().unwrap();
    assert_eq!(n(&body), n(&array) + 1, "{body} vs {array}");
}

#[test]
fn encoded_size_is_checked_at_load() {
    let root = dir("encoded-size-load");
    let bad = sized(10, "configs_array").replace("api: PushConfig,", "api: ApiVersions,");
    std::fs::write(
        root.join("area").join("bad.yaml"),
        format!("id: bad\n{bad}"),
    )
    .unwrap();
    let errors = load_dir(&root).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .message()
            .contains("encoded_size measure configs_array is for PushConfig only"),
        "{}",
        errors[0]
    );
}

#[tokio::test]
async fn expect_request_from_a_list_allows_any_of_its_nodes() {
    let client = |from: &str| {
        format!("title: n\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: {{ client: {{ type: admin }} }}\nsteps:\n  - start\n  - expect_request: {{ from: {from}, api: ApiVersions }}\n")
    };
    let s = scenarios(
        "nodes",
        &[
            ("in-list", &client("[1, 2]")),
            ("not-in-list", &client("[2, 3]")),
        ],
    );
    let (results, summary, _) = run(Arc::new(ReferenceTarget), s, &options(1)).await;
    assert_eq!((summary.passed, summary.failed), (1, 1));
    let r = results.iter().find(|r| r.id == "not-in-list").unwrap();
    let m = &r.failure.as_ref().unwrap().mismatches[0];
    assert_eq!(
        (m.path.as_str(), m.expected.as_str(), m.actual.as_str()),
        ("node", "any of 2, 3", "1")
    );
}

#[tokio::test]
async fn expect_no_release_judges_a_user_request_still_waiting() {
    let blocked = "title: b\nkip: KIP-1324\ngrade: MUST\nroles: [client]\nsetup: { client: { type: consumer, config: { group.id: g } } }\nsteps:\n  - start\n  - user_request: { id: 1 }\n  - expect_request: { api: ApiVersions }\n  - expect_no_release: { within_ms: 0 }\n";
    let s = scenarios("no-release", &[("blocked", blocked)]);
    let (_, summary, _) = run(Arc::new(ReferenceTarget), s.clone(), &options(1)).await;
    assert_eq!((summary.passed, summary.steps_judged), (1, 2));
    // A client that does not hold user requests releases it at once.
    let bug = kipcheck::adapter::MutantTarget {
        fault: kipcheck::model::Fault::from_name("does-not-block-user-requests").unwrap(),
    };
    let (results, summary, _) = run(Arc::new(bug), s, &options(1)).await;
    assert_eq!(summary.failed, 1);
    assert_eq!(
        results[0].failure.as_ref().unwrap().message,
        "expected no user request released yet, but user request 1 was released at 0 ms"
    );
}

/// A target whose first session of each scenario fails to open (the target errors), and
/// every later one is the reference: what a flaky live target looks like.
struct FlakyOnce(std::sync::Mutex<std::collections::BTreeSet<String>>);

#[async_trait]
impl Target for FlakyOnce {
    fn name(&self) -> String {
        "flaky".into()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceTarget.capabilities()
    }
    async fn open(&self, c: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        let first = self.0.lock().unwrap().insert(c.id.clone());
        if first {
            return Err(kipcheck::adapter::SetupError::Misused {
                option: "flaky",
                requirement: "fails once",
            }
            .into());
        }
        ReferenceTarget.open(c).await
    }
}

/// `--retries 1`: a scenario that errors once and then passes is reported flaky (passed, two
/// attempts, the first failure kept) in the summary, results.json and junit.xml (as a
/// `<flakyFailure>`); `--flaky-result fail` counts it as failed; without retries it errors.
#[tokio::test]
async fn a_retried_pass_is_flaky_in_every_format() {
    use kipcheck::report::{render_json, render_junit, RunRecord};
    let s = scenarios("flaky", &[("p1", PASSING)]);
    let flaky = || Arc::new(FlakyOnce(Default::default()));
    let (r, summary, _) = run(flaky(), s.clone(), &options(1)).await;
    assert_eq!(
        (r[0].verdict, r[0].attempts, r[0].flaky),
        (Verdict::Errored, 1, false)
    );
    assert_eq!(summary.errored, 1);

    let mut o = options(1);
    o.flaky.retries = 1;
    let (r, summary, events) = run(flaky(), s.clone(), &o).await;
    assert_eq!(
        (r[0].verdict, r[0].attempts, r[0].flaky),
        (Verdict::Passed, 2, true)
    );
    assert!(
        r[0].failure.is_some(),
        "the first attempt's failure is kept"
    );
    assert_eq!((summary.passed, summary.flaky, summary.errored), (1, 1, 0));
    assert!(summary.is_green());
    let record = RunRecord::from_events(&events);
    let json = render_json(&record).unwrap();
    assert!(
        json.contains("\"attempts\": 2") && json.contains("\"flaky\": true"),
        "{json}"
    );
    let junit = render_junit(&record).unwrap();
    assert!(junit.contains("<flakyFailure"), "{junit}");
    assert!(junit.contains("flaky: passed on attempt 2"), "{junit}");

    o.flaky.result = kipcheck::runner::FlakyResult::Fail;
    let (r, summary, _) = run(flaky(), s, &o).await;
    assert_eq!((r[0].verdict, r[0].flaky), (Verdict::Failed, true));
    assert_eq!(summary.failed, 1);
}

/// A quarantined scenario runs and is reported, but its failure is not a finding; an expired
/// entry and an entry that matches nothing fail the run.
#[tokio::test]
async fn quarantined_failures_are_reported_not_gated_and_stale_entries_fail() {
    use kipcheck::runner::quarantine::{Quarantine, QuarantineEntry};
    let s = scenarios("quarantine", &[("p1", PASSING), ("f1", FAILING)]);
    let entry = |id: &str, expires: &str| QuarantineEntry {
        id: id.into(),
        reason: "known flaky on CI".into(),
        expires: expires.into(),
    };
    let mut o = options(1);
    o.flaky.quarantine = Some(Quarantine {
        quarantine: vec![entry("f*", "2999-12-31")],
    });
    let (r, summary, _) = run(Arc::new(ReferenceTarget), s.clone(), &o).await;
    let f1 = r.iter().find(|r| r.id == "f1").unwrap();
    assert_eq!(f1.verdict, Verdict::Failed);
    assert_eq!(f1.quarantined.as_deref(), Some("known flaky on CI"));
    assert_eq!(
        (summary.failed, summary.quarantined_findings, summary.passed),
        (0, 1, 1)
    );
    assert!(summary.is_green());
    assert!(summary.quarantine_problems.is_empty());

    o.flaky.quarantine = Some(Quarantine {
        quarantine: vec![entry("f1", "2020-01-01"), entry("gone", "2999-12-31")],
    });
    let (_, summary, _) = run(Arc::new(ReferenceTarget), s, &o).await;
    assert_eq!(
        summary.quarantine_problems,
        vec![
            "quarantine entry \"f1\" expired on 2020-01-01 (known flaky on CI): fix the scenario's cause or renew the entry".to_string(),
            "quarantine entry \"gone\" matches no selected scenario: remove it".to_string(),
        ]
    );
    assert!(!summary.is_green());
    assert_eq!(summary.outcome(None), kipcheck::runner::Outcome::Failed);
}
