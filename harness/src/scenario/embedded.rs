//! The shipped suite, built into the crate by `harness/build.rs`: every file of the
//! repository's `scenarios/` folder, named as in the repository
//! (`scenarios/kip1324-client/c1324-….yaml`), so an installed `kipcheck` runs the suite, and
//! reads its requirements ledger, from any directory. Scenario files are loaded exactly as
//! [`super::load_dir`] loads the folder (same checks, same errors, same names in reports).

use std::path::{Path, PathBuf};

use super::compiled::Scenario;
use super::error::LoadError;
use super::load::{is_scenario_name, load_many, load_text};

/// One file of the built-in suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedFile {
    /// Its path in the repository, `/`-separated, starting with [`ROOT`].
    pub path: &'static str,
    /// Its content.
    pub text: &'static str,
}

/// The folder the built-in files come from, as their names start.
pub const ROOT: &str = "scenarios";

/// Every file of the built-in suite, sorted by path.
pub static FILES: &[EmbeddedFile] = include!(concat!(env!("OUT_DIR"), "/embedded_suite.rs"));

/// The built-in file at `path` (e.g. `scenarios/requirements.yaml`).
pub fn file(path: &str) -> Option<&'static str> {
    FILES.iter().find(|f| f.path == path).map(|f| f.text)
}

/// The built-in requirements ledger, `scenarios/requirements.yaml`.
pub fn requirements() -> Option<&'static str> {
    file(&format!("{ROOT}/requirements.yaml"))
}

/// The built-in scenario files (what [`super::load_dir`] would read from the folder).
pub fn scenario_files() -> impl Iterator<Item = &'static EmbeddedFile> {
    FILES.iter().filter(|f| {
        let name = f.path.rsplit('/').next().unwrap_or("");
        is_scenario_name(name)
    })
}

/// Loads the built-in suite, sorted by id.
pub fn load_embedded() -> Result<Vec<Scenario>, Vec<LoadError>> {
    let root = Path::new(ROOT);
    load_many(scenario_files().map(|f| {
        let path = PathBuf::from(f.path);
        let loaded = load_text(f.text, &path, root);
        (path, loaded)
    }))
}
