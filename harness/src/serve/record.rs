//! Records every frame `kipcheck serve` receives and sends, and every connection close with
//! its reason: in memory (for tests and the client-cmd judge) and/or as JSON lines to a
//! writer (`--record FILE`). Records raw bytes; judging them is the caller's job.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

/// Which way a record went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// A frame from the client.
    In,
    /// A frame to the client.
    Out,
    /// The connection ended (`note` says why).
    Close,
}

/// One recorded frame or close (one JSON line in `--record`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameRecord {
    /// Connection number (1, 2, … in accept order).
    pub conn: u64,
    /// Milliseconds since the server started.
    pub at_ms: u64,
    /// Direction.
    pub dir: Direction,
    /// API key on the wire (requests and their responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<i16>,
    /// Request version (requests and their responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<i16>,
    /// The whole frame, size prefix included, in hex (empty for a close).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hex: String,
    /// Why a connection closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

struct Inner {
    keep: bool,
    /// Whether a sink was given (fixed at construction, so checking it takes no lock).
    has_sink: bool,
    records: Mutex<Vec<FrameRecord>>,
    sink: Mutex<Option<Box<dyn Write + Send>>>,
    changed: Notify,
}

/// Shared recorder (cheap to clone).
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("keep", &self.inner.keep)
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder that keeps records in memory iff `keep`, and writes JSON lines to `sink`.
    pub fn new(keep: bool, sink: Option<Box<dyn Write + Send>>) -> Self {
        Self {
            inner: Arc::new(Inner {
                keep,
                has_sink: sink.is_some(),
                records: Mutex::new(Vec::new()),
                sink: Mutex::new(sink),
                changed: Notify::new(),
            }),
        }
    }

    /// Whether a record goes anywhere (kept or written): a caller skips building one that
    /// would be dropped.
    pub fn is_recording(&self) -> bool {
        self.inner.keep || self.inner.has_sink
    }

    /// Adds a record. A failing sink is dropped (recording never stops the server).
    pub fn push(&self, r: FrameRecord) {
        if let Ok(mut sink) = self.inner.sink.lock() {
            let failed = match sink.as_mut() {
                Some(w) => serde_json::to_writer(&mut *w, &r)
                    .map_err(std::io::Error::from)
                    .and_then(|_| w.write_all(b"\n"))
                    .and_then(|_| w.flush())
                    .is_err(),
                None => false,
            };
            if failed {
                *sink = None;
            }
        }
        if self.inner.keep {
            if let Ok(mut v) = self.inner.records.lock() {
                v.push(r);
            }
            self.inner.changed.notify_waiters();
        }
    }

    /// Every record kept so far.
    pub fn records(&self) -> Vec<FrameRecord> {
        self.inner
            .records
            .lock()
            .map(|v| v.clone())
            .unwrap_or_default()
    }

    /// Waits (at most `within`) until `done` holds for the records; returns whether it did.
    pub async fn wait_until(
        &self,
        within: Duration,
        done: impl Fn(&[FrameRecord]) -> bool,
    ) -> bool {
        let check = || self.inner.records.lock().map(|v| done(&v)).unwrap_or(false);
        tokio::time::timeout(within, async {
            loop {
                let notified = self.inner.changed.notified();
                if check() {
                    return;
                }
                notified.await;
            }
        })
        .await
        .is_ok()
    }
}
