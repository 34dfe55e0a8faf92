//! kipcheck-codegen: reads Kafka's JSON message definitions and writes kipcheck's wire codec.
//!
//! The JSON files in `harness/messages/` are the single source of truth. [`generate`] turns
//! them into Rust source text (one module per message plus a `mod.rs` that lists them for
//! dispatch); the binary writes that text into `crates/codec/src/generated/` ([`CODEC_OUTPUT`],
//! the `kipcheck-codec` crate), and a test in the harness fails when the checked-in files
//! differ from a fresh generation. The same definitions give the kafka-protocol oracle's field mappings ([`kafka_protocol`],
//! [`generate_kafka_protocol_pairs`]), checked the same way. No network.

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::Path;

pub mod emit;
pub mod kafka_protocol;
pub mod model;
pub mod spec;

pub use model::{Kind, Message};
pub use spec::Versions;

/// Where the generated codec goes, relative to the repository root: the `kipcheck-codec`
/// crate's `generated` module.
pub const CODEC_OUTPUT: &str = "crates/codec/src/generated";

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A spec file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A spec file is malformed or uses something the generator does not support.
    #[error("{0}")]
    Spec(String),
    /// A spec error with the file it came from.
    #[error("{file}: {message}")]
    InFile {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// File name suffix of the KIP versions that supersede an upstream file of the same stem.
pub const KIP_SUFFIX: &str = ".kip1326.json";

/// Lists the spec files to generate from, sorted: every `*.json`, except an upstream
/// `X.json` for which `X.kip1326.json` exists.
pub fn spec_files(dir: &Path) -> Result<Vec<String>, GenError> {
    let io = |e| GenError::Io {
        path: dir.display().to_string(),
        source: e,
    };
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let superseded: Vec<String> = names
        .iter()
        .filter_map(|n| n.strip_suffix(KIP_SUFFIX))
        .map(|stem| format!("{stem}.json"))
        .collect();
    names.retain(|n| !superseded.contains(n));
    Ok(names)
}

/// Reads, parses and resolves every spec file in `dir`.
pub fn load(dir: &Path) -> Result<Vec<Message>, GenError> {
    let mut out = Vec::new();
    for file in spec_files(dir)? {
        let path = dir.join(&file);
        let text = std::fs::read_to_string(&path).map_err(|e| GenError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let in_file = |e: GenError| GenError::InFile {
            file: file.clone(),
            message: e.to_string(),
        };
        let spec = spec::parse(&text).map_err(in_file)?;
        out.push(model::resolve(&spec, &file).map_err(in_file)?);
    }
    Ok(out)
}

/// Module name of a message: `PushConfigRequest` → `push_config_request`.
pub fn module_name(msg: &Message) -> String {
    model::snake(&msg.name)
}

/// Generates every file: `<module>.rs` per message, `mod.rs` and `schemas.rs` (the field
/// table), keyed by file name.
pub fn generate(dir: &Path) -> Result<BTreeMap<String, String>, GenError> {
    let messages = load(dir)?;
    let mut files = BTreeMap::new();
    for m in &messages {
        files.insert(format!("{}.rs", module_name(m)), emit::emit_message(m));
    }
    files.insert("mod.rs".into(), emit::emit_mod(&messages));
    files.insert("schemas.rs".into(), emit::emit_schemas(&messages));
    Ok(files)
}

/// Generates the kafka-protocol oracle's field mappings (the text of
/// [`kafka_protocol::OUTPUT`]).
pub fn generate_kafka_protocol_pairs(dir: &Path) -> Result<String, GenError> {
    kafka_protocol::emit_kafka_protocol_pairs(&load(dir)?)
}
