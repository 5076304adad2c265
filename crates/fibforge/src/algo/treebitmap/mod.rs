//! `treebitmap4`, `treebitmap6`: Tree Bitmap (Eatherton, Varghese, Dittia, "Tree Bitmap:
//! Hardware/Software IP Lookups with Incremental Updates", ACM SIGCOMM CCR 34(2), 2004: the
//! Tree Bitmap node and search, and its incremental updates), with stride 4 (16-ary, the
//! Poptrie paper's "Tree BitMap") and stride 6 (its "Tree BitMap (64-ary)", §4.5, Table 3),
//! for IPv4 and IPv6. The number in the name is the stride, not the address family.
//!
//! # Layout
//!
//! - `nodes`: one array of nodes ([`Node4`]: 12 bytes, [`Node6`]: 24 bytes); `nodes[0]` is the
//!   root (depth 0). A node at depth `d` (a multiple of the stride `S`) holds an *internal*
//!   bitmap of the prefixes of lengths `d..d+S` under it, an *external* bitmap of the children
//!   that exist (one per value of the next `S` bits), the index of its first child and the
//!   index of its first result. See `node.rs` for the bit order, with a worked example.
//! - The children of a node are contiguous in `nodes`, ordered by chunk value: child `c` is
//!   at `child + popcount(external & ((1 << c) - 1))`.
//! - `results`: raw next hops ([`NextHop::raw`]); the prefixes of a node are contiguous,
//!   ordered by internal-bitmap position: the prefix at bit `p` is at
//!   `result + popcount(internal & ((1 << p) - 1))`.
//!
//! No leaf pushing: a route lives in exactly one node, the one at depth `⌊len / S⌋ · S` on its
//! path, so a route change rewrites one node's internal bitmap and results.
//!
//! # Lookup
//!
//! Walk down from the root by `S` address bits at a time. At each node, `internal &
//! path_mask(chunk)` marks the node's prefixes that contain the address; when non-zero the
//! highest bit is the node's longest match, and it is remembered (its result index is
//! computed only for the last such node, after the walk, as in the paper's deferred result
//! lookup). Descend when the external bit of the chunk is set, stop otherwise. The paper's
//! hardware/software version counts bits with lookup tables; here `popcnt` and the path-mask
//! table (one `u64` per chunk value) replace the internal bitmap's serial search, as the
//! Poptrie paper's implementation did.
//!
//! Addresses are left-aligned in a `u128`; chunks past the address's end read zero bits, so
//! the last node of an IPv4 path with stride 6 (depth 30) uses 2 of its 6 bits and its
//! prefixes of lengths 30–32 only.
//!
//! # Updates
//!
//! [`Incremental::apply_changes`](crate::Incremental::apply_changes) rebuilds only the affected
//! nodes, as the paper's updates do: for a changed route, the node that holds it gets a fresh
//! internal bitmap and result block from the RIB's exact routes; a missing node (and the missing
//! chain above it) is built from the RIB and inserted into its parent's child block; a node left
//! with no prefix and no child is removed from its parent, recursively. A parent's child block
//! changes size, so it is copied into a new block; freed blocks go to exact-size free lists and are
//! reused first. The structure then answers exactly like a fresh compile and has the same shape
//! ([`TreeBitmap::same_shape`]).
//!
//! # Invariants
//!
//! - Every node but the root has at least one prefix or one child.
//! - A node at depth `d > 0` for the region `R` (a prefix of length `d`) exists exactly when
//!   the RIB has a route of length at least `d` inside `R`.
//! - The internal bitmap never has bit 0, nor bits of lengths past the address width.
//!
//! # Limits
//!
//! Up to 2^32 nodes and 2^32 results (indices are `u32`); beyond that compilation fails with
//! [`BuildError::LimitExceeded`]. Next hops are not capped (results are full raw ids).

mod build;
mod lookup;
pub(crate) mod node;
#[cfg(test)]
mod tests;
mod update;

pub use node::{Node4, Node6, NodeLayout};

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;
use std::collections::HashMap;
use std::marker::PhantomData;

/// Tree Bitmap with stride 4 (`treebitmap4`).
pub type TreeBitmap4<A> = TreeBitmap<A, Node4>;
/// Tree Bitmap with stride 6 (`treebitmap6`).
pub type TreeBitmap6<A> = TreeBitmap<A, Node6>;

/// Free blocks of one array, by exact size.
#[derive(Clone, Debug, Default)]
struct FreeLists {
    by_size: HashMap<u32, Vec<u32>>,
    slots: usize,
}

impl FreeLists {
    fn take(&mut self, size: u32) -> Option<u32> {
        let base = self.by_size.get_mut(&size)?.pop()?;
        self.slots -= size as usize;
        Some(base)
    }

    fn put(&mut self, base: u32, size: u32) {
        if size > 0 {
            self.by_size.entry(size).or_default().push(base);
            self.slots += size as usize;
        }
    }

    fn memory_bytes(&self) -> usize {
        self.by_size.values().map(|v| v.capacity() * 4 + 16).sum()
    }
}

/// The Tree Bitmap lookup structure for addresses `A` with node layout `N`.
#[derive(Clone)]
pub struct TreeBitmap<A: Address, N: NodeLayout> {
    /// All nodes; `nodes[0]` is the root.
    nodes: Vec<N>,
    /// Raw next hops of the prefixes of every node.
    results: Vec<u32>,
    /// Free node blocks.
    free_nodes: FreeLists,
    /// Free result blocks.
    free_results: FreeLists,
    _addr: PhantomData<fn() -> A>,
}

impl<A: Address, N: NodeLayout> std::fmt::Debug for TreeBitmap<A, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(N::NAME)
            .field("nodes", &self.nodes.len())
            .field("free_nodes", &self.free_nodes.slots)
            .field("results", &self.results.len())
            .field("free_results", &self.free_results.slots)
            .finish()
    }
}

impl<A: Address, N: NodeLayout> TreeBitmap<A, N> {
    /// Nodes in use (the root included).
    #[doc(hidden)]
    pub fn node_count(&self) -> usize {
        self.nodes.len() - self.free_nodes.slots
    }

    /// Results in use: the number of routes.
    #[doc(hidden)]
    pub fn result_count(&self) -> usize {
        self.results.len() - self.free_results.slots
    }

    /// True when both tries have the same nodes (bitmaps and results) in the same places of
    /// the tree; array indices may differ. An updated trie equals a fresh compile this way.
    #[doc(hidden)]
    pub fn same_shape(&self, other: &Self) -> bool {
        self.same_subtree(0, other, 0)
    }

    fn same_subtree(&self, a: u32, other: &Self, b: u32) -> bool {
        let (x, y) = (self.nodes[a as usize], other.nodes[b as usize]);
        if x.internal() != y.internal() || x.external() != y.external() {
            return false;
        }
        let n = x.internal().count_ones() as usize;
        let (rx, ry) = (x.result() as usize, y.result() as usize);
        if self.results[rx..rx + n] != other.results[ry..ry + n] {
            return false;
        }
        (0..x.external().count_ones())
            .all(|i| self.same_subtree(x.child() + i, other, y.child() + i))
    }
}

impl<A: Address, N: NodeLayout> Lookup<A> for TreeBitmap<A, N> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.lookup_one(addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.lookup_many(addrs, out)
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.nodes.capacity() * std::mem::size_of::<N>()
            + self.results.capacity() * 4
            + self.free_nodes.memory_bytes()
            + self.free_results.memory_bytes()
    }
}

impl<A: Address, N: NodeLayout> Compile<A> for TreeBitmap<A, N> {
    type Config = ();

    fn compile(rib: &Rib<A>, _: &()) -> Result<Self, BuildError> {
        let mut trie = TreeBitmap::empty();
        let routes: Vec<_> = rib.iter().map(|(p, h)| (p, h.raw())).collect();
        let root = trie.build_subtree(0, &routes)?;
        trie.nodes[0] = root;
        trie.nodes.shrink_to_fit();
        trie.results.shrink_to_fit();
        Ok(trie)
    }
}
