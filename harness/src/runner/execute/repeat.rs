//! A scenario with `repeat:` (scenario/types.rs `Repeat`): its steps run `runs` times, each
//! run a fresh session with the next seed (a live client: a new process), and every run must
//! pass; then each `distinct` capture must have taken at least `at_least` different values
//! across the runs. That is how a requirement about randomness ("a randomly selected node")
//! is judged: one run cannot show it, and a correct random choice among n candidates repeats
//! the same value in every one of `runs` runs with probability n^(1-runs), so a scenario
//! chooses `runs` to make that negligible. A capture missing from a run (made by an
//! observation step the target does not report) is not judged. Owns the loop and the across-runs judgement only;
//! each run is `scenario::run_once`.

use std::collections::BTreeSet;

use serde_saphyr::Spanned;

use super::exchange::ExchangeSink;
use super::redact::{yaml, Redactor};
use super::scenario::{run_once, ScenarioOutcome};
use crate::adapter::{Capabilities, Target};
use crate::runner::events::{Failure, Verdict};
use crate::runner::pacing::Pace;
use crate::scenario::{Repeat, Scenario};

/// Runs `scenario`'s steps `repeat.runs` times from `seed` and judges its `distinct` captures.
pub(super) async fn repeated(
    target: &dyn Target,
    caps: &Capabilities,
    scenario: &Scenario,
    seed: u64,
    sink: ExchangeSink,
    pace: &Pace,
    repeat: &Spanned<Repeat>,
) -> ScenarioOutcome {
    let r = &repeat.value;
    let mut total = ScenarioOutcome::empty(Verdict::Passed);
    let mut captures = Vec::new();
    for k in 0..r.runs {
        let run_seed = seed.wrapping_add(u64::from(k));
        let (mut out, caught) =
            run_once(target, caps, scenario, run_seed, sink.clone(), pace).await;
        if out.verdict != Verdict::Passed {
            // Which run, so the failure reproduces: `--seed <run_seed>` runs it first.
            let at = format!("run {} of {} (seed {run_seed}): ", k + 1, r.runs);
            if let Some(f) = &mut out.failure {
                f.message = format!("{at}{}", f.message);
            }
            if let Some(reason) = &mut out.unsupported_reason {
                *reason = format!("{at}{reason}");
            }
            out.steps_judged += total.steps_judged;
            return out;
        }
        // A passed run's frames are not part of a later run's report.
        let _ = sink.take();
        total.steps_judged += out.steps_judged;
        total.steps_not_observed += out.steps_not_observed;
        total.simulated_ms += out.simulated_ms;
        total.timings.extend(out.timings);
        captures.push(caught);
    }
    for d in &r.distinct {
        // A capture made by an observation step the target does not report is missing from
        // every run: nothing to judge (as for the observation step itself).
        let Some(values) = captures
            .iter()
            .map(|c| c.get(&d.capture))
            .collect::<Option<Vec<_>>>()
        else {
            total.steps_not_observed += 1;
            continue;
        };
        total.steps_judged += 1;
        let seen: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let different: BTreeSet<&String> = seen.iter().collect();
        if different.len() < d.at_least {
            let redactor = Redactor::for_scenario(scenario);
            total.verdict = Verdict::Failed;
            total.failure = Some(redactor.failure(Failure {
                step: None,
                location: format!(
                    "{}:{}:{}",
                    scenario.path.display(),
                    repeat.referenced.line(),
                    repeat.referenced.column()
                ),
                step_yaml: yaml(r),
                message: format!(
                    "{:?} took {} different value(s) over {} runs (seeds {seed}..{}); at least {} expected",
                    d.capture,
                    different.len(),
                    r.runs,
                    seed.wrapping_add(u64::from(r.runs) - 1),
                    d.at_least
                ),
                expected: Some(format!("at least {} different values", d.at_least)),
                actual: Some(seen.join(", ")),
                mismatches: Vec::new(),
                raw_hex: None,
            }));
            return total;
        }
    }
    total
}
