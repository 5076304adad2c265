//! Lookups: one address (Algorithm 2 over the levels), batches with SIMD hashing, and
//! multi-threaded batches.

use super::batch::STEP;
use super::hash::{HashFn, Scheme};
use super::{BloomFib, BloomKey};
use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use rayon::prelude::*;

impl<A: BloomKey> BloomFib<A> {
    /// The answer when no level matched: the direct array or the default route.
    #[inline(always)]
    pub(super) fn tail(&self, addr: A) -> Option<NextHop> {
        if self.plan.direct_bits == 0 {
            return self.default;
        }
        NextHop::from_raw(self.direct[addr.bits(0, self.plan.direct_bits) as usize])
    }

    /// Algorithm 2 with double hashing: while a level's table is read, the next level's filter
    /// words are already being fetched.
    #[inline(always)]
    fn lookup_double(&self, f: HashFn, addr: A) -> Option<NextHop> {
        let Some(first) = self.levels.first() else { return self.tail(addr) };
        let mut key = first.key(addr);
        let (mut a, mut b) = key.pair(f);
        first.prefetch_filter(a, b);
        for (l, level) in self.levels.iter().enumerate() {
            let hit = level.maybe(a, b);
            let (this_key, this_a) = (key, a);
            if let Some(below) = self.levels.get(l + 1) {
                key = below.key(addr);
                (a, b) = key.pair(f);
                below.prefetch_filter(a, b);
            }
            if let Some(h) = hit.then(|| level.table_get(this_key, this_a)).flatten() {
                return Some(h);
            }
        }
        self.tail(addr)
    }

    /// Hints the cache that the direct-array entry of `addr` is read soon (no-op without one).
    #[inline(always)]
    pub(super) fn prefetch_tail(&self, addr: A) {
        if self.plan.direct_bits > 0 {
            crate::algo::prefetch::read(&self.direct, addr.bits(0, self.plan.direct_bits) as usize);
        }
    }
}

impl<A: BloomKey> Lookup<A> for BloomFib<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        // The direct array is read by most lookups (§3.2: G2, G1, then the array): start its
        // load now so that it overlaps the filter probes.
        self.prefetch_tail(addr);
        match self.scheme {
            Scheme::Double(f) => self.lookup_double(f, addr),
            Scheme::Independent => {
                self.levels.iter().find_map(|l| l.probe(addr)).or_else(|| self.tail(addr))
            }
        }
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        match self.scheme {
            Scheme::Double(f) => {
                for (a, o) in addrs.chunks(STEP).zip(out.chunks_mut(STEP)) {
                    self.batch_step(f, a, o);
                }
            }
            Scheme::Independent => {
                for (o, &a) in out.iter_mut().zip(addrs) {
                    *o = self.lookup(a);
                }
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        self.levels.iter().map(|l| l.memory_bytes()).sum::<usize>()
            + self.direct.capacity() * 4
            + self.levels.capacity() * std::mem::size_of::<super::Level<A>>()
    }
}

/// Addresses per scheduling unit of [`lookup_parallel`].
pub(super) const PARALLEL_CHUNK: usize = 1024;

/// Looks up `addrs` on all threads of the current rayon pool, dynamically scheduled: the input
/// is cut into chunks of `PARALLEL_CHUNK` addresses that idle threads steal (the paper's
/// OpenMP `dynamic` schedule, §4.3.1). Each chunk goes through `fib.lookup_batch`. Run it inside
/// `ThreadPool::install` to choose the thread count.
///
/// # Panics
/// When `out` is shorter than `addrs`.
#[doc(hidden)]
pub fn lookup_parallel<A: Address, L: Lookup<A> + ?Sized>(
    fib: &L,
    addrs: &[A],
    out: &mut [Option<NextHop>],
) {
    assert!(out.len() >= addrs.len(), "output shorter than input");
    addrs
        .par_chunks(PARALLEL_CHUNK)
        .zip(out[..addrs.len()].par_chunks_mut(PARALLEL_CHUNK))
        .with_max_len(1)
        .for_each(|(a, o)| fib.lookup_batch(a, o));
}
