#![no_main]
//! See `kipcheck::fuzzing::model_ops`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::model_ops(data));
