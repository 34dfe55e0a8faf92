//! Entry points for the cargo-fuzz targets in `fuzz/`: each target is a few lines that call
//! one function here, so the logic and its oracles build on stable, run under `cargo test`
//! (corpus and regression replay) and stay in one place. Every function must return
//! normally for any input; a panic is a bug the fuzzer reports.

mod decode;
#[cfg(feature = "arbitrary")]
mod frames;
#[cfg(feature = "arbitrary")]
mod roundtrip;

pub use decode::{decode_request, decode_response, FUZZ_MAX_FRAME};
#[cfg(feature = "arbitrary")]
pub use frames::frame_reader;
#[cfg(feature = "arbitrary")]
pub use roundtrip::roundtrip;
