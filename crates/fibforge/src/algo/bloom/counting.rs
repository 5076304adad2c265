//! Counting Bloom filter (Dharmapurikar et al., used by Lucchesi et al. §3.1–3.2).
//!
//! Layout: the bit vector the lookups read (`bits`, `m` bits in `u64` words) and, beside it, one
//! 8-bit counter per bit that only updates touch. Bit `i` is set exactly when `counters[i] > 0`.
//! A counter that reaches 255 sticks there: it is never decremented again, so its bit stays set.
//! That can only add false positives (an extra hash-table probe), never false negatives, so
//! lookups stay exact however many keys share a counter.
//!
//! Sizing (the paper's eq. 1–3): for `n` expected keys and target false-positive rate `f`,
//! `m = n·lg(1/f)/ln 2` bits and `k = ⌈lg(1/f)⌉` hashes (at least 1); this reproduces the
//! paper's Table 5 (`k` = 7, 4, 2, 1, 1 for f = 1 %, 10 %, 30 %, 60 %, 90 %).

use super::hash::reduce;

/// A Bloom filter with per-bit counters so that keys can be removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CountingBloom {
    bits: Vec<u64>,
    counters: Vec<u8>,
    m: u32,
    k: u32,
}

/// The largest filter, in bits (indices are reduced from 32-bit hashes).
pub(crate) const MAX_FILTER_BITS: u64 = u32::MAX as u64;

/// Filter size `m` (bits) and hash count `k` for `n` keys at false-positive rate `fpr`.
pub(crate) fn filter_shape(n: usize, fpr: f64) -> (u64, u32) {
    let lg = (1.0 / fpr).log2();
    let m = ((n.max(1) as f64) * lg / std::f64::consts::LN_2).ceil() as u64;
    let k = lg.ceil().max(1.0) as u32;
    (m.clamp(64, MAX_FILTER_BITS), k)
}

impl CountingBloom {
    /// An empty filter of `m` bits probed with `k` hashes.
    pub(crate) fn new(m: u64, k: u32) -> Self {
        let m = m.clamp(64, MAX_FILTER_BITS) as u32;
        CountingBloom {
            bits: crate::algo::huge::zeroed((m as usize).div_ceil(64)),
            counters: vec![0; m as usize],
            m,
            k: k.max(1),
        }
    }

    /// Number of bits.
    #[inline]
    pub(crate) fn m(&self) -> u32 {
        self.m
    }

    /// Number of hashes per key.
    #[inline]
    pub(crate) fn k(&self) -> u32 {
        self.k
    }

    /// True when the bit addressed by hash `h` is set.
    #[inline(always)]
    pub(crate) fn test(&self, h: u32) -> bool {
        let i = reduce(h, self.m) as usize;
        // Indexing cannot fail: `reduce` returns `i < m` and `bits` holds `m` bits.
        (self.bits[i >> 6] >> (i & 63)) & 1 != 0
    }

    /// Hints the cache that the word holding the bit of hash `h` is read soon.
    #[inline(always)]
    pub(crate) fn prefetch(&self, h: u32) {
        crate::algo::prefetch::read(&self.bits, reduce(h, self.m) as usize >> 6);
    }

    /// Hints the cache that the bit and the counter of hash `h` are written soon.
    #[inline(always)]
    pub(crate) fn prefetch_counted(&self, h: u32) {
        let i = reduce(h, self.m) as usize;
        crate::algo::prefetch::read(&self.bits, i >> 6);
        crate::algo::prefetch::read(&self.counters, i);
    }

    /// Counts one more key at the bit addressed by hash `h`.
    pub(crate) fn add(&mut self, h: u32) {
        let i = reduce(h, self.m) as usize;
        let c = &mut self.counters[i];
        *c = c.saturating_add(1);
        self.bits[i >> 6] |= 1 << (i & 63);
    }

    /// Counts one key less at the bit addressed by hash `h` (sticky at 255, see module doc).
    pub(crate) fn sub(&mut self, h: u32) {
        let i = reduce(h, self.m) as usize;
        let c = &mut self.counters[i];
        debug_assert!(*c > 0, "removing a key that was never added");
        if *c == u8::MAX || *c == 0 {
            return;
        }
        *c -= 1;
        if *c == 0 {
            self.bits[i >> 6] &= !(1 << (i & 63));
        }
    }

    /// The bit vector, `⌈m/64⌉` words (bit `i` is word `i >> 6`, bit `i & 63`).
    pub(crate) fn words(&self) -> &[u64] {
        &self.bits
    }

    /// A filter with the bits of an export and no counts yet: the caller [`add`]s every key
    /// stored behind it, then calls [`CountingBloom::claim_unexplained_bits`]. `None` unless
    /// `64 ≤ m ≤ 2^32 − 1`, `k ≥ 1`, `words` holds exactly `⌈m/64⌉` words and no bit at or
    /// above `m` is set.
    ///
    /// [`add`]: CountingBloom::add
    pub(crate) fn from_words(words: Vec<u64>, m: u32, k: u32) -> Option<Self> {
        let n = (m as usize).div_ceil(64);
        let tail_clear = m.is_multiple_of(64) || words.last().is_some_and(|&w| w >> (m % 64) == 0);
        let ok = (64..=MAX_FILTER_BITS).contains(&(m as u64)) && k >= 1 && words.len() == n;
        (ok && tail_clear).then(|| CountingBloom {
            bits: words,
            counters: vec![0; m as usize],
            m,
            k,
        })
    }

    /// Gives each set bit that no counted key explains a count of 1, so that "bit set iff
    /// counter > 0" holds again: such a bit stays set while keys come and go (a false positive
    /// at worst, never a false negative).
    pub(crate) fn claim_unexplained_bits(&mut self) {
        for (i, c) in self.counters.iter_mut().enumerate() {
            if *c == 0 && (self.bits[i >> 6] >> (i & 63)) & 1 != 0 {
                *c = 1;
            }
        }
    }

    /// Bytes of the bit vector and the counters.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bits.capacity() * 8 + self.counters.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_reproduces_table_5_hash_counts() {
        let ks: Vec<u32> =
            [0.01, 0.1, 0.3, 0.6, 0.9].iter().map(|&f| filter_shape(1000, f).1).collect();
        assert_eq!(ks, [7, 4, 2, 1, 1]);
        // Paper, AS65000 G1 with 971,555 keys at 1 %: m = 9,312,412.
        let (m, _) = filter_shape(971_555, 0.01);
        assert!((m as i64 - 9_312_412).abs() < 10, "{m}");
    }

    #[test]
    fn counters_keep_bits_until_the_last_key_leaves() {
        let mut f = CountingBloom::new(1000, 1);
        let h = 0x8000_0000;
        f.add(h);
        f.add(h);
        f.sub(h);
        assert!(f.test(h));
        f.sub(h);
        assert!(!f.test(h));
    }

    #[test]
    fn saturated_counters_stick() {
        let mut f = CountingBloom::new(64, 1);
        for _ in 0..300 {
            f.add(7);
        }
        for _ in 0..300 {
            f.sub(7);
        }
        assert!(f.test(7), "a saturated counter must never clear its bit");
    }
}
