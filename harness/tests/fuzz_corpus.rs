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
fn request_seeds_are_valid_frames() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/decode_request");
    for path in inputs(&dir) {
        let data = std::fs::read(&path).expect("read seed");
        let numbers = kipcheck::codec::ProvisionalNumbers::default();
        if let Err(e) = kipcheck::codec::decode_request_frame(&data, 1 << 20, &numbers) {
            panic!("seed {} does not decode: {e}", path.display());
        }
    }
}
