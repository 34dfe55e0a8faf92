//! Frames and headers: the int32 size prefix (checked against a maximum before anything is
//! allocated), the incremental [`FrameReader`], and whole requests and responses — header
//! version selection (request header v2 for flexible versions, else v1; response header v1
//! for flexible versions, else v0; ApiVersions responses always v0, KIP-511) and the
//! ApiVersions v0 fallback for UNSUPPORTED_VERSION answers. Pure; no I/O.

use serde::Serialize;

use super::error::{DecodeError, DecodeErrorKind, EncodeError};
use super::generated::{RequestBody, RequestHeader, ResponseBody, ResponseHeader};
use super::message::Message;
use super::reader::Reader;
use super::writer::put_i32;
use super::{ApiKey, ErrorCode, ProvisionalNumbers};

/// Splits one size-prefixed frame off the front of `input`. Returns the payload (without
/// the 4 size bytes) and the total bytes consumed. The size is checked for sign and against
/// `max` before anything else, and against the bytes present.
pub fn split_frame(input: &[u8], max: usize) -> Result<(&[u8], usize), DecodeError> {
    let mut r = Reader::new(input);
    let size = r.i32().map_err(|e| e.root("frame size"))?;
    let size = check_size(size, max, 0)?;
    let payload = r.take(size).map_err(|e| e.root("frame"))?;
    Ok((payload, 4 + size))
}

fn check_size(size: i32, max: usize, at: usize) -> Result<usize, DecodeError> {
    if size < 0 {
        return Err(
            DecodeError::new(DecodeErrorKind::NegativeFrameSize { size }, at).root("frame size"),
        );
    }
    let size = size as usize;
    if size > max {
        return Err(DecodeError::new(
            DecodeErrorKind::FrameTooLarge {
                size: size as u64,
                max,
            },
            at,
        )
        .root("frame size"));
    }
    Ok(size)
}

/// Reassembles size-prefixed frames from a byte stream that arrives in arbitrary pieces.
///
/// Memory stays bounded by `max` plus one read: a size prefix over `max` (or negative) is
/// an error as soon as its 4 bytes are in, before the payload is buffered.
#[derive(Debug)]
pub struct FrameReader {
    max: usize,
    buf: Vec<u8>,
    /// Absolute stream offset of `buf[0]`, for error offsets.
    consumed: usize,
    failed: bool,
}

impl FrameReader {
    /// A reader that accepts frames of at most `max` payload bytes.
    pub fn new(max: usize) -> Self {
        Self {
            max,
            buf: Vec::new(),
            consumed: 0,
            failed: false,
        }
    }

    /// Appends bytes read from the stream. After a bad size prefix the stream cannot be
    /// framed any more and further bytes are discarded.
    pub fn push(&mut self, bytes: &[u8]) {
        if !self.failed {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Bytes buffered but not yet returned as a frame.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The size the next frame's prefix claims, once its 4 bytes are in and it is within
    /// bounds (negative or over `max`: `None`, and [`next_frame`](Self::next_frame) says why).
    pub fn claimed(&self) -> Option<usize> {
        let size = i32::from_be_bytes(self.buf.get(..4)?.try_into().ok()?);
        usize::try_from(size).ok().filter(|&s| s <= self.max)
    }

    /// How many more bytes complete the next frame: the rest of its size prefix, then the
    /// rest of its payload. 0 when a frame is ready, or when the prefix is bad (then
    /// [`next_frame`](Self::next_frame) returns the error). A reader that reads at most this
    /// many bytes never buffers past the current frame.
    pub fn wanted(&self) -> usize {
        if self.failed {
            return 0;
        }
        if self.buf.len() < 4 {
            return 4 - self.buf.len();
        }
        self.claimed()
            .map_or(0, |size| (4 + size).saturating_sub(self.buf.len()))
    }

    /// `n` more zeroed bytes at the end of the buffer, for a reader that reads into place;
    /// then [`filled`](Self::filled) says how many it wrote.
    pub fn spare(&mut self, n: usize) -> &mut [u8] {
        let at = self.buf.len();
        self.buf.resize(at + n, 0);
        &mut self.buf[at..]
    }

    /// Keeps the first `n` bytes of the last [`spare`](Self::spare) region and drops the
    /// rest (`spare_len` is that region's length).
    pub fn filled(&mut self, spare_len: usize, n: usize) {
        let end = self.buf.len() - spare_len + n.min(spare_len);
        self.buf.truncate(end);
    }

    /// Hands over the bytes of the incomplete frame buffered so far (size prefix included;
    /// after a bad prefix, the prefix alone), e.g. to report how far a cut-short frame came.
    pub fn take_buffered(&mut self) -> Vec<u8> {
        self.consumed += self.buf.len();
        std::mem::take(&mut self.buf)
    }

    /// The next complete frame's payload, `Ok(None)` if more bytes are needed, or an error
    /// for a bad size prefix. After an error the stream is unusable and every later call
    /// returns the same kind of error.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, DecodeError> {
        Ok(self.next_span()?.map(|size| {
            let payload = self.buf[4..4 + size].to_vec();
            self.advance(size);
            payload
        }))
    }

    /// As [`next_frame`](Self::next_frame), but the frame as it came: size prefix included.
    pub fn next_whole_frame(&mut self) -> Result<Option<Vec<u8>>, DecodeError> {
        Ok(self.next_span()?.map(|size| {
            let frame = self.buf[..4 + size].to_vec();
            self.advance(size);
            frame
        }))
    }

    fn advance(&mut self, size: usize) {
        self.buf.drain(..4 + size);
        self.consumed += 4 + size;
    }

    /// The payload size of the complete frame at the front of the buffer.
    fn next_span(&mut self) -> Result<Option<usize>, DecodeError> {
        if self.buf.len() < 4 {
            return Ok(None);
        }
        let size = i32::from_be_bytes([self.buf[0], self.buf[1], self.buf[2], self.buf[3]]);
        let size = match check_size(size, self.max, self.consumed) {
            Ok(s) => s,
            Err(e) => {
                self.failed = true;
                // Drop what was buffered: nothing after a bad prefix can be framed.
                self.buf.clear();
                self.buf.extend_from_slice(&size.to_be_bytes());
                return Err(e);
            }
        };
        if self.failed || self.buf.len() < 4 + size {
            return Ok(None);
        }
        Ok(Some(size))
    }
}

/// What the first bytes of a request payload (the bytes after the size prefix) name: the API
/// key as on the wire, the version and the correlation id, each `None` when the payload is
/// too short for it. Nothing else is decoded: for routers and recorders that look at a
/// request before (or without) decoding it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestPeek {
    /// `RequestApiKey` as sent (not translated to the canonical key).
    pub api_key: Option<ApiKey>,
    /// `RequestApiVersion`.
    pub api_version: Option<i16>,
    /// `CorrelationId`.
    pub correlation_id: Option<i32>,
}

/// Reads the [`RequestPeek`] of a request payload (size prefix excluded).
pub fn peek_request(payload: &[u8]) -> RequestPeek {
    let mut r = Reader::new(payload);
    let api_key = r.i16().ok().map(ApiKey);
    let api_version = api_key.and_then(|_| r.i16().ok());
    let correlation_id = api_version.and_then(|_| r.i32().ok());
    RequestPeek {
        api_key,
        api_version,
        correlation_id,
    }
}

/// The correlation id a response payload (size prefix excluded) starts with, if it is long
/// enough to hold one.
pub fn peek_response_correlation_id(payload: &[u8]) -> Option<i32> {
    Reader::new(payload).i32().ok()
}

/// The request header version for `api_version` of `api_key` (canonical key): 2 when the
/// request version is flexible, else 1. Unknown APIs get 1 (only their key, version and
/// correlation id can be read).
pub fn request_header_version(api_key: ApiKey, api_version: i16) -> i16 {
    match RequestBody::info(api_key) {
        Some(info) if info.is_flexible(api_version) => 2,
        _ => 1,
    }
}

/// The response header version for `api_version` of `api_key` (canonical key): 1 when the
/// response version is flexible, else 0; always 0 for ApiVersions (KIP-511).
pub fn response_header_version(api_key: ApiKey, api_version: i16) -> i16 {
    if api_key == ApiKey::API_VERSIONS {
        return 0;
    }
    match ResponseBody::info(api_key) {
        Some(info) if info.is_flexible(api_version) => 1,
        _ => 0,
    }
}

/// A decoded request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecodedRequest {
    /// The header version used.
    pub header_version: i16,
    /// The header (its `RequestApiKey` is the key as sent on the wire).
    pub header: RequestHeader,
    /// The canonical API key the body was decoded as.
    pub api_key: ApiKey,
    /// The body.
    pub body: RequestBody,
}

/// Decodes a request payload (the bytes after the size prefix). `base` is the absolute
/// offset of `payload[0]` for error messages (4 when the caller stripped the size).
pub fn decode_request(
    payload: &[u8],
    base: usize,
    numbers: &ProvisionalNumbers,
) -> Result<DecodedRequest, DecodeError> {
    let (header_version, header, api_key, mut r) = decode_request_header(payload, base, numbers)?;
    let wire_key = ApiKey(header.request_api_key);
    let version = header.request_api_version;
    if RequestBody::info(api_key).is_none() {
        return Err(
            DecodeError::new(DecodeErrorKind::UnknownApiKey { api_key: wire_key }, base)
                .field("RequestApiKey")
                .root("RequestHeader"),
        );
    }
    let body = RequestBody::decode(api_key, &mut r, version)?;
    r.expect_end().map_err(|e| e.root(body.message_name()))?;
    Ok(DecodedRequest {
        header_version,
        header,
        api_key,
        body,
    })
}

/// Decodes only a request's header: returns the header version used, the header, the
/// canonical API key, and a reader positioned at the body. Works for API keys the codec has
/// no body for (a server can then refuse them by key). `base` as in [`decode_request`].
pub fn decode_request_header<'a>(
    payload: &'a [u8],
    base: usize,
    numbers: &ProvisionalNumbers,
) -> Result<(i16, RequestHeader, ApiKey, Reader<'a>), DecodeError> {
    let mut r = Reader::with_base(payload, base);
    let mut peek = r.clone();
    let wire_key = ApiKey(
        peek.i16()
            .map_err(|e| e.field("RequestApiKey").root("RequestHeader"))?,
    );
    let version = peek
        .i16()
        .map_err(|e| e.field("RequestApiVersion").root("RequestHeader"))?;
    let api_key = numbers.canonical_api_key(wire_key);
    let header_version = request_header_version(api_key, version);
    let header = RequestHeader::decode(&mut r, header_version)?;
    Ok((header_version, header, api_key, r))
}

/// Decodes a whole request frame (size prefix included), checking the size against `max`
/// and that it matches the bytes given exactly.
pub fn decode_request_frame(
    frame: &[u8],
    max: usize,
    numbers: &ProvisionalNumbers,
) -> Result<DecodedRequest, DecodeError> {
    let (payload, used) = split_frame(frame, max)?;
    if used != frame.len() {
        return Err(DecodeError::new(
            DecodeErrorKind::TrailingBytes {
                count: frame.len() - used,
            },
            used,
        )
        .root("frame"));
    }
    decode_request(payload, 4, numbers)
}

/// Splits a whole request frame (size prefix included, nothing after it) into its decoded
/// header, the canonical API key and the still-encoded body; `None` if the size prefix or
/// the header does not decode. For routers that decide before decoding the body.
pub fn split_request_head<'a>(
    frame: &'a [u8],
    max: usize,
    numbers: &ProvisionalNumbers,
) -> Option<(RequestHeader, ApiKey, &'a [u8])> {
    let (payload, used) = split_frame(frame, max).ok()?;
    if used != frame.len() {
        return None;
    }
    let (_, header, api_key, r) = decode_request_header(payload, 4, numbers).ok()?;
    Some((header, api_key, r.rest()))
}

/// Encodes a request frame: size, header (version chosen from the body's API and
/// `header.request_api_version`; `RequestApiKey` rewritten to the wire key), body.
pub fn encode_request_frame(
    header: &RequestHeader,
    body: &RequestBody,
    numbers: &ProvisionalNumbers,
) -> Result<Vec<u8>, EncodeError> {
    let version = header.request_api_version;
    let mut header = header.clone();
    header.request_api_key = numbers.wire_api_key(body.api_key()).0;
    let header_version = request_header_version(body.api_key(), version);
    let mut out = vec![0u8; 4];
    header.encode(&mut out, header_version)?;
    body.encode(&mut out, version)?;
    patch_size(&mut out)?;
    Ok(out)
}

fn patch_size(out: &mut [u8]) -> Result<(), EncodeError> {
    let size = out.len() - 4;
    let size32 = i32::try_from(size).map_err(|_| EncodeError::TooLong {
        field: "frame".into(),
        len: size,
    })?;
    out[..4].copy_from_slice(&size32.to_be_bytes());
    Ok(())
}

/// A decoded response.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecodedResponse {
    /// The header version used.
    pub header_version: i16,
    /// The header.
    pub header: ResponseHeader,
    /// The canonical API key.
    pub api_key: ApiKey,
    /// The version the body was decoded at: the requested one, or 0 after the ApiVersions
    /// fallback.
    pub version: i16,
    /// True when an ApiVersions response did not parse at the requested version but did
    /// as a v0 UNSUPPORTED_VERSION answer (KIP-511).
    pub fallback_v0: bool,
    /// The body.
    pub body: ResponseBody,
}

/// True when an answer to a request of `api_key` at `version` that does not parse may be
/// read as a v0 body instead: ApiVersions above v0 (KIP-511's UNSUPPORTED_VERSION answer).
fn may_fall_back_to_v0(api_key: ApiKey, version: i16) -> bool {
    api_key == ApiKey::API_VERSIONS && version > 0
}

/// Every version [`decode_response`] may decode the answer to a request of `api_key`
/// (canonical) at `version` at: that version if the codec knows it, then 0 where the
/// KIP-511 fallback applies. Empty if no answer can decode.
pub fn response_body_versions(api_key: ApiKey, version: i16) -> Vec<i16> {
    let mut out = Vec::new();
    if ResponseBody::info(api_key).is_some_and(|i| i.valid.contains(version)) {
        out.push(version);
    }
    if may_fall_back_to_v0(api_key, version) {
        out.push(0);
    }
    out
}

/// Decodes a response payload (the bytes after the size prefix) for a request of
/// `api_key` (canonical) at `version`. `base` is the absolute offset of `payload[0]`.
pub fn decode_response(
    payload: &[u8],
    base: usize,
    api_key: ApiKey,
    version: i16,
) -> Result<DecodedResponse, DecodeError> {
    let header_version = response_header_version(api_key, version);
    let mut r = Reader::with_base(payload, base);
    let header = ResponseHeader::decode(&mut r, header_version)?;
    let body_start = r.clone();
    let first = ResponseBody::decode(api_key, &mut r, version).and_then(|b| {
        r.expect_end()
            .map(|_| b)
            .map_err(|e| e.root(ResponseBody::info(api_key).map_or("response", |i| i.message)))
    });
    match first {
        Ok(body) => Ok(DecodedResponse {
            header_version,
            header,
            api_key,
            version,
            fallback_v0: false,
            body,
        }),
        Err(err) if may_fall_back_to_v0(api_key, version) => {
            // KIP-511: a broker that does not support the request version answers with a
            // v0 body carrying UNSUPPORTED_VERSION.
            let mut r0 = body_start;
            match ResponseBody::decode(api_key, &mut r0, 0) {
                Ok(ResponseBody::ApiVersions(b))
                    if r0.remaining() == 0
                        && ErrorCode(b.error_code) == ErrorCode::UNSUPPORTED_VERSION =>
                {
                    Ok(DecodedResponse {
                        header_version,
                        header,
                        api_key,
                        version: 0,
                        fallback_v0: true,
                        body: ResponseBody::ApiVersions(b),
                    })
                }
                _ => Err(err),
            }
        }
        Err(err) => Err(err),
    }
}

/// Decodes a whole response frame (size prefix included).
pub fn decode_response_frame(
    frame: &[u8],
    max: usize,
    api_key: ApiKey,
    version: i16,
) -> Result<DecodedResponse, DecodeError> {
    let (payload, used) = split_frame(frame, max)?;
    if used != frame.len() {
        return Err(DecodeError::new(
            DecodeErrorKind::TrailingBytes {
                count: frame.len() - used,
            },
            used,
        )
        .root("frame"));
    }
    decode_response(payload, 4, api_key, version)
}

/// Encodes a response frame for `version` of the body's API: size, header (version chosen
/// by [`response_header_version`]), body.
pub fn encode_response_frame(
    header: &ResponseHeader,
    body: &ResponseBody,
    version: i16,
) -> Result<Vec<u8>, EncodeError> {
    let header_version = response_header_version(body.api_key(), version);
    let mut out = vec![0u8; 4];
    header.encode(&mut out, header_version)?;
    body.encode(&mut out, version)?;
    patch_size(&mut out)?;
    Ok(out)
}

/// Prefixes `payload` with its int32 size.
pub fn frame(payload: &[u8]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(payload.len() + 4);
    let size = i32::try_from(payload.len()).map_err(|_| EncodeError::TooLong {
        field: "frame".into(),
        len: payload.len(),
    })?;
    put_i32(&mut out, size);
    out.extend_from_slice(payload);
    Ok(out)
}
