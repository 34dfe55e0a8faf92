#![no_main]
//! See `kipcheck::fuzzing::sensitive_filter`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::sensitive_filter(data));
