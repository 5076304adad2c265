//! Batch lookups with double hashing: the addresses of a step move through each level in
//! stages, so that their memory accesses overlap instead of running one address at a time.
//!
//! Per step of at most [`STEP`] addresses: prefetch every direct-array entry; then per level,
//! longest first, (1) hash the keys of all addresses at once ([`BloomKey::pairs`], SIMD for
//! both families), (2) prefetch the filter words of the addresses still unanswered, (3) test their
//! filter bits (no branch per bit), (4) prefetch the table home slots of the filter hits,
//! (5) read those slots. A filter hit that the table confirms answers the address. Steps 1–2
//! of the next level run between 4 and 5 of the current one, so its filter loads overlap
//! this level's table loads. The lookups are the same as [`Lookup::lookup`]'s; only the order
//! of memory accesses differs.
//!
//! [`Lookup::lookup`]: crate::fib::Lookup::lookup

use super::hash::HashFn;
use super::level::Level;
use super::{BloomFib, BloomKey};
use crate::cpu::Isa;
use crate::nexthop::NextHop;

/// Addresses per batch step (one bit each in a `u64` mask).
pub(super) const STEP: usize = 64;

/// Iterates the set bits of `mask`, lowest first.
#[inline(always)]
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// The keys and hash pairs of one step at one level.
struct Hashed<A> {
    keys: [A; STEP],
    a: [u32; STEP],
    b: [u32; STEP],
}

impl<A: BloomKey> Hashed<A> {
    fn new() -> Self {
        Hashed { keys: [A::ZERO; STEP], a: [0; STEP], b: [0; STEP] }
    }

    /// Hashes the keys of `addrs` at `level`.
    #[inline(always)]
    fn fill(&mut self, isa: Isa, f: HashFn, level: &Level<A>, addrs: &[A]) {
        let n = addrs.len();
        for (k, &addr) in self.keys.iter_mut().zip(addrs) {
            *k = level.key(addr);
        }
        A::pairs(isa, f, &self.keys[..n], &mut self.a[..n], &mut self.b[..n]);
    }

    /// Prefetches the filter words of the addresses of `pending` at `level`.
    #[inline(always)]
    fn prefetch_filter(&self, level: &Level<A>, pending: u64) {
        for i in bits(pending) {
            level.prefetch_filter(self.a[i], self.b[i]);
        }
    }

    /// The addresses of `pending` whose filter test passes at `level`.
    #[inline(always)]
    fn filter(&self, level: &Level<A>, pending: u64) -> u64 {
        let mut hits = 0;
        for i in bits(pending) {
            hits |= (level.maybe(self.a[i], self.b[i]) as u64) << i;
        }
        hits
    }

    /// Prefetches the table home slots of the filter hits.
    #[inline(always)]
    fn prefetch_table(&self, level: &Level<A>, hits: u64) {
        for i in bits(hits) {
            level.prefetch_table(self.a[i]);
        }
    }

    /// Reads the table for the filter hits; stores answers and returns the answered mask.
    #[inline(always)]
    fn confirm(&self, level: &Level<A>, hits: u64, out: &mut [Option<NextHop>]) -> u64 {
        let mut answered = 0;
        for i in bits(hits) {
            if let Some(h) = level.table_get(self.keys[i], self.a[i]) {
                out[i] = Some(h);
                answered |= 1 << i;
            }
        }
        answered
    }
}

impl<A: BloomKey> BloomFib<A> {
    /// One batch step of at most [`STEP`] addresses with double hashing under `f`.
    pub(super) fn batch_step(&self, f: HashFn, addrs: &[A], out: &mut [Option<NextHop>]) {
        let n = addrs.len();
        debug_assert!(n <= STEP && out.len() >= n);
        for &addr in addrs {
            self.prefetch_tail(addr);
        }
        let mut pending: u64 = if n == STEP { u64::MAX } else { (1 << n) - 1 };
        let mut stage = [Hashed::new(), Hashed::new()];
        if let Some(first) = self.levels.first() {
            stage[0].fill(self.isa, f, first, addrs);
            stage[0].prefetch_filter(first, pending);
        }
        for (l, level) in self.levels.iter().enumerate() {
            let [cur, next] = stage_pair(&mut stage, l);
            let hits = cur.filter(level, pending);
            cur.prefetch_table(level, hits);
            // The next level's hashing and filter loads overlap this level's table reads
            // (prefetched for every address still pending: a superset of those that reach it).
            if let Some(below) = self.levels.get(l + 1) {
                next.fill(self.isa, f, below, addrs);
                next.prefetch_filter(below, pending);
            }
            pending &= !cur.confirm(level, hits, out);
            if pending == 0 {
                return;
            }
        }
        for i in bits(pending) {
            out[i] = self.tail(addrs[i]);
        }
    }
}

/// The stage of level `l` and the one of level `l + 1` (they alternate).
#[inline(always)]
fn stage_pair<A>(stage: &mut [Hashed<A>; 2], l: usize) -> [&mut Hashed<A>; 2] {
    let [s0, s1] = stage;
    if l.is_multiple_of(2) { [s0, s1] } else { [s1, s0] }
}
