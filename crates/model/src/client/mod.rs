//! The KIP-1324 client as a sans-IO state machine: the configuration handshake
//! (connect → ApiVersions → PushConfig → ready), once per client instance, on a node chosen
//! with the seeded RNG among nodes that advertise PushConfig; retries with exponential backoff
//! and jitter; ThrottleTimeMs; the deadline; and user requests held until the handshake ends.
//! With `security.protocol=SASL_*` each connection authenticates first (SaslHandshake, then
//! SaslAuthenticate, after the ApiVersions answer) and carries PushConfig only once that
//! succeeded (KIP-1324: "after authentication (if any)").
//! Inputs come in with the time they happen at and outputs say what to send and when to wake
//! the client; it never performs I/O, reads a clock or uses thread randomness.
//!
//! This file only declares the parts and re-exports their public items (the paths
//! `kipcheck_model::client::*` are unchanged):
//! - `interface`: the wire constants, `ClientInput`, `ClientOutput`, `HandshakeState`, `ClientConfigError`;
//! - `state`: `ClientModel`'s fields, construction from the user configuration, accessors;
//! - `handshake`: the input dispatcher, connection start and the ApiVersions step;
//! - `sasl`: the SASL step of each connection;
//! - `push`: choosing a node and sending PushConfig, and judging its answer;
//! - `timers`: request timeouts, retries with backoff, the deadline and releasing held requests.

mod handshake;
mod interface;
mod push;
mod sasl;
mod sasl_config;
mod state;
mod timers;

pub use interface::{
    ClientConfigError, ClientInput, ClientOutput, HandshakeState, API_VERSIONS_VERSION,
    CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION, SASL_AUTHENTICATE_VERSION,
    SASL_HANDSHAKE_VERSION,
};
pub use sasl_config::uses_sasl;
pub use state::ClientModel;
