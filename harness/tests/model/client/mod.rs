//! KIP-1324 client behaviour of the reference model, through its public API: key selection,
//! the sensitivity filter, the handshake, retries, throttling, deadlines and user blocking.
//! Covers the client items of kip-notes §1.14.

use crate::model_support::*;
use kipcheck::codec::{ApiKey, ErrorCode, RequestBody};
use kipcheck::model::events::{RetryCause, SkipReason, UnblockReason};
use kipcheck::model::{
    ClientInput, ClientModel, ClientOutput, ClientType, ConfigTypeNumbering, Event, HandshakeState,
    Millis, RequestTimeoutAction, SensitivityRule, SizeMeasure, SpecProfile,
};

mod end_to_end;
mod handshake;
mod key_selection;
mod retries;
mod sasl;
mod startup;

fn consumer(user: &[(&str, &str)]) -> ClientModel {
    ClientModel::new(ClientType::Consumer, cfg(user), &SpecProfile::default(), 1).unwrap()
}

fn consumer_seeded(seed: u64) -> ClientModel {
    ClientModel::new(
        ClientType::Consumer,
        cfg(&[]),
        &SpecProfile::default(),
        seed,
    )
    .unwrap()
}

fn keys(c: &ClientModel) -> Vec<String> {
    c.selected_request()
        .map(|r| r.configs.iter().map(|c| c.config_key.to_string()).collect())
        .unwrap_or_default()
}

/// A `Sim` under the default profile.
fn sim(
    t: ClientType,
    user: std::collections::BTreeMap<String, String>,
    seed: u64,
    brokers: &[(i32, bool)],
) -> Sim {
    Sim::new(t, user, &SpecProfile::default(), seed, brokers)
}
