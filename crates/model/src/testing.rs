//! Views of the model's state for tests, not KIP behaviour: compiled only with the `testing`
//! cargo feature (the harness's tests enable it through `[dev-dependencies]`) and for this
//! crate's own unit tests. No library code (the model, the harness library, serve, the fuzz
//! targets) may use them: whatever a real implementation can be judged on is reachable through
//! the model's public API without this feature. The conformance suite never runs them, so
//! cargo-mutants leaves this file out (`.cargo/mutants.toml`).
//!
//! Each block below only reads state; none decides anything.

#![cfg(any(test, feature = "testing"))]

use std::collections::BTreeMap;

use crate::backoff::ExponentialBackoff;
use crate::client::ClientModel;
use crate::controller::ControllerModel;
use crate::selection;

impl ControllerModel {
    /// Every resource with dynamic configs: (resource type, name) → key → value.
    pub fn all_configs(&self) -> &BTreeMap<(i8, String), BTreeMap<String, String>> {
        &self.configs
    }
}

impl ClientModel {
    /// The PushConfig this client sends, if any (the result of key selection).
    pub fn selected_request(&self) -> Option<&kipcheck_codec::PushConfigRequest> {
        self.selection.request.as_ref()
    }

    /// The effective configuration: every key the client defines → its value as
    /// `convertToString` renders it (user value, else default; `None` for null).
    pub fn effective_config(&self) -> BTreeMap<&'static str, Option<String>> {
        self.defs
            .keys()
            .map(|d| {
                let value =
                    selection::effective_value(&self.defs, &self.user, &self.profile, d.name)
                        .and_then(|(v, _)| v);
                (d.name, value)
            })
            .collect()
    }

    /// PushConfig requests sent so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }
}

impl ExponentialBackoff {
    /// The closed interval every [`delay`](Self::delay) for `attempts` falls in.
    pub fn bounds(&self, attempts: u32) -> (u64, u64) {
        if self.max_ms <= self.initial_ms {
            return (self.initial_ms, self.initial_ms);
        }
        let term = self.term(attempts);
        let lo = ((1.0 - self.jitter) * term).floor() as u64;
        let hi = ((1.0 + self.jitter) * term).ceil() as u64;
        (lo.min(self.max_ms), hi.min(self.max_ms))
    }
}
