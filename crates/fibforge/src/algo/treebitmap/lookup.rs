//! Lookups: walk down by strides, remember the last node with a matching prefix, read its
//! result at the end.

use super::TreeBitmap;
use super::build::left_aligned;
use super::node::{NodeLayout, rank};
use crate::addr::Address;
use crate::algo::prefetch;
use crate::nexthop::NextHop;

/// Addresses walked together by `lookup_many`, one level at a time, so that the node loads of
/// different addresses overlap.
const GROUP: usize = 8;

/// The state of one walk: the current node, the rest of the address, the best match so far.
#[derive(Copy, Clone, Default)]
struct Walk {
    node: u32,
    key: u128,
    /// Result block and internal bitmap of the last node with a match (bitmap 0: none yet).
    result: u32,
    internal: u64,
    /// `internal & path` of that node.
    matched: u64,
    done: bool,
}

impl<A: Address, N: NodeLayout> TreeBitmap<A, N> {
    /// One level of a walk: note the node's match, descend or finish.
    #[inline(always)]
    fn step(&self, w: &mut Walk) {
        let node = self.nodes[w.node as usize];
        let chunk = (w.key >> (128 - N::STRIDE)) as u64;
        let matched = node.internal() & N::path_mask(chunk);
        if matched != 0 {
            (w.result, w.internal, w.matched) = (node.result(), node.internal(), matched);
        }
        let external = node.external();
        if external >> chunk & 1 == 0 {
            w.done = true;
            return;
        }
        w.node = node.child() + rank(external, chunk as u32);
        w.key <<= N::STRIDE;
    }

    /// The answer of a finished walk.
    #[inline(always)]
    fn answer(&self, w: &Walk) -> Option<NextHop> {
        if w.matched == 0 {
            return None;
        }
        let bit = 63 - w.matched.leading_zeros();
        NextHop::from_raw(self.results[(w.result + rank(w.internal, bit)) as usize])
    }

    #[inline(always)]
    pub(super) fn lookup_one(&self, addr: A) -> Option<NextHop> {
        let mut w = Walk { key: left_aligned(addr), ..Walk::default() };
        while !w.done {
            self.step(&mut w);
        }
        self.answer(&w)
    }

    /// Batch lookup: the walks of [`GROUP`] addresses advance one level each per round, and
    /// every next node is prefetched before the round that reads it.
    pub(super) fn lookup_many(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut groups = addrs.chunks_exact(GROUP);
        let mut outs = out.chunks_exact_mut(GROUP);
        for (group, results) in (&mut groups).zip(&mut outs) {
            let mut walks = [Walk::default(); GROUP];
            for (w, &a) in walks.iter_mut().zip(group) {
                w.key = left_aligned(a);
            }
            let mut active = GROUP;
            while active > 0 {
                active = 0;
                for w in walks.iter_mut().filter(|w| !w.done) {
                    self.step(w);
                    if !w.done {
                        prefetch::read(&self.nodes, w.node as usize);
                        active += 1;
                    }
                }
            }
            for (o, w) in results.iter_mut().zip(&walks) {
                *o = self.answer(w);
            }
        }
        let rest = groups.remainder();
        for (o, &a) in out[addrs.len() - rest.len()..].iter_mut().zip(rest) {
            *o = self.lookup_one(a);
        }
    }
}
