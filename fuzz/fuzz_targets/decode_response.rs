#![no_main]
//! Any bytes as a framed response; see `kipcheck::fuzzing::decode_response`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::decode_response(data));
