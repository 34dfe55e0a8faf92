//! Client configuration definitions as data: Kafka's `ConfigDef.Type`, the two wire numberings
//! of it (KIP-1324 §6 A2), typed values parsed and rendered the way `ConfigDef.parseType` and
//! `ConfigDef.convertToString` do, and the key → (type, default) tables of the producer,
//! consumer, admin, share consumer and Kafka Streams.
//!
//! The tables are a documented subset of `ProducerConfig`, `ConsumerConfig`,
//! `AdminClientConfig`, `StreamsConfig` and `CommonClientConfigs` (apache/kafka trunk): every
//! key a KIP-1324 default list names, every sensitive-pattern example, and the timing keys
//! the handshake reads. This module decides nothing about which keys are sent.
//!
//! This file only declares the parts and re-exports their public items (the paths
//! `kipcheck_model::config_def::*` are unchanged):
//! - `types`: `ConfigType` and its two wire numberings;
//! - `values`: `ConfigValue`, parsed and rendered as Java does;
//! - `tables`: `ClientType`, the per-client key tables and `client_definitions`.

mod tables;
#[cfg(test)]
mod tests;
mod types;
mod values;

pub use tables::{client_definitions, ClientDefinitions, ClientType, ConfigKeyDef};
pub use types::{ConfigType, ConfigTypeNumbering};
pub use values::{java_double_to_string, parse_java_double, ConfigValue, ParseValueError};
