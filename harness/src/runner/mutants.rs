//! The kill matrix: runs the selected scenarios against the reference and against every
//! faulty variant ([`crate::faulty::Fault`]), and records which scenarios catch which variant.
//! A scenario catches a variant when it fails or errors against it while passing against the
//! reference. Computes results only; rendering them is the reporters' job.

use crate::faulty::Fault;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::events::{ScenarioResult, Verdict};
use super::run::{run_suite, RunOptions};
use crate::adapter::{MutantTarget, ReferenceTarget, Target, Unobserved};
use crate::scenario::Scenario;

/// The format version of `mutants.json`.
pub const MUTANTS_FORMAT_VERSION: u32 = 1;

/// One faulty variant's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VariantOutcome {
    /// Its name (`--target mutant:NAME`).
    pub name: String,
    /// Its bug, in one line.
    pub bug: String,
    /// Ids of the scenarios that catch it, sorted.
    pub killed_by: Vec<String>,
}

impl VariantOutcome {
    /// True if at least one scenario catches it.
    pub fn caught(&self) -> bool {
        !self.killed_by.is_empty()
    }
}

/// Which scenarios catch which variants.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KillMatrix {
    /// The run seed.
    pub seed: u64,
    /// Ids of the scenarios run, sorted.
    pub scenarios: Vec<String>,
    /// Scenarios that do not pass against the reference (they cannot count as catching).
    pub reference_failures: Vec<String>,
    /// One entry per variant run, in [`Fault::ALL`] order.
    pub variants: Vec<VariantOutcome>,
    /// False when the run hid the targets' events (`--observe none`): the matrix then shows
    /// what the wire alone catches.
    pub observed: bool,
}

impl KillMatrix {
    /// How many variants are caught.
    pub fn caught(&self) -> usize {
        self.variants.iter().filter(|v| v.caught()).count()
    }

    /// Names of the variants no scenario catches.
    pub fn survivors(&self) -> Vec<&str> {
        self.variants
            .iter()
            .filter(|v| !v.caught())
            .map(|v| v.name.as_str())
            .collect()
    }

    /// Every scenario run → the variants it catches (possibly none), by id.
    pub fn by_scenario(&self) -> BTreeMap<&str, Vec<&str>> {
        let mut m: BTreeMap<&str, Vec<&str>> = self
            .scenarios
            .iter()
            .map(|s| (s.as_str(), Vec::new()))
            .collect();
        for v in &self.variants {
            for s in &v.killed_by {
                m.entry(s.as_str()).or_default().push(v.name.as_str());
            }
        }
        m
    }

    /// Scenarios that catch no variant ("dead weight" for the suite's power).
    pub fn dead_weight(&self) -> Vec<&str> {
        self.by_scenario()
            .into_iter()
            .filter(|(_, v)| v.is_empty())
            .map(|(s, _)| s)
            .collect()
    }

    /// True if the reference passes everything and every variant is caught.
    pub fn all_caught(&self) -> bool {
        self.reference_failures.is_empty() && self.caught() == self.variants.len()
    }
}

fn not_passing(results: &[ScenarioResult]) -> Vec<String> {
    results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Failed | Verdict::Errored))
        .map(|r| r.id.clone())
        .collect()
}

/// Runs `scenarios` against the reference, then against each of `faults` (one variant at a
/// time), calling `on_variant` as each variant finishes. `options.baseline` is ignored.
/// With `observe` false every target is wrapped in [`Unobserved`]: no events are seen.
pub async fn kill_matrix(
    faults: &[Fault],
    scenarios: Vec<Scenario>,
    options: &RunOptions,
    observe: bool,
    on_variant: &mut (dyn FnMut(&VariantOutcome) + Send),
) -> KillMatrix {
    let wrap = |t: Arc<dyn Target>| -> Arc<dyn Target> {
        if observe {
            t
        } else {
            Arc::new(Unobserved(t))
        }
    };
    let options = RunOptions {
        baseline: None,
        ..options.clone()
    };
    let mut ids: Vec<String> = scenarios.iter().map(|s| s.file.id.clone()).collect();
    ids.sort();
    let failures = |target: Arc<dyn Target>| {
        let (scenarios, options) = (scenarios.clone(), &options);
        async move {
            let mut quiet = |_: &super::events::RunEvent| {};
            not_passing(&run_suite(target, scenarios, options, &mut quiet).await.0)
        }
    };
    let reference_failures = failures(wrap(Arc::new(ReferenceTarget))).await;
    let mut variants = Vec::with_capacity(faults.len());
    for &fault in faults {
        let killed_by = failures(wrap(Arc::new(MutantTarget { fault })))
            .await
            .into_iter()
            .filter(|id| !reference_failures.contains(id))
            .collect();
        let outcome = VariantOutcome {
            name: fault.name().to_string(),
            bug: fault.bug().to_string(),
            killed_by,
        };
        on_variant(&outcome);
        variants.push(outcome);
    }
    KillMatrix {
        seed: options.seed,
        scenarios: ids,
        reference_failures,
        variants,
        observed: observe,
    }
}
