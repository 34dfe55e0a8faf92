//! The KRaft metadata log read from a live controller, as an observer reads it: Fetch
//! requests for `__cluster_metadata` partition 0 (topic id `AAAAAAAAAAAAAAAAAAAAAQ`) with
//! `ReplicaId` -1 (v15+: `ReplicaState.ReplicaId` -1), on the controller's listener, from a
//! start offset up to the high watermark. Every record batch is decoded strictly
//! (`codec::decode_record_batches`: magic 2, CRC32C, bounded lengths) and every record becomes
//! a [`LogRecord`]: its offset, type, version and, where kipcheck's codec knows the type and
//! version, its decoded fields. Blocking loopback I/O, every step bounded; it judges nothing.
//!
//! Observations are reported to scenarios as `record_appended` events with the fields the
//! reference model's event has (`offset`, `version`, `record`) plus `record_type`,
//! `leader_epoch` and, for a record kipcheck cannot decode, `record_name`/`undecoded`.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use thiserror::Error;

use crate::net::{self, BlockingFrames, NetError};

use crate::codec::fetch_request::{FetchPartition, FetchTopic, ReplicaState};
use crate::codec::fetch_response::PartitionData;
use crate::codec::limits::PEER_MAX_FRAME_SIZE;
use crate::codec::{
    self, decode_record_batches, ApiKey, ApiVersionsRequest, DecodeError, ErrorCode, FetchRequest,
    MetadataRecord, MetadataRecordBody, ProvisionalNumbers, RequestBody, RequestHeader,
    ResponseBody, Uuid,
};

/// `__cluster_metadata`'s fixed topic id (Kafka's `Uuid.METADATA_TOPIC_ID`).
pub const METADATA_TOPIC_ID: Uuid = Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
/// Bound on connecting, on each write and on each answer.
pub const FETCH_IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes asked for per Fetch (and the largest answer frame accepted, plus headroom).
const FETCH_MAX_BYTES: i32 = 8 * 1024 * 1024;
/// Fetches per [`read_log`] call at most (a log larger than this many answers is cut).
const MAX_FETCHES: usize = 10_000;
/// Leader-epoch corrections (FENCED/UNKNOWN_LEADER_EPOCH answers) accepted per call.
const MAX_EPOCH_RETRIES: usize = 8;

/// Why the log could not be read. A record that does not decode is not one of these: it is a
/// [`LogRecord`] with [`LogPayload::Malformed`].
#[derive(Debug, Error)]
pub enum MetadataLogError {
    /// The connection failed or an answer did not arrive in time.
    #[error("metadata log at {addr}: {source}")]
    Io {
        /// The controller address.
        addr: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A request could not be written or its answer frame not read (closed, cut short, over
    /// the cap, timed out).
    #[error("metadata log: {source}")]
    Answer {
        /// The controller address.
        addr: String,
        /// Why.
        #[source]
        source: NetError,
    },
    /// The controller does not advertise a Fetch version kipcheck speaks with topic ids (13+).
    #[error("{addr} advertises no Fetch version 13-18 (advertised: {advertised})")]
    NoFetchVersion {
        /// The controller address.
        addr: String,
        /// What it advertised.
        advertised: String,
    },
    /// The answer frame does not decode (strict codec error, with its offset).
    #[error("Fetch answer from {addr} does not decode: {source}")]
    Decode {
        /// The controller address.
        addr: String,
        /// The decode error.
        source: DecodeError,
    },
    /// The controller answered with an error code kipcheck cannot recover from.
    #[error("Fetch of __cluster_metadata from {addr} answered {code} at offset {offset}")]
    Refused {
        /// The controller address.
        addr: String,
        /// The error (top-level or partition).
        code: ErrorCode,
        /// The fetch offset asked for.
        offset: i64,
    },
    /// The answer is not shaped as a Fetch answer for the one partition asked for.
    #[error("Fetch answer from {addr}: {what}")]
    Unexpected {
        /// The controller address.
        addr: String,
        /// What was wrong.
        what: String,
    },
    /// The controller pointed at a snapshot that ends at or before the offset asked for.
    #[error("the metadata log at {addr} answered a snapshot ending at {end_offset}, not after the offset asked for")]
    Snapshot {
        /// The controller address.
        addr: String,
        /// The snapshot's end offset.
        end_offset: i64,
    },
    /// A request could not be encoded (a kipcheck bug).
    #[error("encoding a Fetch request: {0}")]
    Encode(#[from] codec::EncodeError),
}

/// What one log record holds.
#[derive(Clone, Debug, PartialEq)]
pub enum LogPayload {
    /// A metadata record kipcheck's codec decodes (type and version known).
    Decoded(MetadataRecordBody),
    /// A metadata record of a type or version kipcheck's codec does not have: only its
    /// frame (type, version) was read.
    Undecoded,
    /// A KRaft control record (leader change, snapshot header/footer, voters, kraft.version).
    Control {
        /// The control record type ([`codec::BatchRecord::control_type`]; -1 when the key holds none).
        control_type: i16,
    },
    /// A record whose bytes break the format (a finding about the controller).
    Malformed(DecodeError),
}

/// One record of the metadata log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    /// Its log offset.
    pub offset: i64,
    /// The leader epoch of its batch.
    pub leader_epoch: i32,
    /// Metadata record type (`apiKey` of its JSON definition); -1 for control records.
    pub record_type: i16,
    /// Record version; -1 for control records.
    pub version: i16,
    /// The content.
    pub payload: LogPayload,
}

impl LogRecord {
    /// The record as a `record_appended` observation (JSON event; no `at`: a live log has
    /// no kipcheck time).
    pub fn to_event(&self) -> Value {
        let mut ev = json!({
            "event": "record_appended",
            "offset": self.offset,
            "leader_epoch": self.leader_epoch,
            "record_type": self.record_type,
            "version": self.version,
        });
        let name = MetadataRecordBody::info(ApiKey(self.record_type)).map(|i| i.name);
        match &self.payload {
            LogPayload::Decoded(body) => {
                ev["record_name"] = json!(body.message_name());
                ev["record"] = serde_json::to_value(body).unwrap_or(Value::Null);
            }
            LogPayload::Undecoded => {
                ev["record_name"] = json!(name);
                ev["undecoded"] = json!(true);
            }
            LogPayload::Control { control_type } => {
                ev["event"] = json!("control_record_appended");
                ev["control_type"] = json!(control_type);
            }
            LogPayload::Malformed(e) => {
                ev["record_name"] = json!(name);
                ev["malformed"] = json!(e.to_string());
            }
        }
        ev
    }
}

/// Where a read stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRead {
    /// The records from the start offset, in log order.
    pub records: Vec<LogRecord>,
    /// The offset after the last record read (the next fetch offset).
    pub next_offset: i64,
    /// The high watermark the controller last reported.
    pub high_watermark: i64,
    /// The Fetch version used.
    pub fetch_version: i16,
    /// Where a snapshot ended, when the log before it was only in a snapshot (skipped:
    /// FetchSnapshot is not implemented).
    pub snapshot_skipped: Option<i64>,
}

/// The records of one Fetch answer and, if it held a batch, the next offset and the epoch
/// of its last batch.
pub type FetchedRecords = (Vec<LogRecord>, Option<(i64, i32)>);

/// Turns one Fetch partition's `Records` bytes into log records (strict batches; the
/// records' own bytes decoded where the codec knows them). Returns the records, the next
/// offset and the epoch of the last batch, or the batch-level decode error.
pub fn records_of(bytes: &[u8]) -> Result<FetchedRecords, DecodeError> {
    let batches = decode_record_batches(bytes)?;
    let mut out = Vec::new();
    let mut last = None;
    for b in &batches.batches {
        last = Some((b.next_offset(), b.partition_leader_epoch));
        for r in &b.records {
            let offset = b.base_offset.saturating_add(i64::from(r.offset_delta));
            let leader_epoch = b.partition_leader_epoch;
            if b.is_control() {
                let control_type = r.control_type().unwrap_or(-1);
                out.push(LogRecord {
                    offset,
                    leader_epoch,
                    record_type: -1,
                    version: -1,
                    payload: LogPayload::Control { control_type },
                });
                continue;
            }
            out.push(metadata_record(offset, leader_epoch, r.value, r.value_at));
        }
    }
    Ok((out, last))
}

/// One metadata record from its value bytes (at absolute offset `at`).
fn metadata_record(offset: i64, leader_epoch: i32, value: Option<&[u8]>, at: usize) -> LogRecord {
    let mut rec = LogRecord {
        offset,
        leader_epoch,
        record_type: -1,
        version: -1,
        payload: LogPayload::Undecoded,
    };
    let Some(value) = value else {
        rec.payload = LogPayload::Malformed(
            DecodeError::new(codec::DecodeErrorKind::NullNotAllowed, at).root("metadata record"),
        );
        return rec;
    };
    let (record_type, version) = match MetadataRecord::head(value) {
        Ok(h) => h,
        Err(e) => {
            rec.payload = LogPayload::Malformed(e.shifted(at));
            return rec;
        }
    };
    rec.record_type = record_type;
    rec.version = version;
    let known =
        MetadataRecordBody::info(ApiKey(record_type)).is_some_and(|i| i.valid.contains(version));
    if known {
        rec.payload = match MetadataRecord::from_bytes(value) {
            Ok(m) => LogPayload::Decoded(m.body),
            Err(e) => LogPayload::Malformed(e.shifted(at)),
        };
    }
    rec
}

/// Sends one request and reads its answer frame (size prefix included), bounded.
fn exchange(
    frames: &mut BlockingFrames,
    addr: &str,
    header: &RequestHeader,
    body: &RequestBody,
) -> Result<Vec<u8>, MetadataLogError> {
    let frame = codec::encode_request_frame(header, body, &ProvisionalNumbers::default())?;
    let answer = |source| MetadataLogError::Answer {
        addr: addr.to_owned(),
        source,
    };
    net::write_frame_blocking(frames.get_mut(), addr, &frame).map_err(answer)?;
    frames.next(FETCH_IO_TIMEOUT).map_err(answer)
}

/// An observer's connection to a controller's metadata log.
pub struct MetadataLogReader {
    addr: String,
    stream: BlockingFrames,
    fetch_version: i16,
    leader_epoch: i32,
    correlation_id: i32,
}

impl MetadataLogReader {
    /// Connects to the controller listener at `addr` and picks the highest Fetch version
    /// (13-18) both sides speak from its ApiVersions.
    pub fn connect(addr: &str) -> Result<Self, MetadataLogError> {
        let io = |source| MetadataLogError::Io {
            addr: addr.to_owned(),
            source,
        };
        let sock = addr
            .to_socket_addrs()
            .map_err(io)?
            .next()
            .ok_or_else(|| io(std::io::Error::other("resolves to nothing")))?;
        let stream = TcpStream::connect_timeout(&sock, FETCH_IO_TIMEOUT).map_err(io)?;
        stream
            .set_read_timeout(Some(FETCH_IO_TIMEOUT))
            .map_err(io)?;
        stream
            .set_write_timeout(Some(FETCH_IO_TIMEOUT))
            .map_err(io)?;
        let _ = stream.set_nodelay(true);
        let mut stream =
            BlockingFrames::new(stream, addr, FETCH_MAX_BYTES as usize + PEER_MAX_FRAME_SIZE);
        let header = RequestHeader {
            request_api_key: ApiKey::API_VERSIONS.0,
            request_api_version: 3,
            correlation_id: 1,
            client_id: Some("kipcheck-metadata-log".into()),
            ..Default::default()
        };
        let body = RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: Some("kipcheck".into()),
            client_software_version: Some(env!("CARGO_PKG_VERSION").into()),
            ..Default::default()
        });
        let answer = exchange(&mut stream, addr, &header, &body)?;
        let decoded = codec::decode_response_frame(&answer, answer.len(), ApiKey::API_VERSIONS, 3)
            .map_err(|source| MetadataLogError::Decode {
                addr: addr.to_owned(),
                source,
            })?;
        let ResponseBody::ApiVersions(av) = decoded.body else {
            return Err(MetadataLogError::Unexpected {
                addr: addr.to_owned(),
                what: "ApiVersions answered as another API".into(),
            });
        };
        let fetch = av.api_keys.iter().find(|k| k.api_key == ApiKey::FETCH.0);
        let ours = RequestBody::info(ApiKey::FETCH).map(|i| i.valid);
        let version = match (fetch, ours) {
            (Some(f), Some(ours)) => {
                let v = f.max_version.min(ours.max);
                (v >= 13 && v >= f.min_version && v >= ours.min).then_some(v)
            }
            _ => None,
        };
        let Some(fetch_version) = version else {
            return Err(MetadataLogError::NoFetchVersion {
                addr: addr.to_owned(),
                advertised: fetch.map_or("none".into(), |f| {
                    format!("v{}-{}", f.min_version, f.max_version)
                }),
            });
        };
        Ok(Self {
            addr: addr.to_owned(),
            stream,
            fetch_version,
            leader_epoch: 0,
            correlation_id: 1,
        })
    }

    /// The Fetch version in use.
    pub fn fetch_version(&self) -> i16 {
        self.fetch_version
    }

    /// One Fetch at `offset` whose previous record has epoch `last_epoch`.
    fn fetch_once(
        &mut self,
        offset: i64,
        last_epoch: i32,
    ) -> Result<PartitionData, MetadataLogError> {
        self.correlation_id = self.correlation_id.wrapping_add(1);
        let v = self.fetch_version;
        let header = RequestHeader {
            request_api_key: ApiKey::FETCH.0,
            request_api_version: v,
            correlation_id: self.correlation_id,
            client_id: Some("kipcheck-metadata-log".into()),
            ..Default::default()
        };
        let body = RequestBody::Fetch(FetchRequest {
            cluster_id: None,
            replica_id: (v <= 14).then_some(-1),
            replica_state: (v >= 15).then(|| ReplicaState {
                replica_id: -1,
                replica_epoch: -1,
                ..Default::default()
            }),
            max_wait_ms: 0,
            min_bytes: 0,
            max_bytes: FETCH_MAX_BYTES,
            isolation_level: 0,
            session_id: Some(0),
            session_epoch: Some(-1),
            topics: vec![FetchTopic {
                topic: None,
                topic_id: Some(METADATA_TOPIC_ID),
                partitions: vec![FetchPartition {
                    partition: 0,
                    current_leader_epoch: Some(self.leader_epoch),
                    fetch_offset: offset,
                    last_fetched_epoch: Some(last_epoch),
                    log_start_offset: Some(-1),
                    partition_max_bytes: FETCH_MAX_BYTES,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            forgotten_topics_data: Some(Vec::new()),
            rack_id: Some("".into()),
            ..Default::default()
        });
        let answer = exchange(&mut self.stream, &self.addr, &header, &body)?;
        let decoded = codec::decode_response_frame(&answer, answer.len(), ApiKey::FETCH, v)
            .map_err(|source| MetadataLogError::Decode {
                addr: self.addr.clone(),
                source,
            })?;
        let ResponseBody::Fetch(resp) = decoded.body else {
            return Err(self.unexpected("answered as another API"));
        };
        let top = ErrorCode(resp.error_code.unwrap_or(0));
        if top != ErrorCode::NONE {
            return Err(MetadataLogError::Refused {
                addr: self.addr.clone(),
                code: top,
                offset,
            });
        }
        let [topic] = resp.responses.as_slice() else {
            return Err(self.unexpected("not exactly one topic in the answer"));
        };
        if topic.topic_id != Some(METADATA_TOPIC_ID) {
            return Err(self.unexpected("the answer is for another topic id"));
        }
        let [partition] = topic.partitions.as_slice() else {
            return Err(self.unexpected("not exactly one partition in the answer"));
        };
        Ok(partition.clone())
    }

    fn unexpected(&self, what: &str) -> MetadataLogError {
        MetadataLogError::Unexpected {
            addr: self.addr.clone(),
            what: what.into(),
        }
    }

    /// Reads every record from `from` (a record offset, with `from_epoch` the epoch of the
    /// record before it; 0 and 0 for the whole log) up to the high watermark, within
    /// `deadline`.
    pub fn read_from(
        &mut self,
        from: i64,
        from_epoch: i32,
        deadline: Duration,
    ) -> Result<LogRead, MetadataLogError> {
        let start = Instant::now();
        // The leader's epoch is at least the epoch of any record it holds (a fetch naming a
        // last-fetched epoch above the current leader epoch is INVALID_REQUEST).
        self.leader_epoch = self.leader_epoch.max(from_epoch);
        let (mut offset, mut epoch) = (from, from_epoch);
        let mut records = Vec::new();
        let mut epoch_retries = 0;
        let mut high_watermark;
        let mut snapshot_skipped = None;
        for _ in 0..MAX_FETCHES {
            let p = self.fetch_once(offset, epoch)?;
            high_watermark = p.high_watermark;
            let code = ErrorCode(p.error_code);
            if code == ErrorCode::FENCED_LEADER_EPOCH || code == ErrorCode::UNKNOWN_LEADER_EPOCH {
                let leader = p.current_leader.as_ref().map(|l| l.leader_epoch);
                match leader {
                    Some(e)
                        if e >= 0
                            && e != self.leader_epoch
                            && epoch_retries < MAX_EPOCH_RETRIES =>
                    {
                        self.leader_epoch = e;
                        epoch_retries += 1;
                        continue;
                    }
                    _ => {
                        return Err(MetadataLogError::Refused {
                            addr: self.addr.clone(),
                            code,
                            offset,
                        })
                    }
                }
            }
            if code != ErrorCode::NONE {
                return Err(MetadataLogError::Refused {
                    addr: self.addr.clone(),
                    code,
                    offset,
                });
            }
            if let Some(l) = &p.current_leader {
                if l.leader_epoch > self.leader_epoch {
                    self.leader_epoch = l.leader_epoch;
                }
            }
            if let Some(s) = p.snapshot_id.as_ref().filter(|s| s.end_offset >= 0) {
                // The log before `s.end_offset` is only in a snapshot (FetchSnapshot is not
                // implemented): continue after it, as a follower does once it has loaded it,
                // and say so. A snapshot at or before where we are is a broken answer.
                if s.end_offset <= offset {
                    return Err(MetadataLogError::Snapshot {
                        addr: self.addr.clone(),
                        end_offset: s.end_offset,
                    });
                }
                snapshot_skipped = Some(s.end_offset);
                offset = s.end_offset;
                epoch = s.epoch;
                continue;
            }
            if let Some(d) = p.diverging_epoch.as_ref().filter(|d| d.end_offset >= 0) {
                // The epoch we named for `offset` is not the log's: continue from the end of
                // the named epoch as the controller says (an observer keeps no log to truncate).
                if d.end_offset < offset {
                    records.retain(|r: &LogRecord| r.offset < d.end_offset);
                }
                offset = d.end_offset;
                epoch = d.epoch;
                continue;
            }
            let bytes = p.records.as_ref().map(|b| b.0.as_slice()).unwrap_or(&[]);
            let (got, last) = records_of(bytes).map_err(|source| MetadataLogError::Decode {
                addr: self.addr.clone(),
                source,
            })?;
            records.extend(got.into_iter().filter(|r| r.offset >= from));
            // Done when the answer brought nothing new, the high watermark is reached, or
            // the read's time is up.
            let advanced = match last {
                Some((next, last_epoch)) if next > offset => {
                    offset = next;
                    epoch = last_epoch;
                    true
                }
                _ => false,
            };
            if !advanced || offset >= high_watermark || start.elapsed() > deadline {
                return Ok(LogRead {
                    records,
                    next_offset: offset,
                    high_watermark,
                    fetch_version: self.fetch_version,
                    snapshot_skipped,
                });
            }
        }
        Err(self.unexpected("the log did not end within the fetch bound"))
    }
}
