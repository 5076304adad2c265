//! The shared types of the merged-trie comparators (`merged`, `overlap`, `braiding`,
//! `bitmap_trie`) and of their build (`trie_build`, `braid_choice`, `braid_exact`): the
//! build-time tries ([`TableTrie`], [`Merged`]), the braiding choice ([`Braid`]), the node of
//! a trie without leaf pushing ([`Node`]) and the word markers ([`NONE`], [`LEAF`]).
//!
//! A leaf of the module graph: it imports nothing of `multi` but [`VrfId`], so every module
//! that builds or walks a merged trie can use these types without a cycle among them.
//!
//! **Invariants** (kept by `trie_build`): in [`TableTrie`] and [`Merged`] node 0 is the root
//! and children come after their parent, so a backward pass sees every child before its
//! parent; `size` holds each subtree's node count.

use super::VrfId;
use crate::nexthop::NextHop;

/// An absent child.
pub(super) const NONE: u32 = u32::MAX;

/// A leaf-pushed word: a leaf when this bit is set (payload: PortMapTable id), else the index
/// of a child pair.
pub(super) const LEAF: u32 = 1 << 31;

/// How braiding bits are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Braid {
    /// The paper's exact program per table within a budget, else a one-level lookahead;
    /// never more nodes than [`Braid::Off`].
    #[default]
    Optimal,
    /// Size-bound estimates (the earlier stand-in).
    Greedy,
    /// No braiding: the Merged Trie's shape with braiding bits, to measure what braiding saves.
    Off,
}

/// One table's binary trie with subtree sizes (build time only).
pub(super) struct TableTrie {
    pub child: Vec<[u32; 2]>,
    pub(super) hop: Vec<u32>,
    pub(super) size: Vec<u32>,
}

impl TableTrie {
    /// The size of subtree `n` (0 for `NONE`).
    pub(super) fn size_of(&self, n: u32) -> u32 {
        if n == NONE { 0 } else { self.size[n as usize] }
    }
}

/// The merged trie of every table (see `trie_build`'s module doc).
pub(super) struct Merged {
    pub child: Vec<[u32; 2]>,
    pub(super) size: Vec<u32>,
    /// Every route as `(node, vrf, raw hop)`, sorted by node then VRF after the merge.
    pub routes: Vec<(u32, VrfId, u32)>,
    /// `(node, vrf)`: table `vrf` sees the children of `node` swapped.
    pub swaps: Vec<(u32, VrfId)>,
    pub vrfs: usize,
    /// Tables braided by the exact program (`braid=optimal` within its budget).
    pub exact: usize,
}

impl Merged {
    /// `first[n]..first[n + 1]` are the routes of node `n` in `routes`.
    pub(super) fn route_offsets(&self) -> Vec<u32> {
        let mut first = vec![0u32; self.child.len() + 1];
        for &(n, _, _) in &self.routes {
            first[n as usize + 1] += 1;
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        first
    }

    /// The size of shared subtree `n` (0 for `NONE`).
    pub(super) fn size_of(&self, n: u32) -> u32 {
        if n == NONE { 0 } else { self.size[n as usize] }
    }
}

/// A node of a trie without leaf pushing (Merged Trie `leafpush=off`, Trie Braiding).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Node {
    pub child: [u32; 2],
    pub comp: u32,
}

/// Nodes without leaf pushing from a merged trie: child `NONE` becomes 0.
pub(super) fn plain_nodes(child: &[[u32; 2]], comps: &[u32]) -> Vec<Node> {
    child
        .iter()
        .zip(comps)
        .map(|(c, &comp)| Node { child: c.map(|x| if x == NONE { 0 } else { x }), comp })
        .collect()
}

/// Table `v`'s next hop in vector `comp`.
#[inline]
pub(super) fn pmt_hop(pmt: &[u32], vrfs: usize, comp: u32, v: usize) -> Option<NextHop> {
    NextHop::from_raw(pmt[comp as usize * vrfs + v])
}
