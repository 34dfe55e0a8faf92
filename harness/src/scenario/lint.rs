//! `kipcheck lint`'s static rules: what a scenario file may not assert because no KIP says it,
//! so that a correct implementation reading the KIP text alone could fail it. Each rule cites
//! the KIP sentence it protects and is located at the offending key (`file:line:col`). Pure:
//! reads loaded scenarios and their text, runs nothing. The dynamic rule (a scenario that
//! depends on a contested reading without pinning it) needs the runner and lives there
//! ([`crate::runner::reading_findings`]).

use std::fmt;
use std::path::PathBuf;

use serde_json::Value;

use super::body_schema::Seg;
use super::compiled::Scenario;
use super::locate::locate;
use super::types::{ExpectResponseStep, Grade, Outcome, Step};

/// A rule of the lint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LintRule {
    /// A MUST scenario asserts the text of an `ErrorMessage`.
    MustErrorMessageText,
    /// A `record_appended` pattern names a literal metadata-log offset.
    RecordOffsetLiteral,
    /// An `expect_no_event` on `record_appended` does not say which record must not be
    /// written (no `record` filter): any record at all (a NoOpRecord) fails it.
    UnfilteredNoRecord,
    /// A scenario depends on a contested reading without pinning it: the reference declaring
    /// another reading fails it.
    UnpinnedReading,
}

impl LintRule {
    /// The rule's name, as printed.
    pub fn name(self) -> &'static str {
        match self {
            Self::MustErrorMessageText => "must-error-message-text",
            Self::RecordOffsetLiteral => "record-offset-literal",
            Self::UnfilteredNoRecord => "unfiltered-no-record",
            Self::UnpinnedReading => "unpinned-reading",
        }
    }

    /// The KIP sentence the rule protects, and why.
    pub fn citation(self) -> &'static str {
        match self {
            Self::MustErrorMessageText => {
                "KIP-1324: the ErrorMessage \"will contain details for the failed entry\"; \
                 KIP-1294: a violating config \"will be rejected with an INVALID_CONFIG error\". \
                 Neither fixes the text: check it in a SHOULD scenario"
            }
            Self::RecordOffsetLiteral => {
                "KIP-1326: \"the controller copies the StaticConfigs field into the \
                 RegisterBrokerRecord\"; no KIP fixes where in the log a record lands (a live \
                 log holds earlier records and NoOpRecords): identify it by content, or by \
                 $eq_captured of the broker epoch"
            }
            Self::UnfilteredNoRecord => {
                "KIP-1294: a refused change is not applied; a controller still appends \
                 NoOpRecords and others: filter on the record that must not be written"
            }
            Self::UnpinnedReading => {
                "kip-notes §6: a contested reading is the implementation's choice; a scenario \
                 that depends on one pins it (profile:) or accepts every reading's outcome"
            }
        }
    }
}

/// One finding: where, which rule, what.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LintFinding {
    /// The scenario file.
    pub path: PathBuf,
    /// 1-based line (0: unknown).
    pub line: u64,
    /// 1-based column (0: unknown).
    pub col: u64,
    /// The rule.
    pub rule: LintRule,
    /// What was found.
    pub detail: String,
}

impl fmt::Display for LintFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {} ({})",
            self.path.display(),
            self.line,
            self.col,
            self.rule.name(),
            self.detail,
            self.rule.citation()
        )
    }
}

/// Whether a pattern asserts text: a string, `$contains`, or a combination holding one.
fn asserts_text(p: &Value) -> bool {
    match p {
        Value::String(s) => !matches!(s.as_str(), "$any" | "$absent"),
        Value::Object(m) => m.iter().any(|(k, v)| match k.as_str() {
            "$contains" => true,
            "$any_of" | "$all_of" => v.as_array().is_some_and(|a| a.iter().any(asserts_text)),
            _ => false,
        }),
        _ => false,
    }
}

/// Every place under `p` where a key `ErrorMessage` asserts text, as a path below `p`.
fn error_message_texts(p: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match p {
        Value::Object(m) => {
            for (k, v) in m {
                at.push(Seg::Key(k.clone()));
                if k == "ErrorMessage" && asserts_text(v) {
                    out.push(at.clone());
                } else if k != "$not" {
                    error_message_texts(v, at, out);
                }
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                at.push(Seg::Index(i));
                error_message_texts(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// Whether an `offset` pattern names a place in the log (anything but a capture relation or
/// `$any`).
fn literal_offset(p: &Value) -> bool {
    match p {
        Value::Object(m) => !m.keys().any(|k| {
            matches!(
                k.as_str(),
                "$eq_captured" | "$ne_captured" | "$capture" | "$any" | "$absent"
            )
        }),
        _ => true,
    }
}

/// The body patterns of a response expectation, with their path below the step.
fn response_patterns(step: &Step) -> Vec<(Vec<Seg>, &Value)> {
    fn push<'a>(prefix: Vec<Seg>, r: &'a ExpectResponseStep, out: &mut Vec<(Vec<Seg>, &'a Value)>) {
        for (name, v) in [("body", &r.body), ("inner", &r.inner)] {
            if let Some(v) = v {
                let mut p = prefix.clone();
                p.push(Seg::Key(name.to_owned()));
                out.push((p, v));
            }
        }
    }
    let key = |k: &str| Seg::Key(k.to_owned());
    let mut out = Vec::new();
    match step {
        Step::ExpectResponse(r) => push(vec![key("expect_response")], r, &mut out),
        Step::ExpectOneOf(outcomes) => {
            for (i, o) in outcomes.iter().enumerate() {
                if let Outcome::Response(r) = o {
                    let at = vec![key("expect_one_of"), Seg::Index(i), key("response")];
                    push(at, r, &mut out);
                }
            }
        }
        _ => {}
    }
    out
}

/// The static findings for one scenario; `text` is its file's text (for locations).
pub fn lint_scenario(s: &Scenario, text: Option<&str>) -> Vec<LintFinding> {
    let mut out = Vec::new();
    for (i, step) in s.file.steps.iter().enumerate() {
        let at = |segs: &[Seg]| {
            text.and_then(|t| locate(t, i, segs))
                .unwrap_or((step.referenced.line(), step.referenced.column()))
        };
        let mut finding = |segs: &[Seg], rule: LintRule, detail: String| {
            let (line, col) = at(segs);
            out.push(LintFinding {
                path: s.path.clone(),
                line,
                col,
                rule,
                detail,
            });
        };
        if s.file.grade == Grade::Must {
            for (prefix, pattern) in response_patterns(&step.value) {
                let mut found = Vec::new();
                error_message_texts(pattern, &mut prefix.clone(), &mut found);
                for segs in found {
                    finding(
                        &segs,
                        LintRule::MustErrorMessageText,
                        format!("step {}: a MUST scenario asserts ErrorMessage text", i + 1),
                    );
                }
            }
        }
        let (kind, event) = match &step.value {
            Step::ExpectEvent(e) => ("expect_event", &e.event),
            Step::ExpectNoEvent { event } => ("expect_no_event", event),
            _ => continue,
        };
        if event.get("event").and_then(Value::as_str) != Some("record_appended") {
            continue;
        }
        let event_at = |k: &str| {
            let mut v = vec![Seg::Key(kind.to_owned()), Seg::Key("event".into())];
            v.push(Seg::Key(k.to_owned()));
            v
        };
        if event.get("offset").is_some_and(literal_offset) {
            finding(
                &event_at("offset"),
                LintRule::RecordOffsetLiteral,
                format!("step {}: {kind} names a metadata-log offset", i + 1),
            );
        }
        if kind == "expect_no_event" && event.get("record").is_none() {
            finding(
                &event_at("event"),
                LintRule::UnfilteredNoRecord,
                format!(
                    "step {}: expect_no_event on record_appended without a `record` filter",
                    i + 1
                ),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scenario::load_text;

    fn lint(text: &str) -> Vec<(u64, u64, LintRule)> {
        let path = Path::new("s/a/x.yaml");
        let s = load_text(text, path, Path::new("s")).expect("loads");
        lint_scenario(&s, Some(text))
            .into_iter()
            .map(|f| (f.line, f.col, f.rule))
            .collect()
    }

    const HEAD: &str = "id: x\ntitle: t\nkip: KIP-1294\ngrade: MUST\nroles: [controller]\nsteps:\n";

    #[test]
    fn a_must_check_of_error_message_text_is_refused_at_the_key() {
        let text = format!(
            "{HEAD}  - send: {{ api: ApiVersions, version: 3, body: {{ ClientSoftwareName: k, ClientSoftwareVersion: '1' }} }}\n  - expect_one_of:\n      - response: {{ body: {{ ErrorCode: NONE }} }}\n      - response: {{ body: {{ ErrorCode: INVALID_CONFIG }} }}\n"
        );
        assert_eq!(lint(&text), vec![]);
        let alter = "  - send: { api: UpdateFeatures, version: 1, body: { FeatureUpdates: [] } }\n";
        let text = format!(
            "{HEAD}{alter}  - expect_response: {{ body: {{ ErrorCode: INVALID_CONFIG, ErrorMessage: {{ $contains: log.segment.bytes }} }} }}\n"
        );
        assert_eq!(lint(&text), vec![(8, 59, LintRule::MustErrorMessageText)]);
        // `$not: null` (some message) and `$any` are not text; SHOULD scenarios may check it.
        for p in ["{ $not: null }", "$any"] {
            let text = format!(
                "{HEAD}{alter}  - expect_response: {{ body: {{ ErrorCode: INVALID_CONFIG, ErrorMessage: {p} }} }}\n"
            );
            assert_eq!(lint(&text), vec![]);
        }
        let text = format!(
            "{}{alter}  - expect_response: {{ body: {{ ErrorMessage: {{ $any_of: [a, b] }} }} }}\n",
            HEAD.replace("MUST", "SHOULD")
        );
        assert_eq!(lint(&text), vec![]);
    }

    #[test]
    fn record_offsets_and_unfiltered_record_absence_are_refused() {
        let text = format!(
            "{HEAD}  - expect_event: {{ event: {{ event: record_appended, offset: 2 }} }}\n  - expect_no_event: {{ event: {{ event: record_appended, offset: {{ $range: [1, 9] }} }} }}\n  - expect_no_event: {{ event: {{ event: record_appended, record: {{ Name: a }} }} }}\n  - expect_event: {{ event: {{ event: record_appended, offset: {{ $eq_captured: e }} }} }}\n"
        );
        let text = text.replace(
            "steps:\n",
            "steps:\n  - expect_event: { event: { event: broker_registered, epoch: { $capture: e } } }\n",
        );
        assert_eq!(
            lint(&text),
            vec![
                (8, 54, LintRule::RecordOffsetLiteral),
                (9, 57, LintRule::RecordOffsetLiteral),
                (9, 33, LintRule::UnfilteredNoRecord),
            ]
        );
    }
}
