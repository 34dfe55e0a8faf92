//! The runner: executes scenarios against a target (the only async module), turns what it
//! observes into verdicts, and emits [`events::RunEvent`]s that reporters consume.

pub mod events;

pub use events::{
    Failure, Grade, Mismatch, RunEvent, RunInfo, ScenarioResult, Summary, Verdict, FORMAT_VERSION,
};
