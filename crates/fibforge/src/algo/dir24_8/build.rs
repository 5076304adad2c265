//! Painting a region of the address space from the RIB's ranges: shared by compilation and
//! updates.

use super::{CHUNK_FLAG, CHUNK_LEN, Dir24_8, MAX_RAW_HOP};
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Range;

/// The raw form of an answer (0 = no route).
#[inline]
fn raw(hop: Option<NextHop>) -> u32 {
    hop.map_or(0, NextHop::raw)
}

/// Fails when a next hop of `ranges` does not fit an entry.
pub(super) fn check_hops(ranges: &[Range<u32>]) -> Result<(), BuildError> {
    match ranges.iter().map(|r| raw(r.hop)).max() {
        Some(max) if max > MAX_RAW_HOP => Err(BuildError::LimitExceeded {
            algo: "dir24_8",
            what: "raw next-hop id (31-bit entries)",
            limit: MAX_RAW_HOP as u64,
            found: max as u64,
        }),
        _ => Ok(()),
    }
}

impl Dir24_8 {
    /// Rewrites every /24 block of `region` (length ≤ 24) from `ranges`, the RIB's answers on
    /// exactly that region ([`crate::Rib::ranges_within`]).
    ///
    /// Walks the blocks in runs: a range that covers whole blocks fills them in one go, a
    /// block where several ranges meet gets a chunk. `fresh`: the region's blocks are as
    /// [`Dir24_8::new`] left them (a compile), so none has a chunk to free and zero runs are
    /// already written.
    pub(super) fn paint(&mut self, region: &Prefix<u32>, ranges: &[Range<u32>], fresh: bool) {
        debug_assert!(region.len() <= 24 && ranges[0].start == region.addr());
        let last_block = region.last() >> 8;
        let mut block = region.addr() >> 8;
        let mut current = 0; // index of the range holding the first address of `block`
        loop {
            let lo = block << 8;
            while current + 1 < ranges.len() && ranges[current + 1].start <= lo {
                current += 1;
            }
            let end = ranges.get(current + 1).map_or(region.last(), |n| n.start - 1);
            let done = if end >= (lo | 0xff) {
                // Blocks `block..=last_full` lie inside the range.
                let last_full = if end & 0xff == 0xff { end >> 8 } else { (end >> 8) - 1 };
                self.set_flat_run(block, last_full, raw(ranges[current].hop), fresh);
                last_full
            } else {
                self.set_chunk(block, &ranges[current..]);
                block
            };
            if done == last_block {
                return;
            }
            block = done + 1;
        }
    }

    /// Makes blocks `first..=last` answer `raw_hop` for all their addresses, freeing their
    /// chunks; `fresh`: the blocks are as [`Dir24_8::new`] left them (all zero, no chunk).
    fn set_flat_run(&mut self, first: u32, last: u32, raw_hop: u32, fresh: bool) {
        let scan = !fresh && self.chunks_in_use() > 0;
        let entries = &mut self.tbl24[first as usize..=last as usize];
        // An OR over the run, not `any`: it vectorizes, and a /0 run is 2^24 entries.
        if scan && entries.iter().fold(0, |acc, &e| acc | e) & CHUNK_FLAG != 0 {
            let freed = entries.iter().filter(|&&e| e & CHUNK_FLAG != 0).map(|&e| e & !CHUNK_FLAG);
            self.free_chunks.extend(freed);
        }
        // A fresh table is all zeros: leaving its unrouted blocks alone leaves their pages
        // untouched (the kernel maps them on first read, to its zero page).
        if !(fresh && raw_hop == 0) {
            entries.fill(raw_hop);
        }
    }

    /// Gives `block` a chunk filled from `ranges` (the first one contains the block's first
    /// address), reusing the block's chunk or a free one when there is one.
    fn set_chunk(&mut self, block: u32, ranges: &[Range<u32>]) {
        let entry = self.tbl24[block as usize];
        let chunk = if entry & CHUNK_FLAG != 0 { entry & !CHUNK_FLAG } else { self.alloc_chunk() };
        self.tbl24[block as usize] = CHUNK_FLAG | chunk;
        let base = chunk as usize * CHUNK_LEN;
        let slots = &mut self.tbl_long[base..base + CHUNK_LEN];
        let block_lo = block << 8;
        for (i, r) in ranges.iter().enumerate() {
            let from = r.start.max(block_lo) - block_lo;
            if from as usize >= CHUNK_LEN {
                break;
            }
            let to = ranges
                .get(i + 1)
                .map_or(CHUNK_LEN, |n| (n.start.saturating_sub(block_lo) as usize).min(CHUNK_LEN));
            slots[from as usize..to].fill(raw(r.hop));
        }
    }

    /// A chunk index no block uses: a freed one, or a new chunk at the end of `tbl_long`.
    fn alloc_chunk(&mut self) -> u32 {
        if let Some(chunk) = self.free_chunks.pop() {
            return chunk;
        }
        let chunk = self.chunk_count() as u32;
        self.tbl_long.resize(self.tbl_long.len() + CHUNK_LEN, 0);
        chunk
    }
}
