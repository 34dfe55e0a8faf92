//! What generated message modules import. Not part of the public API surface beyond what
//! the codec module re-exports.

pub use serde::{Deserialize, Serialize};

pub use super::error::{DecodeError, EncodeError};
pub use super::message::{Message, VersionRange};
pub use super::reader::Reader;
pub use super::types::{double_option, Bytes, KString, SmallVec, TaggedFields, Uuid};
pub use super::writer::{
    put_array, put_bool, put_bytes, put_f64, put_fixed_array, put_i16, put_i32, put_i64, put_i8,
    put_nullable_array, put_nullable_bytes, put_nullable_fixed_array, put_nullable_string,
    put_nullable_struct, put_string, put_tagged_count, put_tagged_fields, put_tagged_header,
    put_u16, put_u32, put_unknown_tagged_below, put_uuid, Sink, SizeCounter,
};
pub use super::ApiKey;
