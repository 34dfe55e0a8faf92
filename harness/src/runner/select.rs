//! Choosing which scenarios run: filters (id glob, KIP, tag, grade) and partitions for
//! sharding a suite across CI jobs (`hash:M/N`, stable across releases; `count:M/N`).
//! Pure functions over loaded scenarios.

use std::str::FromStr;

use super::events::Grade;
use crate::scenario::Scenario;

/// The documented, stable hash behind `hash:M/N` partitions and per-scenario seeds
/// (FNV-1a, 64-bit; one implementation, [`crate::hash`]).
pub use crate::hash::fnv1a64;

/// `*` (any run) and `?` (any one character) glob match.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Which scenarios to run. Empty lists mean "no restriction".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    /// Id globs; a scenario runs if any matches.
    pub ids: Vec<String>,
    /// KIPs (`KIP-1324` or `1324`).
    pub kips: Vec<String>,
    /// Tags; a scenario runs if it has any of them.
    pub tags: Vec<String>,
    /// Grade.
    pub grade: Option<Grade>,
}

impl Filters {
    /// True if `s` passes every filter.
    pub fn accepts(&self, s: &Scenario) -> bool {
        let f = &s.file;
        (self.ids.is_empty() || self.ids.iter().any(|g| glob_match(g, &f.id)))
            && (self.kips.is_empty()
                || self.kips.iter().any(|k| {
                    let k = k.trim_start_matches("KIP-").trim_start_matches("kip-");
                    f.kip.trim_start_matches("KIP-") == k
                }))
            && (self.tags.is_empty() || self.tags.iter().any(|t| f.tags.contains(t)))
            && self.grade.is_none_or(|g| f.grade == g)
    }
}

/// A shard of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// Shard `m` of `n` by [`fnv1a64`] of the id: stable when scenarios are added.
    Hash {
        /// 1-based shard.
        m: u64,
        /// Shards.
        n: u64,
    },
    /// Shard `m` of `n` by position in the sorted selection: balanced counts.
    Count {
        /// 1-based shard.
        m: u64,
        /// Shards.
        n: u64,
    },
}

/// A `--partition` value that is not `hash:M/N` or `count:M/N` with 1 <= M <= N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("partition {given:?}: expected hash:M/N or count:M/N with 1 <= M <= N")]
pub struct PartitionError {
    /// The text given.
    pub given: String,
}

impl FromStr for Partition {
    type Err = PartitionError;
    fn from_str(s: &str) -> Result<Self, PartitionError> {
        let bad = || PartitionError {
            given: s.to_owned(),
        };
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let (m, n) = rest.split_once('/').ok_or_else(bad)?;
        let m: u64 = m.parse().map_err(|_| bad())?;
        let n: u64 = n.parse().map_err(|_| bad())?;
        if n == 0 || m == 0 || m > n {
            return Err(bad());
        }
        match kind {
            "hash" => Ok(Partition::Hash { m, n }),
            "count" => Ok(Partition::Count { m, n }),
            _ => Err(bad()),
        }
    }
}

/// Applies filters, then the partition, to scenarios sorted by id.
pub fn select(
    all: Vec<Scenario>,
    filters: &Filters,
    partition: Option<Partition>,
) -> Vec<Scenario> {
    let mut chosen: Vec<Scenario> = all.into_iter().filter(|s| filters.accepts(s)).collect();
    chosen.sort_by(|a, b| a.file.id.cmp(&b.file.id));
    match partition {
        None => chosen,
        Some(Partition::Hash { m, n }) => chosen
            .into_iter()
            .filter(|s| fnv1a64(&s.file.id) % n == m - 1)
            .collect(),
        Some(Partition::Count { m, n }) => chosen
            .into_iter()
            .enumerate()
            .filter(|(i, _)| (*i as u64) % n == m - 1)
            .map(|(_, s)| s)
            .collect(),
    }
}

/// The seed of one scenario: the run seed mixed with the id, so a scenario's randomness does
/// not depend on which other scenarios run.
pub fn scenario_seed(run_seed: u64, id: &str) -> u64 {
    run_seed ^ fnv1a64(id).rotate_left(17)
}
