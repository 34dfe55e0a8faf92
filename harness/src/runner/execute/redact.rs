//! Keeps secrets out of what reports show: every value of a sensitive key in a scenario's
//! setup is replaced by `<redacted:sha256-prefix>` in failure texts.

use sha2::{Digest, Sha256};

use crate::codec::to_hex;
use crate::model::classify;
use crate::model::client_definitions;
use crate::runner::events::Failure;
use crate::scenario::Scenario;

/// Replaces every secret (values of sensitive keys in the setup) in `text` with
/// `<redacted:sha256-prefix>`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Redactor {
    secrets: Vec<(String, String)>,
}

impl Redactor {
    /// The secrets of a scenario: values of client keys the sensitivity rules match, and
    /// broker server.properties values of keys that look secret.
    pub(crate) fn for_scenario(s: &Scenario) -> Self {
        let mut secrets = Vec::new();
        if let Some(c) = &s.file.setup.client {
            let defs = client_definitions(c.client_type);
            for (k, v) in &c.config {
                if classify(k, defs.get(k).map(|d| d.ty)).is_some() && v.len() >= 3 {
                    secrets.push(v.clone());
                }
            }
        }
        if let Some(b) = &s.file.setup.broker {
            for (k, v) in &b.server_properties {
                if (k.contains("password") || k.contains("secret") || k.contains("sasl.jaas"))
                    && v.len() >= 3
                {
                    secrets.push(v.clone());
                }
            }
        }
        // Longest first, so a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let secrets = secrets
            .into_iter()
            .map(|s| {
                let digest = Sha256::digest(s.as_bytes());
                let tag = format!("<redacted:{}>", to_hex(&digest[..4]));
                (s, tag)
            })
            .collect();
        Self { secrets }
    }

    /// `text` with secrets replaced.
    pub(crate) fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (secret, tag) in &self.secrets {
            out = out.replace(secret.as_str(), tag);
        }
        out
    }

    /// True when `bytes` hold one of the secrets verbatim (so their hex must not be shown).
    pub(super) fn found_in(&self, bytes: &[u8]) -> bool {
        self.secrets.iter().any(|(secret, _)| {
            let s = secret.as_bytes();
            !s.is_empty() && bytes.windows(s.len()).any(|w| w == s)
        })
    }

    pub(super) fn failure(&self, mut f: Failure) -> Failure {
        f.message = self.apply(&f.message);
        f.step_yaml = self.apply(&f.step_yaml);
        f.expected = f.expected.map(|x| self.apply(&x));
        f.actual = f.actual.map(|x| self.apply(&x));
        for m in &mut f.mismatches {
            m.expected = self.apply(&m.expected);
            m.actual = self.apply(&m.actual);
        }
        f
    }
}

pub(super) fn yaml(v: &impl serde::Serialize) -> String {
    serde_saphyr::to_string(v).unwrap_or_else(|e| format!("<unrenderable: {e}>"))
}
