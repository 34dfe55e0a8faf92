//! Verdicts and the event stream, unsupported capabilities, readings, a broken target, baselines.

use super::*;

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
    async fn send(&mut self, _: u32, _: kipcheck::adapter::Outbound) -> Result<(), AdapterError> {
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
