#![no_main]
//! Any bytes as a framed request; see `kipcheck::fuzzing::decode_request`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::decode_request(data));
