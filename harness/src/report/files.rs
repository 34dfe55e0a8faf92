//! The file reports (`results.json`, `junit.xml`, `report.html`, `summary.md`,
//! `results.sarif`): one
//! [`FileReporter`] records the event stream once and, at `finish`, renders every
//! [`FileFormat`] it was given from that one record. It renders events only; it judges nothing.

use std::path::{Path, PathBuf};

use super::error::{write_file, ReportError};
use super::html::{render_html_with, HtmlOptions, HTML_FILE};
use super::json::{render_json, JSON_FILE};
use super::junit::{render_junit, JUNIT_FILE};
use super::markdown::{render_markdown, MARKDOWN_FILE};
use super::record::RunRecord;
use super::reporter::Reporter;
use super::sarif::{render_sarif, SARIF_FILE};
use crate::runner::RunEvent;

/// A file format a [`FileReporter`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileFormat {
    /// `results.json`, machine-readable.
    Json,
    /// `junit.xml`, for CI test tabs.
    Junit,
    /// `report.html`, for people.
    Html,
    /// `summary.md`, for pull-request comments.
    Markdown,
    /// `results.sarif`, for code scanning.
    Sarif,
}

impl FileFormat {
    /// Every format, in the order files are written.
    pub const ALL: [FileFormat; 5] = [
        Self::Json,
        Self::Junit,
        Self::Html,
        Self::Markdown,
        Self::Sarif,
    ];

    /// The file name inside the report directory.
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Json => JSON_FILE,
            Self::Junit => JUNIT_FILE,
            Self::Html => HTML_FILE,
            Self::Markdown => MARKDOWN_FILE,
            Self::Sarif => SARIF_FILE,
        }
    }

    /// Renders the whole file from a record; `path` only names the file in an error.
    pub fn render(self, record: &RunRecord, path: &Path) -> Result<String, ReportError> {
        let serialize = |source: Box<dyn std::error::Error + Send + Sync>| ReportError::Serialize {
            path: path.to_path_buf(),
            source,
        };
        match self {
            Self::Json => render_json(record).map_err(|e| serialize(Box::new(e))),
            Self::Junit => render_junit(record).map_err(|e| serialize(Box::new(e))),
            Self::Html => Ok(render_html_with(
                record,
                &HtmlOptions {
                    link_base: link_base(path.parent().unwrap_or(Path::new(""))),
                },
            )),
            Self::Markdown => Ok(render_markdown(record)),
            Self::Sarif => render_sarif(record).map_err(|e| serialize(Box::new(e))),
        }
    }
}

/// How a page in `dir` links to a path relative to the directory kipcheck runs in: `../`
/// per level for a plain relative `dir` (`reports/latest` → `../../`), else that directory
/// as a `file://` URL.
fn link_base(dir: &Path) -> String {
    use std::path::Component;
    if dir.is_relative()
        && dir
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        let depth = dir
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count();
        return "../".repeat(depth);
    }
    match std::env::current_dir() {
        Ok(cwd) => format!("file://{}/", cwd.display()),
        Err(_) => String::new(),
    }
}

/// Records the run once and writes each of its formats into a directory at `finish`.
#[derive(Debug)]
pub struct FileReporter {
    dir: PathBuf,
    formats: Vec<FileFormat>,
    record: RunRecord,
    written: bool,
}

impl FileReporter {
    /// A reporter that will write `formats` into `dir` (which must exist by `finish`).
    pub fn new(dir: impl Into<PathBuf>, formats: &[FileFormat]) -> Self {
        Self {
            dir: dir.into(),
            formats: formats.to_vec(),
            record: RunRecord::new(),
            written: false,
        }
    }

    /// The record so far.
    pub fn record(&self) -> &RunRecord {
        &self.record
    }

    /// Writes every file for a run that has not finished (it replaces the previous run's).
    pub fn write_unfinished(&self) -> Result<(), ReportError> {
        self.write(&RunRecord::new())
    }

    /// Writes every format of `record`, even after one fails; returns the first error.
    fn write(&self, record: &RunRecord) -> Result<(), ReportError> {
        let mut first = Ok(());
        for format in &self.formats {
            let path = self.dir.join(format.file_name());
            let written = format
                .render(record, &path)
                .and_then(|text| write_file(&path, text.as_bytes()));
            if let Err(e) = written {
                first = first.and(Err(e));
            }
        }
        first
    }
}

impl Reporter for FileReporter {
    fn on_event(&mut self, event: &RunEvent) -> Result<(), ReportError> {
        self.record.record(event);
        Ok(())
    }

    /// Writes every file, even after one fails; returns the first error. Writes once.
    fn finish(&mut self) -> Result<(), ReportError> {
        if std::mem::replace(&mut self.written, true) {
            return Ok(());
        }
        self.write(&self.record)
    }

    /// Writes every file saying the run was aborted and why, with what it saw.
    fn abort(&mut self, reason: &str) -> Result<(), ReportError> {
        self.record.abort(reason);
        self.finish()
    }
}
