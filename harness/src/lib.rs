//! kipcheck: a fuzzing and conformance harness for Apache Kafka KIP-1324 (client
//! configuration push), KIP-1326 (broker static configs in registration) and
//! KIP-1294/KIP-1256 (metadata-version-aware config validation).
//!
//! Data flows one way: `codec ← model ← adapter ← runner → report`. This crate currently
//! holds the codec and the reference model (`model`); see `ARCHITECTURE.md` for the map.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapter;
pub mod codec;
#[doc(hidden)]
pub mod fuzzing;
pub mod interop;
pub mod ledger;
pub mod live_client;
pub mod model;
pub mod oracle;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod serve;
