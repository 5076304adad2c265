//! Merged Trie: the binary tries of all tables overlaid into one trie whose nodes hold a
//! next-hop vector (one entry per table); the first comparator of LOOP's evaluation
//! (`papers/loop-mi-yang.txt` §I, §V: "every node in the merged trie stores an array of
//! next-hops"), with and without leaf pushing (option `leafpush=on|off`, default off).
//!
//! **Layout.** As in LOOP's own implementations of its comparators (§V-A), the next-hop
//! vectors live in a shared PortMapTable: `pmt[c * vrfs + v]` is table `v`'s raw next hop
//! (0: none) in vector `c`, each distinct vector stored once; a node holds the vector's id.
//! - `leafpush=off`: `nodes[i] = { child: [u32; 2], comp: u32 }` (12 bytes), node 0 the root,
//!   child 0 meaning none (the root is nobody's child); `comp` is the id of the vector of the
//!   routes *on* that node (0: the empty vector, no route). A lookup walks the address bits
//!   down, remembering the VRF's entry of every vector it passes ("backtracking" avoided by
//!   keeping the last match): one node read per bit plus one PortMapTable read per node
//!   that holds routes.
//! - `leafpush=on`: internal nodes are `[u32; 2]` child words (8 bytes); a word with the top
//!   bit set is a leaf whose payload is the vector of every table's longest match there. A
//!   lookup reads one word per bit and one PortMapTable entry at the end.
//!
//! **Invariants.** Without leaf pushing a table's route `p/l` is table `v`'s entry of the
//! vector of the node at depth `l` on `p`'s path; with it, every leaf's vector holds each
//! table's longest route covering the leaf, and every internal node has both children.
//!
//! **Limits.** Node counts and PortMapTable ids below 2^31 (a `LimitExceeded` error beyond).
//! Batches look keys up one by one (a 16-lane interleaved walk measured slower).
//!
//! **Updates** (`leafpush=off` only): [`MergedWriter`] inserts and removes one route of one
//! table in place, creating and freeing nodes on its path (`merged/update.rs`). The
//! leaf-pushed shape has none (build a new structure).

use super::trie_build::{Pmt, leaf_push, limit, merge, node_composites};
use super::trie_shape::{Braid, LEAF, Node, plain_nodes, pmt_hop};
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;
use std::marker::PhantomData;

#[cfg(test)]
mod tests_update;
mod update;

pub use update::MergedWriter;

const NAME: &str = "merged_trie";

/// Merged Trie options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Push every table's next hops to the leaves (`leafpush=on`).
    pub leaf_push: bool,
}

impl Config {
    /// Parses `leafpush=on|off`.
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options(NAME, &["leafpush"])?;
        Ok(Config { leaf_push: spec.get_bool(NAME, "leafpush", false)? })
    }
}

#[derive(Clone, Debug)]
enum Shape {
    Plain(Vec<Node>),
    Pushed { root: u32, pairs: Vec<[u32; 2]> },
}

/// The Merged Trie over `vrfs` tables (VRF id = position in the build's table list).
#[derive(Clone, Debug)]
pub struct MergedTrie<A: Address> {
    shape: Shape,
    pmt: Vec<u32>,
    vrfs: usize,
    family: PhantomData<fn() -> A>,
}

impl<A: Address> MergedTrie<A> {
    /// Merges `tables` (VRF id = position).
    pub fn build(tables: &[Rib<A>], cfg: &Config) -> Result<Self, BuildError> {
        let m = merge(tables, Braid::Off);
        if m.child.len() as u64 >= LEAF as u64 {
            return Err(limit(NAME, "trie nodes", LEAF as u64, m.child.len() as u64));
        }
        let mut pmt = Pmt::new(tables.len(), NAME);
        let shape = if cfg.leaf_push {
            let (root, pairs) = leaf_push(&m, &mut pmt, NAME)?;
            Shape::Pushed { root, pairs }
        } else {
            Shape::Plain(plain_nodes(&m.child, &node_composites(&m, &mut pmt)?))
        };
        Ok(MergedTrie { shape, pmt: pmt.into_hops(), vrfs: tables.len(), family: PhantomData })
    }

    /// Trie nodes (internal and leaf words with leaf pushing) and distinct vectors.
    pub fn counts(&self) -> (usize, usize) {
        let nodes = match &self.shape {
            Shape::Plain(n) => n.len(),
            Shape::Pushed { pairs, .. } => 2 * pairs.len() + 1,
        };
        (nodes, self.pmt.len().checked_div(self.vrfs).unwrap_or(1))
    }
}

impl<A: Address> MultiLookup<A> for MergedTrie<A> {
    fn vrfs(&self) -> usize {
        self.vrfs
    }

    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        let v = vrf as usize;
        if v >= self.vrfs {
            return None;
        }
        match &self.shape {
            Shape::Plain(nodes) => {
                let (mut i, mut best) = (0usize, None);
                for d in 0..=A::BITS {
                    let n = nodes[i];
                    if n.comp != 0 {
                        best = pmt_hop(&self.pmt, self.vrfs, n.comp, v).or(best);
                    }
                    if d == A::BITS {
                        break;
                    }
                    match n.child[addr.bit(d) as usize] {
                        0 => break,
                        c => i = c as usize,
                    }
                }
                best
            }
            Shape::Pushed { root, pairs } => {
                let (mut w, mut d) = (*root, 0);
                while w & LEAF == 0 {
                    w = pairs[w as usize][addr.bit(d) as usize];
                    d += 1;
                }
                pmt_hop(&self.pmt, self.vrfs, w & !LEAF, v)
            }
        }
    }

    /// Trie nodes and the PortMapTable.
    fn memory_bytes(&self) -> usize {
        let trie = match &self.shape {
            Shape::Plain(n) => n.capacity() * size_of::<Node>(),
            Shape::Pushed { pairs, .. } => pairs.capacity() * size_of::<[u32; 2]>(),
        };
        trie + self.pmt.capacity() * size_of::<u32>()
    }
}
