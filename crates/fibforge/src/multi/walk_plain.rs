//! The batch walks ([`super::lanes::Walk`]) of the merged tries: [`PlainWalk`] for a binary
//! trie without leaf pushing (Merged Trie `leafpush=off`, Trie Braiding through [`Flip`]),
//! [`PushedWalk`] for the leaf-pushed one (Merged Trie `leafpush=on`).
//!
//! Each step reads the node its lane prefetched one round earlier. In [`PlainWalk`] a node's
//! PortMapTable entry is not read at once: the step prefetches it and the lane's next step
//! (or [`Walk::finish`]) reads it, so the vector read leaves the node chain's critical path.
//! The answers are those of the structures' `lookup`: the deepest non-empty entry of the
//! VRF's path.

use super::lanes::Walk;
use super::merged::Node;
use super::trie_build::LEAF;
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

/// No braiding.
pub(super) struct NoFlip;

impl Flip for NoFlip {
    #[inline]
    fn flip(&self, _: usize, _: usize) -> usize {
        0
    }
    #[inline]
    fn prefetch(&self, _: usize, _: usize) {}
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

/// A lane of [`PushedWalk`]: the current word and depth.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PushedLane {
    w: u32,
    d: u32,
}

/// The walk of a leaf-pushed binary trie (child pairs, `LEAF` words).
pub(super) struct PushedWalk<'a> {
    pub root: u32,
    pub pairs: &'a [[u32; 2]],
    pub pmt: &'a [u32],
    pub vrfs: usize,
}

impl<A: Address> Walk<A> for PushedWalk<'_> {
    type State = PushedLane;

    #[inline]
    fn start(&self, _: usize, _: A) -> PushedLane {
        PushedLane { w: self.root, d: 0 }
    }

    #[inline]
    fn step(&self, st: &mut PushedLane, v: usize, addr: A) -> bool {
        if st.w & LEAF == 0 {
            st.w = self.pairs[st.w as usize][addr.bit(st.d) as usize];
            st.d += 1;
        }
        if st.w & LEAF == 0 {
            prefetch::read(self.pairs, st.w as usize);
            return false;
        }
        prefetch::read(self.pmt, (st.w & !LEAF) as usize * self.vrfs + v);
        true
    }

    #[inline]
    fn finish(&self, st: &PushedLane, v: usize) -> Option<NextHop> {
        NextHop::from_raw(self.pmt[(st.w & !LEAF) as usize * self.vrfs + v])
    }
}
