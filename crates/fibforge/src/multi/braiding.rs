//! Trie Braiding (H. Song, M. Kodialam, F. Hao, T. V. Lakshman, "Building Scalable Virtual
//! Routers with Trie Braiding", INFOCOM 2010; LOOP's comparator, `papers/loop-mi-yang.txt`
//! §II: "allows swapping the left and right children of trie nodes to increase the structural
//! similarity among multiple FIBs").
//!
//! **Build.** The tables' binary tries are merged one after another into a shared trie
//! (`trie_build::merge` with braiding). At each node a table chooses its *braiding bit*: when
//! set, the table's left child is mapped onto the shared right child and vice versa. The
//! choice is greedy, top-down: the orientation that overlaps more nodes, estimating the
//! overlap of two subtrees as the smaller of their sizes. The paper's optimal braiding (a
//! dynamic program over isomorphism classes of subtrees, for two tries) is not implemented;
//! the greedy choice is its cheap stand-in, as the paper's multi-trie heuristic also merges
//! tries one by one.
//!
//! **Layout.** `nodes[i] = { child: [u32; 2], comp: u32 }` (12 bytes; node 0 the root, child
//! 0 meaning none; `comp` the PortMapTable id of the routes on the node, 0 for none) and a
//! flat bit array `braid` of `nodes × vrfs` bits, bit `i * vrfs + v` the braiding bit of
//! table `v` at node `i` (the paper's per-node, per-table bits). A lookup of table `v` goes
//! to child `address bit XOR braid(i, v)`, remembering `v`'s entry of each vector it passes.
//!
//! **Invariants.** Table `v`'s route `p/l` is `v`'s entry of the vector of the node reached
//! from the root by `p`'s first `l` bits, each XOR-ed with `v`'s braiding bit of the node it
//! leaves. Nodes that only other tables use may lie on `v`'s path: `v`'s entries there are
//! empty, so they never change its answer.
//!
//! **Limits.** Node counts and PortMapTable ids below 2^31. No incremental updates (a change
//! may invalidate the global braiding); batches are per-key loops.

use super::merged::{Node, plain_nodes, pmt_hop};
use super::trie_build::{LEAF, Pmt, limit, merge, node_composites};
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::registry::AlgoSpec;
use crate::rib::Rib;
use std::marker::PhantomData;

const NAME: &str = "trie_braiding";

/// Trie Braiding options (`braid=on|off`, default on; off gives the Merged Trie's shape
/// with braiding bits, to measure what braiding saves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BraidingConfig {
    /// Choose braiding bits (greedy); off leaves every bit 0.
    pub braid: bool,
}

impl Default for BraidingConfig {
    fn default() -> Self {
        BraidingConfig { braid: true }
    }
}

impl BraidingConfig {
    /// Parses `braid=on|off`.
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options(NAME, &["braid"])?;
        Ok(BraidingConfig { braid: spec.get_bool(NAME, "braid", true)? })
    }
}

/// Trie Braiding over `vrfs` tables (VRF id = position in the build's table list).
#[derive(Clone, Debug)]
pub struct TrieBraiding<A: Address> {
    nodes: Vec<Node>,
    braid: Vec<u64>,
    pmt: Vec<u32>,
    vrfs: usize,
    family: PhantomData<fn() -> A>,
}

impl<A: Address> TrieBraiding<A> {
    /// Braids `tables` (VRF id = position) into one trie.
    pub fn build(tables: &[Rib<A>], cfg: &BraidingConfig) -> Result<Self, BuildError> {
        let m = merge(tables, cfg.braid);
        if m.child.len() as u64 >= LEAF as u64 {
            return Err(limit(NAME, "trie nodes", LEAF as u64, m.child.len() as u64));
        }
        let n = tables.len();
        let mut pmt = Pmt::new(n, NAME);
        let nodes = plain_nodes(&m.child, &node_composites(&m, &mut pmt)?);
        let mut braid = vec![0u64; (nodes.len() * n).div_ceil(64)];
        for &(node, v) in &m.swaps {
            let bit = node as usize * n + v as usize;
            braid[bit / 64] |= 1 << (bit % 64);
        }
        Ok(TrieBraiding { nodes, braid, pmt: pmt.into_hops(), vrfs: n, family: PhantomData })
    }

    /// Trie nodes, distinct vectors and braiding bits set.
    pub fn counts(&self) -> (usize, usize, usize) {
        let set = self.braid.iter().map(|w| w.count_ones() as usize).sum();
        (self.nodes.len(), self.pmt.len().checked_div(self.vrfs).unwrap_or(1), set)
    }

    #[inline]
    fn swapped(&self, node: usize, v: usize) -> usize {
        let bit = node * self.vrfs + v;
        (self.braid[bit / 64] >> (bit % 64)) as usize & 1
    }
}

impl<A: Address> MultiLookup<A> for TrieBraiding<A> {
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
            let n = self.nodes[i];
            if n.comp != 0 {
                best = pmt_hop(&self.pmt, self.vrfs, n.comp, v).or(best);
            }
            if d == A::BITS {
                break;
            }
            match n.child[addr.bit(d) as usize ^ self.swapped(i, v)] {
                0 => break,
                c => i = c as usize,
            }
        }
        best
    }

    /// Nodes, braiding bits and PortMapTable.
    fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + self.braid.capacity() * size_of::<u64>()
            + self.pmt.capacity() * size_of::<u32>()
    }
}
