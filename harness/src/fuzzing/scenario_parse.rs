//! The `scenario_parse` target: any bytes as a scenario file. Oracle: the loader (strict
//! YAML parsing, then the same validation `kipcheck run` applies) returns a value or a
//! located error; it never panics, whatever the input.

use std::path::Path;

use crate::scenario::{validate, ScenarioFile};

/// Parses and validates `data` as a scenario file.
pub fn scenario_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = serde_saphyr::from_str::<ScenarioFile>(text) {
        let _ = validate(file, Path::new("fuzz/input.yaml"), "fuzz");
    }
}
