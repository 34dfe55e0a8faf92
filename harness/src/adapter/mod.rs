//! Adapters: the [`Target`] trait every implementation under test is driven through, and
//! the targets kipcheck ships (the in-process reference model first).

pub mod reference;
pub mod target;

pub use reference::{ReferenceSession, ReferenceTarget};
pub use target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, PeerAction, Session, SessionConfig, Target,
    EMULATED_CONTROLLER_NODE,
};
