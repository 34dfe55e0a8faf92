//! Known-flaky scenarios for a CI gate on a live target (`--quarantine FILE`): each entry
//! names a scenario (an id or a glob), why it is quarantined and until when. A quarantined
//! scenario still runs and is reported with its verdict; only the gate ignores it. An entry
//! that has expired, or that matches no selected scenario, fails the run, so the file cannot
//! rot. Retries (`--retries N`) live in the runner; this module owns only the file and its
//! rules. Pure: today's date is passed in.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::select::glob_match;

/// One quarantined scenario (or glob of scenarios).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuarantineEntry {
    /// Scenario id, or a glob (`c1324-retry-*`).
    pub id: String,
    /// Why it is quarantined (an issue link, a sentence).
    pub reason: String,
    /// The last day it is quarantined, `YYYY-MM-DD` (UTC); from the next day on the entry
    /// fails the run.
    pub expires: String,
}

/// A quarantine file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quarantine {
    /// The entries.
    pub quarantine: Vec<QuarantineEntry>,
}

/// A quarantine file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum QuarantineError {
    /// It cannot be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a quarantine file (the parser's message has its line and column).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The parser's first line.
        message: String,
    },
    /// An entry's `expires` is not a `YYYY-MM-DD` date.
    #[error("{path}: entry {id:?}: expires {expires:?} is not a date (YYYY-MM-DD)")]
    BadDate {
        /// The file.
        path: String,
        /// The entry's id.
        id: String,
        /// What was written.
        expires: String,
    },
    /// An entry without a reason.
    #[error("{path}: entry {id:?} gives no reason")]
    NoReason {
        /// The file.
        path: String,
        /// The entry's id.
        id: String,
    },
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian), if it is one.
pub fn days_from_date(s: &str) -> Option<i64> {
    let mut parts = s.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > month_days[(m - 1) as usize] {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

impl Quarantine {
    /// Reads and checks a quarantine file.
    pub fn load(path: &Path) -> Result<Self, QuarantineError> {
        let p = || path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| QuarantineError::Read { path: p(), source })?;
        let q: Quarantine = serde_saphyr::from_str(&text).map_err(|e| QuarantineError::Parse {
            path: p(),
            message: e.to_string().lines().next().unwrap_or("").to_owned(),
        })?;
        for e in &q.quarantine {
            if days_from_date(&e.expires).is_none() {
                return Err(QuarantineError::BadDate {
                    path: p(),
                    id: e.id.clone(),
                    expires: e.expires.clone(),
                });
            }
            if e.reason.trim().is_empty() {
                return Err(QuarantineError::NoReason {
                    path: p(),
                    id: e.id.clone(),
                });
            }
        }
        Ok(q)
    }

    /// The entry quarantining `id`, if any (the first that matches).
    pub fn entry(&self, id: &str) -> Option<&QuarantineEntry> {
        self.quarantine.iter().find(|e| glob_match(&e.id, id))
    }

    /// What is wrong with the file for a run of `selected` ids on day `today` (days since
    /// the epoch, UTC): each expired entry and each entry that matches no selected scenario,
    /// in file order.
    pub fn problems(&self, selected: &[&str], today: i64) -> Vec<String> {
        let mut out = Vec::new();
        for e in &self.quarantine {
            if days_from_date(&e.expires).is_some_and(|d| d < today) {
                out.push(format!(
                    "quarantine entry {:?} expired on {} ({}): fix the scenario's cause or renew the entry",
                    e.id, e.expires, e.reason
                ));
            }
            if !selected.iter().any(|id| glob_match(&e.id, id)) {
                out.push(format!(
                    "quarantine entry {:?} matches no selected scenario: remove it",
                    e.id
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_days_from_the_epoch() {
        assert_eq!(days_from_date("1970-01-01"), Some(0));
        assert_eq!(days_from_date("2000-03-01"), Some(11_017));
        assert_eq!(days_from_date("2026-12-04"), Some(20_791));
        assert_eq!(days_from_date("2024-02-29"), Some(19_782));
        for bad in [
            "2023-02-29",
            "2026-13-01",
            "2026-1-01",
            "26-01-01",
            "2026-01-01T",
            "",
        ] {
            assert_eq!(days_from_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn expired_and_never_matching_entries_are_problems() {
        let q = Quarantine {
            quarantine: vec![
                QuarantineEntry {
                    id: "c1324-retry-*".into(),
                    reason: "slow CI".into(),
                    expires: "2026-12-31".into(),
                },
                QuarantineEntry {
                    id: "b1324-old".into(),
                    reason: "flaky".into(),
                    expires: "2026-12-03".into(),
                },
            ],
        };
        let today = days_from_date("2026-12-04").unwrap();
        assert_eq!(
            q.entry("c1324-retry-after-timeout")
                .map(|e| e.reason.as_str()),
            Some("slow CI")
        );
        assert_eq!(q.entry("c1324-other"), None);
        assert_eq!(
            q.problems(&["c1324-retry-after-timeout", "b1324-old"], today),
            vec!["quarantine entry \"b1324-old\" expired on 2026-12-03 (flaky): fix the scenario's cause or renew the entry".to_string()]
        );
        assert_eq!(
            q.problems(&["c1324-retry-x"], days_from_date("2026-12-03").unwrap())
                .len(),
            1
        );
    }
}
