//! One level of the structure: a counting Bloom filter and its hash table for keys of one length.
//!
//! A key is an address truncated to the level's length `len` (host bits zero), so keys of
//! different lengths never meet in one filter. [`BloomKey`] gives both families the hashing the
//! scheme needs: IPv4 keys hash as 32-bit values, IPv6 keys fold to 64 bits first (high half xor
//! the rotated low half; the low half is zero for lengths ≤ 64).

use super::counting::{CountingBloom, filter_shape};
use super::hash::{Scheme, seeded64};
use super::key::BloomKey;
use super::key_table::KeyTable;
use crate::nexthop::NextHop;

/// Seed of the table hash in the independent scheme (filters use seeds `0..k`).
const TABLE_SEED: u32 = 0xffff;

/// A Bloom filter and hash table holding the keys of one length.
#[derive(Clone, Debug)]
pub(super) struct Level<A: BloomKey> {
    len: u32,
    mask: A,
    filter: CountingBloom,
    table: KeyTable<A>,
    scheme: Scheme,
    /// Keys the filter was sized for; it is re-sized when the level outgrows twice that.
    designed: usize,
    fpr: f64,
}

impl<A: BloomKey> Level<A> {
    /// A level for keys of length `len`, its filter sized for `expected` keys and its table
    /// for `keys` keys (they differ for the naive variant's symmetric filters).
    pub(super) fn new(len: u32, expected: usize, keys: usize, fpr: f64, scheme: Scheme) -> Self {
        let (m, k) = filter_shape(expected, fpr);
        Level {
            len,
            mask: A::netmask(len),
            filter: CountingBloom::new(m, k),
            table: KeyTable::for_length(len, keys),
            scheme,
            designed: expected.max(1),
            fpr,
        }
    }

    /// The key length.
    #[inline]
    pub(super) fn len(&self) -> u32 {
        self.len
    }

    /// The key of `addr` at this level.
    #[inline(always)]
    pub(super) fn key(&self, addr: A) -> A {
        addr.and(self.mask)
    }

    /// Number of keys.
    pub(super) fn keys(&self) -> usize {
        self.table.len()
    }

    /// The filter (for reports).
    pub(super) fn filter(&self) -> &CountingBloom {
        &self.filter
    }

    /// The table (for exports).
    pub(super) fn table(&self) -> &KeyTable<A> {
        &self.table
    }

    /// A level from exported parts: `filter` holds the exported bits and no counts
    /// ([`CountingBloom::from_words`]), `table` the exported slots. Checks that every key sits
    /// where a lookup finds it and has all its filter bits set (else the filter would answer
    /// "absent" for a stored key), then counts the keys into the filter. The error names the
    /// part at fault, `"table"` or `"filter"`, and what is wrong.
    pub(super) fn from_parts(
        len: u32,
        filter: CountingBloom,
        table: KeyTable<A>,
        scheme: Scheme,
        fpr: f64,
    ) -> Result<Self, (&'static str, String)> {
        let hash = |key: A| Self::table_hash(scheme, key);
        if let Some(slot) = table.first_unreachable(hash) {
            let what = format!("the key in slot {slot} is not reachable from its home slot");
            return Err(("table", what));
        }
        let keys: Vec<A> = table.entries().map(|(key, _)| key).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(("table", format!("key {} is stored twice", w[0].to_std())));
        }
        let designed = table.len().max(1);
        let mut level = Level { len, mask: A::netmask(len), filter, table, scheme, designed, fpr };
        if let Some(key) = keys.iter().find(|&&key| !level.filter_pass(key)) {
            let what = format!("a bit of stored key {} is clear (a false negative)", key.to_std());
            return Err(("filter", what));
        }
        for key in keys {
            level.for_each_filter_hash(key, true);
        }
        level.filter.claim_unexplained_bits();
        Ok(level)
    }

    /// The hash that addresses the table for `key`.
    #[inline(always)]
    fn table_hash(scheme: Scheme, key: A) -> u32 {
        match scheme {
            Scheme::Double(f) => key.pair(f).0,
            Scheme::Independent => seeded64(key.fold64(), TABLE_SEED),
        }
    }

    /// Looks `addr` up at this level: filter first, then the table on a filter hit.
    #[inline(always)]
    pub(super) fn probe(&self, addr: A) -> Option<NextHop> {
        let key = self.key(addr);
        match self.scheme {
            Scheme::Double(f) => {
                let (a, b) = key.pair(f);
                self.probe_pair(key, a, b)
            }
            Scheme::Independent => {
                if self.filter_pass(key) {
                    self.table.get(key, seeded64(key.fold64(), TABLE_SEED))
                } else {
                    None
                }
            }
        }
    }

    /// The filter's answer for `key` under either scheme (early exit on the first clear bit).
    #[inline(always)]
    pub(super) fn filter_pass(&self, key: A) -> bool {
        match self.scheme {
            Scheme::Double(f) => {
                let (a, b) = key.pair(f);
                self.maybe(a, b)
            }
            Scheme::Independent => {
                let x = key.fold64();
                (0..self.filter.k()).all(|i| self.filter.test(seeded64(x, i)))
            }
        }
    }

    /// Looks `key` up with its precomputed double-hashing pair (Bloomfwd only).
    #[inline(always)]
    pub(super) fn probe_pair(&self, key: A, a: u32, b: u32) -> Option<NextHop> {
        if self.maybe(a, b) { self.table.get(key, a) } else { None }
    }

    /// The filter's answer for the pair `(a, b)`: false when the key is certainly absent.
    /// All `k` bits are read without an early exit: the loads are independent, so they overlap
    /// in the memory system, and there is no data-dependent branch to mispredict per bit.
    #[inline(always)]
    pub(super) fn maybe(&self, a: u32, b: u32) -> bool {
        let mut h = a;
        let mut all = true;
        for _ in 0..self.filter.k() {
            all &= self.filter.test(h);
            h = h.wrapping_add(b);
        }
        all
    }

    /// Hints the cache that the filter words of the pair `(a, b)` are read soon.
    #[inline(always)]
    pub(super) fn prefetch_filter(&self, a: u32, b: u32) {
        let mut h = a;
        for _ in 0..self.filter.k() {
            self.filter.prefetch(h);
            h = h.wrapping_add(b);
        }
    }

    /// Hints the cache that the table's home slot for hash `a` is read soon.
    #[inline(always)]
    pub(super) fn prefetch_table(&self, a: u32) {
        self.table.prefetch(a);
    }

    /// The table's next hop for `key` with hash `a` (no filter test).
    #[inline(always)]
    pub(super) fn table_get(&self, key: A, a: u32) -> Option<NextHop> {
        self.table.get(key, a)
    }

    /// Table slots a lookup of `key` reads.
    pub(super) fn table_run(&self, key: A) -> usize {
        self.table.run_length(key, Self::table_hash(self.scheme, key))
    }

    fn for_each_filter_hash(&mut self, key: A, add: bool) {
        let k = self.filter.k();
        let mut apply = |h: u32| if add { self.filter.add(h) } else { self.filter.sub(h) };
        match self.scheme {
            Scheme::Double(f) => {
                let (a, b) = key.pair(f);
                (0..k).for_each(|i| apply(a.wrapping_add(i.wrapping_mul(b))));
            }
            Scheme::Independent => (0..k).for_each(|i| apply(seeded64(key.fold64(), i))),
        }
    }

    /// Sets `key → hop`, or removes the key when `hop` is `None`.
    pub(super) fn set(&mut self, key: A, hop: Option<NextHop>) {
        let scheme = self.scheme;
        let h = Self::table_hash(scheme, key);
        let rehash = move |k: A| Self::table_hash(scheme, k);
        match hop {
            Some(hop) => {
                if self.table.insert(key, h, hop, rehash) {
                    self.for_each_filter_hash(key, true);
                    if self.table.len() > 2 * self.designed {
                        self.resize_filter(self.table.len() * 2);
                    }
                }
            }
            None => {
                if self.table.remove(key, h, rehash) {
                    self.for_each_filter_hash(key, false);
                }
            }
        }
    }

    /// [`Level::set`] for every pair of `keys` (many at once: an expansion), with the table
    /// slot, filter bits and counters of the key `AHEAD` places on prefetched, so that the
    /// cache misses of consecutive keys overlap instead of following one another.
    pub(super) fn set_all(&mut self, keys: &[(A, Option<NextHop>)]) {
        const AHEAD: usize = 16;
        for (i, &(key, hop)) in keys.iter().enumerate() {
            if let Some(&(next, _)) = keys.get(i + AHEAD) {
                self.prefetch_set(next);
            }
            self.set(key, hop);
        }
    }

    /// Hints the cache that `set(key, ..)` comes soon: its home slot, and with double
    /// hashing its filter bits and counters (independent hashing would hash `k` times more).
    #[inline(always)]
    fn prefetch_set(&self, key: A) {
        let h = Self::table_hash(self.scheme, key);
        self.table.prefetch(h);
        if let Scheme::Double(f) = self.scheme {
            let (a, b) = key.pair(f);
            let mut h = a;
            for _ in 0..self.filter.k() {
                self.filter.prefetch_counted(h);
                h = h.wrapping_add(b);
            }
        }
    }

    /// Makes room for `more` new keys at once: the table grows to the capacity that
    /// inserting them one by one would reach, and the filter is re-sized once to the shape
    /// `set`'s doubling rule would give it (a larger one when some of them are already
    /// present), instead of step by step with a rehash of every key at each step.
    pub(super) fn reserve(&mut self, more: usize) {
        let (scheme, keys) = (self.scheme, self.table.len() + more);
        self.table.reserve(keys, move |k: A| Self::table_hash(scheme, k));
        let mut designed = self.designed;
        while keys > 2 * designed {
            designed = 2 * (2 * designed + 1);
        }
        if designed != self.designed {
            self.resize_filter(designed);
        }
    }

    /// Rebuilds the filter for `expected` keys from the keys in the table.
    fn resize_filter(&mut self, expected: usize) {
        let (m, k) = filter_shape(expected, self.fpr);
        self.filter = CountingBloom::new(m, k);
        self.designed = expected;
        let keys: Vec<A> = self.table.entries().map(|(key, _)| key).collect();
        for key in keys {
            self.for_each_filter_hash(key, true);
        }
    }

    /// Bytes of the filter (bits and counters) and the table.
    pub(super) fn memory_bytes(&self) -> usize {
        self.filter.memory_bytes() + self.table.memory_bytes()
    }

    /// True when the filter (bits and counters) equals one of the same shape filled afresh
    /// with the table's keys: the counting bookkeeping of every update was exact.
    #[cfg(test)]
    pub(super) fn filter_is_fresh(&self) -> bool {
        let mut fresh = self.clone();
        fresh.filter = CountingBloom::new(self.filter.m() as u64, self.filter.k());
        let keys: Vec<A> = self.table.entries().map(|(key, _)| key).collect();
        for key in keys {
            fresh.for_each_filter_hash(key, true);
        }
        fresh.filter == self.filter
    }

    /// The table's `(key, hop)` pairs in key order.
    #[cfg(test)]
    pub(super) fn sorted_entries(&self) -> Vec<(A, NextHop)> {
        let mut v: Vec<_> = self.table.entries().collect();
        v.sort_unstable_by_key(|&(key, _)| key);
        v
    }
}
