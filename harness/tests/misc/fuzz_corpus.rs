//! Replays every checked-in fuzz seed and regression input through the same
//! `kipcheck::fuzzing` function its cargo-fuzz target calls, so plain `cargo test` catches a
//! regression without cargo-fuzz.

use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("corpus");
    let mut n = 0;
    for dir in [root.join(target), root.join("regressions").join(target)] {
        for path in inputs(&dir) {
            let data = std::fs::read(&path).expect("read corpus file");
            let result = std::panic::catch_unwind(|| run(&data));
            assert!(result.is_ok(), "{} panicked", path.display());
            n += 1;
        }
    }
    n
}

#[test]
fn decode_request_corpus_replays() {
    assert!(replay("decode_request", kipcheck::fuzzing::decode_request) >= 3);
}

#[test]
fn decode_response_corpus_replays() {
    assert!(replay("decode_response", kipcheck::fuzzing::decode_response) >= 3);
}

#[test]
fn record_batches_corpus_replays() {
    assert!(replay("record_batches", kipcheck::fuzzing::record_batches) >= 3);
}

#[test]
fn roundtrip_corpus_replays() {
    replay("roundtrip", kipcheck::fuzzing::roundtrip);
}

#[test]
fn frame_reader_corpus_replays() {
    replay("frame_reader", kipcheck::fuzzing::frame_reader);
}

#[test]
fn push_config_limit_corpus_replays() {
    assert!(replay("push_config_limit", kipcheck::fuzzing::push_config_limit) >= 1);
}

#[test]
fn sensitive_filter_corpus_replays() {
    assert!(replay("sensitive_filter", kipcheck::fuzzing::sensitive_filter) >= 1);
}

#[test]
fn model_ops_corpus_replays() {
    assert!(replay("model_ops", kipcheck::fuzzing::model_ops) >= 1);
}

#[test]
fn differential_codec_corpus_replays() {
    assert!(
        replay("differential_codec", |d| {
            let _ = kipcheck::fuzzing::differential_codec(d);
        }) >= 1
    );
}

#[test]
fn scenario_parse_corpus_replays() {
    assert!(replay("scenario_parse", kipcheck::fuzzing::scenario_parse) >= 4);
}

/// Every directory under `corpus/` and `corpus/regressions/` belongs to a target replayed
/// above, so a new target cannot be forgotten here.
#[test]
fn every_corpus_directory_is_replayed() {
    const TARGETS: [&str; 10] = [
        "record_batches",
        "decode_request",
        "decode_response",
        "roundtrip",
        "frame_reader",
        "push_config_limit",
        "sensitive_filter",
        "model_ops",
        "differential_codec",
        "scenario_parse",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    for dir in [root.clone(), root.join("regressions")] {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() && name != "regressions" {
                assert!(
                    TARGETS.contains(&name.as_str()),
                    "{} has no replay test",
                    entry.path().display()
                );
            }
        }
    }
}

#[test]
fn request_seeds_are_valid_frames() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/decode_request");
    // The hand-named `.bin` seeds are real frames. `suite-*.bin` files are what
    // `kipcheck export-corpus` recorded, including the malformed frames scenarios send on
    // purpose; the other files are what fuzzing kept.
    for path in inputs(&dir).into_iter().filter(|p| {
        p.extension().is_some_and(|e| e == "bin")
            && !p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("suite-"))
    }) {
        let data = std::fs::read(&path).expect("read seed");
        let numbers = kipcheck::codec::ProvisionalNumbers::default();
        if let Err(e) = kipcheck::codec::decode_request_frame(&data, 1 << 20, &numbers) {
            panic!("seed {} does not decode: {e}", path.display());
        }
    }
}
