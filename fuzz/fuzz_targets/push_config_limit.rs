#![no_main]
//! See `kipcheck::fuzzing::push_config_limit`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::push_config_limit(data));
