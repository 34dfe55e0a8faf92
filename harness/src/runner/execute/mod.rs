//! Executes one scenario against a target session and judges what comes back. The step loop
//! (`scenario.rs`) decides what runs and counts what was judged; one file per step family
//! does the judging (`server_steps.rs`: kipcheck as the client of a broker or controller
//! target; `client_steps.rs`: kipcheck as the brokers of a client target; `observe_steps.rs`:
//! the target's own reports, which are evidence only where the target gives them);
//! `failure.rs` builds located failures and `redact.rs` keeps secrets out of them. Request
//! bodies come prepared by the loader (`Scenario::compiled`).
//! Nothing here writes reports: the outcome goes back to `run.rs`.

mod client_steps;
mod failure;
mod observe_steps;
mod redact;
mod scenario;
mod server_steps;

pub use redact::Redactor;
pub use scenario::{execute, gate, ScenarioOutcome};
