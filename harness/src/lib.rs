//! kipcheck: a fuzzing and conformance harness for Apache Kafka KIP-1324 (client
//! configuration push), KIP-1326 (broker static configs in registration) and
//! KIP-1294/KIP-1256 (metadata-version-aware config validation).
//!
//! Data flows one way: `codec ← model ← adapter ← runner → report`; `scenario` is plain data.
//! `codec` and `model` are pure and synchronous (sans-IO); sockets, processes and clocks live
//! at the edges (`adapter`, `serve`, `runner`, `interop`, `oracle`; every child process starts
//! through one crate-private module, `child`); `adapter::Session`, `runner`, `serve` and
//! `live_client` are async (tokio), the rest is blocking or pure. `codec` and `model` are
//! their own crates (`kipcheck-codec`, `kipcheck-model`, so Cargo enforces the direction),
//! re-exported here under those names. The library holds the rest: the emulated world (the
//! nodes kipcheck plays and `Cluster`, the driver of the simulated models), the scenario
//! format, the targets, the runner, the reporters, the ledger, the live servers, the fuzz
//! entry points and the oracles; the binary (`kipcheck`) is a thin command line over it.
//! See `ARCHITECTURE.md` for the map.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapter;
mod child;
pub mod emulate;
pub mod exit;
pub mod faulty;
#[doc(hidden)]
pub mod fuzzing;
pub mod hash;
pub mod interop;
pub mod ledger;
pub mod live_client;
pub mod net;
pub mod oracle;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod serve;

// The two sans-IO crates under their old paths: `kipcheck::codec::..`, `crate::model::..`.
pub use kipcheck_codec as codec;
pub use kipcheck_model as model;

// The shipped suite against the reference as a unit test of the library too: `cargo test --lib
// conformance_suite::` builds one test binary and no `kipcheck` binary (an integration test
// makes cargo build the crate's binaries first), which halves each cargo-mutants rebuild
// (`.cargo/mutants.toml`). The same file is `tests/suite/conformance_suite.rs` in the `suite`
// test binary, with its helpers in `suite_support` there as here.
#[cfg(test)]
extern crate self as kipcheck;
#[cfg(test)]
#[path = "../tests/suite/conformance_suite.rs"]
mod conformance_suite;
#[cfg(test)]
#[path = "../tests/support/suite.rs"]
mod suite_support;
