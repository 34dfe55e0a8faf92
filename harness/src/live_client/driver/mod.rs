//! The live client's event loop: the sans-IO [`ClientModel`](crate::model::ClientModel) fed with wall-clock time.
//!
//! - The profile's timing defaults are the configuration's timing keys where it sets them
//!   ([`super::configured_timings`]).
//! - At start the model gets `Start`, then one `Connected` per bootstrap address once its TCP
//!   connection is up, one after the other (node ids `-1, -2, …` in `bootstrap.servers` order,
//!   as Kafka numbers bootstrap nodes). Like the reference model, it never reconnects on its
//!   own and connects to no other node by itself: a scenario's `connect` steps reach it as
//!   [`Control::Connect`] (a `connect <node> <host:port>` line), and it opens that connection
//!   (an address it already knows keeps its node id, so a reconnection is the same node).
//! - Each model output is performed: `Send` writes the request frame (responses are matched
//!   by order and correlation id), `ReleaseUserRequest` becomes a [`Report::Released`],
//!   `WakeAt` arms the one timer, events are reported.
//! - A connection that closes, or answers with bytes that do not frame or decode, is a
//!   `Disconnected` input. A PushConfig the model timed out is answered by nobody: its late
//!   answer is dropped (profile `request_timeout: keep`) or its connection is closed
//!   (`disconnect`), exactly where the model says so.
//! - The loop ends when the control channel closes (the application is done).
//!
//! [`ConnectionStyle::Java`] (`kipcheck client --style java`) uses its connections as Java's
//! NetworkClient does instead: a bootstrap connection only discovers the cluster (ApiVersions,
//! SASL if configured, then Metadata, performed by an embedded model that does no handshake of
//! its own), and the model gets a new connection to the broker Metadata names at that
//! address (node id from Metadata), on which everything else happens, the handshake included.
//! A connection the client loses (except to a failed authentication) is opened again by
//! itself after [`RECONNECT_BACKOFF`] (Java's `reconnect.backoff.ms` default), a bootstrap one
//! only while Metadata has not named its broker; a `connect` line for a node it is connected
//! to, or connecting to, is ignored, and one for a node it waits to reconnect to opens it now.
//!
//! The parts: `options.rs` (what the application gives and gets: [`LiveOptions`],
//! [`Control`], [`Report`], [`ConnectionStyle`]), `conn.rs` (the connection tasks: opening a
//! connection, reading its frames), `run.rs` (the loop and the model's side of it),
//! `wire.rs` (requests written, frames and closes taken back to the model) and `java.rs`
//! (what [`ConnectionStyle::Java`] does on top). This file only declares them and re-exports
//! their names, so `live_client::driver::X` paths stay as they were.

mod conn;
mod java;
pub mod options;
pub mod run;
mod wire;

pub use options::{
    ConnectionStyle, Control, LiveOptions, Report, DEFAULT_CLIENT_ID, RECONNECT_BACKOFF,
};
pub use run::{run_client, run_client_styled};
