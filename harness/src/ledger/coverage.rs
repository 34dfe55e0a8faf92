//! Coverage of the ledger by the scenario suite: per KIP, each requirement → the scenarios
//! naming it, or excluded (with the reason), or untested; totals by kind; scenario
//! references to ids the ledger does not have. Rendered as text or serialised as JSON.
//!
//! Pure: it takes a [`Ledger`] and [`ScenarioRef`]s and must not read files, print, or exit.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::{self, Write as _};

use serde::Serialize;

use super::requirements::{Kind, Kip, Ledger};
use super::scan::ScenarioRef;

/// Whether and how a requirement is covered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// Named by these scenarios (sorted, deduplicated).
    Covered {
        /// Scenario ids.
        scenarios: Vec<String>,
    },
    /// Not testable by a protocol harness.
    Excluded {
        /// Why.
        reason: String,
    },
    /// Neither covered nor excluded.
    Untested,
}

/// How a covered requirement is judged, from its scenarios' steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Judged {
    /// Only by wire assertions.
    Wire,
    /// Only by observations (events the target reports).
    Observation,
    /// By both.
    Both,
}

impl Judged {
    fn of(wire: bool, observation: bool) -> Option<Self> {
        match (wire, observation) {
            (true, true) => Some(Self::Both),
            (true, false) => Some(Self::Wire),
            (false, true) => Some(Self::Observation),
            (false, false) => None,
        }
    }

    /// `wire`, `observation` or `both`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Wire => "wire",
            Self::Observation => "observation",
            Self::Both => "both",
        }
    }
}

/// One requirement's coverage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementCoverage {
    /// Requirement id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// Covered, excluded or untested.
    #[serde(flatten)]
    pub status: Status,
    /// How its scenarios judge it (covered requirements only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
    /// Why only an observation can show it (from the ledger), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation_only: Option<String>,
}

/// Counts of requirements by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Counts {
    /// All requirements counted.
    pub requirements: usize,
    /// Covered by at least one scenario.
    pub covered: usize,
    /// Excluded (and not covered).
    pub excluded: usize,
    /// Neither.
    pub untested: usize,
}

impl Counts {
    fn add(&mut self, status: &Status) {
        self.requirements += 1;
        match status {
            Status::Covered { .. } => self.covered += 1,
            Status::Excluded { .. } => self.excluded += 1,
            Status::Untested => self.untested += 1,
        }
    }

    /// Requirements that are not excluded.
    pub fn testable(&self) -> usize {
        self.requirements - self.excluded
    }
}

/// Counts overall and by kind (only kinds that occur).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Totals {
    /// Overall counts.
    #[serde(flatten)]
    pub all: Counts,
    /// Counts per kind.
    pub by_kind: BTreeMap<Kind, Counts>,
}

impl Totals {
    fn add(&mut self, kind: Kind, status: &Status) {
        self.all.add(status);
        self.by_kind.entry(kind).or_default().add(status);
    }
}

/// The coverage of one KIP's requirements, in ledger order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KipCoverage {
    /// The KIP.
    pub kip: Kip,
    /// Its requirements.
    pub requirements: Vec<RequirementCoverage>,
    /// Their totals.
    pub totals: Totals,
}

/// A scenario naming a requirement id the ledger does not have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownReference {
    /// Scenario id.
    pub scenario: String,
    /// Scenario file.
    pub path: String,
    /// The unknown requirement id.
    pub requirement: String,
}

/// The ledger's coverage by a set of scenarios.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Per KIP (only KIPs with requirements), in [`Kip::ALL`] order.
    pub kips: Vec<KipCoverage>,
    /// Totals over every KIP.
    pub totals: Totals,
    /// References to unknown ids, in scenario order.
    pub unknown_references: Vec<UnknownReference>,
    /// Ids marked `excluded` that scenarios nevertheless name (counted as covered; the
    /// exclusion is probably stale). A warning, not a check failure.
    pub excluded_but_covered: Vec<String>,
    /// Covered requirements that the wire could show (not `observation_only`) but that only
    /// observations judge: against a target that reports no events they go unjudged.
    pub wire_missing: Vec<String>,
    /// Covered requirements per way of judging.
    pub judged: BTreeMap<Judged, usize>,
    /// True iff nothing is untested, no scenario names an unknown id, and nothing the wire
    /// could show is judged by observations alone.
    pub passed: bool,
}

/// Why [`Coverage::check`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CheckFailure {
    /// Untested requirement ids, in report order.
    pub untested: Vec<String>,
    /// Scenario references to unknown ids.
    pub unknown_references: Vec<UnknownReference>,
    /// Requirements observable on the wire that only observations judge.
    pub wire_missing: Vec<String>,
}

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ledger check failed:")?;
        if !self.untested.is_empty() {
            write!(
                f,
                " {} untested: {}",
                plural(self.untested.len(), "requirement", "requirements"),
                self.untested.join(", ")
            )?;
        }
        if !self.unknown_references.is_empty() {
            if !self.untested.is_empty() {
                write!(f, ";")?;
            }
            let refs: Vec<String> = self
                .unknown_references
                .iter()
                .map(|u| format!("{} names {}", u.scenario, u.requirement))
                .collect();
            write!(
                f,
                " {}: {}",
                plural(
                    self.unknown_references.len(),
                    "unknown requirement id",
                    "unknown requirement ids"
                ),
                refs.join(", ")
            )?;
        }
        if !self.wire_missing.is_empty() {
            if !self.untested.is_empty() || !self.unknown_references.is_empty() {
                write!(f, ";")?;
            }
            write!(
                f,
                " {} judged by observations only (add a wire assertion, or mark the entry \
                 `observation_only` with the reason): {}",
                plural(self.wire_missing.len(), "requirement", "requirements"),
                self.wire_missing.join(", ")
            )?;
        }
        Ok(())
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Map every requirement of `ledger` to the scenarios naming it.
pub fn coverage(ledger: &Ledger, scenarios: &[ScenarioRef]) -> Coverage {
    let known: HashMap<&str, ()> = ledger
        .requirements
        .iter()
        .map(|r| (r.id.as_str(), ()))
        .collect();
    let mut covering: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    let mut evidence: HashMap<&str, (bool, bool)> = HashMap::new();
    let mut unknown_references = Vec::new();
    for s in scenarios {
        let mut seen = BTreeSet::new();
        for req in &s.requirements {
            if known.contains_key(req.as_str()) {
                covering.entry(req.as_str()).or_default().insert(&s.id);
                let e = evidence.entry(req.as_str()).or_default();
                e.0 |= s.evidence.wire;
                e.1 |= s.evidence.observation;
            } else if seen.insert(req.as_str()) {
                unknown_references.push(UnknownReference {
                    scenario: s.id.clone(),
                    path: s.path.clone(),
                    requirement: req.clone(),
                });
            }
        }
    }

    let mut totals = Totals::default();
    let mut excluded_but_covered = Vec::new();
    let mut wire_missing = Vec::new();
    let mut judged_counts: BTreeMap<Judged, usize> = BTreeMap::new();
    let mut kips = Vec::new();
    for kip in Kip::ALL {
        let mut kc = KipCoverage {
            kip,
            requirements: Vec::new(),
            totals: Totals::default(),
        };
        for r in ledger.requirements.iter().filter(|r| r.kip == kip) {
            let status = match (covering.get(r.id.as_str()), &r.excluded) {
                (Some(ids), excluded) => {
                    if excluded.is_some() {
                        excluded_but_covered.push(r.id.clone());
                    }
                    Status::Covered {
                        scenarios: ids.iter().map(|s| s.to_string()).collect(),
                    }
                }
                (None, Some(reason)) => Status::Excluded {
                    reason: reason.clone(),
                },
                (None, None) => Status::Untested,
            };
            kc.totals.add(r.kind, &status);
            totals.add(r.kind, &status);
            let judged = match &status {
                Status::Covered { .. } => {
                    let (wire, observation) =
                        evidence.get(r.id.as_str()).copied().unwrap_or_default();
                    Judged::of(wire, observation)
                }
                _ => None,
            };
            if let Some(j) = judged {
                *judged_counts.entry(j).or_default() += 1;
                if j == Judged::Observation && r.observation_only.is_none() {
                    wire_missing.push(r.id.clone());
                }
            }
            kc.requirements.push(RequirementCoverage {
                id: r.id.clone(),
                kind: r.kind,
                status,
                judged,
                observation_only: r.observation_only.clone(),
            });
        }
        if !kc.requirements.is_empty() {
            kips.push(kc);
        }
    }
    let passed =
        totals.all.untested == 0 && unknown_references.is_empty() && wire_missing.is_empty();
    Coverage {
        kips,
        totals,
        unknown_references,
        excluded_but_covered,
        wire_missing,
        judged: judged_counts,
        passed,
    }
}

/// Collapse runs of whitespace (including newlines) to one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn percent(c: &Counts) -> String {
    match c.testable() {
        0 => "-".to_string(),
        t => format!("{}%", c.covered * 100 / t),
    }
}

impl Coverage {
    /// `Ok` iff nothing that is not excluded is untested and no scenario names an unknown
    /// requirement id.
    pub fn check(&self) -> Result<(), CheckFailure> {
        if self.passed {
            return Ok(());
        }
        let untested = self
            .kips
            .iter()
            .flat_map(|k| &k.requirements)
            .filter(|r| r.status == Status::Untested)
            .map(|r| r.id.clone())
            .collect();
        Err(CheckFailure {
            untested,
            unknown_references: self.unknown_references.clone(),
            wire_missing: self.wire_missing.clone(),
        })
    }

    /// A readable report: per KIP each requirement and its status, a totals table by kind,
    /// unknown references, stale exclusions, and a result line.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for k in &self.kips {
            let c = &k.totals.all;
            let _ = writeln!(
                out,
                "{} ({}: {} covered, {} excluded, {} untested)",
                k.kip,
                plural(c.requirements, "requirement", "requirements"),
                c.covered,
                c.excluded,
                c.untested
            );
            for r in &k.requirements {
                let kind = format!("[{}]", r.kind);
                let status = match &r.status {
                    Status::Covered { scenarios } => {
                        let mut s = match r.judged {
                            Some(j) => format!("[{}] {}", j.name(), scenarios.join(", ")),
                            None => scenarios.join(", "),
                        };
                        if let Some(why) = &r.observation_only {
                            s.push_str(&format!(" (observation only: {})", one_line(why)));
                        }
                        s
                    }
                    Status::Excluded { reason } => format!("excluded: {}", one_line(reason)),
                    Status::Untested => "untested".to_string(),
                };
                let _ = writeln!(out, "  {kind:<11} {} -> {status}", r.id);
            }
            out.push('\n');
        }
        let _ = writeln!(out, "Totals");
        let _ = writeln!(
            out,
            "  {:<10} {:>5} {:>8} {:>9} {:>9} {:>9}",
            "kind", "total", "covered", "excluded", "untested", "coverage"
        );
        let rows = self
            .totals
            .by_kind
            .iter()
            .map(|(kind, c)| (kind.name(), c))
            .chain(std::iter::once(("all", &self.totals.all)));
        for (name, c) in rows {
            let _ = writeln!(
                out,
                "  {:<10} {:>5} {:>8} {:>9} {:>9} {:>9}",
                name,
                c.requirements,
                c.covered,
                c.excluded,
                c.untested,
                percent(c)
            );
        }
        let judged: Vec<String> = self
            .judged
            .iter()
            .map(|(j, n)| format!("{n} {}", j.name()))
            .collect();
        let _ = writeln!(
            out,
            "\nJudged (covered requirements): {}",
            if judged.is_empty() {
                "none".to_string()
            } else {
                judged.join(", ")
            }
        );
        if !self.wire_missing.is_empty() {
            let _ = writeln!(
                out,
                "\nJudged by observations only, though the wire could show them ({})",
                self.wire_missing.len()
            );
            for id in &self.wire_missing {
                let _ = writeln!(out, "  {id}");
            }
        }
        if !self.unknown_references.is_empty() {
            let _ = writeln!(
                out,
                "\nUnknown requirement ids ({})",
                self.unknown_references.len()
            );
            for u in &self.unknown_references {
                let _ = writeln!(out, "  {} ({}) names {}", u.scenario, u.path, u.requirement);
            }
        }
        if !self.excluded_but_covered.is_empty() {
            let _ = writeln!(
                out,
                "\nExcluded but covered: remove `excluded` ({})",
                self.excluded_but_covered.len()
            );
            for id in &self.excluded_but_covered {
                let _ = writeln!(out, "  {id}");
            }
        }
        out.push('\n');
        match self.check() {
            Ok(()) => out.push_str("ledger check: passed\n"),
            Err(failure) => {
                let _ = writeln!(
                    out,
                    "ledger check: FAILED ({}, {}, {})",
                    plural(
                        failure.untested.len(),
                        "untested requirement",
                        "untested requirements"
                    ),
                    plural(
                        failure.unknown_references.len(),
                        "unknown requirement id",
                        "unknown requirement ids"
                    ),
                    plural(
                        failure.wire_missing.len(),
                        "requirement judged by observations only",
                        "requirements judged by observations only"
                    )
                );
            }
        }
        out
    }
}
