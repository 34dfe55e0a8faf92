//! The [`Reporter`] trait every output format implements and the [`Reporters`] fan-out.
//! Reporters see events only; nothing here touches runner state. Which reporters a run
//! gets is wired in `wiring.rs`, so the formats depend on this file and not the reverse.

use super::error::ReportError;
use crate::runner::RunEvent;

/// Something that turns the run's event stream into an output.
pub trait Reporter {
    /// Takes one event, in the order the runner emitted it.
    fn on_event(&mut self, event: &RunEvent) -> Result<(), ReportError>;

    /// Called once after the last event (normally `Finished`): write files, flush output.
    /// Calling it again does nothing more.
    fn finish(&mut self) -> Result<(), ReportError>;

    /// Called instead of [`finish`](Self::finish) when the run stopped before `Finished`
    /// (the target did not start, the user interrupted it): the outputs say the run was
    /// aborted and why. By default, the same as `finish`.
    fn abort(&mut self, reason: &str) -> Result<(), ReportError> {
        let _ = reason;
        self.finish()
    }
}

/// Several reporters fed the same events, in the order they were added.
#[derive(Default)]
pub struct Reporters {
    reporters: Vec<Box<dyn Reporter + Send>>,
}

impl Reporters {
    /// No reporters yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a reporter.
    pub fn push(&mut self, reporter: impl Reporter + Send + 'static) -> &mut Self {
        self.reporters.push(Box::new(reporter));
        self
    }

    /// How many reporters there are.
    pub fn len(&self) -> usize {
        self.reporters.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.reporters.is_empty()
    }
}

impl std::fmt::Debug for Reporters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reporters")
            .field("len", &self.reporters.len())
            .finish()
    }
}

impl Reporter for Reporters {
    /// Delivers the event to every reporter, even after one fails; returns the first error.
    fn on_event(&mut self, event: &RunEvent) -> Result<(), ReportError> {
        let mut first = Ok(());
        for r in &mut self.reporters {
            if let Err(e) = r.on_event(event) {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    /// Finishes every reporter, even after one fails; returns the first error.
    fn finish(&mut self) -> Result<(), ReportError> {
        self.each(|r| r.finish())
    }

    /// Aborts every reporter, even after one fails; returns the first error.
    fn abort(&mut self, reason: &str) -> Result<(), ReportError> {
        self.each(|r| r.abort(reason))
    }
}

impl Reporters {
    /// Calls `f` on every reporter, even after one fails; returns the first error.
    fn each(
        &mut self,
        mut f: impl FnMut(&mut Box<dyn Reporter + Send>) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        let mut first = Ok(());
        for r in &mut self.reporters {
            if let Err(e) = f(r) {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }
}
