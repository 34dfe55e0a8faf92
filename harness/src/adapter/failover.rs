//! A live controller's `failover:` manifest entry (docs/live-targets.md "Target manifests")
//! and running it for a scenario's `failover` step: the declared shell command, bounded in
//! time, then a bounded wait until the controller answers ApiVersions again. What the
//! command does (restart the active controller of a KRaft quorum, signal a served one) is the
//! setup's business: a command that fails or hangs, or a controller that does not come back,
//! is a [`FailoverError`] about the setup (the scenario is errored), never a finding.
//!
//! It owns no connection of a scenario (the session drops its own after a failover), knows
//! no target kind (the caller hands it its ApiVersions probe) and judges nothing.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// How kipcheck makes a live controller fail over (the manifest's `failover:` entry).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailoverCommand {
    /// A shell command (`sh -c`) that makes the controller at the target's address fail over
    /// to a successor rebuilt from the metadata log; it succeeds by exiting 0.
    pub command: String,
    /// Bound on the command, milliseconds (default 60000).
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// Bound on waiting, once the command exited 0, until the controller answers ApiVersions
    /// again, milliseconds (default 30000).
    #[serde(default = "default_ready_timeout_ms")]
    pub ready_timeout_ms: u64,
}

fn default_timeout_ms() -> u64 {
    60_000
}

fn default_ready_timeout_ms() -> u64 {
    30_000
}

/// Bytes of the command's stderr kept in an error.
const STDERR_TAIL: usize = 2_000;

/// Pause between ApiVersions attempts while the controller comes back.
const READY_BACKOFF: Duration = Duration::from_millis(100);

/// Why a failover step could not be carried out (a finding about the setup).
#[derive(Debug, thiserror::Error)]
pub enum FailoverError {
    /// `sh` could not be started.
    #[error("cannot start `sh -c {command:?}`: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// The error.
        source: std::io::Error,
    },
    /// The command exited unsuccessfully.
    #[error("`{command}` {status}{}", stderr_tail(.stderr))]
    Failed {
        /// The command.
        command: String,
        /// How it ended (`exited with status 3`, `was killed by a signal`).
        status: String,
        /// The end of its stderr.
        stderr: String,
    },
    /// The command did not end within its bound (it was killed).
    #[error("`{command}` did not end within {timeout_ms} ms (killed){}", stderr_tail(.stderr))]
    TimedOut {
        /// The command.
        command: String,
        /// The bound.
        timeout_ms: u64,
        /// The end of its stderr so far.
        stderr: String,
    },
    /// The controller did not answer ApiVersions again within the bound.
    #[error(
        "{addr} did not answer ApiVersions within {ready_timeout_ms} ms of `{command}`: {last}"
    )]
    NotReady {
        /// The command.
        command: String,
        /// The controller's address.
        addr: String,
        /// The bound.
        ready_timeout_ms: u64,
        /// Why the last attempt got no answer.
        #[source]
        last: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The task asking ApiVersions failed inside kipcheck.
    #[error("the ApiVersions wait after `{command}` failed inside kipcheck")]
    Internal {
        /// The command.
        command: String,
    },
}

fn stderr_tail(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; stderr tail:\n{s}")
    }
}

/// The last [`STDERR_TAIL`] bytes of `bytes` as text (cut at a character boundary).
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    let mut start = text.len().saturating_sub(STDERR_TAIL);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_owned()
}

/// Runs `f.command` (bounded by `f.timeout_ms`), then waits (bounded by `f.ready_timeout_ms`)
/// until the controller at `addr` answers ApiVersions: `probe` asks it once (blocking,
/// bounded), `Err` with why it did not answer.
pub async fn fail_over<P, E>(f: &FailoverCommand, addr: &str, probe: P) -> Result<(), FailoverError>
where
    P: Fn() -> Result<(), E> + Clone + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let command = f.command.clone();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&f.command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| FailoverError::Spawn {
            command: command.clone(),
            source,
        })?;
    let mut stderr_pipe = child.stderr.take();
    let mut stderr = Vec::new();
    let bound = Duration::from_millis(f.timeout_ms);
    let ended = tokio::time::timeout(bound, async {
        if let Some(p) = &mut stderr_pipe {
            // Read to the end of the pipe (a background child keeping it open counts as
            // the command running), then reap.
            let _ = p.read_to_end(&mut stderr).await;
        }
        child.wait().await
    })
    .await;
    let status = match ended {
        Err(_) => {
            let _ = child.kill().await;
            return Err(FailoverError::TimedOut {
                command,
                timeout_ms: f.timeout_ms,
                stderr: tail(&stderr),
            });
        }
        Ok(Err(source)) => return Err(FailoverError::Spawn { command, source }),
        Ok(Ok(status)) => status,
    };
    if !status.success() {
        let status = match status.code() {
            Some(c) => format!("exited with status {c}"),
            None => "was killed by a signal".to_owned(),
        };
        return Err(FailoverError::Failed {
            command,
            status,
            stderr: tail(&stderr),
        });
    }
    wait_ready(f, addr, probe).await
}

/// Asks `addr` for ApiVersions until it answers, within `f.ready_timeout_ms`.
async fn wait_ready<P, E>(f: &FailoverCommand, addr: &str, probe: P) -> Result<(), FailoverError>
where
    P: Fn() -> Result<(), E> + Clone + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let deadline = Instant::now() + Duration::from_millis(f.ready_timeout_ms);
    loop {
        let once = probe.clone();
        let last = match tokio::task::spawn_blocking(once).await {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(e)) => Box::new(e),
            Err(_) => {
                return Err(FailoverError::Internal {
                    command: f.command.clone(),
                })
            }
        };
        if Instant::now() + READY_BACKOFF >= deadline {
            return Err(FailoverError::NotReady {
                command: f.command.clone(),
                addr: addr.to_owned(),
                ready_timeout_ms: f.ready_timeout_ms,
                last,
            });
        }
        tokio::time::sleep(READY_BACKOFF).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(command: &str, timeout_ms: u64) -> FailoverCommand {
        FailoverCommand {
            command: command.into(),
            timeout_ms,
            ready_timeout_ms: 300,
        }
    }

    #[tokio::test]
    async fn a_failing_command_names_its_status_and_stderr_tail() {
        let e = fail_over(
            &cmd("echo no quorum >&2; exit 3", 10_000),
            "127.0.0.1:1",
            || Ok::<(), std::io::Error>(()),
        )
        .await
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`echo no quorum >&2; exit 3` exited with status 3; stderr tail:\nno quorum"
        );
    }

    #[tokio::test]
    async fn a_hanging_command_is_killed_at_its_bound() {
        let e = fail_over(
            &cmd("echo restarting >&2; exec sleep 30", 200),
            "127.0.0.1:1",
            || Ok::<(), std::io::Error>(()),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&e, FailoverError::TimedOut { timeout_ms: 200, stderr, .. } if stderr.is_empty() || stderr == "restarting"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn a_controller_that_does_not_come_back_is_not_ready_with_the_last_reason() {
        let e = fail_over(&cmd("true", 10_000), "127.0.0.1:1", || {
            Err(std::io::Error::other("connection refused"))
        })
        .await
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "127.0.0.1:1 did not answer ApiVersions within 300 ms of `true`: connection refused"
        );
    }

    #[test]
    fn the_tail_keeps_the_end_on_a_character_boundary() {
        let long = format!("{}é{}", "a".repeat(10), "b".repeat(STDERR_TAIL - 1));
        let t = tail(long.as_bytes());
        assert!(t.starts_with('b') && t.len() == STDERR_TAIL - 1, "{t}");
    }
}
