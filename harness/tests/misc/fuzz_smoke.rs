//! Runs the fuzz entry points (`roundtrip`, `frame_reader`, the decoders, `push_config_limit`,
//! `sensitive_filter`, `model_ops`, `differential_codec`) over seeded random inputs
//! under plain `cargo test`, so their oracles are exercised without cargo-fuzz. The seed is
//! printed on failure; set `KIPCHECK_SEED` to reproduce.

fn seed() -> u64 {
    std::env::var("KIPCHECK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x6b69_7063_6865_636b)
}

/// SplitMix64: a tiny, stable PRNG so inputs never change with a crate upgrade.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn run(name: &str, iterations: usize, max_len: usize, target: fn(&[u8])) {
    let seed = seed();
    let mut state = seed;
    for i in 0..iterations {
        let len = (next(&mut state) as usize) % max_len;
        let data: Vec<u8> = (0..len).map(|_| next(&mut state) as u8).collect();
        let result = std::panic::catch_unwind(|| target(&data));
        assert!(
            result.is_ok(),
            "{name} failed on iteration {i} with KIPCHECK_SEED={seed}; input {}",
            kipcheck::codec::to_hex(&data)
        );
    }
}

#[test]
fn roundtrip_holds_on_random_inputs() {
    run("roundtrip", 3000, 2048, kipcheck::fuzzing::roundtrip);
}

#[test]
fn frame_reader_holds_on_random_inputs() {
    run("frame_reader", 3000, 256, kipcheck::fuzzing::frame_reader);
}

#[test]
fn decoders_hold_on_random_inputs() {
    run(
        "decode_request",
        3000,
        256,
        kipcheck::fuzzing::decode_request,
    );
    run(
        "decode_response",
        3000,
        256,
        kipcheck::fuzzing::decode_response,
    );
}

#[test]
fn push_config_limit_holds_on_random_inputs() {
    run(
        "push_config_limit",
        2000,
        2048,
        kipcheck::fuzzing::push_config_limit,
    );
}

#[test]
fn sensitive_filter_holds_on_random_inputs() {
    run(
        "sensitive_filter",
        2000,
        1024,
        kipcheck::fuzzing::sensitive_filter,
    );
}

#[test]
fn model_ops_holds_on_random_inputs() {
    run("model_ops", 500, 2048, kipcheck::fuzzing::model_ops);
}

#[test]
fn differential_codec_holds_on_random_inputs() {
    run("differential_codec", 5000, 256, |d| {
        let _ = kipcheck::fuzzing::differential_codec(d);
    });
}
