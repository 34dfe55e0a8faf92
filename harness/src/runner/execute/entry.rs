//! The way into one scenario: admit it (roles, capabilities, readings, binding), then run
//! it once (`scenario.rs`) or as a `repeat:` (`repeat.rs`). It sits above both so that they
//! do not import each other; it judges nothing itself.

use super::exchange::ExchangeSink;
use super::repeat::repeated;
use super::scenario::{admit, run_once, ScenarioOutcome};
use crate::adapter::Target;
use crate::runner::pacing::Pace;
use crate::scenario::Scenario;

/// Runs `scenario` on `target` with `seed`.
pub async fn execute(target: &dyn Target, scenario: &Scenario, seed: u64) -> ScenarioOutcome {
    execute_into(
        target,
        scenario,
        seed,
        ExchangeSink::default(),
        &Pace::default(),
    )
    .await
}

/// [`execute`], logging the exchange into `sink` as it goes (a failed or errored outcome
/// carries it; the caller can still [`take`](ExchangeSink::take) it when it cancels the run).
pub async fn execute_into(
    target: &dyn Target,
    scenario: &Scenario,
    seed: u64,
    sink: ExchangeSink,
    pace: &Pace,
) -> ScenarioOutcome {
    let caps = target.capabilities();
    let (bound, causes) = admit(target, &caps, scenario);
    if !causes.is_empty() {
        return ScenarioOutcome::unsupported(causes);
    }
    let scenario = bound.as_ref().unwrap_or(scenario);
    match &scenario.file.repeat {
        None => run_once(target, &caps, scenario, seed, sink, pace).await.0,
        Some(repeat) => repeated(target, &caps, scenario, seed, sink, pace, repeat).await,
    }
}
