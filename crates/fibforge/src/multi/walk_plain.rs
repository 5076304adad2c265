//! The batch walk ([`super::lanes::Walk`]) of Trie Braiding: [`PlainWalk`] over a binary trie
//! without leaf pushing, the braiding bits read through [`Flip`] (a trait, so that this module
//! needs nothing of `braiding`). The other merged-trie comparators answer batches key by key:
//! the interleaved walk measured slower for them (`docs/lab/multi-baselines.md`).
//!
//! Each step reads the node its lane prefetched one round earlier. In [`PlainWalk`] a node's
//! PortMapTable entry is not read at once: the step prefetches it and the lane's next step
//! (or [`Walk::finish`]) reads it, so the vector read leaves the node chain's critical path.
//! The answers are those of the structures' `lookup`: the deepest non-empty entry of the
//! VRF's path.

use super::lanes::Walk;
use super::trie_shape::Node;
use crate::addr::Address;
use crate::algo::prefetch;
use crate::nexthop::NextHop;

/// Which child a table sees as its left one at a node (Trie Braiding's bits).
pub(super) trait Flip {
    /// 1 when table `v` sees node `i`'s children swapped.
    fn flip(&self, i: usize, v: usize) -> usize;
    /// Prefetches the bit [`Flip::flip`] reads for `(i, v)`.
    fn prefetch(&self, i: usize, v: usize);
}

/// A lane of [`PlainWalk`]: node, depth, best raw hop, vector id still to read (0: none).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PlainLane {
    i: u32,
    d: u32,
    best: u32,
    pend: u32,
}

/// The walk of a trie without leaf pushing.
pub(super) struct PlainWalk<'a, F> {
    pub nodes: &'a [Node],
    pub pmt: &'a [u32],
    pub vrfs: usize,
    pub flip: F,
}

impl<F> PlainWalk<'_, F> {
    /// Takes the pending vector's entry of table `v` as the best so far when not empty.
    #[inline]
    fn settle(&self, st: &mut PlainLane, v: usize) {
        if st.pend != 0 {
            let h = self.pmt[st.pend as usize * self.vrfs + v];
            if h != 0 {
                st.best = h;
            }
            st.pend = 0;
        }
    }
}

impl<A: Address, F: Flip> Walk<A> for PlainWalk<'_, F> {
    type State = PlainLane;

    #[inline]
    fn start(&self, _: usize, _: A) -> PlainLane {
        PlainLane::default()
    }

    #[inline]
    fn step(&self, st: &mut PlainLane, v: usize, addr: A) -> bool {
        self.settle(st, v);
        let (i, n) = (st.i as usize, self.nodes[st.i as usize]);
        if n.comp != 0 {
            st.pend = n.comp;
            prefetch::read(self.pmt, n.comp as usize * self.vrfs + v);
        }
        if st.d == A::BITS {
            return true;
        }
        match n.child[addr.bit(st.d) as usize ^ self.flip.flip(i, v)] {
            0 => true,
            c => {
                st.i = c;
                st.d += 1;
                prefetch::read(self.nodes, c as usize);
                self.flip.prefetch(c as usize, v);
                false
            }
        }
    }

    #[inline]
    fn finish(&self, st: &PlainLane, v: usize) -> Option<NextHop> {
        let mut st = *st;
        self.settle(&mut st, v);
        NextHop::from_raw(st.best)
    }
}
