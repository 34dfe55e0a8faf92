#![no_main]
//! See `kipcheck::fuzzing::roundtrip`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::roundtrip(data));
