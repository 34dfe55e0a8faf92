//! Regenerates `crates/codec/src/generated/` and the kafka-protocol oracle's field mappings
//! (`harness/src/oracle/kafka_protocol/generated.rs`) from `harness/messages/`.
//!
//! Usage: `cargo run -p kipcheck-codegen` (from anywhere in the workspace).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    // This crate sits at `crates/codegen/`; the specs and the oracle live in `harness/`.
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let harness = repo.join("harness");
    let messages = harness.join("messages");
    let out_dir = repo.join(kipcheck_codegen::CODEC_OUTPUT);
    let files = match kipcheck_codegen::generate(&messages) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("kipcheck-codegen: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("kipcheck-codegen: creating {}: {e}", out_dir.display());
        return ExitCode::FAILURE;
    }
    // Remove generated files that no longer have a spec.
    if let Ok(entries) = std::fs::read_dir(&out_dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".rs") && !files.contains_key(&name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    for (name, text) in &files {
        let path = out_dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("kipcheck-codegen: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    let pairs = match kipcheck_codegen::generate_kafka_protocol_pairs(&messages) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("kipcheck-codegen: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = harness.join(kipcheck_codegen::kafka_protocol::OUTPUT);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(pairs.as_str()) {
        if let Err(e) = std::fs::write(&path, &pairs) {
            eprintln!("kipcheck-codegen: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
