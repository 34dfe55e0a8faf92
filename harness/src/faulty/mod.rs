//! The faulty variants: each [`Fault`] is one realistic implementer bug, and [`Faulty`] is a
//! set of them plugged into the reference model's decision points
//! (`kipcheck_model::decisions`). [`Faulty`] overrides a decision only when one of its faults
//! lives there and asks the reference ([`Reference`]) for the rest, so the model crate holds
//! no bug and a variant differs from the reference at exactly one decision.
//!
//! Pure like the model it plugs into: no I/O, no clock. `kipcheck mutants` (runner/mutants.rs)
//! measures which scenarios catch which variant; `--target mutant:NAME` runs one.

mod broker;
mod client;
mod controller;
mod fault;

use std::sync::Arc;

use crate::model::{
    decisions::{reference_broker, reference_client, reference_controller},
    BrokerDecisions, ClientDecisions, ControllerDecisions, Reference,
};
pub use fault::{Fault, Faults};

/// The decisions of a model built with `faults`: the reference's own where a decision has
/// none of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Faulty(Faults);

impl Faulty {
    /// True if `fault` is one of this variant's.
    fn has(&self, fault: Fault) -> bool {
        self.0.has(fault)
    }

    /// The client decisions for `faults` (the reference's when there are none).
    pub fn client(faults: &Faults) -> Arc<dyn ClientDecisions> {
        if faults.is_empty() {
            reference_client()
        } else {
            Arc::new(Faulty(faults.clone()))
        }
    }

    /// The broker decisions for `faults` (the reference's when there are none).
    pub fn broker(faults: &Faults) -> Arc<dyn BrokerDecisions> {
        if faults.is_empty() {
            reference_broker()
        } else {
            Arc::new(Faulty(faults.clone()))
        }
    }

    /// The controller decisions for `faults` (the reference's when there are none).
    pub fn controller(faults: &Faults) -> Arc<dyn ControllerDecisions> {
        if faults.is_empty() {
            reference_controller()
        } else {
            Arc::new(Faulty(faults.clone()))
        }
    }
}

/// The reference, which every override falls back to.
const REFERENCE: Reference = Reference;
