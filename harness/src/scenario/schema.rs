//! The JSON Schema (draft 2020-12) of scenario files, generated from [`ScenarioFile`] so it
//! cannot drift from what the loader accepts. `scenarios/schema.json` is this schema checked
//! in (a test keeps it current); editors can validate and complete scenario YAML with it.

use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::types::ScenarioFile;

/// Title of the generated schema.
pub const SCHEMA_TITLE: &str = "kipcheck scenario";

/// The JSON Schema (draft 2020-12, no `$id`) a scenario file (`scenarios/<area>/<id>.yaml`)
/// must satisfy, as pretty-printable JSON.
pub fn scenario_schema() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<ScenarioFile>();
    schema.insert("title".into(), SCHEMA_TITLE.into());
    schema.insert(
        "description".into(),
        "One kipcheck conformance scenario (scenarios/<area>/<id>.yaml; format in \
         scenarios/README.md). Generated from kipcheck::scenario::ScenarioFile; regenerate \
         with `KIPCHECK_BLESS=1 cargo test -p kipcheck --test suite -- scenario_schema::`."
            .into(),
    );
    schema.to_value()
}
