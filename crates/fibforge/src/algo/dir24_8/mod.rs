//! `dir24_8`: DIR-24-8-BASIC (Gupta, Lin, McKeown, "Routing Lookups in Hardware at Memory
//! Access Speeds", IEEE INFOCOM 1998, §II "Proposed scheme", the DIR-24-8-BASIC architecture),
//! IPv4 only.
//!
//! # Layout
//!
//! - `tbl24`: 2^24 `u32` entries (64 MiB), one per /24 block, indexed by the top 24 address
//!   bits. Bit 31 clear: bits 0–30 are the raw next hop ([`NextHop::raw`], 0 = no route) of
//!   every address of the block. Bit 31 set: bits 0–30 are the index of a `tbl_long` chunk.
//!   It is allocated zeroed and advised `MADV_HUGEPAGE` (`algo/huge.rs`); a compile writes
//!   only the blocks some route reaches, so the rest are never faulted in.
//! - `tbl_long`: chunks of 256 `u32` raw next hops, one per address of a /24 block that holds
//!   routes longer than /24, indexed by the low 8 address bits.
//!
//! A lookup is one memory access (`tbl24`), or two when the block has a chunk. The paper's
//! hardware layout has 1-bit flag + 15-bit next hop / chunk index entries; here entries are
//! 32 bits wide so next-hop ids are not capped at 2^15.
//!
//! # Invariants
//!
//! - Every entry equals the RIB's longest match for its block (or address, in a chunk).
//! - A block has a chunk only if its addresses do not all share one answer (blocks whose
//!   routes longer than /24 do not change any answer are stored flat).
//! - Chunks freed by updates go to a free list and are reused before `tbl_long` grows;
//!   `tbl_long` never shrinks.
//!
//! # Updates
//!
//! Both compilation and [`Incremental::apply_changes`](crate::Incremental::apply_changes) *repaint
//! a region*: for a changed route of length ≤ 24 the region is the route itself, for a longer one
//! its enclosing /24. The region's answers are taken from the RIB as consecutive ranges
//! ([`Rib::ranges_within`]), and every /24 block of the region is rewritten from them: flat when
//! one range covers the block, a (reused or newly allocated) chunk otherwise. So the structure
//! after any sequence of updates is exactly the one a fresh compile gives, up to which chunk index
//! each block uses. The cost is proportional to the number of /24 blocks in the region (65,536 for
//! a /8, 2^24 for the default route) plus its routes.
//!
//! # Limits
//!
//! Next-hop ids up to 2^31 − 2 (raw values below 2^31); beyond that compilation and updates
//! fail with [`BuildError::LimitExceeded`]. Up to 2^24 chunks, which is every block, so the
//! chunk index never overflows. Memory is at least 64 MiB.

mod build;
mod lookup;
#[cfg(test)]
mod tests;
mod update;

use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// Bit 31 of a `tbl24` entry: the rest is a chunk index, not a next hop.
const CHUNK_FLAG: u32 = 1 << 31;
/// Largest raw next hop an entry can hold.
const MAX_RAW_HOP: u32 = CHUNK_FLAG - 1;
/// Addresses per chunk (the low 8 bits).
const CHUNK_LEN: usize = 256;
/// Entries of `tbl24`.
const TBL24_LEN: usize = 1 << 24;

/// The DIR-24-8-BASIC lookup table.
#[derive(Clone)]
pub struct Dir24_8 {
    /// One entry per /24 block: a raw next hop, or `CHUNK_FLAG | chunk index`.
    tbl24: Box<[u32]>,
    /// Chunks of 256 raw next hops.
    tbl_long: Vec<u32>,
    /// Chunk indices no block uses, reused first.
    free_chunks: Vec<u32>,
}

impl std::fmt::Debug for Dir24_8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dir24_8")
            .field("chunks", &self.chunk_count())
            .field("free_chunks", &self.free_chunks.len())
            .finish()
    }
}

impl Dir24_8 {
    /// An empty table: every lookup answers `None`.
    #[doc(hidden)]
    pub fn new() -> Self {
        Dir24_8 {
            // Huge pages: a random lookup otherwise misses the TLB on nearly every probe; pages
            // no route reaches are never written, so never faulted in.
            tbl24: crate::algo::huge::zero_words(TBL24_LEN).into_boxed_slice(),
            tbl_long: Vec::new(),
            free_chunks: Vec::new(),
        }
    }

    /// Number of chunks in `tbl_long` (in use and free).
    #[doc(hidden)]
    pub fn chunk_count(&self) -> usize {
        self.tbl_long.len() / CHUNK_LEN
    }

    /// Number of chunks in use: the /24 blocks that hold routes longer than /24 which matter.
    #[doc(hidden)]
    pub fn chunks_in_use(&self) -> usize {
        self.chunk_count() - self.free_chunks.len()
    }

    /// True when both tables answer every address the same: equal flat entries, equal chunk
    /// contents where both have a chunk (the chunk indices may differ). Checks all 2^24
    /// blocks, so an updated table can be compared with a fresh compile.
    #[doc(hidden)]
    pub fn same_answers(&self, other: &Dir24_8) -> bool {
        fn chunk(t: &Dir24_8, e: u32) -> &[u32] {
            let base = ((e & !CHUNK_FLAG) as usize) * CHUNK_LEN;
            &t.tbl_long[base..base + CHUNK_LEN]
        }
        self.tbl24.iter().zip(other.tbl24.iter()).all(|(&x, &y)| {
            match (x & CHUNK_FLAG != 0, y & CHUNK_FLAG != 0) {
                (false, false) => x == y,
                (true, true) => chunk(self, x) == chunk(other, y),
                _ => false,
            }
        })
    }
}

impl Default for Dir24_8 {
    fn default() -> Self {
        Self::new()
    }
}

impl Lookup<u32> for Dir24_8 {
    #[inline]
    fn lookup(&self, addr: u32) -> Option<NextHop> {
        self.lookup_one(addr)
    }

    fn lookup_batch(&self, addrs: &[u32], out: &mut [Option<NextHop>]) {
        self.lookup_many(addrs, out)
    }

    fn memory_bytes(&self) -> usize {
        let words = self.tbl24.len() + self.tbl_long.capacity() + self.free_chunks.capacity();
        std::mem::size_of::<Self>() + words * std::mem::size_of::<u32>()
    }
}

impl Compile<u32> for Dir24_8 {
    type Config = ();

    fn compile(rib: &Rib<u32>, _: &()) -> Result<Self, BuildError> {
        let mut table = Dir24_8::new();
        let ranges = rib.ranges();
        build::check_hops(&ranges)?;
        table.paint(&Prefix::DEFAULT_ROUTE, &ranges, true);
        table.tbl_long.shrink_to_fit();
        Ok(table)
    }
}
