//! `results.sarif`: the run's findings as SARIF 2.1.0, for GitHub code scanning and other
//! SARIF viewers. One `result` per failed, errored or unexpectedly passing scenario (ruleId =
//! the scenario id, level `error` for a MUST and `warning` for a SHOULD), located at the
//! failing step of the scenario file; one rule per scenario that has a result. It renders what
//! the events said: it never decides a verdict, reads no scenario or ledger file and runs
//! nothing.

use std::path::{Component, Path};

use serde::Serialize;

use super::labels::{grade_word, verdict_key};
use super::record::RunRecord;
use super::text::STALE_MESSAGE;
use crate::runner::{Grade, ScenarioResult, Verdict};

/// File name of the SARIF report inside the report directory.
pub const SARIF_FILE: &str = "results.sarif";

/// The schema every SARIF 2.1.0 log names in `$schema`.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF version written.
pub const SARIF_VERSION: &str = "2.1.0";

/// Where a KIP is written up; any other KIP points at the KIP index.
const KIP_PAGES: [(&str, &str); 4] = [
    (
        "KIP-1324",
        "https://cwiki.apache.org/confluence/display/KAFKA/KIP-1324:+Support+client+configuration+observability",
    ),
    (
        "KIP-1326",
        "https://cwiki.apache.org/confluence/display/KAFKA/KIP-1326%3A+Include+broker+static+configurations+in+BrokerRegistrationRequest",
    ),
    (
        "KIP-1294",
        "https://cwiki.apache.org/confluence/display/KAFKA/KIP-1294:+Metadata-Version-Aware+Configuration+Constraints",
    ),
    (
        "KIP-1256",
        "https://cwiki.apache.org/confluence/display/KAFKA/KIP-1256+Align+broker+and+controller+behavior+for+the+Admin.incrementalAlterConfigs+API",
    ),
];
const KIP_INDEX: &str =
    "https://cwiki.apache.org/confluence/display/KAFKA/Kafka+Improvement+Proposals";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<RunProperties<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'a str,
    semantic_version: &'a str,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    short_description: Text,
    full_description: Text,
    help: Text,
    help_uri: &'static str,
    default_configuration: Configuration,
    properties: RuleProperties<'a>,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties<'a> {
    kip: &'a str,
    grade: &'static str,
    requirements: &'a [String],
    tags: Vec<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
}

#[derive(Serialize)]
struct RunProperties<'a> {
    seed: u64,
    target: &'a str,
    command: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    partial_fingerprints: Fingerprints,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
}

/// A stable identity for the finding, so code scanning tracks it across runs even when the
/// failing step moves within the file.
#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "kipcheckScenario/v1")]
    scenario: String,
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    verdict: &'static str,
    step: Option<usize>,
    reproduce: &'a str,
}

/// The SARIF level of a finding of a scenario of grade `g`.
pub fn sarif_level(g: Grade) -> &'static str {
    match g {
        Grade::Must => "error",
        Grade::Should => "warning",
    }
}

/// The uri of `path` (a scenario file as the runner names it) in a SARIF log: relative paths
/// as they are, with `/` separators and without `./`; an absolute path below the current
/// directory relative to it; any other absolute path as a `file://` URL. Characters a URI
/// reference cannot hold are percent-encoded.
pub fn artifact_uri(path: &str) -> String {
    let p = Path::new(path);
    if p.is_absolute() {
        let cwd = std::env::current_dir().ok();
        if let Some(rel) = cwd.as_deref().and_then(|c| p.strip_prefix(c).ok()) {
            return encode(&slashed(rel));
        }
        return format!("file://{}", encode(&slashed(p)));
    }
    encode(&slashed(p))
}

/// `p`'s components joined by `/`, `.` components left out.
fn slashed(p: &Path) -> String {
    let mut out = String::new();
    for c in p.components() {
        match c {
            Component::CurDir => continue,
            Component::RootDir => out.push('/'),
            Component::Prefix(x) => out.push_str(&x.as_os_str().to_string_lossy()),
            Component::ParentDir => out.push_str("../"),
            Component::Normal(s) => {
                out.push_str(&s.to_string_lossy());
                out.push('/');
            }
        }
    }
    if out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    out
}

/// Percent-encodes every byte but unreserved characters and `/` (RFC 3986).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The 1-based line and column at the end of a `file:line:col` location; `None` when it does
/// not end that way or either is 0.
pub fn parse_location(location: &str) -> Option<(usize, usize)> {
    let mut parts = location.rsplitn(3, ':');
    let col: usize = parts.next()?.parse().ok()?;
    let line: usize = parts.next()?.parse().ok()?;
    parts.next()?;
    (line >= 1 && col >= 1).then_some((line, col))
}

fn kip_page(kip: &str) -> &'static str {
    KIP_PAGES
        .iter()
        .find(|(k, _)| *k == kip)
        .map_or(KIP_INDEX, |(_, url)| url)
}

fn rule(r: &ScenarioResult) -> Rule<'_> {
    let requirements = if r.requirements.is_empty() {
        "no requirement ids".to_owned()
    } else {
        format!("requirement(s) {}", r.requirements.join(", "))
    };
    let grade = grade_word(r.grade);
    Rule {
        id: &r.id,
        short_description: Text {
            text: r.title.clone(),
        },
        full_description: Text {
            text: format!("{} ({grade} of {}; {requirements})", r.title, r.kip),
        },
        help: Text {
            text: format!(
                "{grade} of {} ({}); {requirements}. Scenario {}. Rerun it with: {}",
                r.kip,
                kip_page(&r.kip),
                r.path,
                r.reproduce
            ),
        },
        help_uri: kip_page(&r.kip),
        default_configuration: Configuration {
            level: sarif_level(r.grade),
        },
        properties: RuleProperties {
            kip: &r.kip,
            grade,
            requirements: &r.requirements,
            tags: {
                let mut tags: Vec<&str> = std::iter::once(r.area.as_str())
                    .chain(r.tags.iter().map(String::as_str))
                    .collect();
                tags.sort_unstable();
                tags.dedup();
                tags
            },
        },
    }
}

fn result(r: &ScenarioResult, rule_index: usize) -> SarifResult<'_> {
    let failure = r.failure.as_ref();
    let text = match (r.verdict, failure) {
        (Verdict::UnexpectedPass, _) => STALE_MESSAGE.to_owned(),
        (_, Some(f)) => f.message.clone(),
        (v, None) => format!("{} (no failure details)", verdict_key(v)),
    };
    let (start_line, start_column) = failure
        .and_then(|f| parse_location(&f.location))
        .unwrap_or((r.line.max(1), 1));
    SarifResult {
        rule_id: &r.id,
        rule_index,
        level: sarif_level(r.grade),
        message: Text { text },
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: artifact_uri(&r.path),
                },
                region: Region {
                    start_line,
                    start_column,
                },
            },
        }],
        partial_fingerprints: Fingerprints {
            scenario: r.id.clone(),
        },
        properties: ResultProperties {
            verdict: verdict_key(r.verdict),
            step: failure.and_then(|f| f.step),
            reproduce: &r.reproduce,
        },
    }
}

/// Renders `results.sarif` (pretty-printed, with a final newline): findings ordered by
/// scenario id. A run that did not finish is `executionSuccessful: false` with why as a
/// tool execution notification, and keeps the findings seen so far.
pub fn render_sarif(record: &RunRecord) -> Result<String, serde_json::Error> {
    let findings: Vec<&ScenarioResult> = record.findings().collect();
    let version = record
        .info()
        .map_or(env!("CARGO_PKG_VERSION"), |i| i.kipcheck_version.as_str());
    let aborted = record.aborted();
    let log = Log {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "kipcheck",
                    version,
                    semantic_version: version,
                    rules: findings.iter().map(|r| rule(r)).collect(),
                },
            },
            invocations: [Invocation {
                execution_successful: aborted.is_none(),
                tool_execution_notifications: aborted
                    .map(|why| Notification {
                        level: "error",
                        message: Text {
                            text: format!("aborted: {why}"),
                        },
                    })
                    .into_iter()
                    .collect(),
            }],
            results: findings
                .iter()
                .enumerate()
                .map(|(i, r)| result(r, i))
                .collect(),
            properties: record.info().map(|i| RunProperties {
                seed: i.seed,
                target: &i.target,
                command: &i.command,
            }),
        }],
    };
    let mut text = serde_json::to_string_pretty(&log)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::{artifact_uri, parse_location};

    #[test]
    fn locations_end_in_line_and_column() {
        assert_eq!(parse_location("scenarios/a/x.yaml:12:5"), Some((12, 5)));
        assert_eq!(parse_location("C:\\s\\x.yaml:3:1"), Some((3, 1)));
        assert_eq!(parse_location("x.yaml:0:0"), None);
        assert_eq!(parse_location("12:5"), None);
        assert_eq!(parse_location("x.yaml"), None);
    }

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(
            artifact_uri("scenarios/kip1324-broker/x.yaml"),
            "scenarios/kip1324-broker/x.yaml"
        );
        assert_eq!(artifact_uri("./scenarios/a b.yaml"), "scenarios/a%20b.yaml");
        assert_eq!(artifact_uri("/nowhere/x.yaml"), "file:///nowhere/x.yaml");
    }
}
