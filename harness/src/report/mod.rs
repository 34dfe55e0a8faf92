//! Reports: turns the runner's [`RunEvent`](crate::runner::RunEvent) stream into what people
//! and CI read — the terminal summary, `results.json`, `junit.xml`, `report.html`,
//! `summary.md`, `results.sarif` and the JSON-lines event stream.
//!
//! Every reporter implements [`Reporter`] and consumes events only: nothing here reaches into
//! runner state, runs scenarios, decides verdicts or redacts values (events arrive redacted).
//! This module only declares and re-exports; the logic lives in the named files.

mod diff;
mod error;
mod files;
mod hex;
mod html;
mod json;
mod json_lines;
mod junit;
mod kill_tables;
mod labels;
mod markdown;
mod mutants;
mod record;
mod reporter;
mod sarif;
mod terminal;
mod text;
mod wiring;

pub use diff::{
    diff_lines, pair_side_by_side, uncompared_lines, visible, yaml_paths, DiffLine, LineDiff,
    LineTag, Segment, CONTEXT_LINES,
};
pub use error::ReportError;
pub use files::{FileFormat, FileReporter};
pub use hex::{hex_dump, HexDump, HexRow, BYTES_PER_ROW};
pub use html::{render_html, render_html_with, HtmlOptions, HTML_FILE};
pub use json::{render_json, JSON_FILE};
pub use json_lines::{JsonLinesReporter, MessageFormat};
pub use junit::{render_junit, JUNIT_FILE};
pub use kill_tables::{
    render_table, splice_tables, DocTablesError, Layout, MatrixView, Table, VariantView,
    DOC_TABLES_COMMAND, TABLES,
};
pub use markdown::{render_markdown, MARKDOWN_FILE};
pub use mutants::{
    render_mutants_html, render_mutants_json, render_mutants_text, render_mutants_text_with,
    write_mutants_reports, MUTANTS_HTML_FILE, MUTANTS_JSON_FILE,
};
pub use record::{RunRecord, RunTotals};
pub use reporter::{Reporter, Reporters};
pub use sarif::{
    artifact_uri, parse_location, render_sarif, sarif_level, SARIF_FILE, SARIF_SCHEMA,
    SARIF_VERSION,
};
pub use terminal::{ColorChoice, TerminalOptions, TerminalReporter};
pub use wiring::{file_reporters, standard_reporters};
