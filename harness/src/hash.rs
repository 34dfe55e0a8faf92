//! kipcheck's one stable hash: FNV-1a, 64-bit, used to name things. It names `hash:M/N`
//! partitions, derives per-scenario seeds, corpus file names, the emulated brokers' topic ids
//! and the differential test's per-message seeds, so it must never change within a release
//! series (scenario seeds depend on its exact values). Harness machinery, not KIP behaviour:
//! the reference model (`kipcheck-model`) decides nothing with it. Pure; no I/O.

/// FNV-1a's 64-bit offset basis.
const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a's 64-bit prime.
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// An FNV-1a hash fed in pieces: `write` any number of times, `finish` at any point (the
/// state carries on after `finish`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Self(OFFSET_BASIS)
    }
}

impl Fnv1a64 {
    /// A hash of nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    /// The hash of everything fed so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// FNV-1a, 64-bit, of a string's UTF-8 bytes.
pub fn fnv1a64(s: &str) -> u64 {
    let mut h = Fnv1a64::new();
    h.write(s.as_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_test_vectors() {
        // From the FNV reference test suite (Landon Curt Noll).
        assert_eq!(fnv1a64(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn pieces_hash_like_the_whole() {
        let mut h = Fnv1a64::new();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a64("foobar"));
    }
}
