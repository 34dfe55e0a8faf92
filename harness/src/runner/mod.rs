//! The runner: executes scenarios against a target (the only async module), turns what it
//! observes into verdicts, and emits [`events::RunEvent`]s that reporters consume.

pub mod baseline;
pub mod events;
pub mod execute;
pub mod mutants;
pub mod pacing;
pub mod quarantine;
pub mod readings;
pub mod run;
pub mod select;

pub use crate::scenario::fill_push_config;
pub use baseline::{Baseline, BaselineEntry, BaselineError};
pub use events::{
    Direction, Exchange, ExchangeEntry, ExchangeKind, Failure, Grade, Mismatch, Outcome, RunEvent,
    RunInfo, ScenarioResult, Summary, TimingCheck, UnsupportedCause, Verdict, FORMAT_VERSION,
};
pub use execute::{admit, execute, execute_into, gate, ExchangeSink, ScenarioOutcome};
pub use mutants::{kill_matrix, KillMatrix, VariantOutcome, MUTANTS_FORMAT_VERSION};
pub use pacing::{Pace, Pacer};
pub use readings::{
    pins_other_than, reading_alternatives, reading_findings, reading_problems, ReadingProblem,
};
pub use run::{run_suite, run_suite_until, FlakyOptions, FlakyResult, RunOptions};
pub use select::{fnv1a64, scenario_seed, select, Filters, Partition, PartitionError};
