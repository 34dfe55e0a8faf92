//! Child processes, started one way: every program kipcheck runs (an `exec:` adapter, a
//! `client-cmd:` client, Kafka's Java codec, an interop client) leads a process group of its
//! own, with stdout piped and stdin and stderr as the caller says, so killing the group
//! reaches everything it started. The async side (tokio, for the targets) also kills the
//! child when its handle drops and keeps a bounded stderr tail; the blocking side (oracle,
//! interop) drains pipes on threads. This module starts and stops processes; what is said
//! to them is the caller's business.

use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;

/// `sh -c COMMAND`.
pub(crate) fn shell(command: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command);
    cmd
}

/// Sets the streams (stdout always piped) and a process group of the child's own.
fn prepare(cmd: &mut Command, stdin: Stdio, stderr: Stdio) {
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .process_group(0);
}

/// The child's group id (it leads its group), if it is still known.
fn group_of(id: Option<u32>) -> Option<i32> {
    id.and_then(|id| i32::try_from(id).ok())
}

/// Starts `cmd` for blocking use: stdout piped, `stdin` and `stderr` as given, leader of a
/// new process group; returns the child and its group id.
pub(crate) fn spawn_blocking(
    mut cmd: Command,
    stdin: Stdio,
    stderr: Stdio,
) -> std::io::Result<(std::process::Child, Option<i32>)> {
    prepare(&mut cmd, stdin, stderr);
    let child = cmd.spawn()?;
    let pgid = group_of(Some(child.id()));
    Ok((child, pgid))
}

/// Starts `cmd` under tokio: stdout and stderr piped, `stdin` as given, leader of a new
/// process group, killed when the handle drops; returns the child and its group id.
pub(crate) fn spawn_async(
    mut cmd: Command,
    stdin: Stdio,
) -> std::io::Result<(tokio::process::Child, Option<i32>)> {
    prepare(&mut cmd, stdin, Stdio::piped());
    let child = tokio::process::Command::from(cmd)
        .kill_on_drop(true)
        .spawn()?;
    let pgid = group_of(child.id());
    Ok((child, pgid))
}

/// Kills the process group `pgid` (a child started here leads a group of its own, so this
/// reaches everything it started too). The group may already be gone.
pub(crate) fn kill_group(pgid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Reads `stream` to its end on a thread (so a chatty child never blocks on a full pipe);
/// the thread returns the text (lossy UTF-8).
pub(crate) fn drain(stream: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut r) = stream {
            let _ = r.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The last bytes a process wrote to stderr (or, for `client-cmd:`, stdout and stderr).
#[derive(Clone, Debug, Default)]
pub(crate) struct StderrTail {
    bytes: Arc<Mutex<VecDeque<u8>>>,
}

impl StderrTail {
    /// Keeps the last `cap` bytes `stream` yields, until it ends, in this tail.
    pub(crate) fn capture<R>(&self, mut stream: R, cap: usize) -> tokio::task::JoinHandle<()>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
    {
        let tail = self.bytes.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                push_capped(&tail, &buf[..n], cap);
            }
        })
    }

    /// Appends `bytes`, keeping the last `cap`.
    pub(crate) fn push(&self, bytes: &[u8], cap: usize) {
        push_capped(&self.bytes, bytes, cap);
    }

    /// The tail as text.
    pub(crate) fn text(&self) -> String {
        let guard = self.bytes.lock().unwrap_or_else(|p| p.into_inner());
        let (a, b) = guard.as_slices();
        let mut all = a.to_vec();
        all.extend_from_slice(b);
        String::from_utf8_lossy(&all).trim_end().to_owned()
    }
}

fn push_capped(tail: &Mutex<VecDeque<u8>>, bytes: &[u8], cap: usize) {
    let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
    t.extend(bytes);
    while t.len() > cap {
        t.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocking_child_leads_its_own_group_and_its_output_drains() {
        let (mut child, pgid) = spawn_blocking(
            shell("echo out; echo err >&2"),
            Stdio::null(),
            Stdio::piped(),
        )
        .expect("sh starts");
        assert_eq!(pgid, i32::try_from(child.id()).ok());
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        assert!(child.wait().expect("waits").success());
        assert_eq!(out.join().expect("drains"), "out\n");
        assert_eq!(err.join().expect("drains"), "err\n");
    }

    #[test]
    fn killing_the_group_reaches_the_grandchild() {
        let (mut child, pgid) =
            spawn_blocking(shell("sleep 30 & wait"), Stdio::null(), Stdio::null())
                .expect("sh starts");
        let started = std::time::Instant::now();
        kill_group(pgid.expect("a group"));
        let status = child.wait().expect("waits");
        assert!(!status.success());
        // The pipe closes only once the backgrounded sleep is dead too.
        let rest = drain(child.stdout.take()).join().expect("drains");
        assert_eq!(rest, "");
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn the_tail_keeps_the_last_bytes() {
        let t = StderrTail::default();
        t.push(b"abcdef", 4);
        t.push(b"gh\n", 4);
        assert_eq!(t.text(), "fgh");
    }
}
