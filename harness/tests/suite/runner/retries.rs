//! Retries (flaky) and quarantine.

use super::*;

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
