//! Loading scenario files: reading a file, a folder or a text, strict YAML parsing
//! (serde-saphyr, unknown fields rejected) with every error located as `file:line:col`, the
//! id/stem and unique-id checks, then `validate.rs` for the rest. Decides
//! nothing about verdicts. The names once defined here keep their `scenario::load::` paths
//! (re-exported below); what each file owns is in its own `//!`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use super::compiled::{typed_body, Compiled, Scenario, TypedBody};
use super::error::{LoadError, LoadErrorKind};
pub use super::locate::snippet;
pub(crate) use super::locate::yaml_location;
pub use super::pins::{differing_pins, pinned_readings, profile_over, profile_with};
use super::types::ScenarioFile;
use super::validate::validate_in;
pub use super::validate::{rebase, validate};
use crate::model::SpecProfile;

/// Loads and validates one scenario file. `root` is the scenarios folder (for the area).
pub fn load_file(path: &Path, root: &Path) -> Result<Scenario, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError {
        path: path.to_owned(),
        line: 0,
        col: 0,
        kind: Box::new(LoadErrorKind::Read(e)),
        snippet: None,
    })?;
    load_text(&text, path, root)
}

/// Loads and validates one scenario from its text; `path` names it in errors and reports and
/// lies under `root` (the scenarios folder, for the area): a file read from disk or one of
/// the suite built into the binary ([`super::embedded`]).
pub fn load_text(text: &str, path: &Path, root: &Path) -> Result<Scenario, LoadError> {
    let err = |line: u64, col: u64, kind: LoadErrorKind| LoadError {
        path: path.to_owned(),
        line,
        col,
        kind: Box::new(kind),
        snippet: snippet(text, line, col),
    };
    let file: ScenarioFile = serde_saphyr::from_str(text).map_err(|e| {
        let (line, col) = yaml_location(&e);
        err(line, col, LoadErrorKind::Yaml(e))
    })?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if file.id != stem {
        return Err(err(
            1,
            1,
            LoadErrorKind::IdNotStem {
                id: file.id.clone(),
                stem: stem.to_owned(),
            },
        ));
    }
    let area = path
        .parent()
        .and_then(|p| p.strip_prefix(root).ok())
        .map(|p| p.display().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "scenarios".into());
    validate_in(file, path, &area, Some(text), &SpecProfile::default())
}

/// Loads every `*.yaml` scenario below `root` (except `requirements.yaml` and files whose
/// name starts with `_`), sorted by id; ids must be unique.
pub fn load_dir(root: &Path) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    load_many(files.into_iter().map(|f| {
        let loaded = load_file(&f, root);
        (f, loaded)
    }))
}

/// Every loaded scenario sorted by id, or every error (a failed file, a duplicate id).
pub(super) fn load_many(
    loaded: impl Iterator<Item = (PathBuf, Result<Scenario, LoadError>)>,
) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (f, loaded) in loaded {
        match loaded {
            Ok(s) => {
                if let Some(first) = seen.insert(s.file.id.clone(), f.clone()) {
                    errors.push(LoadError {
                        path: f.clone(),
                        line: 1,
                        col: 1,
                        kind: Box::new(LoadErrorKind::Duplicate {
                            id: s.file.id.clone(),
                            first,
                        }),
                        snippet: None,
                    });
                } else {
                    out.push(s);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        out.sort_by(|a, b| a.file.id.cmp(&b.file.id));
        Ok(out)
    } else {
        Err(errors)
    }
}

/// True for a file name the loader reads as a scenario: `*.yaml`/`*.yml`, except
/// `requirements.yaml` and names starting with `_`.
pub(super) fn is_scenario_name(name: &str) -> bool {
    (name.ends_with(".yaml") || name.ends_with(".yml"))
        && name != "requirements.yaml"
        && !name.starts_with('_')
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_scenario_name)
        {
            out.push(p);
        }
    }
}
