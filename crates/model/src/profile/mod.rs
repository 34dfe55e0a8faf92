//! [`SpecProfile`]: every number and every contested reading of KIP-1324, KIP-1326 and
//! KIP-1294/KIP-1256 that the model depends on, in one serde type loadable from YAML, with a
//! built-in default that implements kip-notes §6's recommended readings. Holds data only; the
//! model's components read it and never change it.
//!
//! This file only declares the parts and re-exports their public items (the paths
//! `kipcheck_model::profile::*` are unchanged):
//! - `readings`: one enum per contested reading of the KIPs;
//! - `defaults`: the default key lists, client/broker defaults, timing tolerance and the timeline keys;
//! - `spec`: `SpecProfile` itself, `ProfileError`, YAML loading and validation.

mod defaults;
mod readings;
mod spec;
#[cfg(test)]
mod tests;

pub use defaults::{
    DefaultKeyLists, Defaults, Timing, TIMELINE_CONFIG_KEYS, TIMELINE_DEFAULT_PREFIX,
};
pub use readings::{
    AuditDirection, AuditRejection, BrokerEntryChecks, IncrementalInvalidValue,
    MvValidatorInclusion, PushConfigAuthorization, RegistrationRejection, RequestTimeoutAction,
    Reregistration, SizeMeasure, UnadvertisedPushConfigReply, UpdateFeaturesPrecedence,
};
pub use spec::{ProfileError, SpecProfile};
