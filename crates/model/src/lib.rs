//! The reference model of KIP-1324, KIP-1326 and KIP-1294/KIP-1256: client, broker and
//! controller as pure, synchronous, deterministic state machines (sans-IO, quinn-proto
//! style). Time comes in as [`Millis`], randomness from a seeded [`ModelRng`], every knob and
//! contested reading from a [`SpecProfile`]; every decision is an [`Event`].
//!
//! The crate `kipcheck-model`: it depends on `kipcheck-codec` and on no async runtime (Cargo
//! enforces both); the harness re-exports it as `kipcheck::model`. The emulated nodes kipcheck
//! plays for a client under test and the driver of the simulated world (`Cluster`, which calls
//! each model's `check_invariants` after every step) are the harness's (`kipcheck::emulate`),
//! not part of it.
//!
//! This file only declares modules and re-exports; see `ARCHITECTURE.md`, "Where each KIP lives".

pub mod api_versions;
pub mod backoff;
pub mod broker;
pub mod client;
pub mod config_def;
pub mod controller;
pub mod decisions;
pub mod events;
pub mod invariants;
pub mod profile;
pub mod rng;
pub mod selection;
pub mod sensitivity;
pub mod server_config;
pub mod time;
pub mod validators;

// Views for tests only (the `testing` cargo feature); no library code may use them.
mod testing;

pub use api_versions::{api_version_range, api_versions_unsupported, handshake_api_versions};
pub use backoff::ExponentialBackoff;
pub use broker::{
    BrokerConfigError, BrokerModel, BrokerReply, BrokerRequest, BrokerSettings, PolicyVerdict,
};
pub use client::{
    uses_sasl, ClientConfigError, ClientInput, ClientModel, ClientOutput, HandshakeState,
};
pub use config_def::{
    client_definitions, ClientType, ConfigType, ConfigTypeNumbering, ConfigValue,
};
pub use controller::{ControllerModel, MetadataRecord, RegisteredBroker, ReplayError};
pub use decisions::{BrokerDecisions, ClientDecisions, ControllerDecisions, Reference};
pub use events::{Event, LoggedEvent, NodeId};
pub use invariants::InvariantViolation;
pub use profile::{
    AuditDirection, AuditRejection, BrokerEntryChecks, DefaultKeyLists, Defaults,
    IncrementalInvalidValue, MvValidatorInclusion, ProfileError, PushConfigAuthorization,
    RegistrationRejection, RequestTimeoutAction, Reregistration, SizeMeasure, SpecProfile, Timing,
    UnadvertisedPushConfigReply, UpdateFeaturesPrecedence, TIMELINE_CONFIG_KEYS,
    TIMELINE_DEFAULT_PREFIX,
};
pub use rng::ModelRng;
pub use sensitivity::{classify, SensitivityRule};
pub use server_config::{ReportFacts, ReportPolicy, ServerConfigDefs, ServerConfigKey};
pub use time::Millis;
pub use validators::{MvValidators, Validator};
