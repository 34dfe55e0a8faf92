//! The kill-matrix reports of `kipcheck mutants`: `mutants.json` (format
//! [`MUTANTS_FORMAT_VERSION`]), `mutants.html`, and the terminal text. They render a
//! [`KillMatrix`] the runner computed and add no judgement of their own.

use std::path::Path;

use serde::Serialize;

use super::error::{write_file, ReportError};
use super::html::escape;
use super::text::Paint;
use crate::runner::{KillMatrix, VariantOutcome, MUTANTS_FORMAT_VERSION};

/// File name of the JSON kill matrix inside the report directory.
pub const MUTANTS_JSON_FILE: &str = "mutants.json";
/// File name of the HTML kill matrix inside the report directory.
pub const MUTANTS_HTML_FILE: &str = "mutants.html";

#[derive(Serialize)]
struct MutantsFile<'a> {
    format_version: u32,
    seed: u64,
    observed: bool,
    scenarios: usize,
    variants_total: usize,
    caught: usize,
    survivors: Vec<&'a str>,
    reference_failures: &'a [String],
    variants: Vec<VariantEntry<'a>>,
    scenarios_catching: std::collections::BTreeMap<&'a str, Vec<&'a str>>,
    dead_weight: Vec<&'a str>,
}

#[derive(Serialize)]
struct VariantEntry<'a> {
    name: &'a str,
    bug: &'a str,
    caught: bool,
    killed_by: &'a [String],
}

fn entry(v: &VariantOutcome) -> VariantEntry<'_> {
    VariantEntry {
        name: &v.name,
        bug: &v.bug,
        caught: v.caught(),
        killed_by: &v.killed_by,
    }
}

/// Renders `mutants.json` (pretty-printed, with a final newline).
pub fn render_mutants_json(m: &KillMatrix) -> Result<String, serde_json::Error> {
    let file = MutantsFile {
        format_version: MUTANTS_FORMAT_VERSION,
        seed: m.seed,
        observed: m.observed,
        scenarios: m.scenarios.len(),
        variants_total: m.variants.len(),
        caught: m.caught(),
        survivors: m.survivors(),
        reference_failures: &m.reference_failures,
        variants: m.variants.iter().map(entry).collect(),
        scenarios_catching: m.by_scenario(),
        dead_weight: m.dead_weight(),
    };
    let mut s = serde_json::to_string_pretty(&file)?;
    s.push('\n');
    Ok(s)
}

/// The headline: `N/M variants caught`.
fn headline(m: &KillMatrix) -> String {
    format!(
        "{}/{} faulty variants caught by {} scenarios (seed {}{})",
        m.caught(),
        m.variants.len(),
        m.scenarios.len(),
        m.seed,
        if m.observed {
            ""
        } else {
            ", on the wire only: --observe none"
        }
    )
}

/// Renders the terminal text without colour; see [`render_mutants_text_with`].
pub fn render_mutants_text(m: &KillMatrix) -> String {
    render_mutants_text_with(m, false)
}

/// Renders the terminal text: one line per variant, survivors, dead weight, the headline;
/// with `color`, `caught` green and `SURVIVED` bold red.
pub fn render_mutants_text_with(m: &KillMatrix, color: bool) -> String {
    let p = Paint { color };
    let mut out = String::new();
    let width = m.variants.iter().map(|v| v.name.len()).max().unwrap_or(0);
    for v in &m.variants {
        let status = if v.caught() {
            p.green("caught  ")
        } else {
            p.red(&p.bold("SURVIVED"))
        };
        out.push_str(&format!(
            "{status} {:width$}  {} scenario(s): {}\n",
            v.name,
            v.killed_by.len(),
            v.killed_by.join(", ")
        ));
    }
    if !m.reference_failures.is_empty() {
        out.push_str(&format!(
            "\nscenarios failing against the reference (not counted): {}\n",
            m.reference_failures.join(", ")
        ));
    }
    let survivors = m.survivors();
    if !survivors.is_empty() {
        out.push_str("\nsurvivors (no scenario catches them):\n");
        for v in m.variants.iter().filter(|v| !v.caught()) {
            out.push_str(&format!("  {}: {}\n", v.name, v.bug));
        }
    }
    let dead = m.dead_weight();
    out.push_str(&format!(
        "\ndead weight: {} scenario(s) catch no variant{}{}\n",
        dead.len(),
        if dead.is_empty() { "" } else { ": " },
        dead.join(", ")
    ));
    out.push_str(&headline(m));
    out.push('\n');
    out
}

/// Renders `mutants.html`: the summary, the per-variant table and the per-scenario table.
pub fn render_mutants_html(m: &KillMatrix) -> String {
    let mut h = String::new();
    h.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<title>kipcheck faulty variants</title><style>");
    h.push_str("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}");
    h.push_str("td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}");
    h.push_str(".survived{background:#fdd}.dead{color:#888}</style></head><body>\n");
    h.push_str(&format!(
        "<h1>Faulty variants</h1>\n<p id=\"summary\">{}</p>\n",
        escape(&headline(m))
    ));
    if !m.reference_failures.is_empty() {
        h.push_str(&format!(
            "<p class=\"survived\">Failing against the reference (not counted): {}</p>\n",
            escape(&m.reference_failures.join(", "))
        ));
    }
    h.push_str("<h2>Variants</h2>\n<table id=\"variants\"><tr><th>variant</th><th>bug</th><th>caught by</th></tr>\n");
    for v in &m.variants {
        let class = if v.caught() {
            ""
        } else {
            " class=\"survived\""
        };
        let by = if v.caught() {
            v.killed_by.join(", ")
        } else {
            "SURVIVED".into()
        };
        h.push_str(&format!(
            "<tr{class}><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
            escape(&v.name),
            escape(&v.bug),
            escape(&by)
        ));
    }
    h.push_str("</table>\n<h2>Scenarios</h2>\n<table id=\"scenarios\"><tr><th>scenario</th><th>catches</th></tr>\n");
    for (s, vs) in m.by_scenario() {
        let (class, text) = if vs.is_empty() {
            (" class=\"dead\"", "nothing (dead weight)".to_string())
        } else {
            ("", vs.join(", "))
        };
        h.push_str(&format!(
            "<tr{class}><td><code>{}</code></td><td>{}</td></tr>\n",
            escape(s),
            escape(&text)
        ));
    }
    h.push_str("</table>\n</body></html>\n");
    h
}

/// Writes `mutants.json` and `mutants.html` into `dir` (created if missing).
pub fn write_mutants_reports(dir: &Path, m: &KillMatrix) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let json_path = dir.join(MUTANTS_JSON_FILE);
    let json = render_mutants_json(m).map_err(|e| ReportError::Serialize {
        path: json_path.clone(),
        source: Box::new(e),
    })?;
    write_file(&json_path, json.as_bytes())?;
    write_file(
        &dir.join(MUTANTS_HTML_FILE),
        render_mutants_html(m).as_bytes(),
    )
}
