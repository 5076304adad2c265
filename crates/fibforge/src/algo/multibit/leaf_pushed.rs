//! The leaf-pushed expanded trie (§4.3, §5.1): every entry is either a child pointer or the
//! final answer, so a lookup reads one entry per level and stops at the first non-pointer.
//!
//! Entry (`u32`): bit 31 clear → next-hop raw id (0 = no route) in bits 0..31; bit 31 set →
//! child pointer: bits 26..31 the child's stride (0 = packed node, stride in its header),
//! bits 0..26 the child's offset in the arena. Hence at most 2^31 − 1 next-hop ids and 2^26
//! entries (256 MiB); both limits are checked and reported as `LimitExceeded`.
//!
//! Building (children first): a node's array starts filled with the answer inherited from
//! above (leaf pushing), the routes of its window are painted over it with the expansion
//! sweep (prefix capture), then every entry below which longer routes exist becomes a
//! pointer to a child built from those routes, inheriting that entry's answer.

use super::TrieStats;
use super::arena::Arena;
use super::packed;
use super::plan::{Config, Plan, StridePlan, check_hops, make_plan};
use crate::addr::Address;
use crate::algo::cpe::{CostModel, MAX_STRIDE, sweep};
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// Pointer flag of an entry.
pub(crate) const PTR: u32 = 1 << 31;
const STRIDE_SHIFT: u32 = 26;
const OFFSET_MASK: u32 = (1 << STRIDE_SHIFT) - 1;
/// Largest next-hop raw id an entry holds.
pub(crate) const MAX_HOP_RAW: u32 = PTR - 1;
/// Most entries the arena may hold (the offset field's range).
pub(crate) const MAX_ENTRIES: u64 = 1 << STRIDE_SHIFT;
/// Nodes at most this large are never packed (a packed node is one line of 16 entries).
const PACK_ABOVE_LOG2: u32 = 4;

/// A pointer entry to a node at `offset` with stride `stride` (0 for a packed node).
#[inline]
fn pointer(offset: u32, stride: u32) -> u32 {
    PTR | stride << STRIDE_SHIFT | offset
}

/// Follows `entry` from bit `depth` of `addr` down to its final answer (a non-pointer entry).
#[inline]
pub(crate) fn walk<A: Address>(nodes: &[u32], mut entry: u32, addr: A, mut depth: u32) -> u32 {
    while entry & PTR != 0 {
        (entry, depth) = step(nodes, entry, addr, depth);
    }
    entry
}

/// One level of a walk: the entry `entry` points to for `addr`, and the new depth.
#[inline(always)]
pub(crate) fn step<A: Address>(nodes: &[u32], entry: u32, addr: A, depth: u32) -> (u32, u32) {
    let offset = (entry & OFFSET_MASK) as usize;
    let stride = (entry >> STRIDE_SHIFT) & 31;
    if stride != 0 {
        (nodes[offset + addr.bits(depth, stride) as usize], depth + stride)
    } else {
        let line = &nodes[offset..offset + 16];
        let stride = packed::stride_of(line[0] as u64);
        (packed::lp_search(line, addr.bits(depth, stride) as u32), depth + stride)
    }
}

/// Builds leaf-pushed subtries into one arena; see the module doc.
pub(crate) struct LeafBuilder<'p, A: Address> {
    pub(crate) arena: Arena<u32>,
    plan: &'p StridePlan<A>,
    pack: bool,
    /// Nodes built, packed ones among them, and the deepest level reached (root = 1).
    pub(crate) nodes: usize,
    pub(crate) packed_nodes: usize,
    pub(crate) depth_levels: usize,
}

impl<'p, A: Address> LeafBuilder<'p, A> {
    pub(crate) fn new(plan: &'p StridePlan<A>, pack: bool) -> Self {
        LeafBuilder {
            arena: Arena::new(MAX_ENTRIES),
            plan,
            pack,
            nodes: 0,
            packed_nodes: 0,
            depth_levels: 0,
        }
    }

    /// The entry for the subtrie of `node` (at `level`) holding `routes`: routes strictly
    /// inside `node` and longer than it, in (address, length) order. `inherited` is the raw
    /// answer of `node`'s addresses from shorter routes.
    pub(crate) fn subtrie(
        &mut self,
        routes: &[(Prefix<A>, NextHop)],
        node: Prefix<A>,
        level: usize,
        inherited: u32,
    ) -> Result<u32, BuildError> {
        let stride = self.plan.stride(&node, level).ok_or_else(|| BuildError::Unsupported {
            algo: "multibit",
            reason: format!("the stride plan has no node {node} at level {}", level + 1),
        })?;
        let end = node.len() + stride;
        let mut entries = vec![inherited; 1 << stride];
        let window = routes.iter().copied().filter(|(p, _)| p.len() <= end);
        sweep(window, node, end, |first, last, hop| {
            entries[first as usize..=last as usize].fill(hop.raw());
        });
        let deeper: Vec<(Prefix<A>, NextHop)> =
            routes.iter().copied().filter(|(p, _)| p.len() > end).collect();
        for group in deeper.chunk_by(|a, b| a.0.addr().truncate(end) == b.0.addr().truncate(end)) {
            let child = group[0].0.truncated(end);
            let idx = child.addr().bits(node.len(), stride) as usize;
            entries[idx] = self.subtrie(group, child, level + 1, entries[idx])?;
        }
        self.depth_levels = self.depth_levels.max(level + 1);
        self.store(stride, &entries)
    }

    /// Writes a node's entries into the arena and returns the pointer to it.
    fn store(&mut self, stride: u32, entries: &[u32]) -> Result<u32, BuildError> {
        self.nodes += 1;
        if self.pack
            && stride > PACK_ABOVE_LOG2
            && let Some(runs) = packed::runs(entries, packed::LP_RUNS)
        {
            let offset = self.arena.alloc(PACK_ABOVE_LOG2)?;
            packed::lp_encode(stride, &runs, self.arena.node_mut(offset, PACK_ABOVE_LOG2));
            self.packed_nodes += 1;
            return Ok(pointer(offset, 0));
        }
        let offset = self.arena.alloc(stride)?;
        self.arena.node_mut(offset, stride).copy_from_slice(entries);
        Ok(pointer(offset, stride))
    }
}

/// A leaf-pushed expanded trie: fixed or variable strides, optionally packed nodes.
pub struct LeafPushedTrie<A: Address> {
    nodes: Arena<u32>,
    root: u32,
    stats: TrieStats,
    _family: std::marker::PhantomData<A>,
}

impl<A: Address> LeafPushedTrie<A> {
    /// Builds the trie of `rib` following `plan`.
    #[doc(hidden)]
    pub fn with_plan(rib: &Rib<A>, plan: &Plan<A>, pack: bool) -> Result<Self, BuildError> {
        check_hops(rib, MAX_HOP_RAW, "cpe (leaf-pushed)")?;
        let routes: Vec<(Prefix<A>, NextHop)> = rib.iter().filter(|(p, _)| p.len() > 0).collect();
        let inherited = rib.get(&Prefix::DEFAULT_ROUTE).map_or(0, NextHop::raw);
        let mut b = LeafBuilder::new(&plan.strides, pack);
        let root = b.subtrie(&routes, Prefix::DEFAULT_ROUTE, 0, inherited)?;
        b.arena.shrink_to_fit();
        let stats = TrieStats {
            nodes: b.nodes,
            packed_nodes: b.packed_nodes,
            levels: b.depth_levels,
            node_bytes: b.arena.used_entries() * 4,
            predicted_bytes: plan.predicted_bytes,
            dp_time: plan.dp_time,
        };
        Ok(LeafPushedTrie { nodes: b.arena, root, stats, _family: std::marker::PhantomData })
    }

    /// Shape and sizes of the trie.
    #[doc(hidden)]
    pub fn stats(&self) -> &TrieStats {
        &self.stats
    }
}

/// Lookups in flight at once in `lookup_batch`.
const LANES: usize = 16;

impl<A: Address> Lookup<A> for LeafPushedTrie<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        NextHop::from_raw(walk(self.nodes.entries(), self.root, addr, 0))
    }

    /// Walks `LANES` addresses level by level, so their memory accesses overlap.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let nodes = self.nodes.entries();
        for (a, o) in addrs.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut entry = [self.root; LANES];
            let mut depth = [0u32; LANES];
            let mut pending = true;
            while pending {
                pending = false;
                for i in 0..a.len() {
                    if entry[i] & PTR != 0 {
                        (entry[i], depth[i]) = step(nodes, entry[i], a[i], depth[i]);
                        pending |= entry[i] & PTR != 0;
                    }
                }
            }
            for i in 0..a.len() {
                o[i] = NextHop::from_raw(entry[i]);
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        self.nodes.memory_bytes()
    }
}

impl<A: Address> Compile<A> for LeafPushedTrie<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        let max_stride = cfg.max_stride.unwrap_or(MAX_STRIDE);
        let plan = make_plan(rib, cfg, CostModel::leaf_pushed(cfg.packed), max_stride)?;
        Self::with_plan(rib, &plan, cfg.packed)
    }
}
