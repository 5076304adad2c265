//! Lookups: one address (Algorithm 2 over the levels), batches with SIMD hashing, and
//! multi-threaded batches.

use super::hash::{HashFn, Scheme};
use super::{BloomFib, BloomKey};
use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use rayon::prelude::*;

/// Addresses per batch step: hashes of a step are computed together (SIMD), then probed.
const STEP: usize = 64;

impl<A: BloomKey> BloomFib<A> {
    /// The answer when no level matched: the direct array or the default route.
    #[inline(always)]
    fn tail(&self, addr: A) -> Option<NextHop> {
        if self.plan.direct_bits == 0 {
            return self.default;
        }
        NextHop::from_raw(self.direct[addr.bits(0, self.plan.direct_bits) as usize])
    }

    /// One batch step of at most [`STEP`] addresses with double hashing: per level, hash all
    /// keys at once, then probe the addresses still unanswered.
    fn batch_step(&self, f: HashFn, addrs: &[A], out: &mut [Option<NextHop>]) {
        let n = addrs.len();
        debug_assert!(n <= STEP);
        let mut keys = [A::ZERO; STEP];
        let (mut a, mut b) = ([0u32; STEP], [0u32; STEP]);
        let mut pending: u64 = if n == STEP { u64::MAX } else { (1 << n) - 1 };
        for level in &self.levels {
            for (k, &addr) in keys.iter_mut().zip(addrs) {
                *k = level.key(addr);
            }
            A::pairs(f, &keys[..n], &mut a[..n], &mut b[..n]);
            let mut todo = pending;
            while todo != 0 {
                let i = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                if let Some(h) = level.probe_pair(keys[i], a[i], b[i]) {
                    out[i] = Some(h);
                    pending &= !(1 << i);
                }
            }
            if pending == 0 {
                return;
            }
        }
        while pending != 0 {
            let i = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            out[i] = self.tail(addrs[i]);
        }
    }
}

impl<A: BloomKey> Lookup<A> for BloomFib<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        for level in &self.levels {
            if let Some(h) = level.probe(addr) {
                return Some(h);
            }
        }
        self.tail(addr)
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
pub const PARALLEL_CHUNK: usize = 1024;

/// Looks up `addrs` on all threads of the current rayon pool, dynamically scheduled: the input
/// is cut into chunks of [`PARALLEL_CHUNK`] addresses that idle threads steal (the paper's
/// OpenMP `dynamic` schedule, §4.3.1). Each chunk goes through `fib.lookup_batch`. Run it inside
/// `ThreadPool::install` to choose the thread count.
///
/// # Panics
/// When `out` is shorter than `addrs`.
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
