//! Lookups: one descent per address, and batches walked level by level in lock step.
//!
//! Every lookup is instantiated per instruction set (`node::Isa`) inside a function that
//! enables it, and per width of the interval words, so the inner loops carry no branch on
//! either. A batch takes `LANES` addresses at a time through one level after another:
//! each lane's next node is prefetched as soon as its rank is known, and the other lanes'
//! work at that level hides the fetch. The depth is a constant of each instantiation (one
//! per tree height up to `MAX_UNROLLED`), so the level loop unrolls.

use super::hops::{HopSlots, Hops};
use super::key::Key;
use super::node::{Isa, Portable, Simd, TreeKey};
use super::tree::Tree;
use super::view::Fib;
use crate::algo::prefetch;
use crate::nexthop::{NextHop, as_raw_slots};

/// Addresses walked in lock step by a batch.
pub const LANES: usize = 16;

/// Deepest tree (inner levels) with a batch loop of its own; deeper ones use a generic loop.
const MAX_UNROLLED: usize = 7;

impl<A: Key> Fib<A> {
    /// The interval of key `k` (below `K::MAX`), searched with this view's instruction set.
    pub(super) fn search(&self, k: A::T) -> usize {
        match self.simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `simd` is AVX-512 only when the CPU has it (`Simd::detect`/`available`).
            Simd::Avx512 => unsafe { x86::search_avx512(&self.tree, k) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for AVX2.
            Simd::Avx2 => unsafe { x86::search_avx2(&self.tree, k) },
            _ => self.tree.search::<Portable>(k),
        }
    }

    /// One lookup.
    #[inline]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        match (&self.hops, self.simd) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `simd` names an instruction set this CPU has (see `search`).
            (Hops::Narrow(h), Simd::Avx512) => unsafe { x86::one_avx512(self, &**h, addr) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), Simd::Avx512) => unsafe { x86::one_avx512(self, &**h, addr) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Narrow(h), Simd::Avx2) => unsafe { x86::one_avx2(self, &**h, addr) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), Simd::Avx2) => unsafe { x86::one_avx2(self, &**h, addr) },
            (Hops::Narrow(h), _) => one::<Portable, _, _>(self, &**h, addr),
            (Hops::Wide(h), _) => one::<Portable, _, _>(self, &**h, addr),
        }
    }

    /// Looks up `addrs` into `out` (at least as long).
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let out = &mut as_raw_slots(out)[..addrs.len()];
        match (&self.hops, self.simd) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `simd` names an instruction set this CPU has (see `search`).
            (Hops::Narrow(h), Simd::Avx512) => unsafe { x86::batch_avx512(self, &**h, addrs, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), Simd::Avx512) => unsafe { x86::batch_avx512(self, &**h, addrs, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Narrow(h), Simd::Avx2) => unsafe { x86::batch_avx2(self, &**h, addrs, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), Simd::Avx2) => unsafe { x86::batch_avx2(self, &**h, addrs, out) },
            (Hops::Narrow(h), _) => batch::<Portable, _, _>(self, &**h, addrs, out),
            (Hops::Wide(h), _) => batch::<Portable, _, _>(self, &**h, addrs, out),
        }
    }

    /// The answer of an interval word (a raw next hop, or a tag naming a side).
    #[inline(always)]
    fn answer<S: HopSlots + ?Sized>(&self, word: u32, addr: A) -> u32 {
        if word & S::TAG == 0 { word } else { self.side_answer(word & !S::TAG, addr) }
    }

    #[cold]
    #[inline(never)]
    fn side_answer(&self, slot: u32, addr: A) -> u32 {
        self.sides.get(slot as usize).lookup(addr).map_or(0, |h| h.raw())
    }
}

/// One descent.
#[inline(always)]
fn one<I: Isa, S: HopSlots + ?Sized, A: Key>(fib: &Fib<A>, hops: &S, addr: A) -> Option<NextHop> {
    let k = addr.top();
    let pos = if k == A::T::MAX { fib.max_pos } else { fib.tree.search::<I>(k) };
    NextHop::from_raw(fib.answer::<S>(hops.get(pos), addr))
}

/// A batch, dispatched on the tree's height.
#[inline(always)]
fn batch<I: Isa, S: HopSlots + ?Sized, A: Key>(
    fib: &Fib<A>,
    hops: &S,
    addrs: &[A],
    out: &mut [u32],
) {
    match fib.tree.height() {
        0 => lanes::<I, S, A, 0>(fib, hops, addrs, out),
        1 => lanes::<I, S, A, 1>(fib, hops, addrs, out),
        2 => lanes::<I, S, A, 2>(fib, hops, addrs, out),
        3 => lanes::<I, S, A, 3>(fib, hops, addrs, out),
        4 => lanes::<I, S, A, 4>(fib, hops, addrs, out),
        5 => lanes::<I, S, A, 5>(fib, hops, addrs, out),
        6 => lanes::<I, S, A, 6>(fib, hops, addrs, out),
        MAX_UNROLLED => lanes::<I, S, A, MAX_UNROLLED>(fib, hops, addrs, out),
        _ => {
            for (o, &a) in out.iter_mut().zip(addrs) {
                *o = one::<I, S, A>(fib, hops, a).map_or(0, |h| h.raw());
            }
        }
    }
}

/// A batch through a tree of `D` inner levels, `LANES` addresses at a time (the tail of
/// the batch one by one).
#[inline(always)]
fn lanes<I: Isa, S: HopSlots + ?Sized, A: Key, const D: usize>(
    fib: &Fib<A>,
    hops: &S,
    addrs: &[A],
    out: &mut [u32],
) {
    let full = addrs.len() / LANES * LANES;
    for (chunk, out) in addrs[..full].chunks_exact(LANES).zip(out.chunks_exact_mut(LANES)) {
        let chunk: &[A; LANES] = chunk.try_into().expect("chunks_exact");
        let out: &mut [u32; LANES] = out.try_into().expect("chunks_exact");
        group::<I, S, A, D>(fib, hops, chunk, out);
    }
    for (o, &a) in out[full..].iter_mut().zip(&addrs[full..]) {
        *o = one::<I, S, A>(fib, hops, a).map_or(0, |h| h.raw());
    }
}

/// `LANES` lookups in lock step, level by level.
#[inline(always)]
fn group<I: Isa, S: HopSlots + ?Sized, A: Key, const D: usize>(
    fib: &Fib<A>,
    hops: &S,
    chunk: &[A; LANES],
    out: &mut [u32; LANES],
) {
    let tree = &fib.tree;
    let fanout = Tree::<A::T>::FANOUT;
    let key: [A::T; LANES] = std::array::from_fn(|g| chunk[g].top().min(A::T::MAX_BELOW));
    let mut node = [0usize; LANES];
    for level in 0..D {
        let lines = tree.level(level);
        // Levels that fit in L1 need no prefetch; the wide lower ones do.
        let prefetch_below = tree.level(level + 1).len() > PREFETCH_FROM_LINES;
        let below = tree.level(level + 1);
        for g in 0..LANES {
            node[g] = node[g] * fanout + A::T::rank::<I>(tree.line_in(lines, node[g]), key[g]);
            if prefetch_below {
                prefetch::read(below, node[g]);
            }
        }
    }
    let leaves = tree.level(D);
    let mut pos = [0usize; LANES];
    for g in 0..LANES {
        let rank = A::T::rank::<I>(tree.line_in(leaves, node[g]), key[g]);
        pos[g] = if chunk[g].top() == A::T::MAX {
            fib.max_pos
        } else {
            node[g] * A::T::PER_NODE + rank - 1
        };
        hops.prefetch(pos[g]);
    }
    for g in 0..LANES {
        out[g] = fib.answer::<S>(hops.get(pos[g]), chunk[g]);
    }
}

/// Levels of more lines than this get their lines prefetched (512 lines: 32 KiB).
const PREFETCH_FROM_LINES: usize = 512;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::node::{Avx2, Avx512};
    use super::*;

    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn search_avx512<K: TreeKey>(tree: &Tree<K>, k: K) -> usize {
        tree.search::<Avx512>(k)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn search_avx2<K: TreeKey>(tree: &Tree<K>, k: K) -> usize {
        tree.search::<Avx2>(k)
    }

    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn one_avx512<S: HopSlots + ?Sized, A: Key>(
        fib: &Fib<A>,
        hops: &S,
        addr: A,
    ) -> Option<NextHop> {
        one::<Avx512, S, A>(fib, hops, addr)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn one_avx2<S: HopSlots + ?Sized, A: Key>(
        fib: &Fib<A>,
        hops: &S,
        addr: A,
    ) -> Option<NextHop> {
        one::<Avx2, S, A>(fib, hops, addr)
    }

    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn batch_avx512<S: HopSlots + ?Sized, A: Key>(
        fib: &Fib<A>,
        hops: &S,
        addrs: &[A],
        out: &mut [u32],
    ) {
        batch::<Avx512, S, A>(fib, hops, addrs, out)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn batch_avx2<S: HopSlots + ?Sized, A: Key>(
        fib: &Fib<A>,
        hops: &S,
        addrs: &[A],
        out: &mut [u32],
    ) {
        batch::<Avx2, S, A>(fib, hops, addrs, out)
    }
}
