//! Executes one scenario against a target session and judges what comes back. The step loop
//! (`scenario.rs`) decides what runs and counts what was judged; one file per step family
//! does the judging (`server_steps.rs`: kipcheck as the client of a broker or controller
//! target; `client_steps.rs`: kipcheck as the brokers of a client target; `observe_steps.rs`:
//! the target's own reports, which are evidence only where the target gives them);
//! `timing.rs` turns expected durations into real-clock windows (`--time-scale`, tolerance);
//! `failure.rs` builds located failures and `redact.rs` keeps secrets out of them; `exchange.rs`
//! logs the frames that cross the session, for the reports of failing scenarios. Request
//! bodies come prepared by the loader (`Scenario::compiled`).
//! `entry.rs` admits a scenario and runs it once or, through `repeat.rs`, as a `repeat:`
//! scenario several times, judging what must vary across runs.
//! Nothing here writes reports: the outcome goes back to `run.rs`.

mod client_steps;
mod entry;
mod exchange;
mod failure;
mod observe_steps;
mod redact;
mod repeat;
mod scenario;
mod server_steps;
mod timing;

pub use crate::scenario::differing_pins;
pub use entry::{execute, execute_into};
pub use exchange::ExchangeSink;
pub use scenario::{admit, gate, ScenarioOutcome};
pub use timing::{RealTiming, STARTUP_ALLOWANCE_MS};
