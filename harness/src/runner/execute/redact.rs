//! Keeps secrets out of what reports show: every value of a sensitive key in a scenario's
//! setup is replaced by `<redacted:sha256-prefix>` in failure texts.

use sha2::{Digest, Sha256};

use crate::codec::{from_hex, to_hex};
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

    /// `bytes` with every secret's bytes replaced by as many `*`: a hex dump (and its ASCII
    /// column) then shows neither the secret nor its hex, and keeps every offset and length.
    pub(crate) fn mask(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for (secret, _) in &self.secrets {
            let s = secret.as_bytes();
            if s.is_empty() || s.len() > out.len() {
                continue;
            }
            let mut i = 0;
            while i + s.len() <= out.len() {
                if &out[i..i + s.len()] == s {
                    out[i..i + s.len()].fill(b'*');
                    i += s.len();
                } else {
                    i += 1;
                }
            }
        }
        out
    }

    pub(super) fn failure(&self, mut f: Failure) -> Failure {
        f.raw_hex = f.raw_hex.map(|h| match from_hex(&h) {
            Some(bytes) => to_hex(&self.mask(&bytes)),
            None => self.apply(&h),
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(secret: &str) -> Redactor {
        Redactor {
            secrets: vec![(secret.to_owned(), "<redacted:00000000>".to_owned())],
        }
    }

    #[test]
    fn a_failures_raw_bytes_are_masked_in_place() {
        let r = redactor("hunter2");
        // A compact string "hunter2" (length 8 = 7 + 1) between two other bytes.
        let frame = [&[0x00, 0x08][..], b"hunter2", &[0x01]].concat();
        let f = Failure {
            step: Some(0),
            location: "s.yaml:1:1".into(),
            step_yaml: String::new(),
            message: "frame holds hunter2".into(),
            expected: None,
            actual: None,
            mismatches: Vec::new(),
            raw_hex: Some(to_hex(&frame)),
        };
        let f = r.failure(f);
        assert_eq!(f.raw_hex.as_deref(), Some("00082a2a2a2a2a2a2a01"));
        assert_eq!(f.message, "frame holds <redacted:00000000>");
        assert!(!r.found_in(&from_hex(f.raw_hex.as_deref().unwrap()).unwrap()));
    }

    #[test]
    fn masking_replaces_every_occurrence_and_nothing_else() {
        let r = redactor("abc");
        assert_eq!(r.mask(b"abcxabcab"), b"***x***ab".to_vec());
        assert_eq!(r.mask(b"ab"), b"ab".to_vec());
    }
}
