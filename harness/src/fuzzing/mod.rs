//! Entry points for the cargo-fuzz targets in `fuzz/`: each target is a few lines that call
//! one function here, so the logic and its oracles build on stable, run under `cargo test`
//! (corpus and regression replay) and stay in one place. Every function must return
//! normally for any input; a panic is a bug the fuzzer reports.
//!
//! | target | oracle |
//! |---|---|
//! | [`decode_request`], [`decode_response`] | never panics; what decodes re-encodes to the same message |
//! | `roundtrip` | typed message → encode → decode → equal (projected to the version) |
//! | `frame_reader` | any split of a byte stream yields the same frames; oversize rejected early |
//! | `push_config_limit` | broker model: CONFIG_TOO_LARGE iff measured size > max; no policy call then |
//! | `sensitive_filter` | client model: no sensitive or unlisted key emitted; request within budget |
//! | `model_ops` | client, broker, controller models: invariants after every operation |
//! | `differential_codec` | kipcheck vs kafka-protocol decoders: agreement or a classified difference |
//! | [`record_batches`] | record batches and metadata-log records: no panic; built batches decode back; a flipped CRC-covered byte is refused |
//! | [`scenario_parse`] | any bytes to the scenario loader: a value or a located error, never a panic |
//!
//! The typed targets need the `arbitrary` feature; `differential_codec` needs `differential`
//! and lives with its oracle in [`crate::oracle::kafka_protocol`].

mod decode;
#[cfg(feature = "arbitrary")]
mod frames;
#[cfg(feature = "arbitrary")]
mod model_ops;
#[cfg(feature = "arbitrary")]
mod profile;
#[cfg(feature = "arbitrary")]
mod push_config_limit;
mod record_batch;
#[cfg(feature = "arbitrary")]
mod roundtrip;
mod scenario_parse;
#[cfg(feature = "arbitrary")]
mod sensitive_filter;

#[cfg(feature = "differential")]
pub use crate::oracle::kafka_protocol::differential_codec;
pub use decode::{decode_request, decode_response, FUZZ_MAX_FRAME};
#[cfg(feature = "arbitrary")]
pub use frames::frame_reader;
#[cfg(feature = "arbitrary")]
pub use model_ops::model_ops;
#[cfg(feature = "arbitrary")]
pub use push_config_limit::push_config_limit;
pub use record_batch::record_batches;
#[cfg(feature = "arbitrary")]
pub use roundtrip::roundtrip;
pub use scenario_parse::scenario_parse;
#[cfg(feature = "arbitrary")]
pub use sensitive_filter::sensitive_filter;
