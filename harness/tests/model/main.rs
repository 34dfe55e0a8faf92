//! The reference model through its public API: client, broker and controller behaviour, the
//! harness's `Cluster` driver of it (`kipcheck::emulate`), property tests and the controller's
//! state-machine test.
//!
//! One test binary (`cargo test --test model`); each module is one former test file, so a
//! filter names it: `cargo test --test model -- broker::`.

#[path = "../support/model.rs"]
mod model_support;

mod broker;
mod client;
mod cluster;
mod controller;
mod props;
mod state_machine;
