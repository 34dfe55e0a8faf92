//! Interop with real Kafka peers (issue 8): which peers `interop/start.sh` started
//! ([`PeerEnv`]), the YAML suites run against each server peer through `tcp://` and each live
//! client through `client-cmd:` (their results as matrix rows), the relay capture of each real
//! client, a KRaft controller's metadata log read back, and the published matrix
//! (`reports/peers.md`).
//! Declarations and re-exports only.

mod capture;
mod env;
mod error;
mod matrix;
mod metadata_log;
mod run;
mod suite;
mod verdict;

pub use capture::{capture_client, CapturedFrame, ClientCapture, ClientFacts};
pub use env::{ClientPeer, PeerEnv, ServerPeer, ServerRole};
pub use error::InteropError;
pub use matrix::{render_matrix, splice_section, Matrix, PeerRow, SECTION_BEGIN, SECTION_END};
pub use metadata_log::{metadata_log_facts, METADATA_LOG_FACTS, PROBE_BROKER_ID};
pub use run::{run_interop, run_server_suite, InteropOptions, InteropSuites};
pub use suite::{suite_facts, SuiteKind};
pub use verdict::{Fact, Verdict};
