//! The broker side of KIP-1324 and KIP-1326 as a sans-IO model: ApiVersions advertising,
//! PushConfig handling (decode → size check → entry checks → policy), and the static-config
//! report a broker sends in BrokerRegistrationRequest. It answers requests it is handed and
//! keeps an event log; it never opens connections, reads clocks or talks to a controller.
//!
//! This file only declares the parts and re-exports their public items (the paths
//! `kipcheck_model::broker::*` are unchanged):
//! - `settings`: `BrokerSettings`, `PolicyVerdict`, `BrokerConfigError`, `BrokerRequest`, `BrokerReply`;
//! - `state`: `BrokerModel`'s fields, construction and accessors;
//! - `requests`: framed-request dispatch, the ApiVersions answer and closing a connection;
//! - `push`: PushConfig (size measures, entry checks, policy verdict);
//! - `registration`: KIP-1326 StaticConfigs and the BrokerRegistrationRequest.

mod push;
mod registration;
mod requests;
mod settings;
mod state;

pub use push::{key_value_bytes, measure, EntryRefusal};
pub use settings::{BrokerConfigError, BrokerReply, BrokerRequest, BrokerSettings, PolicyVerdict};
pub use state::BrokerModel;
