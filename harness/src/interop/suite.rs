//! The YAML scenario suites run against the real peers, as matrix rows: which scenarios each
//! kind of peer gets ([`SuiteKind`]), and a run's results turned into facts
//! ([`suite_facts`]). It runs nothing itself (the CLI drives the runner) and judges nothing:
//! the verdicts are the runner's.

use crate::codec::{peek_request, ApiKey};
use crate::runner::{ScenarioResult, Verdict as RunVerdict};
use crate::scenario::{Compiled, Role, Scenario};

use super::verdict::{Fact, Verdict};

/// Which YAML suite a peer gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuiteKind {
    /// A broker peer over `tcp://`: the scenarios tagged `live-safe` (ApiVersions negotiation,
    /// the KIP-511 fallback, PushConfig refused by a broker that does not advertise it).
    BrokerLiveSafe,
    /// A KRaft controller over `tcp://`: every scenario that plays against a controller (the
    /// KIP-1326 and KIP-1294 suites); a controller without the KIPs makes them unsupported.
    Controller,
    /// A real client through `client-cmd:`: the scenarios tagged `live-client` (an older
    /// client sends no PushConfig, whatever the emulated brokers advertise).
    ClientLive,
    /// Apache Kafka's broker over `tcp://`: the interop scenarios tagged `kafka-broker`
    /// (`interop/scenarios/broker/`: UpdateFeatures refusals, the broker side of the KIP-1256
    /// table): what the real thing does, which the conformance suite does not ask of a target.
    KafkaBroker,
    /// Apache Kafka's KRaft controller over `tcp://`: the interop scenarios tagged
    /// `kafka-controller` (`interop/scenarios/controller/`: ApiVersions, KIP-511, registration
    /// at every version it advertises, the controller side of the KIP-1256 table, PushConfig
    /// refused and survived).
    KafkaController,
}

impl SuiteKind {
    /// The suite's name in the matrix.
    pub fn name(self) -> &'static str {
        match self {
            SuiteKind::BrokerLiveSafe => "yaml live-safe",
            SuiteKind::Controller => "yaml controller",
            SuiteKind::ClientLive => "yaml live-client",
            SuiteKind::KafkaBroker => "yaml kafka-broker",
            SuiteKind::KafkaController => "yaml kafka-controller",
        }
    }

    /// The scenarios of the suite from `all`, in the order to run them (one at a time):
    /// those that send PushConfig last, since an older peer may not survive one (franz-go's
    /// kfake exits on it) and every other scenario of the suite must still be judged. Among
    /// those, `all`'s order (by id): `av-old-broker-push-config-refused` before
    /// `av-old-broker-survives-push-config`, so a peer that dies on the first PushConfig
    /// fails the second (the finding it is) rather than the first.
    pub fn select(self, all: &[Scenario]) -> Vec<Scenario> {
        let mut chosen: Vec<Scenario> = all.iter().filter(|s| self.selects(s)).cloned().collect();
        chosen.sort_by_key(sends_push_config);
        chosen
    }

    /// Whether `s` belongs to the suite.
    pub fn selects(self, s: &Scenario) -> bool {
        let tagged = |t: &str| s.file.tags.iter().any(|x| x == t);
        match self {
            SuiteKind::BrokerLiveSafe => tagged("live-safe"),
            SuiteKind::Controller => s.file.roles.contains(&Role::Controller),
            SuiteKind::ClientLive => tagged("live-client"),
            SuiteKind::KafkaBroker => tagged("kafka-broker"),
            SuiteKind::KafkaController => tagged("kafka-controller"),
        }
    }
}

/// Whether a step of `s` sends PushConfig: a typed request, or a raw frame whose header
/// names PushConfig's wire key under the scenario's provisional numbers.
fn sends_push_config(s: &Scenario) -> bool {
    let numbers = &s.profile.provisional;
    s.compiled.iter().any(|c| match c {
        Compiled::Request(body) => body.api_key() == ApiKey::PUSH_CONFIG,
        Compiled::Enveloped { inner, .. } => inner.api_key() == ApiKey::PUSH_CONFIG,
        Compiled::Raw(frame) => frame
            .get(4..)
            .and_then(|p| peek_request(p).api_key)
            .is_some_and(|k| numbers.canonical_api_key(k) == ApiKey::PUSH_CONFIG),
        Compiled::Nothing => false,
    })
}

/// One fact per scenario result: passed (or failed as a baseline expects) is a pass,
/// unsupported keeps its reason, failed and errored are findings whose diff is the first
/// mismatch (the expected and actual values where the step compared values).
pub fn suite_facts(results: &[ScenarioResult], kind: SuiteKind) -> Vec<Fact> {
    results
        .iter()
        .map(|r| {
            let verdict = match r.verdict {
                RunVerdict::Passed | RunVerdict::ExpectedFailure => Verdict::Pass,
                RunVerdict::Unsupported => Verdict::Unsupported(
                    r.unsupported_reason
                        .clone()
                        .unwrap_or_else(|| "unsupported".into()),
                ),
                RunVerdict::Failed | RunVerdict::Errored | RunVerdict::UnexpectedPass => finding(r),
            };
            let detail = match r.verdict {
                RunVerdict::Passed => "passed".to_owned(),
                RunVerdict::Errored => "errored".to_owned(),
                _ => String::new(),
            };
            Fact {
                id: r.id.clone().into(),
                suite: kind.name(),
                verdict,
                detail,
            }
        })
        .collect()
}

fn finding(r: &ScenarioResult) -> Verdict {
    let Some(f) = &r.failure else {
        return Verdict::finding(r.title.clone(), format!("{:?} without details", r.verdict));
    };
    let one_line = |s: &str| s.trim().replace('\n', " ");
    let expected = match &f.expected {
        Some(e) => format!("{} ({}): {}", r.title, f.location, one_line(e)),
        None => format!("{} ({})", r.title, f.location),
    };
    let observed = match &f.actual {
        Some(a) => format!("{}: {}", f.message, one_line(a)),
        None => f.message.clone(),
    };
    Verdict::finding(expected, observed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{Failure, Grade};

    fn result(id: &str, verdict: RunVerdict, failure: Option<Failure>) -> ScenarioResult {
        ScenarioResult {
            id: id.into(),
            title: format!("title of {id}"),
            kip: "KIP-1324".into(),
            area: "apiversions".into(),
            path: format!("scenarios/apiversions/{id}.yaml"),
            grade: Grade::Must,
            tags: vec!["live-safe".into()],
            requirements: Vec::new(),
            verdict,
            unsupported_reason: (verdict == RunVerdict::Unsupported)
                .then(|| "target lacks events".to_owned()),
            unsupported_causes: Vec::new(),
            steps_judged: 0,
            steps_not_observed: 0,
            failure,
            duration_ms: 1.0,
            simulated_ms: 0,
            timings: Vec::new(),
            reproduce: String::new(),
            line: 1,
            exchange: None,
            attempts: 1,
            flaky: false,
            quarantined: None,
            endpoint: None,
        }
    }

    fn failure(expected: Option<&str>, actual: Option<&str>) -> Failure {
        Failure {
            step: Some(2),
            location: "scenarios/apiversions/x.yaml:16:5".into(),
            step_yaml: String::new(),
            message: "expected a response, but the target closed the connection".into(),
            expected: expected.map(str::to_owned),
            actual: actual.map(str::to_owned),
            mismatches: Vec::new(),
            raw_hex: None,
        }
    }

    #[test]
    fn results_become_facts_with_the_runners_verdicts() {
        let results = vec![
            result("a", RunVerdict::Passed, None),
            result("b", RunVerdict::Unsupported, None),
            result(
                "c",
                RunVerdict::Failed,
                Some(failure(Some("ErrorCode: NONE\n"), None)),
            ),
            result(
                "d",
                RunVerdict::Errored,
                Some(failure(None, Some("ErrorCode: 35\nApiKeys: []\n"))),
            ),
        ];
        let facts = suite_facts(&results, SuiteKind::BrokerLiveSafe);
        let got: Vec<(&str, &str, Verdict)> = facts
            .iter()
            .map(|f| (f.id.as_ref(), f.suite, f.verdict.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", "yaml live-safe", Verdict::Pass),
                (
                    "b",
                    "yaml live-safe",
                    Verdict::Unsupported("target lacks events".into())
                ),
                (
                    "c",
                    "yaml live-safe",
                    Verdict::finding(
                        "title of c (scenarios/apiversions/x.yaml:16:5): ErrorCode: NONE",
                        "expected a response, but the target closed the connection"
                    )
                ),
                (
                    "d",
                    "yaml live-safe",
                    Verdict::finding(
                        "title of d (scenarios/apiversions/x.yaml:16:5)",
                        "expected a response, but the target closed the connection: ErrorCode: 35 ApiKeys: []"
                    )
                ),
            ]
        );
        assert_eq!(facts[0].detail, "passed");
        assert_eq!(facts[3].detail, "errored");
    }

    #[test]
    fn the_live_safe_suite_sends_its_push_config_last() {
        let all = crate::scenario::load_embedded().expect("the built-in suite loads");
        let ids: Vec<(String, bool)> = SuiteKind::BrokerLiveSafe
            .select(&all)
            .iter()
            .map(|s| (s.file.id.clone(), sends_push_config(s)))
            .collect();
        assert_eq!(
            ids,
            [
                ("av-negotiate-v3".to_owned(), false),
                ("av-unsupported-version-v0-fallback".to_owned(), false),
                ("av-v0-request-answered".to_owned(), false),
                ("av-old-broker-push-config-refused".to_owned(), true),
                ("av-old-broker-survives-push-config".to_owned(), true),
            ]
        );
    }
}
