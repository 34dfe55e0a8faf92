#![no_main]
//! See `kipcheck::fuzzing::differential_codec`: a classified difference is not a failure.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = kipcheck::fuzzing::differential_codec(data);
});
