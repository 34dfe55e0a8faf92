//! One checked fact about one peer and its verdict; plain data shared by the server checks, the
//! client capture and the matrix. It checks nothing itself.

use std::borrow::Cow;

use serde::Serialize;

/// The outcome of one fact against one peer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The peer behaves as the protocol (or the KIP's "older peer" expectation) requires.
    Pass,
    /// The fact does not apply to this peer (e.g. it does not implement the API at all);
    /// the reason says why.
    Unsupported(String),
    /// The peer departs from the protocol: what was expected and what was observed.
    Finding {
        /// What the protocol requires.
        expected: String,
        /// What the peer did (decoded fields, an error path and offset, hex bytes).
        observed: String,
    },
}

impl Verdict {
    /// A finding from an expectation and an observation.
    pub fn finding(expected: impl Into<String>, observed: impl Into<String>) -> Self {
        Verdict::Finding {
            expected: expected.into(),
            observed: observed.into(),
        }
    }

    /// True for [`Verdict::Pass`].
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    /// True for [`Verdict::Finding`].
    pub fn is_finding(&self) -> bool {
        matches!(self, Verdict::Finding { .. })
    }
}

/// One fact checked against one peer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fact {
    /// Stable identifier (`apiversions-strict`, `client-no-push-config`, ..., or a scenario id
    /// for the YAML suites); the matrix and the tests refer to facts by it.
    pub id: Cow<'static, str>,
    /// The suite it belongs to (`broker`, `controller`, `client`).
    pub suite: &'static str,
    /// The verdict.
    pub verdict: Verdict,
    /// What was observed, for the report, whatever the verdict.
    pub detail: String,
}
