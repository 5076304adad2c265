//! Hash functions of the Bloom-filter family (Lucchesi et al. §4.1, §4.3.2).
//!
//! Three base functions on 32-bit keys, each a few multiply/shift/xor steps:
//! - [`h2`]: the paper's Algorithm 3 (two rounds of `x = (x >> 16 ^ x) * 0x45d9f3b`, then a
//!   final `x >> 16 ^ x`);
//! - [`murmur3_32`]: MurmurHash3 x86_32 specialised for one 4-byte block (no loop, no tail);
//! - [`knuth`]: Knuth's multiplicative method, `x * 2654435761 mod 2^32`.
//!
//! and MurmurHash3 x64_128 specialised for one 8-byte key ([`murmur3_x64_128_key64`]) for
//! IPv6 keys. Filters and tables map a 32-bit hash `h` into `0..m` with `(h * m) >> 32`
//! (multiply-shift range reduction) rather than `h mod m`: it uses the high bits, avoids a
//! division and works for any `m`.
//!
//! **Double hashing** ([`Scheme::Double`], Bloomfwd): one pair `(a, b)` per key gives all `k`
//! filter indices as `g_i = a + i·b` (Kirsch–Mitzenmacher), and `a` also addresses the hash
//! table (the paper's hash reuse). The pair is `a = f(x)`, `b = f(a ^ 0x9e3779b9)` for a 32-bit
//! base function `f`; for 64-bit keys with Murmur both halves come from one x64_128 call.
//! **Independent hashing** ([`Scheme::Independent`], naive and baseline): `k + 1` separately
//! seeded Murmur evaluations per key, the last one for the hash table, no reuse.

/// The base hash function of a filter and its table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HashFn {
    /// The paper's Algorithm 3.
    H2,
    /// MurmurHash3, specialised to 32-bit (IPv4) and 64-bit (IPv6) keys.
    Murmur,
    /// Knuth's multiplicative hash.
    Knuth,
}

impl HashFn {
    /// Parses `h2`, `murmur` or `knuth`.
    #[doc(hidden)]
    pub fn parse(text: &str) -> Option<HashFn> {
        match text {
            "h2" => Some(HashFn::H2),
            "murmur" => Some(HashFn::Murmur),
            "knuth" => Some(HashFn::Knuth),
            _ => None,
        }
    }

    /// The option value naming this function.
    #[doc(hidden)]
    pub fn name(self) -> &'static str {
        match self {
            HashFn::H2 => "h2",
            HashFn::Murmur => "murmur",
            HashFn::Knuth => "knuth",
        }
    }

    /// The base function on a 32-bit key.
    #[inline(always)]
    #[doc(hidden)]
    pub fn hash32(self, x: u32) -> u32 {
        match self {
            HashFn::H2 => h2(x),
            HashFn::Murmur => murmur3_32(x, 0),
            HashFn::Knuth => knuth(x),
        }
    }

    /// The double-hashing pair `(a, b)` of a 32-bit key.
    #[inline(always)]
    #[doc(hidden)]
    pub fn pair32(self, x: u32) -> (u32, u32) {
        let a = self.hash32(x);
        (a, self.hash32(a ^ PAIR_SALT))
    }

    /// The double-hashing pair of a 64-bit key. Murmur uses its 128-bit output; H2 and Knuth are
    /// 32-bit functions (as in the paper) and see the key folded to 32 bits.
    #[inline(always)]
    #[doc(hidden)]
    pub fn pair64(self, x: u64) -> (u32, u32) {
        match self {
            HashFn::Murmur => {
                let (h1, h2) = murmur3_x64_128_key64(x, 0);
                ((h1 >> 32) as u32, (h2 >> 32) as u32)
            }
            _ => self.pair32(fold32(x)),
        }
    }
}

/// An IPv6 key folded to 64 bits: the high half xor the rotated low half (exact for keys of
/// length ≤ 64, whose low half is zero).
#[inline(always)]
pub(crate) fn fold128(x: u128) -> u64 {
    ((x >> 64) as u64) ^ (x as u64).rotate_left(29)
}

/// A 64-bit key folded to 32 bits for the 32-bit base functions (high half xor low half).
#[inline(always)]
pub(crate) fn fold32(x: u64) -> u32 {
    (x ^ (x >> 32)) as u32
}

/// The constant that derives the second hash of a pair from the first.
pub(crate) const PAIR_SALT: u32 = 0x9e37_79b9;

/// How many hashes a filter computes per key.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// `k` seeded evaluations for the filter plus one for the table (naive, baseline).
    Independent,
    /// One pair, `g_i = a + i·b`, and `a` reused for the table (Bloomfwd).
    Double(HashFn),
}

/// The paper's H2 (Algorithm 3).
#[inline(always)]
pub(crate) fn h2(mut x: u32) -> u32 {
    x = ((x >> 16) ^ x).wrapping_mul(0x045d_9f3b);
    x = ((x >> 16) ^ x).wrapping_mul(0x045d_9f3b);
    (x >> 16) ^ x
}

/// Knuth's multiplicative hash with the golden-ratio multiplier.
#[inline(always)]
pub(crate) fn knuth(x: u32) -> u32 {
    x.wrapping_mul(2_654_435_761)
}

/// MurmurHash3's 32-bit finaliser.
#[inline(always)]
pub(crate) fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3's 64-bit finaliser.
#[inline(always)]
pub(crate) fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// MurmurHash3 x86_32 of the 4-byte little-endian encoding of `x`: one body block, no tail.
#[inline(always)]
pub(crate) fn murmur3_32(x: u32, seed: u32) -> u32 {
    let k = x.wrapping_mul(0xcc9e_2d51).rotate_left(15).wrapping_mul(0x1b87_3593);
    let h = (seed ^ k).rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    fmix32(h ^ 4)
}

/// MurmurHash3 x64_128 of the 8-byte little-endian encoding of `x`: only the `k1` tail step
/// runs, then the finalisation. Returns the two 64-bit halves.
#[inline(always)]
pub(crate) fn murmur3_x64_128_key64(x: u64, seed: u64) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let k1 = x.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    let (mut h1, mut h2) = (seed ^ k1, seed);
    h1 ^= 8;
    h2 ^= 8;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// Seeded hash for the independent scheme: `seed` selects one function of the family.
#[inline(always)]
pub(crate) fn seeded64(x: u64, seed: u32) -> u32 {
    if x >> 32 == 0 {
        murmur3_32(x as u32, seed.wrapping_mul(PAIR_SALT))
    } else {
        (murmur3_x64_128_key64(x, seed as u64).0 >> 32) as u32
    }
}

/// Maps a 32-bit hash into `0..n` (multiply-shift range reduction).
#[inline(always)]
pub(crate) fn reduce(h: u32, n: u32) -> u32 {
    ((h as u64 * n as u64) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2_follows_algorithm_3() {
        let x = 0x1234_5678u32;
        let mut y = ((x >> 16) ^ x).wrapping_mul(0x45d9f3b);
        y = ((y >> 16) ^ y).wrapping_mul(0x45d9f3b);
        assert_eq!(h2(x), (y >> 16) ^ y);
        assert_eq!(h2(0), 0);
    }

    #[test]
    fn murmur_matches_the_reference_on_known_values() {
        // MurmurHash3_x86_32 of the bytes 00 00 00 00 with seed 0 is 0x2362f9de and of
        // 01 00 00 00 is 0xfbf1402a (reference implementation outputs).
        assert_eq!(murmur3_32(0, 0), 0x2362_f9de);
        assert_eq!(murmur3_32(1, 0), 0xfbf1_402a);
    }

    #[test]
    fn reduce_stays_in_range() {
        for (h, n) in [(u32::MAX, 7), (0, 7), (123_456_789, 1), (u32::MAX, u32::MAX)] {
            assert!(reduce(h, n) < n);
        }
    }

    #[test]
    fn pairs_differ_between_functions() {
        let x = 0xC0A8_0100;
        let all = [HashFn::H2, HashFn::Murmur, HashFn::Knuth].map(|f| f.pair32(x));
        assert_ne!(all[0], all[1]);
        assert_ne!(all[1], all[2]);
        assert_eq!(HashFn::parse("murmur"), Some(HashFn::Murmur));
        assert_eq!(HashFn::parse("sha"), None);
    }
}
