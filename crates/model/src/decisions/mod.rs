//! The decision points of the reference: one trait per role ([`ClientDecisions`],
//! [`BrokerDecisions`], [`ControllerDecisions`]), each method one decision the KIPs fix, its
//! default body the reference's answer. The models hold an `Arc<dyn …Decisions>` and ask it
//! at the exact point the decision is taken; [`Reference`] keeps every default.
//!
//! This is the seam the harness's faulty variants plug into (`kipcheck::faulty`): a variant
//! overrides one method and keeps the rest, so no bug lives in this crate. A method names the
//! decision, never a bug; its doc says what the KIP text requires. Pure like the rest of the
//! model: no I/O, no clock, no randomness of its own.

mod broker;
mod client;
mod controller;

pub use broker::BrokerDecisions;
pub use client::ClientDecisions;
pub use controller::ControllerDecisions;

use std::sync::Arc;

/// Every decision as the KIPs take it: the reference model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference;

impl ClientDecisions for Reference {}
impl BrokerDecisions for Reference {}
impl ControllerDecisions for Reference {}

/// The reference's client decisions, shared.
pub fn reference_client() -> Arc<dyn ClientDecisions> {
    Arc::new(Reference)
}

/// The reference's broker decisions, shared.
pub fn reference_broker() -> Arc<dyn BrokerDecisions> {
    Arc::new(Reference)
}

/// The reference's controller decisions, shared.
pub fn reference_controller() -> Arc<dyn ControllerDecisions> {
    Arc::new(Reference)
}
