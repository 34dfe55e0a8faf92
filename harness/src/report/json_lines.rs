//! `kipcheck run --message-format json`: every [`RunEvent`] as one JSON object on its own
//! line, written and flushed as it happens (`{"event":"started",...}` first,
//! `{"event":"finished",...}` last), for tools that follow a run live. A run that stops before
//! `Finished` ends the stream with `{"event":"aborted","reason":"..."}`. It serializes the
//! events as the runner emitted them and adds no judgement; it writes no files.

use std::io::Write;

use serde::Serialize;

use super::error::ReportError;
use super::reporter::Reporter;
use crate::runner::RunEvent;

/// `--message-format`: what `kipcheck run` prints on stdout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    /// The terminal reporter: progress, findings and the summary, for people.
    #[default]
    Human,
    /// One JSON object per event and line ([`JsonLinesReporter`]); the human output goes to
    /// stderr, without a progress bar.
    Json,
}

/// The line that ends a stream whose run stopped before `Finished`.
#[derive(Serialize)]
struct Aborted<'a> {
    event: &'static str,
    reason: &'a str,
}

/// Writes one JSON object per event to `W` (stdout in the binary, a buffer in tests).
pub struct JsonLinesReporter<W: Write> {
    out: W,
    finished: bool,
}

impl<W: Write> JsonLinesReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        Self {
            out,
            finished: false,
        }
    }

    /// Gives the writer back (e.g. to inspect a captured buffer).
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Writes `value` as one line and flushes it.
    fn line(&mut self, value: &impl Serialize) -> Result<(), ReportError> {
        let mut bytes =
            serde_json::to_vec(value).map_err(|e| ReportError::Terminal { source: e.into() })?;
        bytes.push(b'\n');
        self.out
            .write_all(&bytes)
            .and_then(|()| self.out.flush())
            .map_err(|source| ReportError::Terminal { source })
    }
}

impl<W: Write> Reporter for JsonLinesReporter<W> {
    fn on_event(&mut self, event: &RunEvent) -> Result<(), ReportError> {
        if matches!(event, RunEvent::Finished { .. }) {
            self.finished = true;
        }
        self.line(event)
    }

    /// Flushes the output (every line already was).
    fn finish(&mut self) -> Result<(), ReportError> {
        self.out
            .flush()
            .map_err(|source| ReportError::Terminal { source })
    }

    /// Ends the stream with an `aborted` line saying why, unless `Finished` was already
    /// written (a run is either finished or aborted, never both).
    fn abort(&mut self, reason: &str) -> Result<(), ReportError> {
        if std::mem::replace(&mut self.finished, true) {
            return self.finish();
        }
        self.line(&Aborted {
            event: "aborted",
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::JsonLinesReporter;
    use crate::report::Reporter;
    use crate::runner::RunEvent;

    #[test]
    fn one_line_per_event_and_an_aborted_line() {
        let mut r = JsonLinesReporter::new(Vec::new());
        r.on_event(&RunEvent::ScenarioStarted { id: "a".into() })
            .unwrap();
        r.abort("interrupted").unwrap();
        r.abort("again").unwrap();
        let out = String::from_utf8(r.into_inner()).unwrap();
        assert_eq!(
            out,
            "{\"event\":\"scenario_started\",\"id\":\"a\"}\n{\"event\":\"aborted\",\"reason\":\"interrupted\"}\n"
        );
    }
}
