//! The reference model of KIP-1324, KIP-1326 and KIP-1294/KIP-1256: client, broker and
//! controller as pure, synchronous, deterministic state machines (sans-IO, quinn-proto
//! style). Time comes in as [`Millis`], randomness from a seeded [`ModelRng`], every knob and
//! contested reading from a [`SpecProfile`].
//!
//! This file only declares modules and re-exports; see `ARCHITECTURE.md`, "Reference model".

pub mod backoff;
pub mod config_def;
pub mod profile;
pub mod rng;
pub mod sensitivity;
pub mod server_config;
pub mod time;
pub mod validators;

pub use backoff::ExponentialBackoff;
pub use config_def::{
    client_definitions, ClientType, ConfigType, ConfigTypeNumbering, ConfigValue,
};
pub use profile::{
    AuditDirection, DefaultKeyLists, Defaults, ProfileError, RegistrationRejection, SizeMeasure,
    SpecProfile, UnadvertisedPushConfigReply,
};
pub use rng::ModelRng;
pub use sensitivity::{classify, SensitivityRule};
pub use server_config::{ReportPolicy, ServerConfigDefs, ServerConfigKey};
pub use time::Millis;
pub use validators::{MvValidators, Validator};
