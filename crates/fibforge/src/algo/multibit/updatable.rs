//! The non-leaf-pushed expanded trie (§5.1): each entry holds a child pointer *and* the best
//! route of its own node's window, so a route change rewrites only the entries the route
//! itself expands to, and insert or delete rebuild at most one node (see `update.rs`).
//!
//! Entry (`u64`): bits 0..32 the next-hop raw id of the longest route of this node's window
//! covering the entry (0 = none); bits 32..64 the child pointer (0 = no child): bits 59..64
//! the child's stride (0 = packed node, stride in its header), bits 32..59 its offset, so at
//! most 2^27 entries (1 GiB). A lookup remembers the last non-zero hop on its path.
//!
//! A node at depth `d` with stride `s` holds the routes of lengths `(d, d + s]` (the root
//! also length 0); an entry has a child exactly when a route longer than `d + s` lies below it.

use super::arena::Arena;
use super::packed;
use super::plan::{Config, Plan, StridePlan, check_hops, make_plan};
use super::{DEFAULT_UPDATABLE_MAX_STRIDE, TrieStats};
use crate::addr::Address;
use crate::algo::cpe::{CostModel, sweep};
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::marker::PhantomData;

const STRIDE_SHIFT: u32 = 27;
const OFFSET_MASK: u32 = (1 << STRIDE_SHIFT) - 1;
const MAX_ENTRIES: u64 = 1 << STRIDE_SHIFT;
/// A packed node is one line of 8 entries.
pub(crate) const PACKED_LOG2: u32 = 3;

/// The pointer to a node at `offset` with `stride` (0 for a packed node).
#[inline]
pub(crate) fn pointer(offset: u32, stride: u32) -> u32 {
    stride << STRIDE_SHIFT | offset
}

#[inline]
pub(crate) fn offset_of(ptr: u32) -> u32 {
    ptr & OFFSET_MASK
}

#[inline]
pub(crate) fn code_of(ptr: u32) -> u32 {
    ptr >> STRIDE_SHIFT
}

#[inline]
pub(crate) fn hop_of(entry: u64) -> u32 {
    entry as u32
}

#[inline]
pub(crate) fn child_of(entry: u64) -> u32 {
    (entry >> 32) as u32
}

#[inline]
pub(crate) fn with_hop(entry: u64, hop: u32) -> u64 {
    (entry & !0xffff_ffff) | hop as u64
}

#[inline]
pub(crate) fn with_child(entry: u64, ptr: u32) -> u64 {
    (entry & 0xffff_ffff) | (ptr as u64) << 32
}

/// The entry of node `ptr` for `addr` at `depth`, and the depth below it.
#[inline(always)]
fn step<A: Address>(nodes: &[u64], ptr: u32, addr: A, depth: u32) -> (u64, u32) {
    let offset = offset_of(ptr) as usize;
    let code = code_of(ptr);
    if code != 0 {
        (nodes[offset + addr.bits(depth, code) as usize], depth + code)
    } else {
        let line = &nodes[offset..offset + 8];
        let stride = packed::stride_of(line[0]);
        (packed::nlp_search(line, addr.bits(depth, stride) as u32), depth + stride)
    }
}

/// Strides of nodes created by updates.
#[derive(Clone, Debug)]
pub(crate) enum NewNodeRule {
    /// The fixed-stride plan's stride of the node's level.
    Fixed(Vec<u32>),
    /// Just long enough for the route that needs the node (at most the maximum stride).
    Variable,
}

/// A non-leaf-pushed expanded trie that follows RIB changes; see the module doc.
pub struct UpdatableTrie<A: Address> {
    pub(crate) nodes: Arena<u64>,
    pub(crate) root: u32,
    pub(crate) rule: NewNodeRule,
    pub(crate) levels: u32,
    pub(crate) max_stride: u32,
    pub(crate) pack: bool,
    pub(crate) stats: TrieStats,
    _family: PhantomData<A>,
}

impl<A: Address> UpdatableTrie<A> {
    /// Builds the trie of `rib` following `plan`, with strides of new nodes up to `max_stride`.
    #[doc(hidden)]
    pub fn with_plan(
        rib: &Rib<A>,
        plan: &Plan<A>,
        pack: bool,
        max_stride: u32,
    ) -> Result<Self, BuildError> {
        check_hops(rib, u32::MAX, "cpe (non-leaf-pushed)")?;
        let rule = match &plan.strides {
            StridePlan::Fixed { strides, .. } => NewNodeRule::Fixed(strides.clone()),
            StridePlan::Variable(_) => NewNodeRule::Variable,
        };
        let mut t = UpdatableTrie {
            nodes: Arena::new(MAX_ENTRIES),
            root: 0,
            rule,
            levels: plan.levels,
            max_stride,
            pack,
            stats: TrieStats {
                predicted_bytes: plan.predicted_bytes,
                dp_time: plan.dp_time,
                ..TrieStats::default()
            },
            _family: PhantomData,
        };
        let routes: Vec<(Prefix<A>, NextHop)> = rib.iter().collect();
        t.root = t.subtrie(&routes, Prefix::DEFAULT_ROUTE, 0, &plan.strides)?;
        // Spare lines so that updates (at most one node of 2^max_stride entries each) do not
        // move the whole array: that copy, not the node rebuild, would be the worst case.
        // At least two nodes of the paper's bound of 17 bits (larger strides: a quarter).
        t.nodes.keep_spare(2 << max_stride.min(DEFAULT_UPDATABLE_MAX_STRIDE));
        t.stats.node_bytes = t.nodes.used_entries() * 8;
        Ok(t)
    }

    /// Builds the subtrie of `node` (at `level`) from the routes inside it (the root also
    /// takes a default route); returns the pointer to it.
    fn subtrie(
        &mut self,
        routes: &[(Prefix<A>, NextHop)],
        node: Prefix<A>,
        level: usize,
        plan: &StridePlan<A>,
    ) -> Result<u32, BuildError> {
        let stride = plan.stride(&node, level).ok_or_else(|| BuildError::Unsupported {
            algo: "multibit",
            reason: format!("the stride plan has no node {node} at level {}", level + 1),
        })?;
        let end = node.len() + stride;
        let mut entries = vec![0u64; 1 << stride];
        let window = routes.iter().copied().filter(|(p, _)| p.len() <= end);
        sweep(window, node, end, |first, last, hop| {
            entries[first as usize..=last as usize].fill(hop.raw() as u64);
        });
        let deeper: Vec<(Prefix<A>, NextHop)> =
            routes.iter().copied().filter(|(p, _)| p.len() > end).collect();
        for group in deeper.chunk_by(|a, b| a.0.addr().truncate(end) == b.0.addr().truncate(end)) {
            let child = group[0].0.truncated(end);
            let idx = child.addr().bits(node.len(), stride) as usize;
            let ptr = self.subtrie(group, child, level + 1, plan)?;
            entries[idx] = with_child(entries[idx], ptr);
        }
        self.stats.levels = self.stats.levels.max(level + 1);
        self.store(stride, &entries)
    }

    /// Stores a node's entries (packed when allowed and they fit) and returns its pointer.
    pub(crate) fn store(&mut self, stride: u32, entries: &[u64]) -> Result<u32, BuildError> {
        self.stats.nodes += 1;
        if self.pack
            && stride > PACKED_LOG2
            && let Some(runs) = packed::runs(entries, packed::NLP_RUNS)
        {
            let offset = self.nodes.alloc(PACKED_LOG2)?;
            packed::nlp_encode(stride, &runs, self.nodes.node_mut(offset, PACKED_LOG2));
            self.stats.packed_nodes += 1;
            return Ok(pointer(offset, 0));
        }
        let offset = self.nodes.alloc(stride)?;
        self.nodes.node_mut(offset, stride).copy_from_slice(entries);
        Ok(pointer(offset, stride))
    }

    /// Frees node `ptr`.
    pub(crate) fn release(&mut self, ptr: u32) {
        self.stats.nodes -= 1;
        if code_of(ptr) == 0 {
            self.stats.packed_nodes -= 1;
        }
        self.nodes.free(offset_of(ptr), self.storage_log2(ptr));
    }

    /// The stride of node `ptr`.
    pub(crate) fn stride(&self, ptr: u32) -> u32 {
        match code_of(ptr) {
            0 => packed::stride_of(self.nodes.entries()[offset_of(ptr) as usize]),
            s => s,
        }
    }

    /// log2 of the entries node `ptr` occupies.
    pub(crate) fn storage_log2(&self, ptr: u32) -> u32 {
        match code_of(ptr) {
            0 => PACKED_LOG2,
            s => s,
        }
    }

    /// Entry `idx` of node `ptr`.
    pub(crate) fn read(&self, ptr: u32, idx: u32) -> u64 {
        let nodes = self.nodes.entries();
        let offset = offset_of(ptr) as usize;
        match code_of(ptr) {
            0 => packed::nlp_search(&nodes[offset..offset + 8], idx),
            _ => nodes[offset + idx as usize],
        }
    }

    /// Shape and sizes of the trie (live nodes after updates).
    #[doc(hidden)]
    pub fn stats(&self) -> TrieStats {
        TrieStats { node_bytes: self.nodes.used_entries() * 8, ..self.stats.clone() }
    }
}

/// Lookups in flight at once in `lookup_batch`.
const LANES: usize = 16;

impl<A: Address> Lookup<A> for UpdatableTrie<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        let nodes = self.nodes.entries();
        let (mut ptr, mut depth, mut best) = (self.root, 0, 0);
        loop {
            let (entry, below) = step(nodes, ptr, addr, depth);
            let hop = hop_of(entry);
            best = if hop != 0 { hop } else { best };
            (ptr, depth) = (child_of(entry), below);
            if ptr == 0 {
                return NextHop::from_raw(best);
            }
        }
    }

    /// Walks `LANES` addresses level by level, so their memory accesses overlap.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let nodes = self.nodes.entries();
        for (a, o) in addrs.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut ptr = [self.root; LANES];
            let mut depth = [0u32; LANES];
            let mut best = [0u32; LANES];
            let mut pending = true;
            while pending {
                pending = false;
                for i in 0..a.len() {
                    if ptr[i] != 0 {
                        let (entry, below) = step(nodes, ptr[i], a[i], depth[i]);
                        let hop = hop_of(entry);
                        best[i] = if hop != 0 { hop } else { best[i] };
                        (ptr[i], depth[i]) = (child_of(entry), below);
                        pending |= ptr[i] != 0;
                    }
                }
            }
            for i in 0..a.len() {
                o[i] = NextHop::from_raw(best[i]);
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        self.nodes.memory_bytes()
    }
}

impl<A: Address> Compile<A> for UpdatableTrie<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        let max_stride = cfg.max_stride.unwrap_or(DEFAULT_UPDATABLE_MAX_STRIDE);
        let plan = make_plan(rib, cfg, CostModel::non_leaf_pushed(cfg.packed), max_stride)?;
        Self::with_plan(rib, &plan, cfg.packed, max_stride)
    }
}
