//! Wire value types that have no natural Rust primitive: UUIDs, byte strings and preserved
//! unknown tagged fields, with their serde and `arbitrary` forms. Pure data; no I/O.

use std::collections::BTreeMap;
use std::fmt;

/// The string type of every `string` field: strings up to 24 bytes live inline, so decoding
/// the short names and values Kafka messages are full of allocates nothing.
pub type KString = compact_str::CompactString;

/// The type of every array of a fixed-size number (`[]int8` ... `[]int64`, `[]float64`):
/// `SmallVec<[T; 16 / size_of::<T>()]>`, whose up to 16 bytes of elements (4 broker ids,
/// 2 int64s) live inline in the 24 bytes a `Vec` takes, so decoding the replica lists of a
/// MetadataResponse allocates nothing. It dereferences to `[T]`; build one with
/// [`smallvec!`](smallvec::smallvec) or `.into()` from a `Vec` or an array. (`[]uuid` stays
/// a `Vec`.)
pub use smallvec::{smallvec, SmallVec};

/// What an array of a fixed-size primitive decodes into (`Reader::fixed_array`): a `Vec`, or
/// a [`SmallVec`] that keeps up to 16 bytes of elements inline.
pub trait FixedCollect<T>: Sized {
    /// The collection of `chunks` converted by `from`. `window` is the 16 input bytes from the
    /// first chunk on, when that many are left (they may run past the array).
    fn collect_fixed<const N: usize>(
        chunks: &[[u8; N]],
        window: Option<&[u8; 16]>,
        from: impl Fn([u8; N]) -> T,
    ) -> Self;
}

impl<T> FixedCollect<T> for Vec<T> {
    #[inline]
    fn collect_fixed<const N: usize>(
        chunks: &[[u8; N]],
        _: Option<&[u8; 16]>,
        from: impl Fn([u8; N]) -> T,
    ) -> Self {
        chunks.iter().map(|c| from(*c)).collect()
    }
}

/// An element type of a `SmallVec` fixed-size array: how the 16-byte window of an array that
/// fits inline becomes its `K` lanes (the first `len` converted, the rest zero).
pub trait FixedLane: Copy + Default {
    /// Lane by lane through `from` (booleans: any non-zero byte is true).
    #[inline(always)]
    fn lanes<const N: usize, const K: usize>(
        w: &[u8; 16],
        len: usize,
        from: impl Fn([u8; N]) -> Self,
    ) -> [Self; K] {
        let (lanes, _) = w.as_chunks::<N>();
        std::array::from_fn(|i| match lanes.get(i) {
            Some(c) if i < len => from(*c),
            _ => Self::default(),
        })
    }
}

impl FixedLane for bool {}

/// The window's half `h` (bytes `8h..8h + 8`) with each `n`-byte big-endian lane in native
/// (little-endian) order and the lanes at index `len` and above zeroed.
#[inline(always)]
fn native_half(w: &[u8; 16], h: usize, n: usize, len: usize) -> u64 {
    let (halves, _) = w.as_chunks::<8>();
    let b = halves[h];
    let x = match n {
        1 => u64::from_le_bytes(b),
        2 => {
            let y = u64::from_le_bytes(b);
            ((y >> 8) & 0x00ff_00ff_00ff_00ff) | ((y & 0x00ff_00ff_00ff_00ff) << 8)
        }
        4 => u64::from_be_bytes(b).rotate_left(32),
        _ => u64::from_be_bytes(b),
    };
    let kept = len.saturating_sub(h * 8 / n).min(8 / n) * n;
    let mask = if kept >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * kept)) - 1
    };
    x & mask
}

/// Big-endian numbers: the lanes are converted in two 8-byte halves (`native_half`) and
/// stored as such, so that the caller's 8-byte moves of the array reload whole stores; lane
/// by lane, the 4-byte stores of an `[i32; 4]` reloaded as 8 bytes stalled on store
/// forwarding (three per MetadataResponse partition, about 40 % of its decode samples).
/// `from` is each type's `from_be_bytes` (the only conversion the generated code passes);
/// `tests::fixed_lanes_match_from_be_bytes` checks the two agree.
macro_rules! be_lanes {
    ($($t:ty => $conv:expr),* $(,)?) => {$(
        impl FixedLane for $t {
            #[inline(always)]
            fn lanes<const N: usize, const K: usize>(
                w: &[u8; 16],
                len: usize,
                _from: impl Fn([u8; N]) -> Self,
            ) -> [Self; K] {
                let (lo, hi) = (native_half(w, 0, N, len), native_half(w, 1, N, len));
                std::array::from_fn(|i| {
                    let x = if i * N < 8 { lo } else { hi };
                    $conv(x >> ((i * N % 8) * 8))
                })
            }
        }
    )*};
}

be_lanes!(
    i8 => |x: u64| x as i8,
    i16 => |x: u64| x as i16,
    u16 => |x: u64| x as u16,
    i32 => |x: u64| x as i32,
    u32 => |x: u64| x as u32,
    i64 => |x: u64| x as i64,
    f64 => f64::from_bits,
);

impl<T: FixedLane, const K: usize> FixedCollect<T> for SmallVec<[T; K]> {
    /// An array that fits inline is converted from the 16-byte window as a whole (lanes
    /// past its length are zeroed) and moved in once, instead of element by element into
    /// the inline buffer and then copied: a 16-byte reload of 4- or 8-byte stores stalls
    /// on store forwarding, which was most of MetadataResponse's decode time.
    #[inline(always)]
    fn collect_fixed<const N: usize>(
        chunks: &[[u8; N]],
        window: Option<&[u8; 16]>,
        from: impl Fn([u8; N]) -> T,
    ) -> Self {
        let len = chunks.len();
        match window {
            Some(w) if K * N == 16 && len <= K => {
                SmallVec::from_buf_and_len(T::lanes(w, len, from), len)
            }
            _ => collect_spilled(chunks, from),
        }
    }
}

/// A `SmallVec` of more elements than fit inline (or near the input's end): element by
/// element, out of line so that the inline case stays small enough to inline.
#[inline(never)]
fn collect_spilled<T, const K: usize, const N: usize>(
    chunks: &[[u8; N]],
    from: impl Fn([u8; N]) -> T,
) -> SmallVec<[T; K]> {
    chunks.iter().map(|c| from(*c)).collect()
}

use base64::Engine as _;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A Kafka UUID: 16 bytes, most-significant first. Serialized as Kafka's `Uuid.toString()`
/// (URL-safe base64 without padding, 22 characters); the hyphenated hex form is also read.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// The all-zero UUID (`Uuid.ZERO_UUID`, "unset").
    pub const ZERO: Uuid = Uuid([0; 16]);

    /// Parses Kafka's base64 form or the hyphenated hex form.
    pub fn parse(s: &str) -> Option<Self> {
        if s.len() == 22 {
            let v = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(s)
                .ok()?;
            return Some(Uuid(v.try_into().ok()?));
        }
        let hex: String = s.chars().filter(|c| *c != '-').collect();
        if hex.len() != 32 || s.len() != 36 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Uuid(out))
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.0))
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Uuid::parse(&s).ok_or_else(|| {
            de::Error::custom(format!(
                "invalid UUID {s:?}: expected 22-character URL-safe base64 or 8-4-4-4-12 hex"
            ))
        })
    }
}

/// A byte string (`bytes` and `records` fields). Serialized as lowercase hex.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// Lowercase hex of the bytes.
    pub fn to_hex(&self) -> String {
        to_hex(&self.0)
    }
}

/// Lowercase hex of `bytes`, no separators.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

/// Parses hex, ignoring ASCII whitespace, `:` and `|` separators. `None` on odd length or
/// a non-hex character.
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b':' && *c != b'|')
        .collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|p| {
            let hi = (p[0] as char).to_digit(16)?;
            let lo = (p[1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({})", self.to_hex())
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        from_hex(&s)
            .map(Bytes)
            .ok_or_else(|| de::Error::custom(format!("invalid hex byte string {s:?}")))
    }
}

/// Tagged fields this codec does not know (or that the message's version does not name),
/// kept as raw values and re-encoded in tag order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(transparent)]
pub struct TaggedFields(pub BTreeMap<u32, Bytes>);

impl TaggedFields {
    /// No unknown tagged fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Serde helper for fields whose value may be absent (field not in this version) and,
/// when present, null: `Option<Option<T>>`, where a missing key is `None` and an explicit
/// `null` is `Some(None)`. Use with `#[serde(default, with = "double_option")]`.
pub mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serializes the inner option (the outer `None` is skipped by the caller).
    pub fn serialize<S: Serializer, T: Serialize>(
        v: &Option<Option<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    /// A present key (even `null`) becomes `Some(_)`.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;

    /// Every lane type's two-halves conversion against its `from_be_bytes`, for every
    /// length that fits inline and windows of distinct bytes.
    #[test]
    fn fixed_lanes_match_from_be_bytes() {
        fn check<const N: usize, const K: usize, T: FixedLane + std::fmt::Debug>(
            from: fn([u8; N]) -> T,
            bits: fn(T) -> u64,
        ) {
            for seed in [0u8, 0x5a, 0x80, 0xf7] {
                let w: [u8; 16] =
                    std::array::from_fn(|i| seed.wrapping_add((i as u8).wrapping_mul(37)));
                for len in 0..=K {
                    let got: [T; K] = T::lanes(&w, len, from);
                    let (chunks, _) = w.as_chunks::<N>();
                    for (i, v) in got.iter().enumerate() {
                        let want = if i < len { bits(from(chunks[i])) } else { 0 };
                        assert_eq!(bits(*v), want, "lane {i} of {len}, {got:?}");
                    }
                }
            }
        }
        check::<1, 16, i8>(i8::from_be_bytes, |v| v as u8 as u64);
        check::<2, 8, i16>(i16::from_be_bytes, |v| v as u16 as u64);
        check::<2, 8, u16>(u16::from_be_bytes, u64::from);
        check::<4, 4, i32>(i32::from_be_bytes, |v| v as u32 as u64);
        check::<4, 4, u32>(u32::from_be_bytes, u64::from);
        check::<8, 2, i64>(i64::from_be_bytes, |v| v as u64);
        check::<8, 2, f64>(f64::from_be_bytes, f64::to_bits);
        check::<1, 16, bool>(|[b]| b != 0, u64::from);
    }

    #[test]
    fn inline_arrays_are_as_big_as_a_vec() {
        // smallvec's `union` feature; without it each would be 8 bytes bigger.
        let vec = std::mem::size_of::<Vec<i32>>();
        assert_eq!(std::mem::size_of::<SmallVec<[i8; 16]>>(), vec);
        assert_eq!(std::mem::size_of::<SmallVec<[i16; 8]>>(), vec);
        assert_eq!(std::mem::size_of::<SmallVec<[i32; 4]>>(), vec);
        assert_eq!(std::mem::size_of::<SmallVec<[i64; 2]>>(), vec);
    }

    #[test]
    fn short_fixed_arrays_decode_inline_and_long_ones_spill() {
        let three = [4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 3];
        let got: SmallVec<[i32; 4]> = Reader::new(&three)
            .fixed_array(true, i32::from_be_bytes)
            .unwrap();
        assert_eq!((got.as_slice(), got.spilled()), (&[1, -2, 3][..], false));
        let mut five = vec![6];
        for i in 1..=5i32 {
            five.extend_from_slice(&i.to_be_bytes());
        }
        let got: SmallVec<[i32; 4]> = Reader::new(&five)
            .fixed_array(true, i32::from_be_bytes)
            .unwrap();
        assert_eq!(
            (got.as_slice(), got.spilled()),
            (&[1, 2, 3, 4, 5][..], true)
        );
        // With 16 bytes or more left the inline array is converted from a 16-byte window:
        // the bytes after the array are not taken.
        let mut tail = three.to_vec();
        tail.extend_from_slice(&[0xaa; 8]);
        let mut r = Reader::new(&tail);
        let got: SmallVec<[i32; 4]> = r.fixed_array(true, i32::from_be_bytes).unwrap();
        assert_eq!(
            (got.as_slice(), got.spilled(), r.offset()),
            (&[1, -2, 3][..], false, 13)
        );
        let mut wide = vec![0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8];
        wide.extend_from_slice(&[0xaa; 8]);
        let mut r = Reader::new(&wide);
        let got: SmallVec<[i64; 2]> = r.fixed_array(false, i64::from_be_bytes).unwrap();
        assert_eq!(
            (got.as_slice(), r.offset()),
            (&[0x0102_0304_0506_0708][..], 12)
        );
        let mut bytes = vec![3, 0x81, 2];
        bytes.extend_from_slice(&[0xaa; 14]);
        let mut r = Reader::new(&bytes);
        let got: SmallVec<[i8; 16]> = r.fixed_array(true, i8::from_be_bytes).unwrap();
        assert_eq!((got.as_slice(), r.offset()), (&[-127, 2][..], 3));
        let mut r = Reader::new(&bytes);
        let got: SmallVec<[bool; 16]> = r.fixed_array(true, |[b]: [u8; 1]| b != 0).unwrap();
        assert_eq!(got.as_slice(), &[true, true]);
        let empty = [1; 17];
        let mut r = Reader::new(&empty);
        let got: SmallVec<[i8; 16]> = r.fixed_array(true, i8::from_be_bytes).unwrap();
        assert_eq!((got.len(), r.offset()), (0, 1));
        // Null stays distinct from empty.
        let null: Option<SmallVec<[i32; 4]>> = Reader::new(&[0])
            .nullable_fixed_array(true, i32::from_be_bytes)
            .unwrap();
        let empty: Option<SmallVec<[i32; 4]>> = Reader::new(&[1])
            .nullable_fixed_array(true, i32::from_be_bytes)
            .unwrap();
        assert_eq!((null, empty), (None, Some(SmallVec::new())));
    }
}
