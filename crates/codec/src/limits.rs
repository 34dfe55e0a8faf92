//! Every cap the codec applies to untrusted input, in one place.

/// Longest string Kafka's Java reader accepts (`Short.MAX_VALUE`).
pub const MAX_STRING_LEN: usize = 0x7fff;

/// Default largest frame a [`FrameReader`](super::FrameReader) accepts: Kafka's
/// `socket.request.max.bytes` default (100 MiB).
pub const DEFAULT_MAX_FRAME_SIZE: usize = 100 * 1024 * 1024;

/// Largest frame kipcheck reads from a peer for its own purposes (1 MiB): answers to its
/// probes and setup requests, `kipcheck serve`'s requests (`--max-frame-bytes` default) and
/// its load client's answers, the slack over a metadata-log fetch, a fuzz input. It bounds
/// memory per frame; frames a scenario judges are read up to [`DEFAULT_MAX_FRAME_SIZE`].
pub const PEER_MAX_FRAME_SIZE: usize = 1 << 20;
