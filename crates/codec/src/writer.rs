//! Primitive encoders over a [`Sink`]: a byte vector that is written, or a counter that
//! only measures. Generated message code encodes once, generically, and gets both the bytes
//! and the exact encoded length from the same code path. This module must not panic.

use super::error::EncodeError;
use super::limits::MAX_STRING_LEN;
use super::types::{Bytes, TaggedFields, Uuid};

/// Where encoded bytes go.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);
    /// Bytes written so far.
    fn written(&self) -> usize;
    /// Makes room for `additional` more bytes, where that means anything (a hint).
    #[inline]
    fn reserve(&mut self, additional: usize) {
        let _ = additional;
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn written(&self) -> usize {
        self.len()
    }
    #[inline]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }
}

/// A sink that only counts bytes: used to compute encoded lengths without writing.
#[derive(Clone, Copy, Debug, Default)]
pub struct SizeCounter(pub usize);

impl Sink for SizeCounter {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
    #[inline]
    fn written(&self) -> usize {
        self.0
    }
}

/// Writes a boolean as 0 or 1.
#[inline]
pub fn put_bool(s: &mut impl Sink, v: bool) {
    s.put(&[u8::from(v)]);
}
/// Writes an int8.
#[inline]
pub fn put_i8(s: &mut impl Sink, v: i8) {
    s.put(&v.to_be_bytes());
}
/// Writes a big-endian int16.
#[inline]
pub fn put_i16(s: &mut impl Sink, v: i16) {
    s.put(&v.to_be_bytes());
}
/// Writes a big-endian uint16.
#[inline]
pub fn put_u16(s: &mut impl Sink, v: u16) {
    s.put(&v.to_be_bytes());
}
/// Writes a big-endian int32.
#[inline]
pub fn put_i32(s: &mut impl Sink, v: i32) {
    s.put(&v.to_be_bytes());
}
/// Writes a big-endian uint32.
#[inline]
pub fn put_u32(s: &mut impl Sink, v: u32) {
    s.put(&v.to_be_bytes());
}
/// Writes a big-endian int64.
#[inline]
pub fn put_i64(s: &mut impl Sink, v: i64) {
    s.put(&v.to_be_bytes());
}
/// Writes a big-endian float64.
#[inline]
pub fn put_f64(s: &mut impl Sink, v: f64) {
    s.put(&v.to_be_bytes());
}
/// Writes a UUID's 16 bytes.
#[inline]
pub fn put_uuid(s: &mut impl Sink, v: &Uuid) {
    s.put(&v.0);
}

/// Writes an unsigned LEB128 varint.
#[inline]
pub fn put_uvarint(s: &mut impl Sink, mut v: u32) {
    if v < 0x80 {
        s.put(&[v as u8]);
        return;
    }
    let mut buf = [0u8; 5];
    let mut n = 0;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            buf[n] = b;
            n += 1;
            break;
        }
        buf[n] = b | 0x80;
        n += 1;
    }
    s.put(&buf[..n]);
}

/// Encoded length of an unsigned varint.
pub fn uvarint_len(v: u32) -> usize {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0xfff_ffff => 4,
        _ => 5,
    }
}

#[cold]
#[inline(never)]
fn too_long(len: usize) -> EncodeError {
    EncodeError::TooLong {
        field: String::new(),
        len,
    }
}

/// Writes a length prefix (or the null marker for `None`).
#[inline]
fn put_len(
    s: &mut impl Sink,
    len: Option<usize>,
    compact: bool,
    wide: bool,
) -> Result<(), EncodeError> {
    match (len, compact) {
        (None, true) => put_uvarint(s, 0),
        (None, false) if wide => put_i32(s, -1),
        (None, false) => put_i16(s, -1),
        (Some(n), true) => {
            let v = u32::try_from(n)
                .ok()
                .and_then(|n| n.checked_add(1))
                .ok_or_else(|| too_long(n))?;
            put_uvarint(s, v)
        }
        (Some(n), false) if wide => put_i32(s, i32::try_from(n).map_err(|_| too_long(n))?),
        (Some(n), false) => put_i16(s, i16::try_from(n).map_err(|_| too_long(n))?),
    }
    Ok(())
}

/// Writes a nullable string. Fails for strings over 32767 bytes.
#[inline]
pub fn put_nullable_string(
    s: &mut impl Sink,
    v: Option<&str>,
    compact: bool,
) -> Result<(), EncodeError> {
    match v {
        Some(v) => put_string(s, v, compact),
        None => put_len(s, None, compact, false),
    }
}

#[cold]
#[inline(never)]
fn string_too_long(len: usize) -> EncodeError {
    EncodeError::StringTooLong {
        field: String::new(),
        len,
    }
}

/// Writes a non-nullable string. Fails for strings over 32767 bytes.
#[inline]
pub fn put_string(s: &mut impl Sink, v: &str, compact: bool) -> Result<(), EncodeError> {
    let len = v.len();
    if len > MAX_STRING_LEN {
        return Err(string_too_long(len));
    }
    put_len(s, Some(len), compact, false)?;
    s.put(v.as_bytes());
    Ok(())
}

/// Writes nullable bytes.
#[inline]
pub fn put_nullable_bytes(
    s: &mut impl Sink,
    v: Option<&Bytes>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_len(s, v.map(|b| b.0.len()), compact, true)?;
    if let Some(v) = v {
        s.put(&v.0);
    }
    Ok(())
}

/// Writes non-nullable bytes.
#[inline]
pub fn put_bytes(s: &mut impl Sink, v: &Bytes, compact: bool) -> Result<(), EncodeError> {
    put_nullable_bytes(s, Some(v), compact)
}

/// Writes an array: the count, then each element through `elem`; errors carry the index.
#[inline]
pub fn put_nullable_array<S: Sink, T>(
    s: &mut S,
    v: Option<&[T]>,
    compact: bool,
    mut elem: impl FnMut(&mut S, &T) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    put_len(s, v.map(<[T]>::len), compact, true)?;
    if let Some(v) = v {
        for (i, e) in v.iter().enumerate() {
            elem(s, e).map_err(|err| err.within_index(i))?;
        }
    }
    Ok(())
}

/// Writes a non-nullable array.
#[inline]
pub fn put_array<S: Sink, T>(
    s: &mut S,
    v: &[T],
    compact: bool,
    elem: impl FnMut(&mut S, &T) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    put_nullable_array(s, Some(v), compact, elem)
}

/// Writes an array of a fixed-size primitive: the count, then each element's `N` bytes
/// from `to` (e.g. `i32::to_be_bytes`), with room for all of them made first.
#[inline]
pub fn put_nullable_fixed_array<const N: usize, T: Copy>(
    s: &mut impl Sink,
    v: Option<&[T]>,
    compact: bool,
    to: impl Fn(T) -> [u8; N],
) -> Result<(), EncodeError> {
    put_len(s, v.map(<[T]>::len), compact, true)?;
    if let Some(v) = v {
        s.reserve(v.len().saturating_mul(N));
        for e in v {
            s.put(&to(*e));
        }
    }
    Ok(())
}

/// Writes a non-nullable array of a fixed-size primitive ([`put_nullable_fixed_array`]).
#[inline]
pub fn put_fixed_array<const N: usize, T: Copy>(
    s: &mut impl Sink,
    v: &[T],
    compact: bool,
    to: impl Fn(T) -> [u8; N],
) -> Result<(), EncodeError> {
    put_nullable_fixed_array(s, Some(v), compact, to)
}

/// Writes a struct that may be null: in versions where it is nullable, an int8 marker
/// (-1 null, 1 present) precedes it; elsewhere it is written as is (the caller has refused
/// null already).
#[inline]
pub fn put_nullable_struct<S: Sink, T>(
    s: &mut S,
    v: Option<&T>,
    nullable: bool,
    body: impl FnOnce(&mut S, &T) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    match (v, nullable) {
        (None, true) => {
            put_i8(s, -1);
            Ok(())
        }
        (Some(x), true) => {
            put_i8(s, 1);
            body(s, x)
        }
        (Some(x), false) => body(s, x),
        (None, false) => Err(EncodeError::NullNotAllowed {
            field: String::new(),
            version: 0,
        }),
    }
}

/// Writes a tagged-field section: the `known` fields, already encoded and in ascending
/// tag order (only those that differ from their defaults), merged in ascending tag order
/// with the preserved `unknown` ones. An unknown field that reuses a known tag is refused.
///
/// `is_known` tells which tags the version defines; an unknown field that uses one of them
/// is refused (it would decode as the known field).
#[inline]
pub fn put_tagged_fields(
    s: &mut impl Sink,
    known: &[(u32, Vec<u8>)],
    is_known: impl Fn(u32) -> bool,
    unknown: &TaggedFields,
) -> Result<(), EncodeError> {
    if known.is_empty() && unknown.is_empty() {
        s.put(&[0]);
        return Ok(());
    }
    put_tagged_fields_slow(s, known, is_known, unknown)
}

#[inline(never)]
fn put_tagged_fields_slow(
    s: &mut impl Sink,
    known: &[(u32, Vec<u8>)],
    is_known: impl Fn(u32) -> bool,
    unknown: &TaggedFields,
) -> Result<(), EncodeError> {
    let mut rest = put_tagged_count(s, known.len(), is_known, unknown)?;
    for (tag, bytes) in known {
        put_unknown_tagged_below(s, &mut rest, Some(*tag))?;
        put_tagged_header(s, *tag, bytes.len())?;
        s.put(bytes);
    }
    put_unknown_tagged_below(s, &mut rest, None)
}

/// The preserved unknown tagged fields of a struct, in ascending tag order, as the encoder
/// merges them with the known ones written in place ([`put_tagged_count`]).
pub(super) type UnknownTags<'a> =
    std::iter::Peekable<std::collections::btree_map::Iter<'a, u32, Bytes>>;

/// Starts a tagged-field section whose `known_count` known fields the caller writes in
/// place, in ascending tag order, each after [`put_unknown_tagged_below`] and
/// [`put_tagged_header`]: refuses an unknown field that reuses a tag `is_known` accepts
/// (it would decode as the known field) and writes the total count.
#[inline]
pub fn put_tagged_count<'a>(
    s: &mut impl Sink,
    known_count: usize,
    is_known: impl Fn(u32) -> bool,
    unknown: &'a TaggedFields,
) -> Result<UnknownTags<'a>, EncodeError> {
    if !unknown.is_empty() {
        if let Some(tag) = unknown.0.keys().find(|t| is_known(**t)) {
            return Err(EncodeError::DuplicateTag {
                field: String::new(),
                tag: *tag,
            });
        }
    }
    let total = known_count + unknown.0.len();
    put_uvarint(s, u32::try_from(total).map_err(|_| too_long(total))?);
    Ok(unknown.0.iter().peekable())
}

/// Writes the unknown tagged fields left in `unknown` whose tag is below `below` (all of
/// them for `None`).
#[inline]
pub fn put_unknown_tagged_below(
    s: &mut impl Sink,
    unknown: &mut UnknownTags<'_>,
    below: Option<u32>,
) -> Result<(), EncodeError> {
    while let Some((tag, bytes)) = unknown.next_if(|(t, _)| below.is_none_or(|b| **t < b)) {
        put_tagged_header(s, *tag, bytes.0.len())?;
        s.put(&bytes.0);
    }
    Ok(())
}

/// Writes a tagged field's tag and size (the bytes follow).
#[inline]
pub fn put_tagged_header(s: &mut impl Sink, tag: u32, size: usize) -> Result<(), EncodeError> {
    put_uvarint(s, tag);
    put_uvarint(s, u32::try_from(size).map_err(|_| too_long(size))?);
    Ok(())
}
