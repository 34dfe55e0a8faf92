//! The per-scenario exchange log: every frame kipcheck sends to the target or receives from
//! it, every close and every acting step, with the session clock, decoded with the codec and
//! redacted, so a failure can be read with the exchange that led to it. Bounded: the last
//! [`MAX_ENTRIES`] entries, bodies cut at [`MAX_BODY_BYTES`] of JSON and hex at
//! [`MAX_FRAME_BYTES`] bytes per frame, with what was cut counted. The step functions call it
//! where frames cross the session (`send`, `recv`, `take_request`, `respond`); it never judges.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::redact::Redactor;
use crate::codec::{
    self, limits::DEFAULT_MAX_FRAME_SIZE, to_hex, ApiKey, DecodeError, DecodedRequest,
    DecodedResponse, ProvisionalNumbers, RequestBody,
};
use crate::runner::events::{Direction, Exchange, ExchangeEntry, ExchangeKind};

/// Entries kept per scenario (the last ones: the failure is at the end).
pub(super) const MAX_ENTRIES: usize = 32;
/// Bytes of a body's JSON rendering kept per entry.
pub(super) const MAX_BODY_BYTES: usize = 4096;
/// Bytes of a frame shown as hex per entry.
pub(super) const MAX_FRAME_BYTES: usize = 512;

/// The other end of a frame.
#[derive(Clone, Copy, Debug)]
pub(super) enum Peer {
    /// A connection kipcheck opened to a broker or controller target.
    Conn(u32),
    /// A node kipcheck emulates for a client target.
    Node(i32),
}

impl Peer {
    fn label(self) -> String {
        match self {
            Self::Conn(c) => format!("conn {c}"),
            Self::Node(n) => format!("node {n}"),
        }
    }
}

/// Where a scenario's exchange log keeps its entries, shared with whoever runs the scenario,
/// so the exchange of a scenario cancelled at its timeout is not lost with it.
#[derive(Clone, Debug, Default)]
pub struct ExchangeSink(Arc<Mutex<SinkState>>);

#[derive(Debug, Default)]
struct SinkState {
    entries: VecDeque<ExchangeEntry>,
    seen: usize,
}

impl ExchangeSink {
    /// The exchange recorded so far (`None` if nothing was), leaving the sink empty.
    pub fn take(&self) -> Option<Exchange> {
        let mut state = self.0.lock().ok()?;
        let state = std::mem::take(&mut *state);
        (state.seen > 0).then(|| Exchange {
            cut_before: state.seen - state.entries.len(),
            entries: state.entries.into(),
            max_entries: MAX_ENTRIES,
            max_body_bytes: MAX_BODY_BYTES,
            max_frame_bytes: MAX_FRAME_BYTES,
        })
    }

    fn seen(&self) -> usize {
        self.0.lock().map_or(0, |s| s.seen)
    }
}

/// Records one scenario's exchange.
pub(super) struct ExchangeLog {
    sink: ExchangeSink,
    redactor: Redactor,
    numbers: ProvisionalNumbers,
}

impl ExchangeLog {
    pub(super) fn new(sink: ExchangeSink, redactor: Redactor, numbers: ProvisionalNumbers) -> Self {
        Self {
            sink,
            redactor,
            numbers,
        }
    }

    /// A request frame (sent by kipcheck, or received from a client target), decoded as it
    /// is on the wire (a typed request kipcheck sent too: the log shows what the frame says
    /// at its version, not what kipcheck meant): the decoding is the caller's to use.
    pub(super) fn request(
        &mut self,
        at_ms: u64,
        direction: Direction,
        peer: Peer,
        frame: &[u8],
    ) -> Result<DecodedRequest, DecodeError> {
        let mut e = self.entry(at_ms, direction, ExchangeKind::Request, peer, Some(frame));
        let decoded = codec::decode_request_frame(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers);
        match &decoded {
            Ok(d) => {
                e.api = api_name(d.api_key);
                e.version = Some(d.header.request_api_version);
                e.correlation_id = Some(d.header.correlation_id);
                self.set_body(&mut e, serde_json::to_value(&d.body).ok());
            }
            Err(err) => {
                if let Some((_, key, _)) =
                    codec::split_request_head(frame, DEFAULT_MAX_FRAME_SIZE, &self.numbers)
                {
                    e.api = api_name(key);
                }
                e.note = Some(self.redactor.apply(&format!("does not decode: {err}")));
            }
        }
        self.push(e);
        decoded
    }

    /// A response frame to a request of `request` = (canonical API key, version), if known:
    /// its decoding as that answer, for the caller to judge (`None`: no request known).
    pub(super) fn response(
        &mut self,
        at_ms: u64,
        direction: Direction,
        peer: Peer,
        frame: &[u8],
        request: Option<(ApiKey, i16)>,
    ) -> Option<Result<DecodedResponse, DecodeError>> {
        let mut e = self.entry(at_ms, direction, ExchangeKind::Response, peer, Some(frame));
        let decoded = request.map(|(key, version)| {
            codec::decode_response_frame(frame, DEFAULT_MAX_FRAME_SIZE, key, version)
        });
        match (request, &decoded) {
            (Some((key, version)), Some(decoded)) => {
                e.api = api_name(key);
                e.version = Some(version);
                match decoded {
                    Ok(d) => {
                        e.correlation_id = Some(d.header.correlation_id);
                        self.set_body(&mut e, serde_json::to_value(&d.body).ok());
                    }
                    Err(err) => {
                        e.note = Some(self.redactor.apply(&format!("does not decode: {err}")))
                    }
                }
            }
            _ => e.note = Some("answers no request kipcheck sent".into()),
        }
        self.push(e);
        decoded
    }

    /// The target closed the connection.
    pub(super) fn close(&mut self, at_ms: u64, peer: Peer) {
        let e = self.entry(at_ms, Direction::Received, ExchangeKind::Close, peer, None);
        self.push(e);
    }

    /// A step that acts without a frame, e.g. `disconnect node 1`.
    pub(super) fn action(&mut self, at_ms: u64, peer: Option<Peer>, what: String) {
        let mut e = self.entry(
            at_ms,
            Direction::Sent,
            ExchangeKind::Action,
            peer.unwrap_or(Peer::Conn(0)),
            None,
        );
        if peer.is_none() {
            e.peer = "target".into();
        }
        e.note = Some(what);
        self.push(e);
    }

    /// The log as a result field.
    pub(super) fn finish(&self) -> Option<Exchange> {
        self.sink.take()
    }

    fn entry(
        &self,
        at_ms: u64,
        direction: Direction,
        kind: ExchangeKind,
        peer: Peer,
        frame: Option<&[u8]>,
    ) -> ExchangeEntry {
        let frame = frame.unwrap_or_default();
        let shown = frame.len().min(MAX_FRAME_BYTES);
        let secret = self.redactor.found_in(frame);
        ExchangeEntry {
            seq: self.sink.seen(),
            at_ms,
            direction,
            kind,
            peer: peer.label(),
            api: None,
            version: None,
            correlation_id: None,
            body: None,
            note: secret.then(|| "hex withheld: the frame holds a redacted value".into()),
            len: frame.len(),
            hex: (!frame.is_empty() && !secret).then(|| to_hex(&frame[..shown])),
            hex_cut: if secret {
                frame.len()
            } else {
                frame.len() - shown
            },
        }
    }

    /// Redacts the body and cuts its rendering to [`MAX_BODY_BYTES`].
    fn set_body(&self, e: &mut ExchangeEntry, body: Option<Value>) {
        let Some(body) = body else { return };
        let text = self.redactor.apply(&body.to_string());
        if text.len() <= MAX_BODY_BYTES {
            e.body = serde_json::from_str(&text).ok().or(Some(body));
            return;
        }
        let mut end = MAX_BODY_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        e.body = Some(Value::String(format!("{}…", &text[..end])));
        let cut = format!(
            "body cut to {MAX_BODY_BYTES} of {} bytes of JSON",
            text.len()
        );
        e.note = Some(match e.note.take() {
            Some(n) => format!("{n}; {cut}"),
            None => cut,
        });
    }

    fn push(&mut self, e: ExchangeEntry) {
        if let Ok(mut state) = self.sink.0.lock() {
            state.seen += 1;
            if state.entries.len() == MAX_ENTRIES {
                state.entries.pop_front();
            }
            state.entries.push_back(e);
        }
    }
}

/// Kafka's name of a canonical API key, or `api key N` for one the codec does not know.
fn api_name(key: ApiKey) -> Option<String> {
    Some(
        key.name()
            .or_else(|| RequestBody::info(key).map(|i| i.name))
            .map_or_else(|| format!("api key {}", key.0), str::to_owned),
    )
}
