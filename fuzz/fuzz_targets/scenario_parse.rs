#![no_main]
//! Any bytes as a scenario file; see `kipcheck::fuzzing::scenario_parse`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::scenario_parse(data));
