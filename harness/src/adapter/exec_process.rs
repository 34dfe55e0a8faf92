//! The child process behind an `exec:` target: started through `sh -c` in a process group
//! of its own (`crate::child`), spoken to in JSON lines over stdin/stdout with a wall-clock bound on every
//! read and write and a cap on every line, its stderr kept as a bounded tail for error
//! messages, and its whole process group killed when it is dropped. This module moves
//! lines; it knows nothing of the protocol's message types (that is `exec.rs`).

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::error::{
    AdapterError, Crash, Moment, ProcessEnd, ProtocolViolation, SetupError, Tails, TimedOut,
    Violation, Waiting,
};
use crate::child::{kill_group, shell, spawn_async, StderrTail};

/// Bounds of one `exec:` process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// Wall-clock limit for one message exchange (write + answer).
    pub call_timeout: Duration,
    /// Longest accepted line from the process, in bytes (newline excluded).
    pub max_line_bytes: usize,
    /// How much of the process's stderr is kept (its last bytes) for error messages.
    pub stderr_tail_bytes: usize,
}

impl Default for ExecOptions {
    fn default() -> Self {
        Self {
            call_timeout: Duration::from_secs(10),
            max_line_bytes: 16 * 1024 * 1024,
            stderr_tail_bytes: 4096,
        }
    }
}

/// A running adapter process.
pub(crate) struct ExecProcess {
    command: String,
    child: Child,
    pgid: Option<i32>,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: StderrTail,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    opts: ExecOptions,
}

impl ExecProcess {
    /// Starts `command` with `sh -c` in a new process group, stdin/stdout/stderr piped.
    pub(crate) fn spawn(command: &str, opts: &ExecOptions) -> Result<Self, AdapterError> {
        let (mut child, pgid) = spawn_group(command, Stdio::piped())?;
        let (Some(stdin), Some(stdout), Some(err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SetupError::PipesMissing {
                command: command.to_owned(),
            }
            .into());
        };
        let stderr = StderrTail::default();
        let stderr_task = stderr.capture(err, opts.stderr_tail_bytes);
        Ok(Self {
            command: command.to_owned(),
            child,
            pgid,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            stderr,
            stderr_task: Some(stderr_task),
            opts: opts.clone(),
        })
    }

    /// Its stderr tail (it has no stdout tail: stdout is the protocol).
    fn tails(&self) -> Tails {
        Tails {
            stderr: self.stderr.text(),
            stdout: String::new(),
        }
    }

    /// The process died or closed stdout: the error says how, with the stderr tail.
    async fn crashed(&mut self, moment: Moment) -> AdapterError {
        // Give the process a moment to finish exiting and its stderr to drain, bounded.
        let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(200), task).await;
        }
        let end = match status {
            Ok(Ok(s)) => ProcessEnd::Exited(s),
            _ => ProcessEnd::ClosedStdout,
        };
        Crash::ProcessGone {
            who: "adapter",
            command: self.command.clone(),
            end,
            moment,
            tails: self.tails(),
        }
        .into()
    }

    fn timed_out(&self, waiting: Waiting, bound: Duration) -> AdapterError {
        TimedOut::Process {
            who: "adapter",
            command: self.command.clone(),
            waiting,
            ms: u64::try_from(bound.as_millis()).unwrap_or(u64::MAX),
            tails: self.tails(),
        }
        .into()
    }

    /// Writes one message as a line.
    pub(crate) async fn write(&mut self, message: &Value) -> Result<(), AdapterError> {
        let mut line = serde_json::to_vec(message)
            .map_err(|e| self.protocol_error(Violation::Serialize(e)))?;
        line.push(b'\n');
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Crash::ProcessGone {
                who: "adapter",
                command: self.command.clone(),
                end: ProcessEnd::StdinAlreadyClosed,
                moment: Moment::Writing,
                tails: self.tails(),
            }
            .into());
        };
        let write = async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(self.opts.call_timeout, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(self.crashed(Moment::Writing).await),
            Err(_) => Err(self.timed_out(Waiting::Read, self.opts.call_timeout)),
        }
    }

    /// Reads one line (bounded in length and wall-clock time) and parses it as a JSON object.
    pub(crate) async fn read(&mut self) -> Result<Value, AdapterError> {
        let max = self.opts.max_line_bytes;
        let timeout = self.opts.call_timeout;
        let read = read_capped_line(&mut self.stdout, max);
        let line = match tokio::time::timeout(timeout, read).await {
            Err(_) => return Err(self.timed_out(Waiting::Answer, timeout)),
            Ok(Err(LineError::Eof)) => return Err(self.crashed(Moment::BeforeAnswering).await),
            Ok(Err(LineError::TooLong)) => {
                return Err(self.protocol_error(Violation::LineTooLong { max }))
            }
            Ok(Err(LineError::Io(e))) => return Err(AdapterError::Io(e)),
            Ok(Ok(line)) => line,
        };
        let value: Value = serde_json::from_slice(&line).map_err(|source| {
            let line = String::from_utf8_lossy(&line).chars().take(200).collect();
            self.protocol_error(Violation::NotJson { line, source })
        })?;
        if !value.is_object() {
            let value = value.to_string();
            return Err(self.protocol_error(Violation::NotObject { value }));
        }
        Ok(value)
    }

    /// A protocol violation, with the stderr tail.
    pub(crate) fn protocol_error(&self, violation: Violation) -> AdapterError {
        ProtocolViolation {
            command: self.command.clone(),
            violation,
            tails: self.tails(),
        }
        .into()
    }

    /// Closes stdin and kills the whole process group.
    pub(crate) fn kill(&mut self) {
        self.stdin = None;
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
        }
        let _ = self.child.start_kill();
        if let Some(task) = self.stderr_task.take() {
            task.abort();
        }
    }
}

impl Drop for ExecProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `command` with `sh -c` as the leader of a new process group (killed on drop),
/// stdout and stderr piped ([`crate::child::spawn_async`]); returns the child and its group
/// id. A command that cannot start is a setup error.
pub(crate) fn spawn_group(
    command: &str,
    stdin: Stdio,
) -> Result<(Child, Option<i32>), AdapterError> {
    spawn_async(shell(command), stdin).map_err(|source| {
        SetupError::Spawn {
            command: command.to_owned(),
            source,
        }
        .into()
    })
}

/// Why no line was read.
enum LineError {
    Eof,
    TooLong,
    Io(std::io::Error),
}

/// Reads up to a newline, never buffering more than `max` bytes of one line.
async fn read_capped_line(
    r: &mut BufReader<ChildStdout>,
    max: usize,
) -> Result<Vec<u8>, LineError> {
    let mut line = Vec::new();
    loop {
        let buf = r.fill_buf().await.map_err(LineError::Io)?;
        if buf.is_empty() {
            return Err(LineError::Eof);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                if line.len() + i > max {
                    return Err(LineError::TooLong);
                }
                line.extend_from_slice(&buf[..i]);
                r.consume(i + 1);
                return Ok(line);
            }
            None => {
                let n = buf.len();
                if line.len() + n > max {
                    return Err(LineError::TooLong);
                }
                line.extend_from_slice(buf);
                r.consume(n);
            }
        }
    }
}
