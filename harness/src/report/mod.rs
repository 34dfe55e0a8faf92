//! Reports: turns the runner's [`RunEvent`](crate::runner::RunEvent) stream into what people
//! and CI read — the terminal summary, `results.json`, `junit.xml`, `report.html` and
//! `summary.md`.
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
mod junit;
mod labels;
mod markdown;
mod record;
mod reporter;
mod terminal;
mod text;

pub use diff::{
    diff_lines, pair_side_by_side, visible, DiffLine, LineDiff, LineTag, Segment, CONTEXT_LINES,
};
pub use error::ReportError;
pub use files::{FileFormat, FileReporter};
pub use hex::{hex_dump, HexDump, HexRow, BYTES_PER_ROW};
pub use html::{render_html, HTML_FILE};
pub use json::{render_json, JSON_FILE};
pub use junit::{render_junit, JUNIT_FILE};
pub use markdown::{render_markdown, MARKDOWN_FILE};
pub use record::{RunRecord, RunTotals};
pub use reporter::{file_reporters, standard_reporters, Reporter, Reporters};
pub use terminal::{TerminalOptions, TerminalReporter};
