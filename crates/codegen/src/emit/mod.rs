//! Emits one Rust source file per resolved message, plus the generated `mod.rs` and
//! `schemas.rs`. The output is plain text, written to read well in review.
//!
//! Declarations and re-exports only, split by job: [`fragments`] (conditions, types,
//! defaults, per-value expressions) <- [`codec`] (decode/encode/project methods) <-
//! [`message`] (a message's file) and [`tables`] (the crate-wide files).

mod codec;
mod fragments;
mod message;
mod tables;

pub use message::emit_message;
pub use tables::{emit_mod, emit_schemas};

pub(crate) use codec::uses_ident;
pub(crate) use fragments::{cond, value_type};
