//! The wire codec: framing, the staleness guard of the generated code, hostile inputs, round-trip
//! properties, known-answer vectors, the differential test against the `kafka-protocol` crate
//! and the metadata-log record batches.
//!
//! One test binary (`cargo test --test codec`); each module is one former test file, so a
//! filter names it: `cargo test --test codec -- differential_kafka_protocol::`.

mod differential_kafka_protocol;
mod frames;
mod fresh;
mod hostile;
mod metadata_log;
mod roundtrip;
mod vectors;
