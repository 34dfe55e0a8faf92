//! The readings check: the reference declaring each contested reading (kip-notes §6, every
//! alternative value of the spec profile's readings) as a live target declares it, run over
//! a suite. A scenario that is asked (it pins nothing else) and does not pass depends on the
//! reading without pinning it, and would fail a correct implementation that reads the KIP
//! the other way: `kipcheck lint` reports it as `unpinned-reading` at the failing step, and
//! `tests/suite/readings.rs` keeps the shipped suite free of them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::events::Verdict;
use super::execute::differing_pins;
use super::run::{run_suite, RunOptions};
use crate::adapter::{Declared, ReferenceTarget};
use crate::model::SpecProfile;
use crate::scenario::{profile_over, LintFinding, LintRule, Scenario};

/// Each reading's values other than the default, as profile overrides. The provisional
/// numbers, the persistence level, the first StaticConfigs version and the size limit take
/// one other value each (a target built on other numbers, or configured with a 1 MiB
/// `client.config.max.bytes`).
pub fn reading_alternatives() -> Vec<Value> {
    vec![
        json!({ "size_measure": "configs_array" }),
        json!({ "size_measure": "key_value_bytes" }),
        json!({ "config_type_numbering": "older_kip_enum" }),
        json!({ "unadvertised_push_config": "unsupported_version" }),
        json!({ "request_timeout": "disconnect" }),
        json!({ "broker_entry_checks": "broker" }),
        json!({ "registration_rejection": "invalid_config" }),
        json!({ "incremental_invalid_value": "invalid_config" }),
        json!({ "audit_direction": "upgrade_only" }),
        json!({ "update_features_precedence": "invalid_config" }),
        json!({ "audit_rejection": "invalid_update_version" }),
        json!({ "mv_validator_inclusion": "counts" }),
        json!({ "reregistration": "merge" }),
        json!({ "push_config_authorization": "cluster_action" }),
        json!({ "static_config_persistence_level": 20 }),
        json!({ "first_static_configs_version": 7 }),
        json!({ "provisional": { "push_config_api_key": 99, "config_too_large": 150 } }),
        json!({ "defaults": { "client_config_max_bytes": 1_048_576 } }),
    ]
}

/// Whether `scenario` pins some reading to a value `declared` does not hold (the gate then
/// does not ask it).
pub fn pins_other_than(scenario: &Scenario, declared: &SpecProfile) -> bool {
    !differing_pins(declared, scenario).is_empty()
}

/// What one declared reading did to one scenario, where that is a problem.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadingProblem {
    /// The reading declared (a profile override).
    pub reading: Value,
    /// The scenario.
    pub id: String,
    /// Its file.
    pub path: PathBuf,
    /// What happened: its verdict, and the failing step's message.
    pub what: String,
    /// `file:line:col` of the failing step, when one failed.
    pub location: Option<String>,
}

/// Runs `scenarios` on the reference declaring each of [`reading_alternatives`]; every
/// scenario asked that did not pass, and every scenario not asked that pins nothing else.
pub async fn reading_problems(scenarios: &[Scenario]) -> Vec<ReadingProblem> {
    let options = RunOptions {
        seed: 1,
        jobs: 2,
        scenario_timeout: Duration::from_secs(20),
        baseline: None,
        command: "kipcheck lint".into(),
        min_judged: None,
        flaky: Default::default(),
        active_jobs: None,
    };
    let mut out = Vec::new();
    for reading in reading_alternatives() {
        let declared = match profile_over(&SpecProfile::default(), Some(&reading)) {
            Ok(p) => p,
            Err(e) => {
                out.push(ReadingProblem {
                    reading: reading.clone(),
                    id: String::new(),
                    path: PathBuf::new(),
                    what: format!("not a valid profile: {e}"),
                    location: None,
                });
                continue;
            }
        };
        let not_asked: Vec<bool> = scenarios
            .iter()
            .map(|s| pins_other_than(s, &declared))
            .collect();
        let target = Arc::new(Declared {
            inner: Arc::new(ReferenceTarget),
            readings: declared,
        });
        let (results, _) = run_suite(target, scenarios.to_vec(), &options, &mut |_| {}).await;
        for r in results {
            let Some(i) = scenarios.iter().position(|s| s.file.id == r.id) else {
                continue;
            };
            let what = match (r.verdict, not_asked[i]) {
                (Verdict::Passed, false) | (Verdict::Unsupported, true) => continue,
                (Verdict::Unsupported, false) => format!(
                    "not asked although it pins nothing else: {}",
                    r.unsupported_reason.clone().unwrap_or_default()
                ),
                (Verdict::Passed, true) => "passed although it pins another reading".into(),
                (v, _) => format!(
                    "{v:?}: {}",
                    r.failure.as_ref().map(|f| f.message.as_str()).unwrap_or("")
                ),
            };
            out.push(ReadingProblem {
                reading: reading.clone(),
                id: r.id.clone(),
                path: scenarios[i].path.clone(),
                location: r.failure.as_ref().map(|f| f.location.clone()),
                what,
            });
        }
    }
    out
}

/// [`reading_problems`] as lint findings, located at the failing step (the file's first line
/// when none failed).
pub async fn reading_findings(scenarios: &[Scenario]) -> Vec<LintFinding> {
    reading_problems(scenarios)
        .await
        .into_iter()
        .map(|p| {
            let (line, col) = p
                .location
                .as_deref()
                .and_then(|l| {
                    let mut parts = l.rsplitn(3, ':');
                    let col = parts.next()?.parse().ok()?;
                    let line = parts.next()?.parse().ok()?;
                    Some((line, col))
                })
                .unwrap_or((1, 1));
            LintFinding {
                path: p.path,
                line,
                col,
                rule: LintRule::UnpinnedReading,
                detail: format!("{} under {}: {}", p.id, p.reading, p.what),
            }
        })
        .collect()
}
