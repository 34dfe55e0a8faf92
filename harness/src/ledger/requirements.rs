//! The requirement ledger's data: `scenarios/requirements.yaml` parsed strictly into
//! [`Ledger`] and validated (unique ids, id form, known `kip`/`kind`, non-empty text).
//!
//! Responsible for the format and its validation only. It must not look at scenarios or
//! compute coverage (see `coverage`), and performs no I/O except in [`Ledger::load`].

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use super::error::{At, IdRule, LedgerError};

/// The KIP a requirement comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kip {
    /// KIP-1324: client configuration push.
    #[serde(rename = "KIP-1324")]
    Kip1324,
    /// KIP-1326: broker static configs in BrokerRegistrationRequest.
    #[serde(rename = "KIP-1326")]
    Kip1326,
    /// KIP-1294: metadata-version-aware configuration constraints.
    #[serde(rename = "KIP-1294")]
    Kip1294,
    /// KIP-1256: broker/controller alignment of IncrementalAlterConfigs.
    #[serde(rename = "KIP-1256")]
    Kip1256,
}

impl Kip {
    /// Every KIP, in report order.
    pub const ALL: [Kip; 4] = [Kip::Kip1324, Kip::Kip1326, Kip::Kip1294, Kip::Kip1256];

    /// The name as written in the ledger, e.g. `KIP-1324`.
    pub fn name(self) -> &'static str {
        match self {
            Kip::Kip1324 => "KIP-1324",
            Kip::Kip1326 => "KIP-1326",
            Kip::Kip1294 => "KIP-1294",
            Kip::Kip1256 => "KIP-1256",
        }
    }

    /// The prefix every id of this KIP starts with, e.g. `kip1324.`.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Kip::Kip1324 => "kip1324.",
            Kip::Kip1326 => "kip1326.",
            Kip::Kip1294 => "kip1294.",
            Kip::Kip1256 => "kip1256.",
        }
    }
}

impl fmt::Display for Kip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The normative force of a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An item of the KIP's test plan.
    TestPlan,
    /// MUST and equivalents ("will", "is only sent", "rejects", ...).
    Must,
    /// SHOULD.
    Should,
    /// MAY.
    May,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 4] = [Kind::TestPlan, Kind::Must, Kind::Should, Kind::May];

    /// The name as written in the ledger, e.g. `test-plan`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::TestPlan => "test-plan",
            Kind::Must => "must",
            Kind::Should => "should",
            Kind::May => "may",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One test-plan item or normative statement of a KIP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirement {
    /// Stable, unique id, e.g. `kip1324.client.sensitive.prefix`.
    pub id: String,
    /// The KIP.
    pub kip: Kip,
    /// Normative force.
    pub kind: Kind,
    /// The statement, quoted from the KIP text.
    pub text: String,
    /// File and section it is quoted from.
    pub source: String,
    /// kip-notes §6 reading(s) applied, e.g. `A3, A4`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// Why a protocol harness cannot test it; such a requirement is never "untested".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// Remarks (diff-rendering fixes, scope).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why only an observation of the implementation (a policy call, a warning, a metadata
    /// record) can show it, never the wire: `ledger --check` then does not ask for a wire
    /// assertion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation_only: Option<String>,
    /// 1-based line of the entry's `id` in the ledger file (0 if built in code).
    #[serde(skip)]
    pub line: u64,
}

/// The whole ledger, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Ledger {
    /// The requirements.
    pub requirements: Vec<Requirement>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLedger {
    requirements: Vec<RawRequirement>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequirement {
    id: Spanned<String>,
    kip: Kip,
    kind: Kind,
    text: Spanned<String>,
    source: Spanned<String>,
    #[serde(default)]
    reading: Option<Spanned<String>>,
    #[serde(default)]
    excluded: Option<Spanned<String>>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    observation_only: Option<Spanned<String>>,
}

fn at<T>(path: &Path, s: &Spanned<T>) -> At {
    At::new(path, s.referenced.line(), s.referenced.column())
}

impl Ledger {
    /// Read and validate the ledger file at `path`.
    pub fn load(path: &Path) -> Result<Ledger, LedgerError> {
        let text = std::fs::read_to_string(path).map_err(|source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ledger::parse(&text, path)
    }

    /// Parse and validate ledger YAML; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<Ledger, LedgerError> {
        let raw: RawLedger =
            serde_saphyr::from_str(text).map_err(|e| LedgerError::yaml(path, &e))?;
        let mut first_line: HashMap<String, u64> = HashMap::new();
        let mut requirements = Vec::with_capacity(raw.requirements.len());
        for r in raw.requirements {
            let id = r.id.value.clone();
            check_id(&id, r.kip).map_err(|reason| LedgerError::InvalidId {
                at: at(path, &r.id),
                id: id.clone(),
                reason,
            })?;
            let line = r.id.referenced.line();
            if let Some(&first) = first_line.get(&id) {
                return Err(LedgerError::DuplicateId {
                    at: at(path, &r.id),
                    id,
                    first_line: first,
                });
            }
            first_line.insert(id.clone(), line);
            let non_empty = |s: &Spanned<String>, field: &'static str| {
                if s.value.trim().is_empty() {
                    Err(LedgerError::EmptyField {
                        at: at(path, s),
                        id: id.clone(),
                        field,
                    })
                } else {
                    Ok(())
                }
            };
            non_empty(&r.text, "text")?;
            non_empty(&r.source, "source")?;
            if let Some(excluded) = &r.excluded {
                non_empty(excluded, "excluded")?;
            }
            if let Some(why) = &r.observation_only {
                non_empty(why, "observation_only")?;
            }
            if let Some(reading) = &r.reading {
                if !valid_reading(&reading.value) {
                    return Err(LedgerError::InvalidReading {
                        at: at(path, reading),
                        id: id.clone(),
                        reading: reading.value.clone(),
                    });
                }
            }
            requirements.push(Requirement {
                id,
                kip: r.kip,
                kind: r.kind,
                text: r.text.value,
                source: r.source.value,
                reading: r.reading.map(|s| s.value),
                excluded: r.excluded.map(|s| s.value),
                note: r.note,
                observation_only: r.observation_only.map(|s| s.value),
                line,
            });
        }
        Ok(Ledger { requirements })
    }

    /// The requirement with this id.
    pub fn get(&self, id: &str) -> Option<&Requirement> {
        self.requirements.iter().find(|r| r.id == id)
    }

    /// How many requirements have this KIP and kind.
    pub fn count(&self, kip: Kip, kind: Kind) -> usize {
        self.requirements
            .iter()
            .filter(|r| r.kip == kip && r.kind == kind)
            .count()
    }
}

/// `<kip prefix><segment>(.<segment>)*`, segments of `[a-z0-9-]`, not starting or ending
/// with `-`.
fn check_id(id: &str, kip: Kip) -> Result<(), IdRule> {
    let Some(rest) = id.strip_prefix(kip.id_prefix()) else {
        return Err(IdRule::Prefix {
            kip: kip.to_string(),
            prefix: kip.id_prefix(),
        });
    };
    if rest.is_empty() {
        return Err(IdRule::NothingAfterPrefix);
    }
    for segment in rest.split('.') {
        let segment_owned = || segment.to_owned();
        if segment.is_empty() {
            return Err(IdRule::EmptySegment);
        }
        if !segment
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(IdRule::Characters {
                segment: segment_owned(),
            });
        }
        if segment.starts_with('-') || segment.ends_with('-') {
            return Err(IdRule::Dash {
                segment: segment_owned(),
            });
        }
    }
    Ok(())
}

/// `A3`, `B1`, `C5`, or a comma-separated list of those.
fn valid_reading(reading: &str) -> bool {
    reading.split(',').all(|item| {
        let item = item.trim();
        let mut chars = item.chars();
        matches!(chars.next(), Some('A' | 'B' | 'C'))
            && item.len() > 1
            && !item[1..].starts_with('0')
            && item[1..].chars().all(|c| c.is_ascii_digit())
    })
}
