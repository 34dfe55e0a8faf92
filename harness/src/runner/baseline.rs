//! Baselines for a CI gate: scenarios a target is known to fail, each with a reason and the
//! failure message it is expected to fail with. A listed scenario that fails the same way is
//! an expected failure; one that now passes is an unexpected pass (the entry is stale) and
//! fails the run; one that fails differently is a failure.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::events::{ScenarioResult, Verdict};

/// One expected failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    /// Scenario id.
    pub id: String,
    /// Why the target is expected to fail it.
    pub reason: String,
    /// The expected failure message (the first mismatch); absent = any failure.
    #[serde(default)]
    pub message: Option<String>,
}

/// A baseline file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Expected failures, by id.
    pub expected_failures: Vec<BaselineEntry>,
}

/// A baseline that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct BaselineError {
    /// The file.
    pub path: String,
    /// What is wrong (with line and column when the YAML is malformed).
    pub message: String,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, BaselineError> {
        let err = |message: String| BaselineError {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let b: Baseline = serde_saphyr::from_str(&text)
            .map_err(|e| err(e.to_string().lines().next().unwrap_or("").to_owned()))?;
        let mut ids: Vec<&str> = b.expected_failures.iter().map(|e| e.id.as_str()).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(err(format!("duplicate id {:?}", w[0])));
        }
        Ok(b)
    }

    /// The entry for `id`, if listed.
    pub fn entry(&self, id: &str) -> Option<&BaselineEntry> {
        self.expected_failures.iter().find(|e| e.id == id)
    }

    /// Reclassifies a result against the baseline.
    pub fn apply(&self, r: &mut ScenarioResult) {
        let Some(entry) = self.entry(&r.id) else {
            return;
        };
        match r.verdict {
            Verdict::Passed => r.verdict = Verdict::UnexpectedPass,
            Verdict::Failed => {
                let actual = r.failure.as_ref().map(|f| f.message.as_str());
                match (&entry.message, actual) {
                    (None, _) => r.verdict = Verdict::ExpectedFailure,
                    (Some(m), Some(a)) if m == a => r.verdict = Verdict::ExpectedFailure,
                    (Some(m), _) => {
                        if let Some(f) = r.failure.as_mut() {
                            f.message = format!("{} (baseline expected: {m})", f.message);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A baseline listing every failed scenario of a run, with its message.
    pub fn from_results<'a>(
        results: impl IntoIterator<Item = &'a ScenarioResult>,
        reason: &str,
    ) -> Self {
        let mut expected_failures: Vec<BaselineEntry> = results
            .into_iter()
            .filter(|r| matches!(r.verdict, Verdict::Failed | Verdict::ExpectedFailure))
            .map(|r| BaselineEntry {
                id: r.id.clone(),
                reason: reason.to_owned(),
                message: r.failure.as_ref().map(|f| f.message.clone()),
            })
            .collect();
        expected_failures.sort_by(|a, b| a.id.cmp(&b.id));
        Self { expected_failures }
    }

    /// YAML text of the baseline.
    pub fn to_yaml(&self) -> String {
        let body = serde_saphyr::to_string(self).unwrap_or_default();
        format!("# kipcheck baseline: scenarios this target is expected to fail.\n# Each entry needs a reason; `message` pins the expected first mismatch.\n{body}")
    }
}
