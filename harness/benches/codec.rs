//! Codec benchmarks: decode and encode time of kipcheck's generated codec against the
//! `kafka-protocol` crate (0.18, generated from Kafka 4.1.0), on identical bytes.
//!
//! Every fixture is built once with our encoder; before any timing, `kafka-protocol` must
//! decode the same bytes to the value we expect and re-encode them to the same bytes, so
//! both sides are measured on exactly the same input. Results are recorded in
//! `harness/benches/RESULTS.md`. Run with `cargo bench -p kipcheck --bench codec`.
//!
//! Benchmarks per message: `decode` (bytes → value), `encode` (value → a fresh buffer, no
//! size pre-computation, as a typical caller does: our `to_bytes`, which starts with 1 KiB of
//! room, and kafka-protocol into `BytesMut::new()`) and `encode_reuse` (value → a cleared
//! buffer that already has capacity: the cost of the encoder alone).

//!
//! This file holds `main` and the benchmark names (the `suite!`/`ours_only!` modules and
//! `push_config_entries`, whose module paths divan lists); the fixtures are in `codec/compared.rs`
//! and `codec/kip_only.rs` (cross-checked by `codec/fixture.rs`), the timed bodies in
//! `codec/measure.rs`.

use divan::{black_box, Bencher};
use kipcheck::codec::{Message, PushConfigRequest};

#[path = "codec/compared.rs"]
mod compared;
#[path = "codec/fixture.rs"]
mod fixture;
#[path = "codec/kip_only.rs"]
mod kip_only;
#[path = "codec/measure.rs"]
mod measure;

use compared::{api_versions, broker_registration, incremental_alter_configs, metadata};
use kip_only::{push_config, push_config_sized, register_broker, PUSH_CONFIG_ENTRIES};
use measure::{
    decode_as, decode_ours, decode_theirs, encode_ours, encode_reuse_ours, encode_reuse_theirs,
    encode_theirs,
};

fn main() {
    // Build and cross-check every fixture before any timing starts.
    let sizes = [
        ("api_versions_response_v4_90_keys", &api_versions().bytes),
        (
            "incremental_alter_configs_request_v1_50_configs",
            &incremental_alter_configs().bytes,
        ),
        (
            "broker_registration_request_v4",
            &broker_registration().bytes,
        ),
        (
            "metadata_response_v12_100_topics_10_partitions",
            &metadata().bytes,
        ),
        (
            "register_broker_record_v5_50_static_configs",
            &register_broker().1,
        ),
        ("push_config_request_v0_10_kb", &push_config().1),
    ];
    for (name, bytes) in sizes {
        eprintln!("fixture {name}: {} B", bytes.len());
    }
    for n in PUSH_CONFIG_ENTRIES {
        eprintln!(
            "push_config_entries {n}: {} B",
            push_config_sized(n).1.len()
        );
    }
    // `KIPCHECK_FIXTURES_OUT=DIR`: write each fixture's bytes to DIR/NAME.bin (with its
    // version in DIR/NAME.version) for the Java benchmark (scripts/bench-vs-java.sh), and
    // exit.
    if let Some(dir) = std::env::var_os("KIPCHECK_FIXTURES_OUT") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("create the fixture directory");
        let versions = [4, 1, 4, 12, 5, 0];
        for ((name, bytes), version) in sizes.iter().zip(versions) {
            std::fs::write(dir.join(format!("{name}.bin")), bytes).expect("write a fixture");
            std::fs::write(dir.join(format!("{name}.version")), format!("{version}\n"))
                .expect("write a fixture version");
        }
        return;
    }
    divan::main();
}

macro_rules! suite {
    ($name:ident, $fixture:ident) => {
        mod $name {
            use super::*;

            #[divan::bench]
            fn decode_ours(b: Bencher) {
                super::decode_ours(b, $fixture());
            }
            #[divan::bench]
            fn decode_theirs(b: Bencher) {
                super::decode_theirs(b, $fixture());
            }
            #[divan::bench]
            fn encode_ours(b: Bencher) {
                super::encode_ours(b, $fixture());
            }
            #[divan::bench]
            fn encode_theirs(b: Bencher) {
                super::encode_theirs(b, $fixture());
            }
            #[divan::bench]
            fn encode_reuse_ours(b: Bencher) {
                super::encode_reuse_ours(b, $fixture());
            }
            #[divan::bench]
            fn encode_reuse_theirs(b: Bencher) {
                super::encode_reuse_theirs(b, $fixture());
            }
        }
    };
}

suite!(api_versions_response_v4_90_keys, api_versions);
suite!(
    incremental_alter_configs_request_v1_50_configs,
    incremental_alter_configs
);
suite!(broker_registration_request_v4, broker_registration);

suite!(metadata_response_v12_100_topics_10_partitions, metadata);

/// The benchmarks of a message kafka-protocol does not have: `$fixture()` gives
/// `(value, bytes)`.
macro_rules! ours_only {
    ($name:ident, $fixture:ident, $version:expr) => {
        mod $name {
            use super::*;

            #[divan::bench]
            fn decode_ours(b: Bencher) {
                let (ours, bytes) = $fixture();
                b.bench_local(|| decode_as(ours, black_box(bytes), black_box($version)));
            }
            #[divan::bench]
            fn encode_ours(b: Bencher) {
                let (ours, _) = $fixture();
                b.bench_local(|| black_box(ours).to_bytes(black_box($version)).unwrap());
            }
            #[divan::bench]
            fn encode_reuse_ours(b: Bencher) {
                let (ours, bytes) = $fixture();
                let mut buf = Vec::with_capacity(bytes.len());
                b.bench_local(|| {
                    buf.clear();
                    black_box(ours)
                        .encode(&mut buf, black_box($version))
                        .unwrap();
                    black_box(buf.len());
                });
            }
        }
    };
}

ours_only!(
    register_broker_record_v5_50_static_configs,
    register_broker,
    5
);
ours_only!(push_config_request_v0_10_kb, push_config, 0);

/// Decode time by size (scripts/scaling.sh): PushConfigRequest v0 with N configs.
mod push_config_entries {
    use super::*;

    #[divan::bench(args = PUSH_CONFIG_ENTRIES)]
    fn decode_ours(b: Bencher, n: usize) {
        let (_, bytes) = push_config_sized(n);
        b.counter(divan::counter::BytesCount::new(bytes.len()))
            .bench_local(|| PushConfigRequest::from_bytes(black_box(bytes), 0).unwrap());
    }
}
