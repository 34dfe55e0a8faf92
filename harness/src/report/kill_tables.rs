//! The kill-matrix tables of `docs/mutants.md`, rendered from two `kipcheck mutants` results
//! (seed 1 with events, and `--observe none`) and spliced between the doc's
//! `<!-- generated: NAME -->` … `<!-- end generated -->` markers. Which variants go in which
//! table is the data in [`TABLES`]; the counts and scenario lists are the tool's. Pure text in
//! and out: reading and writing the files is the CLI's job (`kipcheck mutants --doc-tables`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::runner::KillMatrix;

/// The command that regenerates the tables (from the repository root).
pub const DOC_TABLES_COMMAND: &str = "kipcheck mutants --seed 1 --observe none --report-dir target/wire && kipcheck mutants --seed 1 --wire-json target/wire/mutants.json --doc-tables docs/mutants.md";

/// Scenario ids a cell lists before it cuts the list short.
const LISTED: usize = 5;

/// How a table lays out its counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `| variant | bug | caught (observed / wire) | scenarios |`: two counts, then the
    /// scenarios that catch it with events.
    Counts,
    /// `| variant | bug | caught by (with events) | of which on the wire alone |`: the
    /// scenarios with events, then those on the wire alone ("the same N" when equal).
    Lists,
}

/// One generated table: its marker name, layout and variants (in this order).
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// The name in its `<!-- generated: NAME -->` marker.
    pub name: &'static str,
    /// Its columns.
    pub layout: Layout,
    /// Its rows, by variant name.
    pub variants: &'static [&'static str],
}

/// The generated tables of `docs/mutants.md`.
pub const TABLES: &[Table] = &[
    Table {
        name: "kill-matrix-kip1326",
        layout: Layout::Counts,
        variants: &[
            "static-configs-string-value-of",
            "reports-only-explicit-configs",
            "reports-password-as-null",
            "drops-default-static-configs",
            "static-configs-wrong-tag",
            "registration-audit-at-broker-max",
            "fenced-record-for-refused-registration",
            "mv-floor-strictly-below",
            "applies-every-mv-validator",
            "mv-validator-replaces-static",
            "list-op-validates-delta",
            "validate-only-skips-audit",
            "audit-error-per-feature",
            "audit-skips-static-configs",
            "audit-at-current-level",
        ],
    },
    Table {
        name: "kill-matrix-kip1324",
        layout: Layout::Lists,
        variants: &[
            "push-before-api-versions-answer",
            "ignores-min-version",
            "describe-configs-type-numbering",
            "list-rendered-with-tostring",
            "is-default-by-value",
            "null-value-sent-empty",
            "retries-every-other-code",
            "hard-coded-retriable-set",
            "backoff-exponent-off-by-one",
            "shrinks-after-config-too-large",
            "rehandshake-after-rejection",
            "rejection-keeps-requests-held",
            "policy-violation-instead-of-invalid-config",
            "size-counts-header",
            "refuses-empty-configs",
            "closes-after-error-response",
            "drops-policy-message",
        ],
    },
    Table {
        name: "kill-matrix-sasl",
        layout: Layout::Lists,
        variants: &[
            "push-before-authentication",
            "push-after-failed-authentication",
        ],
    },
];

/// Why the tables could not be generated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocTablesError {
    /// A `mutants.json` did not parse.
    #[error("not a kipcheck mutants.json")]
    Json(#[from] serde_json::Error),
    /// The two results are not one observed and one `--observe none` run of the same seed.
    #[error("need one run with events and one with --observe none, same seed (got observed={observed} seed {observed_seed}, observed={wire} seed {wire_seed})")]
    Modes {
        /// `observed` of the first result.
        observed: bool,
        /// Its seed.
        observed_seed: u64,
        /// `observed` of the second.
        wire: bool,
        /// Its seed.
        wire_seed: u64,
    },
    /// A table's variant is missing from a result (a run with `--mutant`?).
    #[error("variant {name} is not in the {mode} result")]
    MissingVariant {
        /// The variant.
        name: String,
        /// `observed` or `wire`.
        mode: &'static str,
    },
    /// The doc has no region for a table, or an unterminated one.
    #[error("the doc has no complete region <!-- generated: {name} --> … <!-- end generated -->")]
    NoRegion {
        /// The table.
        name: String,
    },
    /// The doc has a generated region no table fills.
    #[error("the doc has a region <!-- generated: {name} --> that no table fills")]
    UnknownRegion {
        /// The marker's name.
        name: String,
    },
}

/// The part of a kill matrix the tables need: `mutants.json` or a [`KillMatrix`].
#[derive(Clone, Debug, Deserialize)]
pub struct MatrixView {
    /// The run seed.
    pub seed: u64,
    /// False for `--observe none`.
    pub observed: bool,
    /// Per variant: name, bug, the scenarios that catch it.
    pub variants: Vec<VariantView>,
}

/// One variant of a [`MatrixView`].
#[derive(Clone, Debug, Deserialize)]
pub struct VariantView {
    /// Its name.
    pub name: String,
    /// Its bug, in one line.
    pub bug: String,
    /// The scenarios that catch it, sorted.
    pub killed_by: Vec<String>,
}

impl MatrixView {
    /// Parses a `mutants.json`.
    pub fn from_json(text: &str) -> Result<Self, DocTablesError> {
        Ok(serde_json::from_str(text)?)
    }

    fn variant(&self, name: &str, mode: &'static str) -> Result<&VariantView, DocTablesError> {
        self.variants
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| DocTablesError::MissingVariant {
                name: name.to_owned(),
                mode,
            })
    }
}

impl From<&KillMatrix> for MatrixView {
    fn from(m: &KillMatrix) -> Self {
        MatrixView {
            seed: m.seed,
            observed: m.observed,
            variants: m
                .variants
                .iter()
                .map(|v| VariantView {
                    name: v.name.clone(),
                    bug: v.bug.clone(),
                    killed_by: v.killed_by.clone(),
                })
                .collect(),
        }
    }
}

/// `a`, `b`, … up to [`LISTED`] ids; a longer list shows one fewer and says how many in all.
fn listed(ids: &[String]) -> String {
    let code = |s: &String| format!("`{s}`");
    if ids.len() <= LISTED {
        return ids.iter().map(code).collect::<Vec<_>>().join(", ");
    }
    let head: Vec<String> = ids[..LISTED - 1].iter().map(code).collect();
    format!("{}, … ({} in all)", head.join(", "), ids.len())
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Renders one table's region (the lines between its markers, with a final newline).
pub fn render_table(
    table: &Table,
    observed: &MatrixView,
    wire: &MatrixView,
) -> Result<String, DocTablesError> {
    if !observed.observed || wire.observed || observed.seed != wire.seed {
        return Err(DocTablesError::Modes {
            observed: observed.observed,
            observed_seed: observed.seed,
            wire: wire.observed,
            wire_seed: wire.seed,
        });
    }
    let mut out = String::from(match table.layout {
        Layout::Counts => {
            "| variant | bug | caught (observed / wire) | scenarios |\n|---|---|---|---|\n"
        }
        Layout::Lists => {
            "| variant | bug | caught by (with events) | of which on the wire alone (`--observe none`) |\n|---|---|---|---|\n"
        }
    });
    for name in table.variants {
        let o = observed.variant(name, "observed")?;
        let w = wire.variant(name, "wire")?;
        let (third, fourth) = match table.layout {
            Layout::Counts => (
                format!("{} / {}", o.killed_by.len(), w.killed_by.len()),
                listed(&o.killed_by),
            ),
            Layout::Lists if w.killed_by == o.killed_by => (
                listed(&o.killed_by),
                format!("the same {}", w.killed_by.len()),
            ),
            Layout::Lists => (
                listed(&o.killed_by),
                format!("{}: {}", w.killed_by.len(), listed(&w.killed_by)),
            ),
        };
        out.push_str(&format!(
            "| `{name}` | {} | {third} | {fourth} |\n",
            cell(&o.bug)
        ));
    }
    out.push_str(&format!(
        "\nGenerated (seed {}) by `{DOC_TABLES_COMMAND}`; `harness/tests/misc/docs_kill_matrix.rs` checks it.\n",
        observed.seed
    ));
    Ok(out)
}

const OPEN: &str = "<!-- generated: ";
const CLOSE: &str = "<!-- end generated -->";

/// `doc` with every table of [`TABLES`] rendered into its region. Every table needs a region
/// and every region a table.
pub fn splice_tables(
    doc: &str,
    observed: &MatrixView,
    wire: &MatrixView,
) -> Result<String, DocTablesError> {
    let mut rendered = BTreeMap::new();
    for t in TABLES {
        rendered.insert(t.name, render_table(t, observed, wire)?);
    }
    let mut out = String::with_capacity(doc.len());
    let mut filled = Vec::new();
    let mut lines = doc.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        let Some(rest) = line.trim_end().strip_prefix(OPEN) else {
            continue;
        };
        let name = rest.trim_end_matches("-->").trim();
        let Some(body) = rendered.get(name) else {
            return Err(DocTablesError::UnknownRegion {
                name: name.to_owned(),
            });
        };
        let Some(close) = lines.by_ref().find(|l| l.trim_end() == CLOSE) else {
            return Err(DocTablesError::NoRegion {
                name: name.to_owned(),
            });
        };
        out.push_str(body);
        out.push_str(close);
        filled.push(name.to_owned());
    }
    match TABLES.iter().find(|t| !filled.iter().any(|f| f == t.name)) {
        Some(t) => Err(DocTablesError::NoRegion {
            name: t.name.to_owned(),
        }),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(observed: bool, rows: &[(&str, &[&str])]) -> MatrixView {
        MatrixView {
            seed: 1,
            observed,
            variants: rows
                .iter()
                .map(|(n, k)| VariantView {
                    name: (*n).to_owned(),
                    bug: format!("Bug of {n} (a | b)."),
                    killed_by: k.iter().map(|s| (*s).to_owned()).collect(),
                })
                .collect(),
        }
    }

    const SIX: &[&str] = &["s1", "s2", "s3", "s4", "s5", "s6"];

    #[test]
    fn both_layouts_render_counts_and_cut_long_lists() {
        let counts = Table {
            name: "t",
            layout: Layout::Counts,
            variants: &["a", "b"],
        };
        let lists = Table {
            layout: Layout::Lists,
            ..counts
        };
        let o = view(true, &[("a", SIX), ("b", &["s1", "s2"]), ("c", &[])]);
        let w = view(false, &[("a", &["s2", "s3"]), ("b", &["s1", "s2"])]);
        let got = render_table(&counts, &o, &w).unwrap();
        let rows: Vec<&str> = got.lines().collect();
        assert_eq!(
            rows[2],
            "| `a` | Bug of a (a \\| b). | 6 / 2 | `s1`, `s2`, `s3`, `s4`, … (6 in all) |"
        );
        assert_eq!(
            rows[3],
            "| `b` | Bug of b (a \\| b). | 2 / 2 | `s1`, `s2` |"
        );
        assert!(rows[5].starts_with("Generated (seed 1) by `kipcheck mutants"));
        let got = render_table(&lists, &o, &w).unwrap();
        let rows: Vec<&str> = got.lines().collect();
        assert_eq!(
            rows[2],
            "| `a` | Bug of a (a \\| b). | `s1`, `s2`, `s3`, `s4`, … (6 in all) | 2: `s2`, `s3` |"
        );
        assert_eq!(
            rows[3],
            "| `b` | Bug of b (a \\| b). | `s1`, `s2` | the same 2 |"
        );
        // A missing variant and swapped modes are errors, not empty rows.
        let short = view(false, &[("a", &[])]);
        assert!(matches!(
            render_table(&counts, &o, &short),
            Err(DocTablesError::MissingVariant { ref name, mode: "wire" }) if name == "b"
        ));
        assert!(matches!(
            render_table(&counts, &w, &o),
            Err(DocTablesError::Modes {
                observed: false,
                wire: true,
                ..
            })
        ));
    }

    fn full(observed: bool) -> MatrixView {
        let names = TABLES.iter().flat_map(|t| t.variants.iter());
        let rows: Vec<(&str, &[&str])> = names.map(|n| (*n, &["s1"][..])).collect();
        view(observed, &rows)
    }

    #[test]
    fn splicing_fills_every_region_and_only_regions() {
        let (o, w) = (full(true), full(false));
        let mut doc = String::from("# Doc\n\nkept\n");
        for t in TABLES {
            doc.push_str(&format!(
                "{OPEN}{} -->\nold\n{CLOSE}\nafter {}\n",
                t.name, t.name
            ));
        }
        let out = splice_tables(&doc, &o, &w).unwrap();
        assert!(!out.contains("old\n"));
        assert!(
            out.starts_with("# Doc\n\nkept\n<!-- generated: kill-matrix-kip1326 -->\n| variant |")
        );
        for t in TABLES {
            let body = render_table(t, &o, &w).unwrap();
            let expect = format!("{OPEN}{} -->\n{body}{CLOSE}\nafter {}\n", t.name, t.name);
            assert!(out.contains(&expect), "{}", t.name);
        }
        // Idempotent.
        assert_eq!(splice_tables(&out, &o, &w).unwrap(), out);
        // A table without a region, a region without a table, an unterminated region.
        let cut = doc.replace("kill-matrix-sasl", "kill-matrix-other");
        assert!(matches!(splice_tables(&cut, &o, &w),
            Err(DocTablesError::UnknownRegion { ref name }) if name == "kill-matrix-other"));
        let first = doc
            .split("<!-- generated: kill-matrix-sasl")
            .next()
            .unwrap();
        assert!(matches!(splice_tables(first, &o, &w),
            Err(DocTablesError::NoRegion { ref name }) if name == "kill-matrix-sasl"));
        let open = format!("{first}{OPEN}kill-matrix-sasl -->\nold\n");
        assert!(matches!(splice_tables(&open, &o, &w),
            Err(DocTablesError::NoRegion { ref name }) if name == "kill-matrix-sasl"));
    }

    #[test]
    fn every_table_variant_is_a_built_in_variant_once() {
        let mut seen = Vec::new();
        for t in TABLES {
            for n in t.variants {
                assert!(crate::faulty::Fault::from_name(n).is_some(), "{n}");
                assert!(!seen.contains(n), "{n} twice");
                seen.push(*n);
            }
        }
    }
}
