//! The client process of one `client-cmd:` scenario and its lifetime (docs/live-clients.md):
//! started in a process group of its own with stdin piped; kipcheck writes user requests to
//! its stdin (`user_request <id>`) and reads `released <id>` lines from its stdout; when the
//! scenario's steps are done, stdin is closed, the client has [`EXIT_GRACE`] to exit, then its
//! group is killed. A client that exits (any status) before its stdin is closed is an error
//! with its exit status and the last bytes of its stderr (and stdout).

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::super::error::{
    AdapterError, ClientFault, Crash, Moment, ProcessEnd, Tails, TimedOut, Waiting,
};
use super::super::exec_process::spawn_group;
use crate::child::{kill_group, StderrTail};

/// How long a client has to exit once its stdin is closed before its group is killed.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How much of the client's stderr (and, separately, stdout) is kept for error messages.
const OUTPUT_TAIL_BYTES: usize = 4096;
/// How long a write to the client's stdin may take.
const STDIN_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest stdout line parsed for `released <id>`; longer lines only feed the tail.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// A `released <id>` line, timestamped when kipcheck read it (ms since the session start).
pub type Release = (u64, u64);

/// The parsed id of a line that is exactly `released <id>` (decimal u64).
pub fn parse_release(line: &str) -> Option<u64> {
    let id = line.strip_prefix("released ")?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    id.parse().ok()
}

/// The client process and its captured output.
pub struct ClientProcess {
    command: String,
    child: Child,
    pgid: Option<i32>,
    stdin: Option<ChildStdin>,
    stderr: StderrTail,
    stdout: StderrTail,
    readers: Vec<JoinHandle<()>>,
    /// Releases the client printed, in order.
    pub releases: mpsc::UnboundedReceiver<Release>,
    /// Set once kipcheck closed the client's stdin (its exit is then expected).
    closed: bool,
}

impl ClientProcess {
    /// Starts `command` with `sh -c` in a group of its own; `start` is the session's time origin.
    pub fn spawn(command: &str, start: Instant) -> Result<Self, AdapterError> {
        let (mut child, pgid) = spawn_group(command, Stdio::piped())?;
        let stderr = StderrTail::default();
        let stdout = StderrTail::default();
        let (tx, releases) = mpsc::unbounded_channel();
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            let tail = stdout.clone();
            readers.push(tokio::spawn(read_stdout(out, tail, tx, start)));
        }
        if let Some(err) = child.stderr.take() {
            readers.push(stderr.capture(err, OUTPUT_TAIL_BYTES));
        }
        Ok(Self {
            command: command.to_owned(),
            stdin: child.stdin.take(),
            child,
            pgid,
            stderr,
            stdout,
            readers,
            releases,
            closed: false,
        })
    }

    /// Its stderr and stdout tails, once its readers have drained (bounded).
    async fn tails(&mut self) -> Tails {
        for r in &mut self.readers {
            let _ = tokio::time::timeout(Duration::from_millis(200), r).await;
        }
        Tails {
            stderr: self.stderr.text(),
            stdout: self.stdout.text(),
        }
    }

    /// What the client did wrong, with its tails.
    pub async fn failure(&mut self, fault: ClientFault) -> AdapterError {
        let tails = self.tails().await;
        Crash::Client { fault, tails }.into()
    }

    /// The client is gone: how, with its tails.
    async fn gone(&mut self, end: ProcessEnd, moment: Moment) -> AdapterError {
        let tails = self.tails().await;
        Crash::ProcessGone {
            who: "client",
            command: self.command.clone(),
            end,
            moment,
            tails,
        }
        .into()
    }

    /// An error if the client has exited (any status) while the scenario still runs.
    pub async fn check_exit(&mut self) -> Result<(), AdapterError> {
        if self.closed {
            return Ok(());
        }
        match self.child.try_wait() {
            Ok(Some(status)) => Err(self
                .gone(ProcessEnd::Exited(status), Moment::BeforeStdinClosed)
                .await),
            Ok(None) => Ok(()),
            Err(e) => Err(AdapterError::Io(e)),
        }
    }

    /// Writes one line (LF added) to the client's stdin.
    pub async fn send_line(&mut self, line: &str) -> Result<(), AdapterError> {
        self.check_exit().await?;
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self
                .gone(ProcessEnd::StdinAlreadyClosed, Moment::Writing)
                .await);
        };
        let write = async {
            stdin.write_all(format!("{line}\n").as_bytes()).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(STDIN_TIMEOUT, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                // A broken pipe: the client is gone, or closed its stdin.
                let _ = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
                self.check_exit().await?;
                Err(self.gone(ProcessEnd::ClosedStdin, Moment::Writing).await)
            }
            Err(_) => Err(TimedOut::Process {
                who: "client",
                command: self.command.clone(),
                waiting: Waiting::Read,
                ms: STDIN_TIMEOUT.as_millis() as u64,
                tails: self.tails().await,
            }
            .into()),
        }
    }

    /// The steps are done: an error if the client already exited; otherwise closes its
    /// stdin, gives it [`EXIT_GRACE`] to exit, and kills its group.
    pub async fn finish(&mut self) -> Result<(), AdapterError> {
        self.check_exit().await?;
        self.closed = true;
        self.stdin = None;
        let _ = tokio::time::timeout(EXIT_GRACE, self.child.wait()).await;
        self.kill();
        Ok(())
    }

    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
        }
        let _ = self.child.start_kill();
    }
}

impl Drop for ClientProcess {
    fn drop(&mut self) {
        self.kill();
        for r in &self.readers {
            r.abort();
        }
    }
}

/// Reads the client's stdout by lines: each is kept in the tail, and a `released <id>` line
/// is reported with the time it was read.
async fn read_stdout(
    out: tokio::process::ChildStdout,
    tail: StderrTail,
    tx: mpsc::UnboundedSender<Release>,
    start: Instant,
) {
    let mut r = BufReader::new(out);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = match (&mut r)
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let at = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        tail.push(&line[..n], OUTPUT_TAIL_BYTES);
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if let Some(id) = parse_release(text) {
            let _ = tx.send((id, at));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_release;

    #[test]
    fn only_exact_release_lines_count() {
        assert_eq!(parse_release("released 7"), Some(7));
        assert_eq!(
            parse_release("released 18446744073709551615"),
            Some(u64::MAX)
        );
        for other in [
            "released",
            "released ",
            "released -1",
            "released 7 ",
            " released 7",
            "Released 7",
            "released +7",
            "released 18446744073709551616",
            "user_request 7",
        ] {
            assert_eq!(parse_release(other), None, "{other:?}");
        }
    }
}
