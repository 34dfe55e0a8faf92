//! A minimal view of scenario files for the ledger: each scenario's `id`, the requirement
//! ids it names, and what its checks rest on (wire or observation steps), read from the
//! top-level `id`, `requirements`, `requires` and `steps` keys only.
//!
//! Responsible for finding scenario files under a directory and reading those two keys. It
//! must not validate scenarios (every other key is ignored, however malformed); the scenario
//! module owns the scenario format and will produce [`ScenarioRef`]s itself.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::LedgerError;

/// What the ledger needs to know about one scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioRef {
    /// The scenario id.
    pub id: String,
    /// The requirement ids the scenario covers.
    pub requirements: Vec<String>,
    /// The scenario file, as found (for messages).
    pub path: String,
    /// What its checks rest on.
    pub evidence: Evidence,
}

/// What a scenario's checks rest on, from its step kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Evidence {
    /// It has a wire assertion (a response, a close, a request the target sent, a release)
    /// and runs on a target that reports no events (no `requires: [events]`).
    pub wire: bool,
    /// It has an observation step (`expect_event`, `expect_no_event`).
    pub observation: bool,
}

/// Step kinds that judge the target on the wire (the scenario format's names).
const WIRE_STEPS: [&str; 7] = [
    "expect_response",
    "expect_close",
    "expect_one_of",
    "expect_request",
    "expect_no_request",
    "expect_released",
    "expect_no_release",
];

/// Step kinds that judge the target's reported events.
const OBSERVATION_STEPS: [&str; 2] = ["expect_event", "expect_no_event"];

fn step_kind(step: &serde_json::Value) -> Option<&str> {
    match step {
        serde_json::Value::String(s) => Some(s.as_str()),
        serde_json::Value::Object(m) if m.len() == 1 => m.keys().next().map(String::as_str),
        _ => None,
    }
}

impl Evidence {
    fn of(requires: &[String], steps: &[serde_json::Value]) -> Self {
        let has = |kinds: &[&str]| {
            steps
                .iter()
                .filter_map(step_kind)
                .any(|k| kinds.contains(&k))
        };
        Evidence {
            wire: has(&WIRE_STEPS) && !requires.iter().any(|r| r == "events"),
            observation: has(&OBSERVATION_STEPS),
        }
    }
}

/// The two keys the ledger reads; every other key is ignored (no `deny_unknown_fields`).
#[derive(Deserialize)]
struct ScenarioHead {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    requirements: Vec<String>,
    #[serde(default)]
    requires: Vec<String>,
    #[serde(default)]
    steps: Vec<serde_json::Value>,
}

/// True for files the scan skips: the ledger itself, schema files, and files whose name
/// starts with `_` (skipped by the scenario loader too).
fn is_not_a_scenario(name: &str) -> bool {
    name.starts_with('_')
        || name == "requirements.yaml"
        || name == "requirements.yml"
        || name.starts_with("schema.")
        || name.ends_with(".schema.yaml")
        || name.ends_with(".schema.yml")
}

/// Read the `id` and `requirements` of one scenario file's text. A file without `id` takes
/// its file stem as id (scenario ids equal path stems); `path` is used for messages.
pub fn parse_scenario_ref(text: &str, path: &Path) -> Result<ScenarioRef, LedgerError> {
    let head: ScenarioHead =
        serde_saphyr::from_str(text).map_err(|e| LedgerError::yaml(path, &e))?;
    let id = match head.id {
        Some(id) => id,
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    Ok(ScenarioRef {
        id,
        evidence: Evidence::of(&head.requires, &head.steps),
        requirements: head.requirements,
        path: path.display().to_string(),
    })
}

/// Every scenario under `dir` (recursively, `*.yaml` and `*.yml`, sorted by path), except
/// `requirements.yaml`, schema files (`schema.*`, `*.schema.yaml`) and files whose name
/// starts with `_`; hidden entries and symlinked directories are skipped.
pub fn scan_scenarios(dir: &Path) -> Result<Vec<ScenarioRef>, LedgerError> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(|source| LedgerError::Io {
                path: path.clone(),
                source,
            })?;
            parse_scenario_ref(&text, path)
        })
        .collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), LedgerError> {
    let io = |source| LedgerError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type().map_err(io)?;
        let path = entry.path();
        if file_type.is_dir() {
            collect(&path, files)?;
        } else if (name.ends_with(".yaml") || name.ends_with(".yml")) && !is_not_a_scenario(&name) {
            files.push(path);
        }
    }
    Ok(())
}
