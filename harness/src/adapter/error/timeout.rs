//! The target did not answer within a wall-clock bound ([`TimedOut`]). Data only: it must
//! not hold I/O or clocks (the adapters measure, this names what ran out).

use std::fmt;

use super::Tails;

/// The target did not answer within the wall-clock bound.
#[derive(Debug, thiserror::Error)]
pub enum TimedOut {
    /// A target process did not read or did not answer.
    #[error("{who} {command:?} {waiting} within {ms} ms{tails}")]
    Process {
        /// `client` or `adapter`, as in [`Crash::ProcessGone`](super::Crash::ProcessGone).
        who: &'static str,
        /// The command.
        command: String,
        /// What kipcheck waited for.
        waiting: Waiting,
        /// The bound.
        ms: u64,
        /// What it wrote last.
        tails: Tails,
    },
}

/// What kipcheck waited for from a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// To read its stdin.
    Read,
    /// To answer.
    Answer,
}

impl fmt::Display for Waiting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Waiting::Read => "did not read its stdin",
            Waiting::Answer => "gave no answer",
        })
    }
}
