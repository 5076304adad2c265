//! `lulea`: the Lulea scheme (M. Degermark, A. Brodnik, S. Carlsson, S. Pink, "Small
//! Forwarding Tables for Fast Routing Lookups", SIGCOMM 1997), a comparator of the SAIL and
//! CPE papers. IPv4 only, as in the paper.
//!
//! The leaf-pushed binary trie of the routes is cut at depths 16, 24 and 32. Each cut is a
//! *bit vector* over its positions (2^16 at level 1, 2^8 in a level-2 or level-3 chunk): a
//! bit is set at a *head*, the first position of a leaf of the leaf-pushed trie, and every
//! head has a *pointer*: a next hop (a genuine head) or, for a position with longer routes
//! below it, a chunk of the next level (a root head). A position's answer is the pointer of
//! the last head at or before it, so the structure only has to count set bits fast:
//!
//! - the bit vector is cut into 16-bit *bit-masks*; each mask has a 16-bit *codeword*: a
//!   10-bit row number `ten` in the *maptable* and a 6-bit offset `six`, the heads in the
//!   previous masks of its group of four (64 positions);
//! - a *base index* per group holds the heads before the group;
//! - the maptable row of a mask gives, per position, the heads up to that position; the
//!   leaf-pushed trie admits only 678 distinct masks (see `maptable.rs`), so the row fits 10 bits.
//!
//! The pointer of position `ix` is `pointers[base[ix >> 6] + six + maptable[ten][ix & 15] − 1]`
//! where `(ten, six) = codeword[ix >> 4]`.
//!
//! # Layout
//!
//! - Level 1: `codes` (4,096 codewords, 8 KiB), `bases` (1,024 `u16` base indexes) and
//!   `pointers` (one `u32` per head) for the first 16 address bits.
//! - Levels 2 and 3 (`Level`): chunks of 256 positions (address bits 16–23, 24–31), of three
//!   kinds as in the paper, by number of heads:
//!   - *sparse* (1–8 heads): the heads' 8-bit positions, searched linearly;
//!   - *dense* (9–63): 16 codewords, `six` counting from the chunk's start (no base index);
//!   - *very dense* (64–256): 16 codewords and 4 base indexes, like level 1.
//!
//!   A chunk is a `Chunk` descriptor (kind, head count, offsets into the level's `sparse`
//!   position bytes or `codes` words, and into its `pointers`).
//! - A pointer is a raw next hop (0 = no route) or, with bit 31 set, the index of a chunk of
//!   the next level.
//! - The maptable: 678 rows of 16 bytes (10.8 KiB), shared by every level and table.
//!
//! # Differences from the paper
//!
//! The paper stores 16-bit pointers (14-bit next-hop and chunk indices) and 4-bit maptable
//! entries (5.3 KiB); here pointers are 32 bits, so next hops are not limited to 2^14 nor
//! chunks to 2^14 per level, and maptable entries are bytes holding the count of heads up to
//! and including the position (0..=16). The paper's dense chunks take up to 64 heads; here
//! 63, since 64 heads before an empty last mask would not fit `six`'s 6 bits. The paper's further packing tricks for level 1 (the
//! codeword holding a pointer directly for masks with at most one head) are not done.
//!
//! # Invariants
//!
//! - Position 0 of every bit vector is a head, so the pointer index never underflows.
//! - Every mask is one of the maptable's 678; `six` and the base indexes count the heads
//!   before the mask and the group exactly.
//! - Level-3 pointers are never chunk pointers; every address's answer is the RIB's longest
//!   match.
//!
//! # Limits
//!
//! IPv4 only. Raw next hops must be below 2^31 (bit 31 marks chunks); up to 2^31 chunks per
//! level. Beyond, compilation fails with [`BuildError::LimitExceeded`]. No updates: the paper
//! rebuilds the table.

mod build;
mod maptable;
#[cfg(test)]
mod tests;

use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;
use maptable::{MASK_BITS, MapTable};

/// Bit 31 of a pointer: a chunk of the next level, not a next hop.
const CHUNK: u32 = 1 << 31;
/// Bits 0–5 of a codeword: `six`; `ten` is above.
const SIX_BITS: u32 = 6;

/// Build options: none (the levels are fixed at 16/8/8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Config;

impl Config {
    /// Parses `lulea` (which takes no options).
    #[doc(hidden)]
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("lulea", &[])?;
        Ok(Config)
    }
}

/// The kinds of level-2 and level-3 chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// 1–8 heads: positions searched linearly.
    Sparse,
    /// 9–63 heads: 16 codewords.
    Dense,
    /// 64–256 heads: 16 codewords and 4 base indexes.
    VeryDense,
}

/// A level-2 or level-3 chunk.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    kind: Kind,
    /// Heads (only read for sparse chunks, where it is 1..=8).
    heads: u8,
    /// Offset of the head positions in `sparse` or of the codewords in `codes`.
    data: u32,
    /// Offset of the chunk's first pointer in `pointers`.
    pointers: u32,
}

/// The chunks of level 2 or level 3.
#[derive(Debug, Clone, Default)]
struct Level {
    chunks: Vec<Chunk>,
    /// Head positions of the sparse chunks.
    sparse: Vec<u8>,
    /// Codewords (and, for very dense chunks, the 4 base indexes after them).
    codes: Vec<u16>,
    pointers: Vec<u32>,
}

/// The pointer index of position `pos` through codeword `code` and the heads `before` the
/// codeword's group: the last head at or before `pos`.
#[inline]
fn head_index(map: &[[u8; MASK_BITS]], code: u16, before: u32, pos: usize) -> usize {
    let row = &map[(code >> SIX_BITS) as usize];
    (before + (code & ((1 << SIX_BITS) - 1)) as u32 + row[pos % MASK_BITS] as u32) as usize - 1
}

impl Level {
    /// The pointer of position `pos` of chunk `chunk`.
    #[inline]
    fn pointer(&self, map: &[[u8; MASK_BITS]], chunk: u32, pos: usize) -> u32 {
        let c = self.chunks[chunk as usize];
        let data = c.data as usize;
        let j = match c.kind {
            Kind::Sparse => {
                let heads = &self.sparse[data..data + c.heads as usize];
                heads.iter().take_while(|&&h| h as usize <= pos).count() - 1
            }
            Kind::Dense => head_index(map, self.codes[data + pos / MASK_BITS], 0, pos),
            Kind::VeryDense => {
                let before = self.codes[data + 16 + pos / 64] as u32;
                head_index(map, self.codes[data + pos / MASK_BITS], before, pos)
            }
        };
        self.pointers[c.pointers as usize + j]
    }

    fn memory_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Chunk>()
            + self.sparse.capacity()
            + self.codes.capacity() * 2
            + self.pointers.capacity() * 4
    }

    /// Chunks per kind: sparse, dense, very dense.
    fn kinds(&self) -> [usize; 3] {
        let count = |k| self.chunks.iter().filter(|c| c.kind == k).count();
        [count(Kind::Sparse), count(Kind::Dense), count(Kind::VeryDense)]
    }
}

/// The Lulea structure (IPv4).
#[derive(Clone)]
pub struct Lulea {
    /// Level-1 codewords, one per 16 positions of the first 16 address bits.
    codes: Box<[u16]>,
    /// Level-1 base indexes, one per 64 positions.
    bases: Box<[u16]>,
    /// Level-1 pointers, one per head.
    pointers: Vec<u32>,
    l2: Level,
    l3: Level,
    map: &'static [[u8; MASK_BITS]],
}

impl std::fmt::Debug for Lulea {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lulea").field("stats", &self.stats()).finish()
    }
}

/// Counts describing a built structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[doc(hidden)]
pub struct LuleaStats {
    /// Heads of level 1.
    pub level1_heads: usize,
    /// Level-2 chunks: sparse, dense, very dense.
    pub level2: [usize; 3],
    /// Level-3 chunks: sparse, dense, very dense.
    pub level3: [usize; 3],
}

impl Lulea {
    /// Heads of level 1 and chunk counts per level and kind.
    #[doc(hidden)]
    pub fn stats(&self) -> LuleaStats {
        LuleaStats {
            level1_heads: self.pointers.len(),
            level2: self.l2.kinds(),
            level3: self.l3.kinds(),
        }
    }
}

impl Lookup<u32> for Lulea {
    #[inline]
    fn lookup(&self, addr: u32) -> Option<NextHop> {
        let ix = (addr >> 16) as usize;
        let before = self.bases[ix / 64] as u32;
        let mut ptr = self.pointers[head_index(self.map, self.codes[ix / MASK_BITS], before, ix)];
        if ptr & CHUNK != 0 {
            ptr = self.l2.pointer(self.map, ptr & !CHUNK, (addr >> 8) as u8 as usize);
            if ptr & CHUNK != 0 {
                ptr = self.l3.pointer(self.map, ptr & !CHUNK, addr as u8 as usize);
            }
        }
        NextHop::from_raw(ptr)
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(&*self.codes)
            + std::mem::size_of_val(&*self.bases)
            + self.pointers.capacity() * 4
            + self.l2.memory_bytes()
            + self.l3.memory_bytes()
            + std::mem::size_of_val(self.map)
    }

    fn describe(&self) -> Option<String> {
        let s = self.stats();
        Some(format!(
            "{} level-1 heads; level 2: {}/{}/{} sparse/dense/very dense chunks; level 3: {}/{}/{}",
            s.level1_heads,
            s.level2[0],
            s.level2[1],
            s.level2[2],
            s.level3[0],
            s.level3[1],
            s.level3[2]
        ))
    }
}

impl Compile<u32> for Lulea {
    type Config = Config;

    fn compile(rib: &Rib<u32>, _cfg: &Config) -> Result<Self, BuildError> {
        build::build(rib, MapTable::get())
    }
}
