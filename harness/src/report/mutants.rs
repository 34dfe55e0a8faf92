//! The kill-matrix reports of `kipcheck mutants`: `mutants.json` (format
//! [`MUTANTS_FORMAT_VERSION`]), `mutants.html`, and the terminal text. They render a
//! [`KillMatrix`] the runner computed and add no judgement of their own.

use std::fmt::Write as _;
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

const CSS: &str = include_str!("assets/report.css");
const MUTANTS_CSS: &str = include_str!("assets/mutants.css");
const MUTANTS_JS: &str = include_str!("assets/mutants.js");

/// Escaped text with Markdown code spans (`` `x` ``, as the variants' bug lines use them)
/// turned into `<code>`.
fn code_spans(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        // An unmatched backtick: leave the text as it is.
        return escape(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", escape(p))
            } else {
                escape(p)
            }
        })
        .collect()
}

/// Renders `mutants.html`: one self-contained page with the headline, the survivors and the
/// scenarios that catch nothing, the variant × scenario matrix (a dot where the scenario
/// catches the variant; its title is the command that shows it) with filters (text, scenarios
/// that catch nothing, survivors), and the variants with their bugs and catching scenarios.
/// Every variant and scenario is an anchor (`#v-NAME`, `#m-ID`) the others link to.
pub fn render_mutants_html(m: &KillMatrix) -> String {
    let mut h = String::with_capacity(64 * 1024);
    let caught_all = m.all_caught();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>kipcheck faulty variants: {}/{} caught</title>\n<style>\n{CSS}{MUTANTS_CSS}</style>\n</head>\n<body>\n",
        m.caught(),
        m.variants.len()
    );
    let _ = writeln!(
        h,
        "<header class=\"run {}\">\n<h1>kipcheck: faulty variants</h1>\n<p id=\"summary\" class=\"counts\">{}</p>",
        if caught_all { "passed" } else { "failed" },
        escape(&headline(m))
    );
    let survivors: Vec<&VariantOutcome> = m.variants.iter().filter(|v| !v.caught()).collect();
    if survivors.is_empty() {
        h.push_str("<p class=\"survivors\">every variant is caught by at least one scenario</p>\n");
    } else {
        let _ = write!(
            h,
            "<p class=\"survivors\"><b>{} survivor{}</b> (no scenario catches them):",
            survivors.len(),
            if survivors.len() == 1 { "" } else { "s" }
        );
        for v in &survivors {
            let _ = write!(
                h,
                " <a href=\"#v-{0}\"><code>{0}</code></a>",
                escape(&v.name)
            );
        }
        h.push_str("</p>\n");
    }
    let dead = m.dead_weight();
    let _ = write!(
        h,
        "<p class=\"dead-weight\">{} scenario{} catch{} no variant",
        dead.len(),
        if dead.len() == 1 { "" } else { "s" },
        if dead.len() == 1 { "es" } else { "" }
    );
    if !dead.is_empty() {
        h.push_str(" (<a href=\"#matrix\" id=\"show-dead\">show them</a>)");
    }
    h.push_str("</p>\n");
    if !m.reference_failures.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"aborted\">failing against the reference (not counted): {}</p>",
            escape(&m.reference_failures.join(", "))
        );
    }
    h.push_str("</header>\n");

    // The matrix: scenarios as rows, variants as columns.
    h.push_str(
        "<section id=\"matrix-section\">\n<h2>Variant × scenario</h2>\n<div class=\"filters\">\n",
    );
    h.push_str("<input type=\"search\" id=\"m-text\" placeholder=\"filter scenarios and variants by name\" aria-label=\"filter\">\n");
    h.push_str("<label><input type=\"checkbox\" id=\"m-dead\"> only scenarios that catch nothing</label>\n");
    h.push_str(
        "<label><input type=\"checkbox\" id=\"m-survivors\"> only survivors' columns</label>\n",
    );
    let _ = writeln!(
        h,
        "<span><span id=\"m-shown\">{0}</span> of {0} scenarios shown</span>\n</div>",
        m.scenarios.len()
    );
    h.push_str("<div class=\"matrix-wrap\"><table id=\"matrix\" class=\"matrix\">\n<thead><tr><th class=\"sid\">scenario</th><th class=\"n\">catches</th>");
    for v in &m.variants {
        let _ = write!(
            h,
            "<th class=\"var{}\" data-variant=\"{name}\"><a href=\"#v-{name}\" title=\"{bug}\"><span>{name}</span></a></th>",
            if v.caught() { "" } else { " survived" },
            name = escape(&v.name),
            bug = escape(&v.bug.replace('`', "")),
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (s, vs) in m.by_scenario() {
        let _ = write!(
            h,
            "<tr id=\"m-{id}\" class=\"{class}\" data-scenario=\"{id}\"><th class=\"sid\"><code>{id}</code></th><td class=\"n\">{n}</td>",
            id = escape(s),
            class = if vs.is_empty() { "dead" } else { "" },
            n = vs.len(),
        );
        for v in &m.variants {
            let hit = vs.contains(&v.name.as_str());
            let survived = if v.caught() { "" } else { " survived" };
            if hit {
                let _ = write!(
                    h,
                    "<td class=\"hit{survived}\" title=\"{id} catches {name}: kipcheck run --target mutant:{name} --seed {seed} --id {id}\">●</td>",
                    id = escape(s),
                    name = escape(&v.name),
                    seed = m.seed,
                );
            } else {
                let _ = write!(h, "<td class=\"miss{survived}\"></td>");
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table></div>\n</section>\n");

    // The variants, survivors first.
    h.push_str("<section id=\"variants-section\">\n<h2>Variants</h2>\n<table id=\"variants\" class=\"mismatches\">\n<thead><tr><th>variant</th><th>bug</th><th>caught by</th></tr></thead>\n<tbody>\n");
    let mut order: Vec<&VariantOutcome> = m.variants.iter().collect();
    order.sort_by_key(|v| v.caught());
    for v in order {
        let by = if v.caught() {
            v.killed_by
                .iter()
                .map(|s| format!("<a href=\"#m-{0}\"><code>{0}</code></a>", escape(s)))
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            "<span class=\"badge v-failed\">SURVIVED</span>".into()
        };
        let _ = writeln!(
            h,
            "<tr id=\"v-{name}\" class=\"{}\"><td><code>{name}</code></td><td>{}</td><td>{by}</td></tr>",
            if v.caught() { "caught" } else { "survived" },
            code_spans(&v.bug),
            name = escape(&v.name),
        );
    }
    h.push_str("</tbody>\n</table>\n</section>\n");
    let _ = write!(h, "<script>\n{MUTANTS_JS}</script>\n</body>\n</html>\n");
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
