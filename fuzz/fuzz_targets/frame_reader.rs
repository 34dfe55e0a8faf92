#![no_main]
//! See `kipcheck::fuzzing::frame_reader`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kipcheck::fuzzing::frame_reader(data));
