//! `report.html`: one self-contained page (inline CSS and JS, no external resources) to
//! browse a run: the outcome (or why the run was aborted) with a link to the first finding,
//! summary by KIP, filters (verdict, KIP, text; kept in the URL's `#f=` fragment), the
//! scenarios with findings first, and per finding the failing step, the mismatches (error
//! codes named), expected vs actual side by side with changed tokens highlighted and fields
//! the match did not compare set apart, hex dumps of raw bytes, the exchange that led to the
//! failure (collapsible), the scenario's own source (collapsible, line-numbered, the failing
//! step's line highlighted) and the reproduction command. Flaky scenarios (passed on a retry)
//! carry a FLAKY badge with the attempt count; quarantined ones a QUARANTINED badge and the
//! quarantine's reason. Every value from the events is HTML-escaped here; nothing is decided
//! or redacted here.
//!
//! # The page stands alone
//!
//! An installed `kipcheck` runs its built-in suite: the `path` of a result
//! (`scenarios/kip1324-broker/x.yaml`) names no file on the reader's disk, so the page does
//! not link to it. Instead the source of every scenario with something to read (failed,
//! errored, unexpected pass, and flaky: each carries a failure or a stale baseline entry) is
//! embedded in the page. Where the text comes from:
//!
//! - a run of the built-in suite (the result's reproduction command names no
//!   `--scenarios`): [`embedded::file`]`(path)`, the very text the run loaded; a path the
//!   built-in suite lacks (a result from another source) falls back to the file below;
//! - a `--scenarios DIR` run: the file at `path` (relative to the directory kipcheck runs
//!   in, as the loader named it), read once when the page is rendered, if it still exists;
//!   only these results link to their file (`HtmlOptions::link_base` + path, or a `file://`
//!   URL for an absolute path), since only these files exist where the report is read.
//!
//! Reading a file is not a reporter's job, and this is the one place a reporter does: the
//! file may have changed between the run and the end of it, and the highlighted line would
//! then point into other text. The sound fix is for the runner to carry the loaded text in
//! the event (e.g. `ScenarioResult::source: Option<Arc<str>>`, set for results with a
//! failure, or on `Failure` itself), as it already carries `step_yaml`; this module then
//! reads no file. Until then the read is confined to [`scenario_source`].
//!
//! The parts: `page.rs` (the page around the scenarios: header, summary by KIP, filters),
//! `scenario.rs` (one scenario's block, its source and file link), `failure.rs` (a failure's
//! mismatches, diff, hex dump and exchange log) and `escape.rs`. This file only declares them
//! and re-exports their names, so `report::html::X` paths stay as they were.

mod escape;
mod failure;
mod page;
mod scenario;

pub(crate) use escape::escape;
pub use page::{render_html, render_html_with, HTML_FILE};
pub use scenario::HtmlOptions;
