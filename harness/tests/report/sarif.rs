//! `results.sarif` and `kipcheck run --message-format json` as a user gets them: the SARIF log
//! of a run with a failing MUST and a failing SHOULD scenario holds exactly those two results,
//! located at the failing steps, and satisfies the SARIF 2.1.0 essentials (an embedded subset
//! of the OASIS schema: required properties, enums, value ranges and, on the objects kipcheck
//! writes, no property the spec does not define); the JSON stream is one object per line,
//! `started` first and `finished` last.

use crate::cli_support::{code, kipcheck, suite, text};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// A fresh folder `<test tmp>/report_sarif/<name>` with an empty `scenarios/area/`.
fn dir(name: &str) -> PathBuf {
    suite("report_sarif", name, &[])
}

/// A scenario whose second step (line 8, column 5: the `expect_response` mapping) fails when
/// `code` is not `NONE`.
fn scenario(id: &str, grade: &str, code: &str) -> String {
    format!(
        "id: {id}\ntitle: title of {id}\nkip: KIP-1324\ngrade: {grade}\nroles: [broker]\nsteps:\n  - send: {{ api: ApiVersions, version: 3, body: {{ ClientSoftwareName: k, ClientSoftwareVersion: '1' }} }}\n  - expect_response: {{ body: {{ ErrorCode: {code} }} }}\n"
    )
}

/// Runs `kipcheck run` in `d` on `scenarios/` (relative, as in a repository checkout) with
/// the reports in `reports/`.
fn run_in(d: &Path, files: &[(&str, String)], args: &[&str]) -> (i32, String, String) {
    for (id, body) in files {
        std::fs::write(d.join(format!("scenarios/area/{id}.yaml")), body).unwrap();
    }
    let out = kipcheck()
        .current_dir(d)
        .args(["run", "--scenarios", "scenarios", "--report-dir", "reports"])
        .args(args)
        .output()
        .expect("runs");
    (code(&out), text(&out.stdout), text(&out.stderr))
}

fn sarif(d: &Path) -> Value {
    let text = std::fs::read_to_string(d.join("reports/results.sarif")).expect("results.sarif");
    serde_json::from_str(&text).expect("results.sarif is JSON")
}

/// The SARIF 2.1.0 essentials (draft-07, as the OASIS schema): what the spec requires, the
/// level enum, 1-based regions, and `additionalProperties: false` with the spec's property
/// names on the objects kipcheck writes, so a misspelt key fails.
fn sarif_schema() -> Value {
    let text = json!({ "type": "object", "required": ["text"], "properties": {
        "text": { "type": "string" }, "markdown": { "type": "string" },
        "properties": { "$ref": "#/definitions/propertyBag" } },
        "additionalProperties": false });
    let level = json!({ "enum": ["none", "note", "warning", "error"] });
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "required": ["$schema", "version", "runs"],
        "additionalProperties": false,
        "properties": {
            "$schema": { "type": "string", "pattern": "sarif" },
            "version": { "const": "2.1.0" },
            "runs": { "type": "array", "minItems": 1, "items": { "$ref": "#/definitions/run" } },
            "properties": { "$ref": "#/definitions/propertyBag" }
        },
        "definitions": {
            "propertyBag": { "type": "object", "properties": {
                "tags": { "type": "array", "uniqueItems": true, "items": { "type": "string" } } } },
            "run": {
                "type": "object", "required": ["tool"],
                "properties": {
                    "tool": { "type": "object", "required": ["driver"], "additionalProperties": false,
                        "properties": { "driver": { "$ref": "#/definitions/driver" } } },
                    "invocations": { "type": "array", "items": { "$ref": "#/definitions/invocation" } },
                    "results": { "type": "array", "items": { "$ref": "#/definitions/result" } },
                    "properties": { "$ref": "#/definitions/propertyBag" }
                }
            },
            "driver": {
                "type": "object", "required": ["name"], "additionalProperties": false,
                "properties": {
                    "name": { "type": "string", "minLength": 1 },
                    "version": { "type": "string" },
                    "semanticVersion": { "type": "string" },
                    "informationUri": { "type": "string", "format": "uri" },
                    "rules": { "type": "array", "uniqueItems": true,
                        "items": { "$ref": "#/definitions/rule" } },
                    "properties": { "$ref": "#/definitions/propertyBag" }
                }
            },
            "rule": {
                "type": "object", "required": ["id"], "additionalProperties": false,
                "properties": {
                    "id": { "type": "string" },
                    "name": { "type": "string" },
                    "shortDescription": text, "fullDescription": text, "help": text,
                    "helpUri": { "type": "string", "format": "uri" },
                    "defaultConfiguration": { "type": "object", "additionalProperties": false,
                        "properties": { "level": level, "enabled": { "type": "boolean" },
                            "rank": { "type": "number", "minimum": -1, "maximum": 100 } } },
                    "properties": { "$ref": "#/definitions/propertyBag" }
                }
            },
            "invocation": {
                "type": "object", "required": ["executionSuccessful"],
                "properties": {
                    "executionSuccessful": { "type": "boolean" },
                    "toolExecutionNotifications": { "type": "array", "items": {
                        "type": "object", "required": ["message"],
                        "properties": { "message": { "$ref": "#/definitions/message" }, "level": level } } }
                }
            },
            "message": {
                "type": "object",
                "anyOf": [{ "required": ["text"] }, { "required": ["id"] }],
                "properties": { "text": { "type": "string" }, "id": { "type": "string" } }
            },
            "result": {
                "type": "object", "required": ["message"], "additionalProperties": false,
                "properties": {
                    "ruleId": { "type": "string" },
                    "ruleIndex": { "type": "integer", "minimum": -1 },
                    "level": level,
                    "message": { "$ref": "#/definitions/message" },
                    "locations": { "type": "array", "items": { "$ref": "#/definitions/location" } },
                    "partialFingerprints": { "type": "object",
                        "additionalProperties": { "type": "string" } },
                    "properties": { "$ref": "#/definitions/propertyBag" }
                }
            },
            "location": {
                "type": "object", "additionalProperties": false,
                "properties": { "physicalLocation": {
                    "type": "object", "additionalProperties": false,
                    "anyOf": [{ "required": ["address"] }, { "required": ["artifactLocation"] }],
                    "properties": {
                        "artifactLocation": { "type": "object", "additionalProperties": false,
                            "required": ["uri"],
                            "properties": { "uri": { "type": "string", "format": "uri-reference" },
                                "uriBaseId": { "type": "string" } } },
                        "region": { "type": "object", "additionalProperties": false,
                            "required": ["startLine"],
                            "properties": {
                                "startLine": { "type": "integer", "minimum": 1 },
                                "startColumn": { "type": "integer", "minimum": 1 },
                                "endLine": { "type": "integer", "minimum": 1 },
                                "endColumn": { "type": "integer", "minimum": 1 } } }
                    }
                } }
            }
        }
    })
}

fn schema_errors(doc: &Value) -> Vec<String> {
    let validator = jsonschema::draft7::new(&sarif_schema()).expect("the subset schema compiles");
    validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sarif_lists_each_failing_scenario_at_its_failing_step() {
    let d = dir("findings");
    let (code, stdout, _) = run_in(
        &d,
        &[
            (
                "must-fail",
                scenario("must-fail", "MUST", "INVALID_CONFIG").replace(
                    "kip: KIP-1324\n",
                    "kip: KIP-1324\nrequirements: [kip1324.test.req-a, kip1324.test.req-b]\n",
                ),
            ),
            (
                "should-fail",
                scenario("should-fail", "SHOULD", "INVALID_REQUEST"),
            ),
            ("passes", scenario("passes", "MUST", "NONE")),
        ],
        &["--seed", "7"],
    );
    assert_eq!(code, 1, "{stdout}");
    let log = sarif(&d);
    assert_eq!(schema_errors(&log), Vec::<String>::new(), "{log:#}");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "kipcheck");
    assert_eq!(
        run["tool"]["driver"]["version"],
        env!("CARGO_PKG_VERSION"),
        "{run:#}"
    );
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);

    let results = run["results"].as_array().expect("results");
    let got: Vec<(&str, &str, &str, u64, u64)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap(),
                r["level"].as_str().unwrap(),
                loc["artifactLocation"]["uri"].as_str().unwrap(),
                loc["region"]["startLine"].as_u64().unwrap(),
                loc["region"]["startColumn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("must-fail", "error", "scenarios/area/must-fail.yaml", 9, 5),
            (
                "should-fail",
                "warning",
                "scenarios/area/should-fail.yaml",
                8,
                5
            ),
        ]
    );

    // The message is the failure's first mismatch, as results.json has it.
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("reports/results.json")).unwrap())
            .unwrap();
    for r in results {
        let id = r["ruleId"].as_str().unwrap();
        let s = json["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap();
        assert_eq!(r["message"]["text"], s["diff"]["message"], "{id}");
        let line = if id == "must-fail" { 9 } else { 8 };
        assert!(s["diff"]["location"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{id}.yaml:{line}:5")));
    }

    // Each result's rule: the scenario's title, its KIP and grade, at ruleIndex.
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), 2);
    for r in results {
        let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
        let id = r["ruleId"].as_str().unwrap();
        assert_eq!(rule["id"], id);
        assert_eq!(rule["shortDescription"]["text"], format!("title of {id}"));
        assert_eq!(rule["defaultConfiguration"]["level"], r["level"]);
        assert!(rule["help"]["text"].as_str().unwrap().contains("KIP-1324"));
        assert!(rule["helpUri"].as_str().unwrap().contains("KIP-1324"));
    }
    let help = rules[0]["help"]["text"].as_str().unwrap();
    assert!(
        help.contains("MUST") && help.contains("kip1324.test.req-a, kip1324.test.req-b"),
        "{help}"
    );
}

#[test]
fn a_passing_run_writes_a_valid_log_without_results() {
    let d = dir("pass");
    let (code, stdout, _) = run_in(&d, &[("a", scenario("a", "MUST", "NONE"))], &[]);
    assert_eq!(code, 0, "{stdout}");
    let log = sarif(&d);
    assert_eq!(schema_errors(&log), Vec::<String>::new(), "{log:#}");
    assert_eq!(log["runs"][0]["results"], json!([]));
    assert_eq!(log["runs"][0]["tool"]["driver"]["rules"], json!([]));
}

#[test]
fn the_schema_subset_rejects_what_code_scanning_would() {
    let d = dir("negative");
    run_in(
        &d,
        &[("f", scenario("f", "MUST", "INVALID_CONFIG"))],
        &["--seed", "1"],
    );
    let log = sarif(&d);
    let mut bad_level = log.clone();
    bad_level["runs"][0]["results"][0]["level"] = json!("fatal");
    let mut line_zero = log.clone();
    line_zero["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    let mut no_text = log.clone();
    no_text["runs"][0]["results"][0]["message"] = json!({});
    let mut misspelt = log.clone();
    misspelt["runs"][0]["results"][0]["ruleID"] = json!("f");
    let mut old = log;
    old["version"] = json!("2.0.0");
    for doc in [bad_level, line_zero, no_text, misspelt, old] {
        assert!(!schema_errors(&doc).is_empty(), "{doc:#}");
    }
}

#[test]
fn message_format_json_prints_one_event_per_line_in_order() {
    let d = dir("stream");
    let (code, stdout, stderr) = run_in(
        &d,
        &[
            ("a", scenario("a", "MUST", "NONE")),
            ("b", scenario("b", "SHOULD", "INVALID_CONFIG")),
        ],
        &["--message-format", "json", "--seed", "3", "--jobs", "1"],
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().expect("every line names its event"))
        .collect();
    assert_eq!(kinds.first(), Some(&"started"), "{stdout}");
    assert_eq!(kinds.last(), Some(&"finished"), "{stdout}");
    assert_eq!(kinds.len(), 6, "{stdout}");
    for id in ["a", "b"] {
        let at = |kind: &str| {
            events
                .iter()
                .position(|e| e["event"] == kind && e["id"] == id)
                .unwrap_or_else(|| panic!("no {kind} for {id}: {stdout}"))
        };
        assert!(at("scenario_started") < at("scenario_finished"), "{stdout}");
    }
    assert_eq!(events[0]["seed"], 3);
    assert_eq!(events[5]["summary"]["failed"], 1);
    let b = events
        .iter()
        .find(|e| e["event"] == "scenario_finished" && e["id"] == "b")
        .unwrap();
    assert_eq!(b["verdict"], "failed");
    // The human output went to stderr, and the reports were written as usual.
    assert!(
        stderr.contains("FAILED (seed 3, target reference)"),
        "{stderr}"
    );
    assert!(d.join("reports/results.sarif").is_file());
    assert!(d.join("reports/results.json").is_file());
}

#[test]
fn message_format_json_ends_an_aborted_run_with_why() {
    let d = dir("stream_aborted");
    let (code, stdout, _) = run_in(
        &d,
        &[("a", scenario("a", "MUST", "NONE"))],
        &["--message-format", "json", "--target", "carrier-pigeon"],
    );
    assert_eq!(code, 2);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["event"], "aborted");
    assert!(lines[0]["reason"]
        .as_str()
        .unwrap()
        .contains("carrier-pigeon"));
    let log = sarif(&d);
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    assert_eq!(schema_errors(&log), Vec::<String>::new(), "{log:#}");
}
