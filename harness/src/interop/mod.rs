//! Interop with real Kafka peers (issue 8): which peers `interop/start.sh` started
//! ([`PeerEnv`]), the must-hold wire facts checked against each server peer and each real client,
//! the YAML suites' results as matrix rows, and the published matrix (`reports/peers.md`).
//! Declarations and re-exports only.

mod capture;
mod env;
mod error;
mod matrix;
mod metadata_log;
mod run;
mod server_facts;
mod suite;
mod verdict;

pub use capture::{capture_client, CapturedFrame, ClientCapture, ClientFacts};
pub use env::{ClientPeer, PeerEnv, ServerPeer, ServerRole};
pub use error::InteropError;
pub use matrix::{render_matrix, splice_section, Matrix, PeerRow, SECTION_BEGIN, SECTION_END};
pub use metadata_log::{metadata_log_facts, METADATA_LOG_FACTS, PROBE_BROKER_ID};
pub use run::{push_config_round, run_interop, InteropOptions};
pub use server_facts::{check_server, push_config_facts};
pub use suite::{suite_facts, SuiteKind};
pub use verdict::{Fact, Verdict};
