//! A target wrapper that records every frame crossing the session boundary (requests and
//! responses, in both directions), so the frames the suite exchanges can seed the fuzz
//! corpus and follow the protocol as it evolves. Adds no behaviour of its own.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;

use super::target::{
    AdapterError, Capabilities, ConnOutput, OutRequest, Outbound, PeerAction, Session,
    SessionConfig, Target,
};
use crate::codec::{self, ApiKey, ProvisionalNumbers, ResponseBody};

/// One recorded frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordedFrame {
    /// A request frame (size prefix included).
    Request(Vec<u8>),
    /// A response frame, with the canonical API key and version of its request.
    Response {
        /// Canonical API key.
        api_key: ApiKey,
        /// Request version.
        version: i16,
        /// The frame (size prefix included).
        frame: Vec<u8>,
    },
}

impl RecordedFrame {
    /// The input the `decode_request` / `decode_response` fuzz targets take for this frame:
    /// a request frame as is; a response frame prefixed with the index of its API in
    /// [`ResponseBody::KNOWN`] and its version's offset from the lowest valid version.
    pub fn fuzz_input(&self) -> Option<(&'static str, Vec<u8>)> {
        match self {
            RecordedFrame::Request(f) => Some(("decode_request", f.clone())),
            RecordedFrame::Response {
                api_key,
                version,
                frame,
            } => {
                let index = ResponseBody::KNOWN
                    .iter()
                    .position(|i| i.api_key == *api_key)?;
                let info = &ResponseBody::KNOWN[index];
                let offset = u8::try_from(version - info.valid.min).ok()?;
                let mut out = vec![u8::try_from(index).ok()?, offset];
                out.extend_from_slice(frame);
                Some(("decode_response", out))
            }
        }
    }
}

/// Records the frames of every session of the wrapped target.
pub struct RecordingTarget {
    inner: Arc<dyn Target>,
    frames: Arc<Mutex<Vec<RecordedFrame>>>,
}

impl RecordingTarget {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Target>) -> Self {
        Self {
            inner,
            frames: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Everything recorded so far.
    pub fn frames(&self) -> Vec<RecordedFrame> {
        self.frames.lock().map(|f| f.clone()).unwrap_or_default()
    }
}

#[async_trait]
impl Target for RecordingTarget {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn time_scale(&self) -> f64 {
        self.inner.time_scale()
    }

    fn observed_events(&self) -> Vec<&'static str> {
        self.inner.observed_events()
    }

    fn timing(&self) -> Option<crate::model::Timing> {
        self.inner.timing()
    }

    fn bind(
        &self,
        scenario: &crate::scenario::Scenario,
    ) -> Result<Option<crate::scenario::Scenario>, super::binding::Unbound> {
        self.inner.bind(scenario)
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        let numbers = config.profile.provisional;
        let inner = self.inner.open(config).await?;
        Ok(Box::new(RecordingSession {
            inner,
            numbers,
            frames: Arc::clone(&self.frames),
            conn_pending: BTreeMap::new(),
            node_pending: BTreeMap::new(),
        }))
    }
}

struct RecordingSession {
    inner: Box<dyn Session>,
    numbers: ProvisionalNumbers,
    frames: Arc<Mutex<Vec<RecordedFrame>>>,
    conn_pending: BTreeMap<u32, VecDeque<(ApiKey, i16)>>,
    node_pending: BTreeMap<i32, VecDeque<(ApiKey, i16)>>,
}

impl RecordingSession {
    fn record(&self, f: RecordedFrame) {
        if let Ok(mut v) = self.frames.lock() {
            v.push(f);
        }
    }

    /// The canonical API key and version a request frame names in its header.
    fn request_id(&self, frame: &[u8]) -> Option<(ApiKey, i16)> {
        let peek = codec::peek_request(frame.get(4..)?);
        Some((
            self.numbers.canonical_api_key(peek.api_key?),
            peek.api_version?,
        ))
    }

    fn record_response(&self, pending: Option<(ApiKey, i16)>, frame: &[u8]) {
        if let Some((api_key, version)) = pending {
            self.record(RecordedFrame::Response {
                api_key,
                version,
                frame: frame.to_vec(),
            });
        }
    }
}

#[async_trait]
impl Session for RecordingSession {
    async fn send(&mut self, conn: u32, out: Outbound) -> Result<(), AdapterError> {
        if let Some(id) = self.request_id(&out.frame) {
            self.conn_pending.entry(conn).or_default().push_back(id);
        }
        self.record(RecordedFrame::Request(out.frame.clone()));
        self.inner.send(conn, out).await
    }

    async fn recv(&mut self, conn: u32, wait_ms: u64) -> Result<Option<ConnOutput>, AdapterError> {
        let out = self.inner.recv(conn, wait_ms).await?;
        if let Some(ConnOutput::Frame(f)) = &out {
            let pending = self
                .conn_pending
                .get_mut(&conn)
                .and_then(VecDeque::pop_front);
            self.record_response(pending, f);
        }
        Ok(out)
    }

    async fn act(&mut self, action: PeerAction) -> Result<(), AdapterError> {
        match &action {
            PeerAction::Disconnect(node) => {
                self.node_pending.remove(node);
            }
            PeerAction::Timeout(node) => {
                if let Some(q) = self.node_pending.get_mut(node) {
                    q.pop_front();
                }
            }
            _ => {}
        }
        self.inner.act(action).await
    }

    async fn next_request(&mut self, within_ms: u64) -> Result<Option<OutRequest>, AdapterError> {
        let out = self.inner.next_request(within_ms).await?;
        if let Some(r) = &out {
            if let Some(id) = self.request_id(&r.frame) {
                self.node_pending.entry(r.node).or_default().push_back(id);
            }
            self.record(RecordedFrame::Request(r.frame.clone()));
        }
        Ok(out)
    }

    async fn respond(&mut self, node: i32, frame: Vec<u8>) -> Result<(), AdapterError> {
        let pending = self
            .node_pending
            .get_mut(&node)
            .and_then(VecDeque::pop_front);
        self.record_response(pending, &frame);
        self.inner.respond(node, frame).await
    }

    async fn next_release(&mut self, within_ms: u64) -> Result<Option<(u64, u64)>, AdapterError> {
        self.inner.next_release(within_ms).await
    }

    async fn advance(&mut self, ms: u64) -> Result<(), AdapterError> {
        self.inner.advance(ms).await
    }

    async fn finish(&mut self) -> Result<(), AdapterError> {
        self.inner.finish().await
    }

    fn now_ms(&self) -> u64 {
        self.inner.now_ms()
    }

    async fn refresh_events(&mut self) -> Result<(), AdapterError> {
        self.inner.refresh_events().await
    }

    fn events(&self) -> Vec<Value> {
        self.inner.events()
    }
}
