#![no_main]
//! See `kipcheck::fuzzing::record_batches`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::record_batches(data));
