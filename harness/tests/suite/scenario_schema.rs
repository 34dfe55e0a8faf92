//! `scenarios/schema.json`: the checked-in JSON Schema equals the one generated from
//! `kipcheck::scenario::ScenarioFile`, every scenario file satisfies it, and documents the
//! loader rejects are rejected by the schema too, at the right place.
//!
//! After changing the scenario types, regenerate the file with
//! `KIPCHECK_BLESS=1 cargo test -p kipcheck --test scenario_schema`.

use std::path::{Path, PathBuf};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use kipcheck::scenario::{scenario_schema, ScenarioFile};
use serde_json::Value;

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

fn schema_path() -> PathBuf {
    scenarios_dir().join("schema.json")
}

fn render(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).expect("a JSON value always serializes");
    text.push('\n');
    text
}

fn bless() -> bool {
    std::env::var_os("KIPCHECK_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

fn validator() -> Validator {
    jsonschema::draft202012::new(&scenario_schema()).expect("the generated schema compiles")
}

/// `file` parsed as YAML into a JSON value, the way the loader reads it.
fn yaml_to_json(text: &str) -> Result<Value, serde_saphyr::Error> {
    serde_saphyr::from_str(text)
}

/// Scenario files as the loader finds them: `*.yaml`/`*.yml` below `dir`, except
/// `requirements.yaml` and names starting with `_`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let rd = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in rd {
        let p = entry.expect("directory entry").path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name != "requirements.yaml" && !name.starts_with('_') {
                out.push(p);
            }
        }
    }
}

#[test]
fn checked_in_schema_is_current() {
    let expected = render(&scenario_schema());
    let path = schema_path();
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    if actual == expected {
        return;
    }
    if bless() {
        std::fs::write(&path, &expected)
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        eprintln!("blessed {}", path.display());
        return;
    }
    panic!(
        "{} is out of date with kipcheck::scenario::ScenarioFile; regenerate it with\n    \
         KIPCHECK_BLESS=1 cargo test -p kipcheck --test scenario_schema",
        path.display()
    );
}

#[test]
fn every_scenario_satisfies_the_schema() {
    let validator = validator();
    let root = scenarios_dir();
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    assert!(
        files.len() > 10,
        "expected scenario files below {}",
        root.display()
    );
    let mut failures = Vec::new();
    for f in &files {
        let shown = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let text =
            std::fs::read_to_string(f).unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
        let doc = match yaml_to_json(&text) {
            Ok(doc) => doc,
            Err(e) => {
                failures.push(format!("scenarios/{shown}: not YAML: {e}"));
                continue;
            }
        };
        for err in validator.iter_errors(&doc) {
            let at = err.instance_path().as_str();
            let at = if at.is_empty() { "/" } else { at };
            failures.push(format!("scenarios/{shown}: at {at}: {err}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} schema violation(s) in {} scenario files:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// One schema error, oneOf/anyOf alternatives flattened: (instance path, keyword, message).
type Found = (String, String, String);

fn flatten(err: &ValidationError<'_>, out: &mut Vec<Found>) {
    out.push((
        err.instance_path().as_str().to_owned(),
        err.kind().keyword().to_owned(),
        err.to_string(),
    ));
    if let ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } =
        err.kind()
    {
        for alternative in context {
            for e in alternative {
                flatten(e, out);
            }
        }
    }
}

/// `yaml` is rejected by the loader's serde types and by the schema, and the schema reports a
/// `keyword` error at `instance_path` (possibly inside a oneOf alternative) that mentions
/// `detail`.
fn assert_rejected(yaml: &str, instance_path: &str, keyword: &str, detail: &str) {
    assert!(
        serde_saphyr::from_str::<ScenarioFile>(yaml).is_err(),
        "serde accepts a document the test expects rejected:\n{yaml}"
    );
    let doc = yaml_to_json(yaml).expect("test document is YAML");
    let validator = validator();
    let mut found = Vec::new();
    for e in validator.iter_errors(&doc) {
        flatten(&e, &mut found);
    }
    assert!(!found.is_empty(), "schema accepts:\n{yaml}");
    assert!(
        found
            .iter()
            .any(|(p, k, m)| p == instance_path && *k == keyword && m.contains(detail)),
        "expected a {keyword:?} error at {instance_path:?} mentioning {detail:?}; got:\n{}",
        found
            .iter()
            .map(|(p, k, m)| format!("  {p:?} {k}: {m}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

const HEAD: &str = "title: t\nkip: KIP-1324\ngrade: MUST\nroles: [broker]\n";

#[test]
fn valid_minimal_document_is_accepted_by_both() {
    let yaml = format!(
        "id: x\n{HEAD}steps:\n  - start\n  - failover\n  - send: {{api: PushConfig, version: 0}}\n  \
         - connect: {{node: 2}}\n  - expect_one_of: [{{close: {{}}}}]\n"
    );
    serde_saphyr::from_str::<ScenarioFile>(&yaml).expect("serde accepts");
    let doc = yaml_to_json(&yaml).unwrap();
    let validator = validator();
    let messages: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(messages.is_empty(), "{messages:?}");
}

#[test]
fn unknown_step_name_is_rejected() {
    let yaml =
        format!("id: x\n{HEAD}steps:\n  - start\n  - sned: {{api: PushConfig, version: 0}}\n");
    assert_rejected(&yaml, "/steps/1", "oneOf", "sned");
}

#[test]
fn unknown_field_inside_a_step_is_rejected() {
    let yaml =
        format!("id: x\n{HEAD}steps:\n  - send: {{api: PushConfig, version: 0, bogus: 1}}\n");
    assert_rejected(&yaml, "/steps/0/send", "additionalProperties", "bogus");
    let yaml = format!("id: x\n{HEAD}steps:\n  - connect: {{node: 1, port: 9092}}\n");
    assert_rejected(&yaml, "/steps/0/connect", "additionalProperties", "port");
}

#[test]
fn missing_id_is_rejected() {
    let yaml = format!("{HEAD}steps: [start]\n");
    assert_rejected(&yaml, "", "required", "\"id\"");
}
