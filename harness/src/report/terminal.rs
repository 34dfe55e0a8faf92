//! The terminal reporter: a progress bar on a TTY, one line per finding as it happens (every
//! scenario with `verbose`), then each finding's first diff, its failing step and its
//! reproduction command, and a concise summary. Colour only when asked (see
//! [`TerminalOptions::detect`]). It writes to any `std::io::Write` and never to files.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::error::ReportError;
use super::labels::{
    counts_sentence, judged_sentence, record_outcome, scenarios, simulated, steps_words,
    unsupported_groups, verdict_tag, wall, TAG_WIDTH,
};
use super::record::{is_finding, RunRecord};
use super::reporter::Reporter;
use super::text::{failure_block, BlockOptions, Paint};
use crate::runner::events::remedy;
use crate::runner::{RunEvent, ScenarioResult, Verdict};

/// `--color`: when the terminal output uses ANSI colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless the environment says otherwise (see
    /// [`TerminalOptions::resolve`]).
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// How the terminal reporter presents itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerminalOptions {
    /// Emit ANSI colours.
    pub color: bool,
    /// Draw an indicatif progress bar (on stdout).
    pub progress: bool,
    /// One line per scenario, and full details (every mismatch, the step YAML) per finding.
    pub verbose: bool,
}

impl TerminalOptions {
    /// Options for the current process with `--color auto`; see [`detect_with`](Self::detect_with).
    pub fn detect() -> Self {
        Self::detect_with(ColorChoice::Auto)
    }

    /// Options for the current process: [`resolve`](Self::resolve) with whether stdout is a
    /// terminal and the process environment.
    pub fn detect_with(choice: ColorChoice) -> Self {
        Self::resolve(choice, std::io::stdout().is_terminal(), |k| {
            std::env::var_os(k).map(|v| v.to_string_lossy().into_owned())
        })
    }

    /// The pure decision: `--color always` / `never` decide alone; `auto` colours when no
    /// non-empty `NO_COLOR` is set (<https://no-color.org>) and either `CLICOLOR_FORCE` is
    /// set to anything but `0` or empty, or stdout is a terminal whose `TERM` is not `dumb`
    /// and `CLICOLOR` is not `0` (<https://bixense.com/clicolors/>). The progress bar needs a
    /// terminal whose `TERM` is not `dumb`, whatever the colour. Not verbose.
    pub fn resolve(
        choice: ColorChoice,
        is_tty: bool,
        env: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let set = |k: &str| env(k).is_some_and(|v| !v.is_empty());
        let is = |k: &str, v: &str| env(k).is_some_and(|x| x == v);
        let dumb = is("TERM", "dumb");
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if set("NO_COLOR") {
                    false
                } else if set("CLICOLOR_FORCE") && !is("CLICOLOR_FORCE", "0") {
                    true
                } else {
                    is_tty && !dumb && !is("CLICOLOR", "0")
                }
            }
        };
        Self {
            color,
            progress: is_tty && !dumb,
            verbose: false,
        }
    }

    /// `resolve(Auto, is_tty, ...)` with only `NO_COLOR` in the environment.
    pub fn from_environment(is_tty: bool, no_color: Option<&str>) -> Self {
        Self::resolve(ColorChoice::Auto, is_tty, |k| {
            (k == "NO_COLOR")
                .then(|| no_color.map(str::to_owned))
                .flatten()
        })
    }
}

/// Rows of a hex dump shown per finding on the terminal.
const TERMINAL_HEX_ROWS: usize = 8;
/// Last exchange entries shown per finding on the terminal (all with `--verbose`).
const TERMINAL_EXCHANGE_ROWS: usize = 6;

/// Writes the run's progress and summary to `W` (stdout in the binary, a buffer in tests).
pub struct TerminalReporter<W: Write> {
    out: W,
    options: TerminalOptions,
    record: RunRecord,
    bar: Option<ProgressBar>,
    finished: bool,
}

/// ` FLAKY (passed on attempt 2)`, ` QUARANTINED (reason)`: what a status line adds for a
/// retried or quarantined scenario.
fn retry_note(r: &ScenarioResult) -> Option<String> {
    let mut parts = Vec::new();
    if r.flaky {
        parts.push(format!("FLAKY (passed on attempt {})", r.attempts));
    } else if r.attempts > 1 {
        parts.push(format!("(failed {} attempts)", r.attempts));
    }
    if let Some(reason) = &r.quarantined {
        parts.push(format!("QUARANTINED ({reason})"));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

impl<W: Write> TerminalReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W, options: TerminalOptions) -> Self {
        Self {
            out,
            options,
            record: RunRecord::new(),
            bar: None,
            finished: false,
        }
    }

    /// Gives the writer back (e.g. to inspect a captured buffer).
    pub fn into_inner(self) -> W {
        self.out
    }

    fn paint(&self) -> Paint {
        Paint {
            color: self.options.color,
        }
    }

    /// Writes `text` without tearing the progress bar.
    fn emit(&mut self, text: &str) -> Result<(), ReportError> {
        let out = &mut self.out;
        let mut write = || out.write_all(text.as_bytes());
        let res = match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        };
        res.map_err(|source| ReportError::Terminal { source })
    }

    fn status_line(&self, r: &ScenarioResult) -> String {
        let p = self.paint();
        let tag = format!("{:>TAG_WIDTH$}", verdict_tag(r.verdict));
        let tag = match r.verdict {
            Verdict::Passed => p.green(&tag),
            Verdict::Failed | Verdict::Errored => p.red(&p.bold(&tag)),
            Verdict::Unsupported | Verdict::ExpectedFailure => p.yellow(&tag),
            Verdict::UnexpectedPass => p.magenta(&p.bold(&tag)),
        };
        let mut line = format!("{tag} [{:>9}] {}", wall(r.duration_ms), r.id);
        if let Some(endpoint) = &r.endpoint {
            line.push_str(&p.dim(&format!(" on {endpoint}")));
        }
        if r.verdict != Verdict::Unsupported && r.verdict != Verdict::Errored {
            line.push_str(&p.dim(&format!(
                " [{}]",
                steps_words(r.steps_judged, r.steps_not_observed)
            )));
        }
        if let Some(reason) = &r.unsupported_reason {
            line.push_str(&p.dim(&format!(" ({reason})")));
        }
        if let Some(note) = retry_note(r) {
            line.push_str(&p.yellow(&format!(" {note}")));
        }
        line.push('\n');
        line
    }

    /// The summary's lines about flaky and quarantined scenarios and quarantine problems.
    fn flaky_lines(&self) -> String {
        let s = self.record.summary();
        let mut out = String::new();
        if s.flaky > 0 {
            out.push_str(&format!(
                "{} flaky (passed only on a retry)\n",
                scenarios(s.flaky)
            ));
        }
        if s.quarantined_findings > 0 {
            out.push_str(&format!(
                "{} quarantined: failed or errored, ignored by the gate\n",
                scenarios(s.quarantined_findings)
            ));
        }
        for p in &s.quarantine_problems {
            out.push_str(&format!("{p}\n"));
        }
        out
    }

    /// The progress bar's running count of findings: `0 failed`, `2 failed, 1 errored`.
    fn failure_count(&self) -> String {
        let s = self.record.summary();
        let mut text = format!("{} failed", s.failed);
        if s.errored > 0 {
            text.push_str(&format!(", {} errored", s.errored));
        }
        if s.unexpected_passes > 0 {
            text.push_str(&format!(", {} unexpected", s.unexpected_passes));
        }
        let p = self.paint();
        if s.failed + s.errored + s.unexpected_passes > 0 {
            p.red(&p.bold(&text))
        } else {
            p.green(&text)
        }
    }

    /// The summary lines printed last.
    fn summary_text(&self) -> String {
        let p = self.paint();
        let s = self.record.summary();
        let timing = match self.record.duration_ms() {
            Some(ms) => format!(
                "in {}, {} simulated",
                wall(ms),
                simulated(self.record.simulated_ms())
            ),
            None => "(run did not finish)".to_owned(),
        };
        let outcome = record_outcome(&self.record);
        let outcome = if outcome == "PASSED" {
            p.bold(&p.green(outcome))
        } else {
            p.bold(&p.red(outcome))
        };
        let mut text = format!(
            "Summary: {} {timing}: {}\n",
            scenarios(s.total),
            counts_sentence(&s)
        );
        text.push_str(&format!("{}\n", judged_sentence(&s)));
        text.push_str(&self.flaky_lines());
        let groups = unsupported_groups(&s);
        if !groups.is_empty() {
            text.push_str("Unsupported, by cause (a scenario counts under each of its causes):\n");
            let target = self.record.info().map_or("", |i| i.target.as_str());
            for (k, n) in groups {
                match remedy(k, target) {
                    Some(r) => text.push_str(&format!("  {n:>4}  {k}: {r}\n")),
                    None => text.push_str(&format!("  {n:>4}  {k}\n")),
                }
            }
        }
        match self.record.info() {
            Some(info) => text.push_str(&format!(
                "{outcome} (seed {}, target {})\n",
                info.seed, info.target
            )),
            None => text.push_str(&format!("{outcome}\n")),
        }
        if self.record.totals().is_none() {
            if let Some(why) = self.record.aborted() {
                text.push_str(&format!("aborted: {why}\n"));
            }
        }
        text
    }
}

impl<W: Write> Reporter for TerminalReporter<W> {
    fn on_event(&mut self, event: &RunEvent) -> Result<(), ReportError> {
        self.record.record(event);
        match event {
            RunEvent::Started(info) => {
                let line = format!(
                    "kipcheck {}: running {} against {} (seed {})\n",
                    info.kipcheck_version,
                    scenarios(info.selected),
                    info.target,
                    info.seed
                );
                self.emit(&line)?;
                if self.options.progress {
                    let bar = ProgressBar::with_draw_target(
                        Some(info.selected as u64),
                        ProgressDrawTarget::stdout(),
                    );
                    if let Ok(style) = ProgressStyle::with_template(
                        "{spinner} [{elapsed}] {bar:30} {pos}/{len} {prefix} {wide_msg}",
                    ) {
                        bar.set_style(style);
                    }
                    bar.set_prefix(self.failure_count());
                    self.bar = Some(bar);
                }
            }
            RunEvent::ScenarioStarted { id } => {
                if let Some(bar) = &self.bar {
                    bar.set_message(id.clone());
                }
            }
            RunEvent::ScenarioFinished(r) => {
                if self.options.verbose || is_finding(r.verdict) {
                    let line = self.status_line(r);
                    self.emit(&line)?;
                }
                if let Some(bar) = &self.bar {
                    bar.set_prefix(self.failure_count());
                    bar.inc(1);
                }
            }
            RunEvent::Finished { .. } => {}
        }
        Ok(())
    }

    /// Prints what was seen and why the run stopped, unless the run never started (then the
    /// caller's error message says it all).
    fn abort(&mut self, reason: &str) -> Result<(), ReportError> {
        self.record.abort(reason);
        if self.record.info().is_none() {
            self.finished = true;
            return Ok(());
        }
        self.finish()
    }

    fn finish(&mut self) -> Result<(), ReportError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        let opts = BlockOptions {
            color: self.options.color,
            full: self.options.verbose,
            max_hex_rows: TERMINAL_HEX_ROWS,
            exchange_rows: if self.options.verbose {
                usize::MAX
            } else {
                TERMINAL_EXCHANGE_ROWS
            },
        };
        let verbose = self.options.verbose;
        let blocks: Vec<String> = self
            .record
            .results()
            .filter(|r| is_finding(r.verdict) || (verbose && r.verdict == Verdict::ExpectedFailure))
            .map(|r| failure_block(r, opts))
            .collect();
        let mut text = String::new();
        if !blocks.is_empty() {
            let n = self.record.findings().count();
            text.push_str(&format!(
                "\n{}\n\n",
                self.paint().bold(&format!("Findings ({n}):"))
            ));
            text.push_str(&blocks.join("\n"));
        }
        text.push('\n');
        text.push_str(&self.summary_text());
        self.emit(&text)?;
        self.out
            .flush()
            .map_err(|source| ReportError::Terminal { source })
    }
}
