//! Which reporters a run gets: [`standard_reporters`] (the terminal and every file format
//! for a report directory) and [`file_reporters`] (the files alone). Outside `reporter.rs`
//! so the trait's file depends on no format.

use std::path::Path;

use super::error::ReportError;
use super::files::{FileFormat, FileReporter};
use super::reporter::Reporters;
use super::terminal::{TerminalOptions, TerminalReporter};

/// Creates `report_dir` (and its parents) and wires the terminal reporter (on stdout, with
/// `terminal`) and every file reporter of [`file_reporters`].
pub fn standard_reporters(
    report_dir: &Path,
    terminal: TerminalOptions,
) -> Result<Reporters, ReportError> {
    let files = prepared_files(report_dir)?;
    let mut reporters = Reporters::new();
    reporters.push(TerminalReporter::new(std::io::stdout(), terminal));
    reporters.push(files);
    Ok(reporters)
}

/// Creates `report_dir` (and its parents) and wires the file reporters: `results.json`,
/// `junit.xml`, `report.html` and `summary.md` in it. The previous run's files are
/// overwritten at once with a report of a run that has not finished, so a run that dies
/// before writing its own never leaves an older outcome in their place.
pub fn file_reporters(report_dir: &Path) -> Result<Reporters, ReportError> {
    let mut reporters = Reporters::new();
    reporters.push(prepared_files(report_dir)?);
    Ok(reporters)
}

/// The file reporter of [`file_reporters`], its directory created and the ABORTED
/// placeholders written.
fn prepared_files(report_dir: &Path) -> Result<FileReporter, ReportError> {
    std::fs::create_dir_all(report_dir).map_err(|source| ReportError::CreateDir {
        path: report_dir.to_path_buf(),
        source,
    })?;
    let files = FileReporter::new(report_dir, &FileFormat::ALL);
    files.write_unfinished()?;
    Ok(files)
}
