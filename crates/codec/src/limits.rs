//! Every cap the codec applies to untrusted input, in one place.

/// Longest string Kafka's Java reader accepts (`Short.MAX_VALUE`).
pub const MAX_STRING_LEN: usize = 0x7fff;

/// Default largest frame a [`FrameReader`](super::FrameReader) accepts: Kafka's
/// `socket.request.max.bytes` default (100 MiB).
pub const DEFAULT_MAX_FRAME_SIZE: usize = 100 * 1024 * 1024;
