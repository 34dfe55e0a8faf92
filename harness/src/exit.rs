//! The exit codes of the `kipcheck` binary, documented in `docs/cli.md`: in the library so
//! tests (and scripts written against the crate) name them instead of repeating numbers.

/// Nothing failed (for `run`: every selected scenario passed or was expectedly failed).
pub const SUCCESS: u8 = 0;
/// A finding: a failed scenario, a stale baseline entry, a surviving variant, bytes that do
/// not decode, an untested requirement (`ledger --check`).
pub const FINDING: u8 = 1;
/// Bad usage, unreadable input, or a scenario file error.
pub const USAGE: u8 = 2;
/// The target failed to start, is unreachable, crashed or hung (an errored scenario); for
/// `load`, no attempt reached the server.
pub const TARGET: u8 = 3;
/// No scenario selected.
pub const NO_SCENARIOS: u8 = 4;
/// Nothing failed, but the run judged nothing (every scenario unsupported), or fewer
/// scenarios than `--min-judged`.
pub const NOTHING_JUDGED: u8 = 5;
