//! The published interop matrix (`reports/peers.md`): peers × suites with pass / unsupported /
//! finding counts, every finding with its expectation, observation and the peer's version, and
//! which findings break a fact that must hold. Pure rendering of [`Fact`]s; no I/O.

use std::fmt::Write as _;

use super::metadata_log::METADATA_LOG_FACTS;
use super::suite::SuiteKind;
use super::verdict::{Fact, Verdict};

/// One peer's facts in one suite.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PeerRow {
    /// The peer's short name.
    pub peer: String,
    /// Software and version.
    pub software: String,
    /// Whether its findings break a must-hold fact (Apache Kafka itself; for clients the
    /// PushConfig and decoding facts hold for every client).
    pub is_apache_kafka: bool,
    /// The facts, in check order.
    pub facts: Vec<Fact>,
}

impl PeerRow {
    /// The suite its facts belong to (`-` for a row without facts).
    pub fn suite(&self) -> &'static str {
        self.facts.first().map_or("-", |f| f.suite)
    }
}

/// The whole matrix.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Matrix {
    /// Rows in run order.
    pub rows: Vec<PeerRow>,
    /// Peers named in the environment but left out, with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Facts that must hold for every client, whatever it is.
const CLIENT_MUST_HOLD: &[&str] = &["client-no-push-config", "client-frames-decode"];

impl Matrix {
    /// Every finding that breaks a must-hold fact: any finding against Apache Kafka (its facts,
    /// its `live-safe` suite), a client that sends PushConfig or a frame kipcheck cannot
    /// decode, and any client's finding in the `live-client` YAML suite. `(peer, fact id)`.
    /// Apache Kafka's findings in the controller suite are not must-hold: Kafka 4.4 implements
    /// none of KIP-1256, KIP-1294 and KIP-1326, so they are what it lacks, listed as findings.
    /// The metadata-log facts are (its log must read back and hold the registration).
    pub fn must_hold_violations(&self) -> Vec<(String, String)> {
        self.rows
            .iter()
            .flat_map(|r| {
                r.facts
                    .iter()
                    .filter(move |f| {
                        f.verdict.is_finding()
                            && ((r.is_apache_kafka
                                && (f.suite != SuiteKind::Controller.name()
                                    || METADATA_LOG_FACTS.contains(&f.id.as_ref())))
                                || CLIENT_MUST_HOLD.contains(&f.id.as_ref())
                                || f.suite == SuiteKind::ClientLive.name())
                    })
                    .map(move |f| (r.peer.clone(), f.id.to_string()))
            })
            .collect()
    }

    /// The matrix as JSON for CI gates: `{"rows": [{peer, software, is_apache_kafka, facts:
    /// [{id, suite, verdict, detail}]}], "skipped": [[peer, why]], "must_hold_violations":
    /// [[peer, fact]]}`; a verdict is `"Pass"`, `{"Unsupported": why}` or `{"Finding":
    /// {expected, observed}}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "rows": self.rows,
            "skipped": self.skipped,
            "must_hold_violations": self.must_hold_violations(),
        })
    }

    /// The verdict of `fact` for `peer`, if it was checked.
    pub fn verdict(&self, peer: &str, fact: &str) -> Option<&Verdict> {
        self.rows
            .iter()
            .filter(|r| r.peer == peer)
            .flat_map(|r| &r.facts)
            .find(|f| f.id == fact)
            .map(|f| &f.verdict)
    }
}

fn counts(facts: &[Fact]) -> (usize, usize, usize) {
    facts
        .iter()
        .fold((0, 0, 0), |(p, u, f), x| match x.verdict {
            Verdict::Pass => (p + 1, u, f),
            Verdict::Unsupported(_) => (p, u + 1, f),
            Verdict::Finding { .. } => (p, u, f + 1),
        })
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Renders the matrix as Markdown. `header` is put under the title (how it was produced).
pub fn render_matrix(m: &Matrix, header: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{SECTION_BEGIN}");
    let _ = writeln!(out, "## Live peers (`kipcheck interop`)\n");
    let _ = writeln!(out, "{header}\n");
    let _ = writeln!(
        out,
        "| peer | software | suite | pass | unsupported | finding |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|");
    for r in &m.rows {
        let suite = r.suite();
        let (p, u, f) = counts(&r.facts);
        let _ = writeln!(
            out,
            "| {} | {} | {suite} | {p} | {u} | {f} |",
            r.peer,
            cell(&r.software)
        );
    }
    for (peer, why) in &m.skipped {
        let _ = writeln!(out, "| {peer} | not run: {} | - | - | - | - |", cell(why));
    }
    let violations = m.must_hold_violations();
    let _ = writeln!(out, "\n### Must-hold facts\n");
    if violations.is_empty() {
        let _ = writeln!(
            out,
            "All hold: Apache Kafka passes its own suites (yaml kafka-broker, yaml kafka-controller), \
             the live-safe suite and the metadata-log facts; no client sent PushConfig; every client \
             frame decoded. (Apache Kafka's findings in the controller suite are what 4.4 lacks of \
             KIP-1256, KIP-1294 and KIP-1326: listed below, not must-hold.)"
        );
    } else {
        for (peer, id) in &violations {
            let _ = writeln!(out, "- **BROKEN**: `{id}` on {peer}");
        }
    }
    let _ = writeln!(out, "\n### Findings\n");
    let mut any = false;
    for r in &m.rows {
        for f in &r.facts {
            if let Verdict::Finding { expected, observed } = &f.verdict {
                any = true;
                let _ = writeln!(out, "#### {} — `{}` ({} suite)\n", r.peer, f.id, f.suite);
                let _ = writeln!(out, "Peer: {}\n", r.software);
                let _ = writeln!(
                    out,
                    "```diff\n- expected: {}\n+ observed: {}\n```\n",
                    expected, observed
                );
            }
        }
    }
    if !any {
        let _ = writeln!(out, "None.\n");
    }
    let _ = writeln!(out, "### Every fact\n");
    for r in &m.rows {
        let suite = r.suite();
        let _ = writeln!(out, "#### {} ({}), {suite} suite\n", r.peer, r.software);
        if r.facts.len() > 1
            && r.facts
                .iter()
                .all(|f| matches!(f.verdict, Verdict::Unsupported(_)))
        {
            // A whole suite the peer cannot run: its reasons, counted, not one row each.
            let mut reasons = std::collections::BTreeMap::<&str, usize>::new();
            for f in &r.facts {
                if let Verdict::Unsupported(why) = &f.verdict {
                    *reasons.entry(why.as_str()).or_default() += 1;
                }
            }
            let _ = writeln!(out, "All {} unsupported:\n", r.facts.len());
            for (why, n) in reasons {
                let _ = writeln!(out, "- {n}: {}", cell(why));
            }
            let _ = writeln!(out);
            continue;
        }
        let _ = writeln!(out, "| fact | verdict | observed |");
        let _ = writeln!(out, "|---|---|---|");
        for f in &r.facts {
            let verdict = match &f.verdict {
                Verdict::Pass => "pass".to_string(),
                Verdict::Unsupported(why) => format!("unsupported: {why}"),
                Verdict::Finding { .. } => "**finding**".to_string(),
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                f.id,
                cell(&verdict),
                cell(&f.detail)
            );
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "{SECTION_END}");
    out
}

/// Marks the start of the section `kipcheck interop` owns in `reports/peers.md`.
pub const SECTION_BEGIN: &str =
    "<!-- kipcheck interop: begin (generated; edit the code, not this) -->";
/// Marks its end.
pub const SECTION_END: &str = "<!-- kipcheck interop: end -->";

/// Puts `section` (a [`render_matrix`] output) into `existing` (the report file's text, which
/// other parts of issue 8 also write): replacing the previous section between the markers, or
/// appended when there is none. Everything else in the file is kept as it is.
pub fn splice_section(existing: &str, section: &str) -> String {
    if let (Some(a), Some(b)) = (existing.find(SECTION_BEGIN), existing.find(SECTION_END)) {
        if a < b {
            let end = b + SECTION_END.len();
            let rest = existing[end..]
                .strip_prefix('\n')
                .unwrap_or(&existing[end..]);
            return format!("{}{section}{rest}", &existing[..a]);
        }
    }
    if existing.trim().is_empty() {
        return section.to_string();
    }
    let sep = if existing.ends_with("\n\n") {
        ""
    } else if existing.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    format!("{existing}{sep}{section}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: &'static str, suite: &'static str, verdict: Verdict) -> Fact {
        Fact {
            id: id.into(),
            suite,
            verdict,
            detail: "d".into(),
        }
    }

    #[test]
    fn counts_and_must_hold() {
        let m = Matrix {
            rows: vec![
                PeerRow {
                    peer: "kafka".into(),
                    software: "Apache Kafka 4.4.0".into(),
                    is_apache_kafka: true,
                    facts: vec![fact("apiversions-strict", "broker", Verdict::Pass)],
                },
                PeerRow {
                    peer: "kafka-controller".into(),
                    software: "Apache Kafka KRaft controller 4.4.0".into(),
                    is_apache_kafka: true,
                    facts: vec![fact(
                        "k1294-k1256-unknown-resource-type",
                        "yaml controller",
                        Verdict::finding("INVALID_REQUEST", "UNSUPPORTED_VERSION"),
                    )],
                },
                PeerRow {
                    peer: "rdkafka-mock".into(),
                    software: "librdkafka mock cluster 2.16.0".into(),
                    is_apache_kafka: false,
                    facts: vec![
                        fact(
                            "apiversions-fallback",
                            "broker",
                            Verdict::finding("v0", "v3-ish"),
                        ),
                        fact("x", "broker", Verdict::Unsupported("n/a".into())),
                    ],
                },
                PeerRow {
                    peer: "franz-go".into(),
                    software: "franz-go v1.22.3".into(),
                    is_apache_kafka: false,
                    facts: vec![fact(
                        "client-no-push-config",
                        "client",
                        Verdict::finding("none", "sent"),
                    )],
                },
            ],
            skipped: vec![],
        };
        assert_eq!(
            m.must_hold_violations(),
            vec![("franz-go".to_string(), "client-no-push-config".to_string())]
        );
        let md = render_matrix(&m, "h");
        assert!(
            md.contains("| kafka | Apache Kafka 4.4.0 | broker | 1 | 0 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("| rdkafka-mock | librdkafka mock cluster 2.16.0 | broker | 0 | 1 | 1 |"),
            "{md}"
        );
        assert!(
            md.contains("- **BROKEN**: `client-no-push-config` on franz-go"),
            "{md}"
        );
        assert!(md.contains("- expected: v0\n+ observed: v3-ish"), "{md}");
        assert!(
            md.starts_with(SECTION_BEGIN) && md.trim_end().ends_with(SECTION_END),
            "{md}"
        );
        assert_eq!(
            m.verdict("kafka", "apiversions-strict"),
            Some(&Verdict::Pass)
        );
    }

    #[test]
    fn a_live_client_suite_finding_is_must_hold_and_unsupported_suites_are_summed_up() {
        let unsupported = |id| {
            fact(
                id,
                "yaml controller",
                Verdict::Unsupported("lacks events".into()),
            )
        };
        let m = Matrix {
            rows: vec![
                PeerRow {
                    peer: "kafka-controller".into(),
                    software: "Apache Kafka KRaft controller 4.4.0".into(),
                    is_apache_kafka: true,
                    facts: vec![unsupported("k1"), unsupported("k2")],
                },
                PeerRow {
                    peer: "aiokafka".into(),
                    software: "aiokafka 0.14.0".into(),
                    is_apache_kafka: false,
                    facts: vec![
                        fact("c1324-a", "yaml live-client", Verdict::Pass),
                        fact(
                            "c1324-b",
                            "yaml live-client",
                            Verdict::finding("none", "PushConfig"),
                        ),
                    ],
                },
                PeerRow {
                    peer: "tansu".into(),
                    software: "tansu 0.6.0".into(),
                    is_apache_kafka: false,
                    facts: vec![fact(
                        "av-x",
                        "yaml live-safe",
                        Verdict::finding("v0", "closed"),
                    )],
                },
            ],
            skipped: vec![],
        };
        assert_eq!(
            m.must_hold_violations(),
            vec![("aiokafka".to_string(), "c1324-b".to_string())]
        );
        let md = render_matrix(&m, "h");
        assert!(
            md.contains("| kafka-controller | Apache Kafka KRaft controller 4.4.0 | yaml controller | 0 | 2 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("yaml controller suite\n\nAll 2 unsupported:\n\n- 2: lacks events\n"),
            "{md}"
        );
        assert!(md.contains("| `c1324-a` | pass | d |"), "{md}");
    }

    #[test]
    fn json_carries_rows_verdicts_and_violations() {
        let m = Matrix {
            rows: vec![PeerRow {
                peer: "tansu".into(),
                software: "tansu 0.6.0".into(),
                is_apache_kafka: false,
                facts: vec![
                    fact("apiversions-strict", "broker", Verdict::Pass),
                    fact(
                        "apiversions-fallback",
                        "broker",
                        Verdict::finding("v0", "v3"),
                    ),
                ],
            }],
            skipped: vec![("kfake".into(), "died".into())],
        };
        assert_eq!(
            m.to_json(),
            serde_json::json!({
                "rows": [{
                    "peer": "tansu",
                    "software": "tansu 0.6.0",
                    "is_apache_kafka": false,
                    "facts": [
                        {"id": "apiversions-strict", "suite": "broker", "verdict": "Pass", "detail": "d"},
                        {"id": "apiversions-fallback", "suite": "broker",
                         "verdict": {"Finding": {"expected": "v0", "observed": "v3"}}, "detail": "d"}
                    ]
                }],
                "skipped": [["kfake", "died"]],
                "must_hold_violations": []
            })
        );
    }

    #[test]
    fn splice_replaces_only_its_section() {
        let section = format!("{SECTION_BEGIN}\nnew\n{SECTION_END}\n");
        let other = "# Real peers\n\n## Java codec oracle\n\ntext\n";
        assert_eq!(
            splice_section(other, &section),
            format!("{other}\n{section}")
        );
        let old = format!("{other}\n{SECTION_BEGIN}\nold\n{SECTION_END}\n## After\n");
        assert_eq!(
            splice_section(&old, &section),
            format!("{other}\n{section}## After\n")
        );
        assert_eq!(splice_section("", &section), section);
    }
}
