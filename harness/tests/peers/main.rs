//! kipcheck against software it did not write: the `exec:` and `client-cmd:` targets with Python
//! processes, the interop peers, Kafka's Java codec, kafka-python and the Java policy bridge
//! (those needing an installed peer skip, saying so, unless `KIPCHECK_REQUIRE_PEERS` is set).
//!
//! One test binary (`cargo test --test peers`); each module is one former test file, so a
//! filter names it: `cargo test --test peers -- client_cmd::`.

#[path = "../support/policy.rs"]
mod policy_support;

mod client_cmd;
mod exec_adapter;
mod interop_peers;
mod java_oracle;
mod policy_bridge_jvm;
mod serve_kafka_python;
