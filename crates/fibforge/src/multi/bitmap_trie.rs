//! Bitmap-assisted Trie, as LOOP describes it (`papers/loop-mi-yang.txt` §II, §V-B; LOOP's
//! reference 9): the merged trie of all tables *without* leaf pushing (so a route change
//! touches one node), each node storing a bitmap of the tables that have a route on it and a
//! pointer into a next-hop-pointer array holding only those tables' next hops.
//!
//! **Layout.** `nodes[i] = { child: [u32; 2], base: u32 }` (node 0 the root, child 0 meaning
//! none), `bits[i * words ..][..words]` the node's bitmap (`words = ⌈vrfs / 64⌉` 64-bit words,
//! bit `v` set when table `v` has a route on the node) and `hops[base ..]` the next hops of
//! the set bits in table order. A lookup of table `v` walks the address bits down; at a node
//! whose bit `v` is set it reads `hops[base + rank(v)]`, `rank` the count of set bits before
//! `v` (population counts), remembering the last such hop.
//!
//! **Invariants.** Table `v`'s route `p/l` is the hop of bit `v` at the node of depth `l` on
//! `p`'s path; a node's hops are contiguous and in table order, so `rank` finds them.
//!
//! **Limits.** Node counts and next-hop array entries below 2^32. No incremental updates here
//! (the scheme allows them; this baseline is measured for storage and lookup speed); batches
//! look keys up one by one (a 16-lane interleaved walk measured slower).

use super::trie_build::{limit, merge};
use super::trie_shape::{Braid, NONE};
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;
use std::marker::PhantomData;

const NAME: &str = "bitmap_trie";

/// A node: children (0: none) and the index of its first next hop.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    child: [u32; 2],
    base: u32,
}

/// Checks that a spec for the Bitmap-assisted Trie has no options.
pub fn check_spec(spec: &AlgoSpec) -> Result<(), BuildError> {
    spec.check_options(NAME, &[])
}

/// The Bitmap-assisted Trie over `vrfs` tables (VRF id = position in the build's list).
#[derive(Clone, Debug)]
pub struct BitmapTrie<A: Address> {
    nodes: Vec<Node>,
    bits: Vec<u64>,
    hops: Vec<u32>,
    words: usize,
    vrfs: usize,
    family: PhantomData<fn() -> A>,
}

impl<A: Address> BitmapTrie<A> {
    /// Merges `tables` (VRF id = position).
    pub fn build(tables: &[Rib<A>]) -> Result<Self, BuildError> {
        let m = merge(tables, Braid::Off);
        let total: usize = tables.iter().map(Rib::len).sum();
        if m.child.len() as u64 > u32::MAX as u64 || total as u64 > u32::MAX as u64 {
            let found = (m.child.len() as u64).max(total as u64);
            return Err(limit(NAME, "trie nodes or next hops", u32::MAX as u64, found));
        }
        let words = tables.len().div_ceil(64).max(1);
        let first = m.route_offsets();
        let mut bits = vec![0u64; m.child.len() * words];
        let mut hops = Vec::with_capacity(total);
        let mut nodes = Vec::with_capacity(m.child.len());
        for (i, c) in m.child.iter().enumerate() {
            nodes.push(Node {
                child: c.map(|x| if x == NONE { 0 } else { x }),
                base: hops.len() as u32,
            });
            // Routes are sorted by node then VRF: the hops land in table order.
            for &(_, v, h) in &m.routes[first[i] as usize..first[i + 1] as usize] {
                bits[i * words + v as usize / 64] |= 1 << (v % 64);
                hops.push(h);
            }
        }
        hops.shrink_to_fit();
        Ok(BitmapTrie { nodes, bits, hops, words, vrfs: tables.len(), family: PhantomData })
    }

    /// Trie nodes and stored next hops.
    pub fn counts(&self) -> (usize, usize) {
        (self.nodes.len(), self.hops.len())
    }

    /// Table `v`'s hop at node `i`, if its bit is set.
    #[inline]
    fn hop_at(&self, i: usize, v: usize) -> Option<NextHop> {
        self.hop_index(i, v).and_then(|x| NextHop::from_raw(self.hops[x]))
    }

    /// The index in `hops` of table `v`'s hop at node `i`, if its bit is set.
    #[inline]
    fn hop_index(&self, i: usize, v: usize) -> Option<usize> {
        let bm = &self.bits[i * self.words..][..self.words];
        let (w, b) = (v / 64, v % 64);
        if bm[w] >> b & 1 == 0 {
            return None;
        }
        let before: u32 = bm[..w].iter().map(|x| x.count_ones()).sum::<u32>()
            + (bm[w] & ((1u64 << b) - 1)).count_ones();
        Some((self.nodes[i].base + before) as usize)
    }
}

impl<A: Address> MultiLookup<A> for BitmapTrie<A> {
    fn vrfs(&self) -> usize {
        self.vrfs
    }

    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        let v = vrf as usize;
        if v >= self.vrfs {
            return None;
        }
        let (mut i, mut best) = (0usize, None);
        for d in 0..=A::BITS {
            best = self.hop_at(i, v).or(best);
            if d == A::BITS {
                break;
            }
            match self.nodes[i].child[addr.bit(d) as usize] {
                0 => break,
                c => i = c as usize,
            }
        }
        best
    }

    /// Nodes, bitmaps and the next-hop array.
    fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + self.bits.capacity() * size_of::<u64>()
            + self.hops.capacity() * size_of::<u32>()
    }
}
