//! The one error type of the reporters: a report could not be written. It names the file
//! involved; it never describes a failure of the target (those are verdicts, not errors).

use std::path::PathBuf;

/// A reporter could not produce its output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The report directory could not be created.
    #[error("cannot create report directory {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A report file could not be written.
    #[error("cannot write report file {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A report could not be serialized (JSON or JUnit XML).
    #[error("cannot serialize report file {}", path.display())]
    Serialize {
        /// The file it was meant for.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The terminal (or whatever writer the terminal reporter was given) refused output.
    #[error("cannot write terminal output")]
    Terminal {
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Writes `contents` to `path` through a sibling temporary file and a rename, so a reader
/// never sees a half-written report.
pub(crate) fn write_file(path: &std::path::Path, contents: &[u8]) -> Result<(), ReportError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let err = |source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    };
    std::fs::write(&tmp, contents).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(err)
}
