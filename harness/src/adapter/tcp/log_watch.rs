//! A controller session's view of the live controller's KRaft metadata log
//! (`--metadata-log`): the records appended since the session opened, as `record_appended`
//! events, and where the last session stopped reading ([`LogPosition`], shared by the
//! target's sessions). Reading the log is `adapter::metadata_log`'s; this must not judge the
//! records.

use std::time::Duration;

use serde_json::Value;

use crate::adapter::error::{AdapterError, Crash, SetupError};
use crate::adapter::metadata_log::MetadataLogReader;

/// Where the metadata log was last read up to: the next offset and the epoch of the record
/// before it (`(0, 0)`: the start).
pub(super) type LogPosition = (i64, i32);

/// Bound on reading the metadata log up to its high watermark once.
const LOG_READ_DEADLINE: Duration = Duration::from_secs(30);

/// A session's view of the live controller's metadata log: the records appended since the
/// session opened, as `record_appended` events.
pub(super) struct LogWatch {
    addr: String,
    /// Shared with the target, so the next session starts where this one ended.
    position: std::sync::Arc<std::sync::Mutex<LogPosition>>,
    pub(super) events: Vec<Value>,
}

impl LogWatch {
    /// Reads the log up to its end (from where the previous session stopped): what follows is
    /// this session's.
    pub(super) async fn open(
        addr: &str,
        position: std::sync::Arc<std::sync::Mutex<LogPosition>>,
    ) -> Result<Self, AdapterError> {
        let mut watch = LogWatch {
            addr: addr.to_owned(),
            position,
            events: Vec::new(),
        };
        watch.read().await?;
        watch.events.clear();
        Ok(watch)
    }

    /// Reads every record after the current position (blocking I/O, off the runtime).
    pub(super) async fn read(&mut self) -> Result<(), AdapterError> {
        let addr = self.addr.clone();
        let from = *self.position.lock().map_err(|_| Crash::Internal {
            what: "the metadata log position lock",
        })?;
        let read = tokio::task::spawn_blocking(move || {
            MetadataLogReader::connect(&addr)?.read_from(from.0, from.1, LOG_READ_DEADLINE)
        })
        .await
        .map_err(|_| Crash::Internal {
            what: "the metadata log reader task",
        })?
        .map_err(SetupError::MetadataLog)?;
        let last_epoch = read.records.last().map_or(from.1, |r| r.leader_epoch);
        self.events
            .extend(read.records.iter().map(|r| r.to_event()));
        if let Ok(mut p) = self.position.lock() {
            *p = (read.next_offset, last_epoch);
        }
        Ok(())
    }
}
