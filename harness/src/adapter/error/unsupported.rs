//! Why a step is not possible on a target ([`Unsupported`]: the scenario is unsupported, not
//! errored). Data only: it must not hold I/O or decide the verdict (the runner sorts by kind).

/// Why a step is not possible on this target (the scenario is unsupported, not errored).
#[derive(Debug, thiserror::Error)]
pub enum Unsupported {
    /// The step has no live form on this kind of target.
    #[error("{step} is not possible {on}")]
    NoLiveForm {
        /// The step.
        step: String,
        /// "against a live tcp:// target", "with a client-cmd: target".
        on: &'static str,
    },
    /// A wait longer than kipcheck spends on a real clock.
    #[error("{what} {ms} ms on a real clock (limit {limit} ms{hint})")]
    RealClock {
        /// "an advance of", "waiting for request.timeout.ms:".
        what: &'static str,
        /// The wait asked.
        ms: u64,
        /// The longest wait kipcheck spends.
        limit: u64,
        /// What could help (`; try --time-scale`), or nothing.
        hint: &'static str,
    },
    /// The scenario has no model of this role (the reference).
    #[error("no {role} in this scenario")]
    NoRole {
        /// The role.
        role: &'static str,
    },
    /// No request from the target awaits an answer from this node.
    #[error("no request from the target to node {node} awaits an answer")]
    NothingToAnswer {
        /// The node.
        node: i32,
    },
    /// The target said so (an `exec:` adapter's `unsupported` reply).
    #[error("{reason}")]
    Declared {
        /// Its reason.
        reason: String,
    },
    /// The scenario's setup asks for what this live target was not declared to have, or
    /// sets what it cannot be told.
    #[error("{reason}")]
    Setup {
        /// What differs, and which option would declare it.
        reason: String,
    },
    /// The scenario sets `bootstrap.servers`, which kipcheck must set for a live client.
    #[error(
        "the scenario sets bootstrap.servers, which a live client needs for kipcheck's listeners"
    )]
    SetsBootstrap,
    /// `setup.controller.topics` on a controller without the topic APIs.
    #[error("setup.controller.topics needs DeleteTopics and CreateTopics, which the live controller does not advertise")]
    NoTopicApis,
}
