//! The step loop of one scenario: decides whether the target can be asked the scenario at
//! all (roles, capabilities, the spec readings a live target follows), opens a session, runs
//! the steps in order, and counts what was judged. Observation steps (`expect_event`,
//! `expect_no_event`) are evidence where the target reports events and are recorded as not
//! observed where it does not; the verdict rests on the steps that were judged, and a
//! scenario that judged nothing is unsupported, never passed.

use std::collections::{BTreeMap, VecDeque};

use super::exchange::{ExchangeLog, ExchangeSink, Peer};
use super::failure::StepFail;
use super::redact::{yaml, Redactor};
use super::timing::RealTiming;
use crate::adapter::{AdapterError, Capabilities, PeerAction, Session, SessionConfig, Target};
use crate::codec::{ApiKey, ProvisionalNumbers};
use crate::runner::events::{Exchange, Failure, TimingCheck, UnsupportedCause, Verdict};
use crate::runner::pacing::Pace;
use crate::scenario::matcher::Captures;
use crate::scenario::{differing_pins, rebase, Capability, Scenario, Step};

/// How a scenario ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioOutcome {
    /// Passed, Failed, Unsupported or Errored.
    pub verdict: Verdict,
    /// Why unsupported, in words.
    pub unsupported_reason: Option<String>,
    /// Why unsupported, one cause each (the summary groups them).
    pub unsupported_causes: Vec<UnsupportedCause>,
    /// Failure details.
    pub failure: Option<Failure>,
    /// Target time covered, ms.
    pub simulated_ms: u64,
    /// Steps whose expectation was checked against the target.
    pub steps_judged: usize,
    /// Observation steps skipped because the target reports no events.
    pub steps_not_observed: usize,
    /// Timings judged on a real clock.
    pub timings: Vec<TimingCheck>,
    /// The exchange up to the failure (failed and errored scenarios whose session opened).
    pub exchange: Option<Exchange>,
}

impl ScenarioOutcome {
    /// An outcome with this verdict and nothing else yet (no steps, no time, no failure).
    pub(super) fn empty(verdict: Verdict) -> Self {
        Self {
            verdict,
            unsupported_reason: None,
            unsupported_causes: Vec::new(),
            failure: None,
            simulated_ms: 0,
            steps_judged: 0,
            steps_not_observed: 0,
            timings: Vec::new(),
            exchange: None,
        }
    }

    /// An unsupported outcome for these causes.
    pub fn unsupported(causes: Vec<UnsupportedCause>) -> Self {
        Self {
            unsupported_reason: Some(UnsupportedCause::sentence(&causes)),
            unsupported_causes: causes,
            ..Self::empty(Verdict::Unsupported)
        }
    }

    /// An errored outcome before any step ran (setup failed, the run timed out, a panic).
    pub fn errored(failure: Failure) -> Self {
        Self {
            failure: Some(failure),
            ..Self::empty(Verdict::Errored)
        }
    }
}

/// A request kipcheck sent that awaits the target's answer.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sent {
    pub(super) api_key: ApiKey,
    pub(super) version: i16,
    pub(super) correlation_id: i32,
    /// An Envelope's forwarded request.
    pub(super) inner: Option<Forwarded>,
}

/// A request forwarded in an Envelope: its API key, version and correlation id.
pub(super) type Forwarded = (ApiKey, i16, i32);

/// A request the target sent to an emulated node.
#[derive(Clone, Debug)]
pub(super) struct Received {
    pub(super) api_key: ApiKey,
    pub(super) version: i16,
    pub(super) correlation_id: i32,
    /// Target time it was sent at.
    pub(super) at_ms: u64,
}

/// One scenario's state while its steps run.
pub(super) struct Exec<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) numbers: ProvisionalNumbers,
    pub(super) session: Box<dyn Session>,
    pub(super) sent: BTreeMap<u32, VecDeque<Sent>>,
    pub(super) received: BTreeMap<i32, VecDeque<Received>>,
    pub(super) next_correlation: i32,
    pub(super) last_step_end: u64,
    /// Where the step just taken ends on the scenario's timeline when that is not "now": a
    /// real-clock `expect_no_request` watches less than its window (the tolerance), but the
    /// next `after_ms` still counts from the window's end.
    pub(super) nominal_step_end: Option<u64>,
    /// Real clock: requests that arrived from a node an `expect_request` did not name, held
    /// for the step that names it (see `next_request_from`).
    pub(super) held: std::collections::VecDeque<crate::adapter::OutRequest>,
    /// User requests released before the `expect_released` step that names them (id → time):
    /// the KIP does not order releases, so requests released together may come in any order.
    pub(super) early_releases: BTreeMap<u64, u64>,
    pub(super) event_cursor: usize,
    /// Values captured by `$capture` patterns in this run, for `$eq_captured`/`$ne_captured`.
    pub(super) captures: Captures,
    /// How timed steps are judged on a real-clock target (`None`: a virtual clock, exact).
    pub(super) real: Option<RealTiming>,
    /// Timings judged on the real clock so far.
    pub(super) timings: Vec<TimingCheck>,
    /// The step running now.
    pub(super) step_index: usize,
    /// The client was started and has sent nothing yet (its start-up is not on the timeline).
    pub(super) awaiting_first_request: bool,
    /// The scenario's busy slot on a paced real-clock run (runner::pacing): given back at
    /// its first long quiet watch.
    pub(super) pace: Pace,
    /// The frames exchanged so far, for the report of a failure.
    pub(super) log: ExchangeLog,
}

/// An observation step about an event kind the target reports without the `events`
/// capability (e.g. `policy_invoked` from a hosted policy).
fn observes_kind(step: &Step, kinds: &[&str]) -> bool {
    let pattern = match step {
        Step::ExpectEvent(e) => &e.event,
        Step::ExpectNoEvent { event } => event,
        _ => return false,
    };
    pattern
        .get("event")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|k| kinds.contains(&k))
}

/// Why `target` cannot be asked `scenario`: missing roles and capabilities (observation
/// steps need none: they are skipped where events are not reported; `requires: [events]`
/// does gate), and, for a target that follows fixed readings, every reading the scenario
/// pins (`profile:`) to another value. A reading the scenario does not pin is the target's:
/// such a scenario accepts every outcome the readings allow, so it is asked.
pub fn gate(caps: &Capabilities, scenario: &Scenario) -> Vec<UnsupportedCause> {
    let real_clock = caps.capabilities.contains(&Capability::RealClock);
    let mut needs = scenario.file.requires.clone();
    for s in &scenario.file.steps {
        needs.extend(s.value.needs(real_clock));
    }
    needs.sort();
    needs.dedup();
    let mut causes: Vec<UnsupportedCause> = scenario
        .file
        .roles
        .iter()
        .filter(|r| !caps.roles.contains(r))
        .map(|r| UnsupportedCause::MissingRole(*r))
        .collect();
    causes.extend(
        needs
            .iter()
            .filter(|c| !caps.capabilities.contains(c))
            .map(|c| UnsupportedCause::MissingCapability(*c)),
    );
    if let Some(fixed) = &caps.readings {
        causes.extend(differing_pins(fixed, scenario).into_iter().map(
            |(reading, target, scenario)| UnsupportedCause::Reading {
                reading,
                target,
                scenario,
            },
        ));
    }
    causes
}

/// [`gate`] for `scenario` as `target` runs it ([`Target::bind`]): the scenario to run (bound
/// to the target's own definitions, and, for a target that follows fixed readings, rebased
/// onto them: its profile is the target's readings with its pins merged in), and every
/// reason it cannot run. A binding failure replaces the `lacks metadata_version` it explains.
pub fn admit(
    target: &dyn Target,
    caps: &Capabilities,
    scenario: &Scenario,
) -> (Option<Scenario>, Vec<UnsupportedCause>) {
    match target.bind(scenario) {
        Ok(bound) => {
            let chosen = bound.as_ref().unwrap_or(scenario);
            let causes = gate(caps, chosen);
            let rebased = match &caps.readings {
                Some(fixed) if causes.is_empty() => match rebase(chosen, fixed) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        return (
                            None,
                            vec![UnsupportedCause::Target(format!(
                                "the scenario does not compile under the target's readings: {e}"
                            ))],
                        )
                    }
                },
                _ => bound,
            };
            (rebased, causes)
        }
        Err(reason) => {
            let mut causes = gate(caps, scenario);
            causes
                .retain(|c| *c != UnsupportedCause::MissingCapability(Capability::MetadataVersion));
            causes.push(UnsupportedCause::Target(reason.to_string()));
            (None, causes)
        }
    }
}

/// One run of the steps in a fresh session (the gate passed); the run's captures come back
/// with a passed outcome (empty otherwise).
pub(super) async fn run_once(
    target: &dyn Target,
    caps: &Capabilities,
    scenario: &Scenario,
    seed: u64,
    sink: ExchangeSink,
    pace: &Pace,
) -> (ScenarioOutcome, Captures) {
    let observed = caps.capabilities.contains(&Capability::Events);
    let kinds = target.observed_events();
    let redactor = Redactor::for_scenario(scenario);
    let config = SessionConfig {
        id: scenario.file.id.clone(),
        setup: scenario.file.setup.clone(),
        profile: scenario.profile.clone(),
        seed,
        roles: scenario.file.roles.clone(),
    };
    let session = match target.open(config).await {
        Ok(s) => s,
        Err(AdapterError::Unsupported(reason)) => {
            let cause = UnsupportedCause::Target(reason.to_string());
            return (
                ScenarioOutcome::unsupported(vec![cause]),
                Captures::default(),
            );
        }
        Err(e) => {
            let failure = setup_failure(&redactor, scenario, &e);
            return (ScenarioOutcome::errored(failure), Captures::default());
        }
    };
    let mut ex = Exec {
        scenario,
        numbers: scenario.profile.provisional,
        session,
        sent: BTreeMap::new(),
        received: BTreeMap::new(),
        next_correlation: 1,
        last_step_end: 0,
        nominal_step_end: None,
        held: std::collections::VecDeque::new(),
        early_releases: BTreeMap::new(),
        event_cursor: 0,
        captures: Captures::default(),
        real: caps
            .capabilities
            .contains(&Capability::RealClock)
            .then(|| RealTiming {
                scale: target.time_scale(),
                timing: target
                    .timing()
                    .unwrap_or_else(|| scenario.profile.timing.clone()),
            }),
        timings: Vec::new(),
        step_index: 0,
        awaiting_first_request: false,
        pace: pace.clone(),
        log: ExchangeLog::new(sink, redactor.clone(), scenario.profile.provisional),
    };
    let (mut judged, mut not_observed) = (0, 0);
    for (i, step) in scenario.file.steps.iter().enumerate() {
        if step.value.is_observation() && !observed && !observes_kind(&step.value, &kinds) {
            not_observed += 1;
            continue;
        }
        ex.step_index = i;
        ex.log_action(&step.value);
        let result = ex.step(i, &step.value).await;
        if step.value.is_judgement() && !matches!(&result, Err(f) if f.errored) {
            judged += 1;
        }
        if let Err(f) = result {
            if let Some(reason) = f.unsupported {
                // A step this target cannot take (e.g. `connect` on a live client): nothing
                // about the implementation follows from it.
                let mut out = ScenarioOutcome::unsupported(vec![UnsupportedCause::Target(reason)]);
                out.simulated_ms = ex.session.now_ms();
                return (out, Captures::default());
            }
            let verdict = if f.errored {
                Verdict::Errored
            } else {
                Verdict::Failed
            };
            let failure = Failure {
                step: Some(i),
                location: scenario.step_location(i),
                step_yaml: yaml(&step.value),
                message: f.message,
                expected: f.expected,
                actual: f.actual,
                mismatches: f.mismatches,
                raw_hex: f.raw_hex,
            };
            let out = ScenarioOutcome {
                verdict,
                unsupported_reason: None,
                unsupported_causes: Vec::new(),
                failure: Some(redactor.failure(failure)),
                simulated_ms: ex.session.now_ms(),
                steps_judged: judged,
                steps_not_observed: not_observed,
                timings: ex.timings,
                exchange: ex.log.finish(),
            };
            return (out, Captures::default());
        }
        let now = ex.session.now_ms();
        ex.last_step_end = ex.nominal_step_end.take().map_or(now, |end| end.max(now));
    }
    // The steps are done: a live client is told so (and one that already exited errors).
    if let Err(e) = ex.session.finish().await {
        let mut out = ScenarioOutcome::errored(setup_failure(&redactor, scenario, &e));
        out.steps_judged = judged;
        out.steps_not_observed = not_observed;
        out.simulated_ms = ex.session.now_ms();
        out.timings = ex.timings;
        out.exchange = ex.log.finish();
        return (out, Captures::default());
    }
    if judged == 0 {
        let mut out = ScenarioOutcome::unsupported(vec![UnsupportedCause::NothingJudged]);
        out.steps_not_observed = not_observed;
        out.simulated_ms = ex.session.now_ms();
        out.timings = ex.timings;
        return (out, Captures::default());
    }
    let out = ScenarioOutcome {
        verdict: Verdict::Passed,
        unsupported_reason: None,
        unsupported_causes: Vec::new(),
        failure: None,
        simulated_ms: ex.session.now_ms(),
        steps_judged: judged,
        steps_not_observed: not_observed,
        timings: ex.timings,
        exchange: None,
    };
    (out, ex.captures)
}

/// A failure of the session as a whole (opening it, or ending it), located at the setup.
fn setup_failure(redactor: &Redactor, scenario: &Scenario, e: &AdapterError) -> Failure {
    redactor.failure(Failure {
        step: None,
        location: format!("{}:1:1", scenario.path.display()),
        step_yaml: yaml(&scenario.file.setup),
        message: e.to_string(),
        expected: None,
        actual: None,
        mismatches: Vec::new(),
        raw_hex: None,
    })
}

impl Exec<'_> {
    pub(super) fn wire(&self, canonical: ApiKey) -> ApiKey {
        self.numbers.wire_api_key(canonical)
    }

    /// Logs a step that acts on the target without a frame.
    fn log_action(&mut self, step: &Step) {
        let (peer, what) = match step {
            Step::Start => (None, "start".to_owned()),
            Step::Connect { node } => (Some(Peer::Node(*node)), "connect".into()),
            Step::Disconnect { node } => (Some(Peer::Node(*node)), "disconnect".into()),
            Step::Timeout { node } => (Some(Peer::Node(*node)), "time out the request".into()),
            Step::UserRequest { id } => (None, format!("user request {id}")),
            Step::Register {
                controller_max_version,
            } => (
                None,
                format!("register (controller max version {controller_max_version})"),
            ),
            Step::Failover => (None, "controller failover".into()),
            Step::Advance { ms } => (None, format!("advance {ms} ms")),
            _ => return,
        };
        let now = self.session.now_ms();
        self.log.action(now, peer, what);
    }

    async fn step(&mut self, i: usize, step: &Step) -> Result<(), StepFail> {
        match step {
            Step::Send(s) => self.send(i, s).await,
            Step::SendRaw(s) => self.send_raw(i, s).await,
            Step::ExpectResponse(e) => self.expect_response(e).await,
            Step::ExpectClose(e) => self.expect_close(e).await,
            Step::ExpectOneOf(outcomes) => self.expect_one_of(outcomes).await,
            Step::Start => {
                self.awaiting_first_request = self.real.is_some();
                Ok(self.session.act(PeerAction::Start).await?)
            }
            Step::Connect { node } => Ok(self.session.act(PeerAction::Connect(*node)).await?),
            Step::Disconnect { node } => {
                self.received.remove(node);
                Ok(self.session.act(PeerAction::Disconnect(*node)).await?)
            }
            Step::Timeout { node } => {
                self.wait_for_request_timeout(*node).await?;
                if let Some(q) = self.received.get_mut(node) {
                    q.pop_front();
                }
                Ok(self.session.act(PeerAction::Timeout(*node)).await?)
            }
            Step::UserRequest { id } => Ok(self.session.act(PeerAction::UserRequest(*id)).await?),
            Step::Register {
                controller_max_version,
            } => Ok(self
                .session
                .act(PeerAction::Register {
                    controller_max_version: *controller_max_version,
                })
                .await?),
            Step::Failover => Ok(self.session.act(PeerAction::Failover).await?),
            Step::Advance { ms } => {
                let ms = self.real.as_ref().map_or(*ms, |t| t.scaled(*ms));
                if self.real.is_some() {
                    self.pace.quiet(ms);
                }
                let advanced = self.session.advance(ms).await;
                self.pace.resume();
                Ok(advanced?)
            }
            Step::ExpectRequest(e) => self.expect_request(e).await,
            Step::Respond(r) => self.respond(r).await,
            Step::ExpectNoRequest(e) => self.expect_no_request(e).await,
            Step::ExpectReleased(e) => self.expect_released(e).await,
            Step::ExpectNoRelease { within_ms } => self.expect_no_release(*within_ms).await,
            Step::ExpectEvent(e) => self.expect_event(e).await,
            Step::ExpectNoEvent { event } => self.expect_no_event(event).await,
        }
    }
}
