//! The Kafka wire codec: strict, allocation-safe decoding and exact encoding of every
//! message kipcheck speaks, generated from Kafka's JSON definitions in `harness/messages/`.
//!
//! Pure and synchronous: no I/O, no clocks, no logging. Everything here may be fed
//! hostile bytes; nothing here may panic on them.
//!
//! The crate `kipcheck-codec`, the bottom layer: it depends on no other kipcheck crate and on
//! no async runtime (Cargo enforces both); the harness re-exports it as `kipcheck::codec`.
//! `generated/` is written by `kipcheck-codegen` (`cargo run -p kipcheck-codegen`).
//!
//! Layering inside the crate: a file imports only from its own layer's lower files or from
//! layers below it (`harness/tests/misc/module_graph.rs` fails on any import cycle):
//! 1. primitives: `limits`, `api_key`, `error_code`, `open_enum`, `error`, `types`, `reader`,
//!    `writer`, `provisional`, `record_batch`;
//! 2. message traits: `message` (`Message`, `VersionRange`), `dispatch` (`BodyInfo` and the
//!    `bodies!` macro), `schema::shape` (the schema table's types), `prelude` (what generated
//!    code imports: layers 1-2 only);
//! 3. `generated/`: imports `prelude`, `dispatch::bodies!` and the schema types, never a file
//!    of layer 4;
//! 4. over the generated messages: `frame`, `record`, `schema` (lookup by name), `pick`
//!    (`pick_response`). Nothing in the crate imports layer 4 but `lib.rs`'s re-exports.

mod api_key;
pub(crate) mod dispatch;
mod error;
mod error_code;
mod frame;
// Generated code is checked in exactly as kipcheck-codegen writes it (the staleness test
// compares byte for byte), so rustfmt must leave it alone.
#[rustfmt::skip]
pub mod generated;
pub mod limits;
mod message;
mod open_enum;
mod pick;
pub mod prelude;
mod provisional;
mod reader;
mod record;
mod record_batch;
pub mod schema;
mod types;
mod writer;

pub use api_key::ApiKey;
pub use dispatch::BodyInfo;
pub use error::{DecodeError, DecodeErrorKind, EncodeError, PathSegment};
pub use error_code::ErrorCode;
pub use frame::{
    decode_request, decode_request_frame, decode_request_header, decode_response,
    decode_response_frame, encode_request_frame, encode_response_frame, frame, peek_request,
    peek_response_correlation_id, request_header_version, response_body_versions,
    response_header_version, split_frame, split_request_head, DecodedRequest, DecodedResponse,
    FrameReader, RequestPeek,
};
pub use generated::*;
pub use message::{Message, VersionRange};
pub use pick::pick_response;
pub use provisional::ProvisionalNumbers;
pub use reader::Reader;
pub use record::{MetadataRecord, RECORD_FRAME_VERSION};
pub use record_batch::{
    decode_record_batches, encode_record_batch, BatchRecord, KeyValue, RecordBatch, RecordBatches,
    BATCH_HEADER_LEN, BATCH_LOG_OVERHEAD, RECORD_BATCH_MAGIC,
};
pub use types::{
    double_option, from_hex, smallvec, to_hex, Bytes, FixedCollect, FixedLane, KString, SmallVec,
    TaggedFields, Uuid,
};
pub use writer::{put_uvarint, uvarint_len, Sink, SizeCounter};

/// A protocol version number.
pub type ApiVersion = i16;
