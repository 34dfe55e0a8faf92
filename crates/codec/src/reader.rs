//! A borrowed cursor over untrusted bytes and the primitive decoders.
//!
//! Every length and count read from the wire is checked against the bytes that remain
//! *before* anything is allocated. Offsets in errors are absolute: a sub-reader keeps the
//! offset of its first byte in the enclosing input. This module must not panic on any input.

use std::collections::BTreeMap;

use super::error::{DecodeError, DecodeErrorKind};
use super::limits::MAX_STRING_LEN;
use super::types::{Bytes, FixedCollect, KString, TaggedFields, Uuid};

/// A cursor over a byte slice.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Absolute offset of `buf[0]` in the outermost input.
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `buf`, whose first byte is at absolute offset 0.
    pub fn new(buf: &'a [u8]) -> Self {
        Self::with_base(buf, 0)
    }

    /// A reader over `buf`, whose first byte is at absolute offset `base`.
    pub fn with_base(buf: &'a [u8], base: usize) -> Self {
        Self { buf, pos: 0, base }
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The unread bytes, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.offset())
    }

    /// Fails with `TrailingBytes` unless every byte was read.
    pub fn expect_end(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(self.error(DecodeErrorKind::TrailingBytes { count })),
        }
    }

    /// Takes the next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.error(DecodeErrorKind::Truncated {
                needed: n,
                remaining: self.remaining(),
            }));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Takes a sub-reader over the next `n` bytes (the caller has checked `n`).
    fn sub(&mut self, n: usize) -> Result<Reader<'a>, DecodeError> {
        let base = self.offset();
        let bytes = self.take(n)?;
        Ok(Reader::with_base(bytes, base))
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let b = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// A boolean: any non-zero byte is true (as in Java).
    #[inline]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        Ok(self.array::<1>()?[0] != 0)
    }

    /// A signed byte.
    #[inline]
    pub fn i8(&mut self) -> Result<i8, DecodeError> {
        Ok(i8::from_be_bytes(self.array()?))
    }

    /// A big-endian int16.
    #[inline]
    pub fn i16(&mut self) -> Result<i16, DecodeError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    /// A big-endian uint16.
    #[inline]
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// A big-endian int32.
    #[inline]
    pub fn i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// A big-endian uint32.
    #[inline]
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// A big-endian int64.
    #[inline]
    pub fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A big-endian IEEE-754 float64.
    #[inline]
    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        Ok(f64::from_be_bytes(self.array()?))
    }

    /// A 16-byte UUID.
    #[inline]
    pub fn uuid(&mut self) -> Result<Uuid, DecodeError> {
        Ok(Uuid(self.array()?))
    }

    /// An unsigned LEB128 varint of at most 5 bytes that fits in 32 bits.
    #[inline]
    pub fn uvarint(&mut self) -> Result<u32, DecodeError> {
        if let Some(&b) = self.buf.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u32::from(b));
            }
        }
        let start = self.offset();
        let mut value: u64 = 0;
        for i in 0..5 {
            let b = self.array::<1>()?[0];
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(value)
                    .map_err(|_| DecodeError::new(DecodeErrorKind::VarintTooLong, start));
            }
        }
        Err(DecodeError::new(DecodeErrorKind::VarintTooLong, start))
    }

    /// A zigzag-encoded signed varint of at most 5 bytes (the record format's `varint`).
    pub fn varint(&mut self) -> Result<i32, DecodeError> {
        let v = self.zigzag(5)?;
        // At most 5 groups of 7 bits: 35 bits; above 32 bits does not fit an int.
        let v = u32::try_from(v).map_err(|_| {
            DecodeError::new(
                DecodeErrorKind::SignedVarintTooLong { max_bytes: 5 },
                self.offset(),
            )
        })?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// A zigzag-encoded signed varlong of at most 10 bytes (the record format's `varlong`).
    pub fn varlong(&mut self) -> Result<i64, DecodeError> {
        let v = self.zigzag(10)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// The raw 7-bit groups of a varint of at most `max_bytes` bytes (no overflow past 64
    /// bits: the tenth byte may carry only its lowest bit).
    fn zigzag(&mut self, max_bytes: u8) -> Result<u64, DecodeError> {
        let start = self.offset();
        let too_long =
            || DecodeError::new(DecodeErrorKind::SignedVarintTooLong { max_bytes }, start);
        let mut value: u64 = 0;
        for i in 0..u32::from(max_bytes) {
            let b = self.array::<1>()?[0];
            let group = u64::from(b & 0x7f);
            if i == 9 && group > 1 {
                return Err(too_long());
            }
            value |= group << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(too_long())
    }

    /// Reads a length prefix: int16/int32 in classic versions, `uvarint - 1` in compact ones.
    /// Returns `None` for the null marker.
    #[inline(always)]
    fn length(&mut self, compact: bool, wide: bool) -> Result<Option<u64>, DecodeError> {
        let start = self.offset();
        let len: i64 = if compact {
            // Almost every compact length is one byte: 0 is null, n is n - 1.
            if let Some(&b) = self.buf.get(self.pos) {
                if b < 0x80 {
                    self.pos += 1;
                    return Ok(b.checked_sub(1).map(u64::from));
                }
            }
            i64::from(self.uvarint()?) - 1
        } else if wide {
            i64::from(self.i32()?)
        } else {
            i64::from(self.i16()?)
        };
        match len {
            -1 => Ok(None),
            l if l < -1 => Err(DecodeError::new(
                DecodeErrorKind::NegativeLength { len: l },
                start,
            )),
            l => Ok(Some(l as u64)),
        }
    }

    /// Checks a length against what remains; returns it as `usize`.
    #[inline]
    fn checked_len(
        &self,
        what: &'static str,
        len: u64,
        start: usize,
    ) -> Result<usize, DecodeError> {
        if len > self.remaining() as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::LengthExceedsRemaining {
                    what,
                    len,
                    remaining: self.remaining(),
                },
                start,
            ));
        }
        Ok(len as usize)
    }

    /// A nullable string (int16 length, or compact when `compact`).
    #[inline]
    pub fn nullable_string(&mut self, compact: bool) -> Result<Option<KString>, DecodeError> {
        let start = self.offset();
        let Some(len) = self.length(compact, false)? else {
            return Ok(None);
        };
        if len > MAX_STRING_LEN as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::StringTooLong { len },
                start,
            ));
        }
        let n = self.checked_len("string", len, start)?;
        let at = self.offset();
        let bytes = self.take(n)?;
        // SIMD validation on the way in; the standard library only on failure, for the
        // offset of the first invalid byte.
        if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
            return Ok(Some(KString::new(s)));
        }
        let valid_up_to = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
        Err(DecodeError::new(
            DecodeErrorKind::InvalidUtf8 { valid_up_to },
            at + valid_up_to,
        ))
    }

    /// A non-nullable string.
    #[inline]
    pub fn string(&mut self, compact: bool) -> Result<KString, DecodeError> {
        let start = self.offset();
        self.nullable_string(compact)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// Nullable bytes (int32 length, or compact when `compact`).
    pub fn nullable_bytes(&mut self, compact: bool) -> Result<Option<Bytes>, DecodeError> {
        let start = self.offset();
        let Some(len) = self.length(compact, true)? else {
            return Ok(None);
        };
        let n = self.checked_len("bytes", len, start)?;
        Ok(Some(Bytes(self.take(n)?.to_vec())))
    }

    /// Non-nullable bytes.
    pub fn bytes(&mut self, compact: bool) -> Result<Bytes, DecodeError> {
        let start = self.offset();
        self.nullable_bytes(compact)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// An array's count (`None` for null), checked against the remaining bytes: every
    /// element takes at least one byte, so nothing is allocated for a count that cannot fit.
    #[inline(always)]
    fn array_count(&mut self, compact: bool) -> Result<Option<usize>, DecodeError> {
        let start = self.offset();
        let Some(count) = self.length(compact, true)? else {
            return Ok(None);
        };
        if count > self.remaining() as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::ArrayCountExceedsRemaining {
                    count,
                    remaining: self.remaining(),
                },
                start,
            ));
        }
        Ok(Some(count as usize))
    }

    /// A nullable array: the count is checked against the remaining bytes before
    /// allocating; each element is decoded by `elem` and errors carry the element index.
    #[inline]
    pub fn nullable_array<T>(
        &mut self,
        compact: bool,
        elem: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        self.nullable_array_push(compact, push_each(elem))
    }

    /// A non-nullable array.
    #[inline]
    pub fn array_of<T>(
        &mut self,
        compact: bool,
        elem: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        self.array_push(compact, push_each(elem))
    }

    /// A nullable array of structs decoded straight into it: `push` decodes one element and
    /// pushes it onto the array (a generated `decode_push`), so the element is built in its
    /// slot instead of coming back as a `Result` through memory and being copied there (the
    /// store-forwarding stalls left in MetadataResponse's decode profile). Same count check
    /// before allocating, same errors with the element index, as [`Self::nullable_array`].
    #[inline]
    pub fn nullable_array_push<T>(
        &mut self,
        compact: bool,
        mut push: impl FnMut(&mut Self, &mut Vec<T>) -> Result<(), DecodeError>,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        let Some(count) = self.array_count(compact)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            push(self, &mut out).map_err(|e| e.index(i))?;
        }
        Ok(Some(out))
    }

    /// A non-nullable array of structs decoded in place ([`Self::nullable_array_push`]).
    #[inline]
    pub fn array_push<T>(
        &mut self,
        compact: bool,
        push: impl FnMut(&mut Self, &mut Vec<T>) -> Result<(), DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let start = self.offset();
        self.nullable_array_push(compact, push)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// A nullable array of a fixed-size primitive (`N` bytes each, converted by `from`, e.g.
    /// `i32::from_be_bytes`): the count is checked against the remaining bytes before
    /// allocating, as in [`Self::nullable_array`]; when all `count * N` bytes are there they
    /// are converted in one pass, otherwise the error is the one the element-by-element
    /// decode gives (`Truncated` at the first element that does not fit, with its index).
    /// The collection `C` is the field's: a `Vec`, or a [`SmallVec`](smallvec::SmallVec)
    /// that keeps short arrays inline ([`FixedCollect`]).
    ///
    /// Always inlined (the failure paths are out of line), so that the collection is built
    /// in registers and stored once where the caller keeps it: returned out of line, it
    /// went through memory in 4- and 8-byte stores that the caller reloaded as 16 bytes
    /// (store-forwarding stalls, most of MetadataResponse's remaining decode samples).
    #[inline(always)]
    pub fn nullable_fixed_array<const N: usize, T, C: FixedCollect<T>>(
        &mut self,
        compact: bool,
        from: impl Fn([u8; N]) -> T,
    ) -> Result<Option<C>, DecodeError> {
        let Some(count) = self.array_count(compact)? else {
            return Ok(None);
        };
        let Some(len) = count.checked_mul(N).filter(|l| *l <= self.remaining()) else {
            return Err(self.fixed_array_truncated(N));
        };
        let window = self.buf.get(self.pos..).and_then(|b| b.first_chunk::<16>());
        let (chunks, _) = self.take(len)?.as_chunks::<N>();
        Ok(Some(C::collect_fixed(chunks, window, from)))
    }

    /// The error of an array of `n`-byte elements whose count runs past the input: the
    /// element at index `remaining / n` is the first that does not fit (as decoding element
    /// by element reports it); the whole elements before it are consumed.
    #[cold]
    #[inline(never)]
    fn fixed_array_truncated(&mut self, n: usize) -> DecodeError {
        let whole = self.remaining() / n;
        self.pos += whole * n;
        let kind = DecodeErrorKind::Truncated {
            needed: n,
            remaining: self.remaining(),
        };
        self.error(kind).index(whole)
    }

    /// A non-nullable array of a fixed-size primitive ([`Self::nullable_fixed_array`]).
    #[inline(always)]
    pub fn fixed_array<const N: usize, T, C: FixedCollect<T>>(
        &mut self,
        compact: bool,
        from: impl Fn([u8; N]) -> T,
    ) -> Result<C, DecodeError> {
        let start = self.offset();
        self.nullable_fixed_array(compact, from)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// A struct in a version where it is nullable: an int8 marker (negative = null) and
    /// then the struct.
    pub fn nullable_struct<T>(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<T>, DecodeError> {
        if self.i8()? < 0 {
            Ok(None)
        } else {
            body(self).map(Some)
        }
    }

    /// A tagged-field section. `known` decodes a known tag from a sub-reader and returns
    /// `Ok(false)` when the tag is not known in this version; such fields, and every
    /// unknown tag, are kept as raw bytes. Duplicate tags are rejected; a known field must
    /// use exactly its declared size.
    #[inline]
    pub fn tagged_fields(
        &mut self,
        known: impl FnMut(u32, &mut Reader<'a>) -> Result<bool, DecodeError>,
    ) -> Result<TaggedFields, DecodeError> {
        // Almost every section is empty: one zero byte.
        if self.buf.get(self.pos) == Some(&0) {
            self.pos += 1;
            return Ok(TaggedFields::default());
        }
        self.tagged_fields_slow(known)
    }

    #[inline(never)]
    fn tagged_fields_slow(
        &mut self,
        mut known: impl FnMut(u32, &mut Reader<'a>) -> Result<bool, DecodeError>,
    ) -> Result<TaggedFields, DecodeError> {
        let count_at = self.offset();
        let count = self.uvarint()?;
        // Each tagged field takes at least two bytes (tag, size).
        if u64::from(count) > self.remaining() as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::ArrayCountExceedsRemaining {
                    count: u64::from(count),
                    remaining: self.remaining(),
                },
                count_at,
            ));
        }
        let mut unknown = BTreeMap::new();
        let mut seen: Vec<u32> = Vec::new();
        for _ in 0..count {
            let tag_at = self.offset();
            let tag = self.uvarint()?;
            if seen.contains(&tag) {
                return Err(DecodeError::new(
                    DecodeErrorKind::DuplicateTag { tag },
                    tag_at,
                ));
            }
            seen.push(tag);
            let size_at = self.offset();
            let size = u64::from(self.uvarint()?);
            let size = self.checked_len("tagged field", size, size_at)?;
            let mut sub = self.sub(size)?;
            if known(tag, &mut sub)? {
                if sub.remaining() != 0 {
                    return Err(DecodeError::new(
                        DecodeErrorKind::TaggedFieldSize {
                            tag,
                            declared: size,
                            used: size - sub.remaining(),
                        },
                        tag_at,
                    ));
                }
            } else {
                unknown.insert(tag, Bytes(sub.rest().to_vec()));
            }
        }
        Ok(TaggedFields(unknown))
    }
}

/// An element decoder that returns its value, as one that pushes it
/// ([`Reader::nullable_array_push`]).
#[inline(always)]
fn push_each<'a, T>(
    mut elem: impl FnMut(&mut Reader<'a>) -> Result<T, DecodeError>,
) -> impl FnMut(&mut Reader<'a>, &mut Vec<T>) -> Result<(), DecodeError> {
    move |r, out| {
        out.push(elem(r)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `bytes` as a compact int32 array both ways.
    fn both(bytes: &[u8]) -> [Result<Vec<i32>, DecodeError>; 2] {
        [
            Reader::with_base(bytes, 7).fixed_array(true, i32::from_be_bytes),
            Reader::with_base(bytes, 7).array_of(true, |r| r.i32()),
        ]
    }

    #[test]
    fn fixed_arrays_decode_and_fail_as_element_by_element_does() {
        let [fixed, each] = both(&[4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 3]);
        assert_eq!(fixed, Ok(vec![1, -2, 3]));
        assert_eq!(fixed, each);
        // The third element has one of its four bytes.
        let [fixed, each] = both(&[4, 0, 0, 0, 1, 0, 0, 0, 2, 9]);
        let e = fixed.clone().unwrap_err();
        assert_eq!(
            e.kind(),
            DecodeErrorKind::Truncated {
                needed: 4,
                remaining: 1
            }
        );
        assert_eq!((e.offset(), e.path()), (7 + 9, "[2]".to_string()));
        assert_eq!(fixed, each);
        // A count above the remaining bytes, null, and empty.
        let [fixed, each] = both(&[200, 1, 0, 0]);
        assert!(matches!(
            fixed.clone().unwrap_err().kind(),
            DecodeErrorKind::ArrayCountExceedsRemaining {
                count: 199,
                remaining: 2
            }
        ));
        assert_eq!(fixed, each);
        let [fixed, each] = both(&[0]);
        assert_eq!(
            fixed.clone().unwrap_err().kind(),
            DecodeErrorKind::NullNotAllowed
        );
        assert_eq!(fixed, each);
        assert_eq!(both(&[1]), [Ok(vec![]), Ok(vec![])]);
    }
}
