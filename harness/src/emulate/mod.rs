//! The emulated world: test machinery of the harness, not the KIP reference (`model`), which
//! it builds on. [`node`] is what kipcheck answers in place when it plays a broker for a client
//! under test (`kipcheck serve`, the `client-cmd:` listeners) and the ApiVersions list the
//! runner's client steps and the fuzz targets answer with; [`cluster`] is the one deterministic
//! driver of the simulated world ([`Cluster`]: client, brokers and controller models on one
//! clock, every model's invariants checked after each step), behind the reference target, the
//! `model_ops` fuzz target and the model tests; [`controller`] is the emulated controller (the
//! Kafka controller APIs the KIPs leave alone, over a controller model's state) and the one
//! dispatch every in-process controller answers through. Declarations and re-exports only.

pub mod cluster;
pub mod controller;
pub mod node;

pub use cluster::{Awaited, Cluster, ClusterError, Outgoing, Release, Sender};
pub use node::{
    advertise_metadata, emulated_api_versions, is_valid_topic_name, metadata_answer, read_request,
    sasl_authenticate_answer, sasl_handshake_answer, InPlaceError, MetadataBroker, Request,
    TopicCatalog, METADATA_VERSIONS, SASL_MECHANISM,
};
