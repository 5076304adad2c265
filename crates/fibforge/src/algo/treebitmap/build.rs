//! Compilation of subtrees from sorted routes, and the block allocator shared with updates.

use super::node::{NodeLayout, position};
use super::{FreeLists, TreeBitmap};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use std::marker::PhantomData;

/// `addr` with its first bit at bit 127.
#[inline(always)]
pub(super) fn left_aligned<A: Address>(addr: A) -> u128 {
    addr.to_u128() << (128 - A::BITS)
}

/// The `bits` bits of `key` (left-aligned) after the first `depth`; zeros past the end.
#[inline(always)]
pub(super) fn field(key: u128, depth: u32, bits: u32) -> u64 {
    if bits == 0 || depth >= 128 { 0 } else { ((key << depth) >> (128 - bits)) as u64 }
}

/// Takes a block of `size` slots from `free` or from the end of `array`, growing it with
/// `fill`.
fn alloc<T: Copy>(
    array: &mut Vec<T>,
    free: &mut FreeLists,
    size: u32,
    fill: T,
    what: &'static str,
) -> Result<u32, BuildError> {
    if let Some(base) = free.take(size) {
        return Ok(base);
    }
    let base = array.len();
    let end = base + size as usize;
    if end > u32::MAX as usize {
        return Err(BuildError::LimitExceeded {
            algo: "treebitmap",
            what,
            limit: u32::MAX as u64,
            found: end as u64,
        });
    }
    array.resize(end, fill);
    Ok(base as u32)
}

impl<A: Address, N: NodeLayout> TreeBitmap<A, N> {
    /// A trie with an empty root: every lookup answers `None`.
    pub(super) fn empty() -> Self {
        TreeBitmap {
            nodes: vec![N::default()],
            results: Vec::new(),
            free_nodes: FreeLists::default(),
            free_results: FreeLists::default(),
            _addr: PhantomData,
        }
    }

    /// A block of `size` nodes (0: none, index 0).
    pub(super) fn alloc_nodes(&mut self, size: u32) -> Result<u32, BuildError> {
        if size == 0 {
            return Ok(0);
        }
        alloc(&mut self.nodes, &mut self.free_nodes, size, N::default(), "nodes (32-bit indices)")
    }

    /// A block of `size` results (0: none, index 0).
    pub(super) fn alloc_results(&mut self, size: u32) -> Result<u32, BuildError> {
        if size == 0 {
            return Ok(0);
        }
        alloc(&mut self.results, &mut self.free_results, size, 0, "results (32-bit indices)")
    }

    /// Returns a node block to the free lists.
    pub(super) fn free_nodes(&mut self, base: u32, size: u32) {
        self.free_nodes.put(base, size);
    }

    /// Returns a result block to the free lists.
    pub(super) fn free_results(&mut self, base: u32, size: u32) {
        self.free_results.put(base, size);
    }

    /// Writes `entries` (internal positions and raw hops, any order) to a new result block;
    /// returns the internal bitmap and the block's index.
    pub(super) fn store_results(
        &mut self,
        entries: &mut [(u32, u32)],
    ) -> Result<(u64, u32), BuildError> {
        entries.sort_unstable();
        let base = self.alloc_results(entries.len() as u32)?;
        let mut internal = 0u64;
        for (i, &(pos, raw)) in entries.iter().enumerate() {
            internal |= 1 << pos;
            self.results[base as usize + i] = raw;
        }
        Ok((internal, base))
    }

    /// Builds the subtree of the node at `depth` from `routes`: all inside the node's region,
    /// of length at least `depth`, in (address, length) order. Returns the node; its child
    /// and result blocks are allocated here.
    pub(super) fn build_subtree(
        &mut self,
        depth: u32,
        routes: &[(Prefix<A>, u32)],
    ) -> Result<N, BuildError> {
        let s = N::STRIDE;
        let mut inside = Vec::new();
        let mut deeper: Vec<(Prefix<A>, u32)> = Vec::new();
        // Runs of `deeper` with the same chunk: (chunk, end index).
        let mut groups: Vec<(u64, usize)> = Vec::new();
        for &(p, raw) in routes {
            let key = left_aligned(p.addr());
            let l = p.len() - depth;
            if l < s {
                inside.push((position(l, field(key, depth, l)), raw));
                continue;
            }
            let chunk = field(key, depth, s);
            deeper.push((p, raw));
            match groups.last_mut() {
                Some((c, end)) if *c == chunk => *end = deeper.len(),
                _ => groups.push((chunk, deeper.len())),
            }
        }
        let child = self.alloc_nodes(groups.len() as u32)?;
        let mut external = 0u64;
        let mut start = 0;
        for (i, &(chunk, end)) in groups.iter().enumerate() {
            external |= 1 << chunk;
            let node = self.build_subtree(depth + s, &deeper[start..end])?;
            self.nodes[child as usize + i] = node;
            start = end;
        }
        let (internal, result) = self.store_results(&mut inside)?;
        Ok(N::new(internal, external, child, result))
    }
}
