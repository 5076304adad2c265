//! SAIL_B: one bitmap and one next-hop array per prefix length 0–24, chunks below /24.
//!
//! Layout (heap numbering): the slot of prefix length `i` and value `v` (the first `i` bits of
//! an address) is node `2^i + v`, so the slots of all 25 levels fit in one bit array `bitmap`
//! of 2^25 bits (4 MiB, the paper's on-chip part) and one word array `next` of 2^25 entries
//! (off-chip). The parent of node `n` is `n >> 1`. `bitmap[n]` is set when a route of exactly
//! that prefix exists, or, at level 24, when routes longer than /24 lie below it; `next[n]`
//! holds the route's next hop, or at level 24 the id of a 256-entry chunk in `chunks`.
//!
//! Lookup: start at the level-24 node of the address and walk up to the root until a set bit
//! is found (at most 25 bitmap probes); its word is the answer, or the chunk whose entry for
//! the last 8 address bits is.
//!
//! Invariants: `bitmap[n]` clear implies `next[n] == 0`; a level-24 word is a chunk id exactly
//! when routes longer than /24 lie in that /24, and the chunk holds, for each of its 256
//! addresses, the longest match among all routes (the /24's own answer pushed down: pivot
//! pushing); node 0 is unused.

use super::entry::{Config, Entry, Overflow, choose_wide};
use super::push::{self, ChunkPool};
use super::widths::{Tables, Variant, WordCore, lookup_via_tables};
use crate::algo::prefetch;
use crate::fib::{BuildError, Compile, Incremental};
use crate::prefix::Prefix;
use crate::rib::Rib;

const NAME: &str = "sail_b";
/// The pivot level: routes longer than this live in chunks.
const PIVOT: u32 = 24;
/// Nodes in levels 0..=24 (node 0 unused).
const NODES: usize = 1 << (PIVOT + 1);

/// SAIL_B for IPv4 (Yang et al., SIGCOMM 2014, §3: splitting, bitmaps B0–B24, pivot pushing).
#[derive(Clone, Debug)]
pub struct SailB {
    tables: Tables<Basic>,
}

#[derive(Clone, Debug)]
pub(crate) struct Core<E> {
    bitmap: Vec<u64>,
    next: Vec<E>,
    chunks: ChunkPool<E>,
}

/// The heap node of prefix length `len` and value `value`.
#[inline]
fn node(len: u32, value: u32) -> usize {
    (1usize << len) | value as usize
}

fn node_of(p: &Prefix<u32>) -> usize {
    node(p.len(), (p.addr() as u64 >> (32 - p.len())) as u32)
}

impl<E: Entry> WordCore<E> for Core<E> {
    /// The word of the deepest set node on the path from level 24 to the root.
    #[inline]
    fn deepest(&self, addr: u32) -> Option<E> {
        let mut n = node(PIVOT, addr >> (32 - PIVOT));
        while n != 0 {
            if self.is_set(n) {
                return Some(self.next[n]);
            }
            n >>= 1;
        }
        None
    }

    #[inline]
    fn prefetch_top(&self, addr: u32) {
        prefetch::read(&self.bitmap, node(PIVOT, addr >> 8) / 64);
    }

    fn chunks(&self) -> &ChunkPool<E> {
        &self.chunks
    }

    fn build(rib: &Rib<u32>) -> Result<Self, Overflow> {
        let mut core = Core {
            bitmap: vec![0; NODES / 64],
            next: vec![E::default(); NODES],
            chunks: Default::default(),
        };
        for (p, h) in rib.iter().filter(|(p, _)| p.len() <= PIVOT) {
            core.set(node_of(&p), Some(E::hop(Some(h))));
        }
        for q in push::deeper_slots(rib, None, PIVOT) {
            let word = core.chunks.build(rib, q)?;
            core.set(node_of(&q), Some(word));
        }
        Ok(core)
    }

    fn memory_bytes(&self) -> usize {
        self.bitmap.capacity() * 8
            + self.next.capacity() * size_of::<E>()
            + self.chunks.memory_bytes()
    }

    fn apply(&mut self, rib: &Rib<u32>, changed: &[Prefix<u32>]) -> Result<(), Overflow> {
        super::entry::fits::<E>(super::entry::Demand {
            max_hop_raw: push::max_changed_hop(rib, changed),
            max_chunks: 0,
        })?;
        for p in changed {
            if p.len() > PIVOT {
                self.refresh_node(rib, p.truncated(PIVOT))?;
                continue;
            }
            self.refresh_node(rib, *p)?;
            if p.len() < PIVOT {
                // The pushed-down answers of the chunks below `p` may have changed.
                let slots: Vec<_> = push::deeper_slots(rib, Some(*p), PIVOT).collect();
                for q in slots {
                    self.refresh_node(rib, q)?;
                }
            }
        }
        Ok(())
    }

    #[cfg(test)]
    fn same_answers(&self, other: &Self) -> bool {
        self.bitmap == other.bitmap
            && super::set_bits(&self.bitmap)
                .all(|n| self.same_word(self.next[n], other, other.next[n]))
    }
}

impl<E: Entry> Core<E> {
    /// Sets (`Some`) or clears (`None`) node `n`.
    fn set(&mut self, n: usize, word: Option<E>) {
        let bit = 1u64 << (n % 64);
        match word {
            Some(w) => {
                self.bitmap[n / 64] |= bit;
                self.next[n] = w;
            }
            None => {
                self.bitmap[n / 64] &= !bit;
                self.next[n] = E::default();
            }
        }
    }

    #[inline]
    fn is_set(&self, n: usize) -> bool {
        self.bitmap[n / 64] >> (n % 64) & 1 != 0
    }

    /// Brings node `p` (a route of at most /24, or a /24 pivot slot) up to date with `rib`.
    fn refresh_node(&mut self, rib: &Rib<u32>, p: Prefix<u32>) -> Result<(), Overflow> {
        let n = node_of(&p);
        if p.len() == PIVOT
            && let Some(word) = self.chunks.refresh(rib, p, self.next[n])?
        {
            self.set(n, Some(word));
            return Ok(());
        }
        self.set(n, rib.get(&p).map(|h| E::hop(Some(h))));
        Ok(())
    }
}

/// SAIL_B's core in either width (`widths.rs`).
#[derive(Clone, Debug)]
pub(crate) struct Basic;

impl Variant for Basic {
    const NAME: &'static str = NAME;
    type Core<E: Entry> = Core<E>;
}

impl SailB {
    /// Number of level-32 chunks in use.
    #[doc(hidden)]
    pub fn chunks(&self) -> usize {
        self.tables.chunks_in_use()
    }

    /// The word width in bits (16 or 32).
    #[doc(hidden)]
    pub fn width_bits(&self) -> u32 {
        self.tables.width_bits()
    }

    /// Bytes of the bitmaps B0–B24 (2^25 bits), the part the paper keeps on chip; the rest
    /// of [`Lookup::memory_bytes`](crate::Lookup::memory_bytes) (next hops, chunks) is
    /// off chip.
    #[doc(hidden)]
    pub fn on_chip_bytes(&self) -> usize {
        super::dispatch!(&self.tables, t => t.bitmap.capacity() * 8)
    }
}

lookup_via_tables!(SailB);

impl Compile<u32> for SailB {
    type Config = Config;
    fn compile(rib: &Rib<u32>, cfg: &Config) -> Result<Self, BuildError> {
        let wide = choose_wide(NAME, cfg.width, push::demand(rib, &[PIVOT]))?;
        Ok(SailB { tables: Tables::build(rib, wide)? })
    }
}

impl Incremental<u32> for SailB {
    /// Rewrites the node of each changed route of at most /24 (one bit, one word) and refills
    /// the chunks below it; a change longer than /24 refreshes its /24's chunk. When 16-bit
    /// words overflow, the structure is rebuilt with 32-bit words.
    fn apply_changes(&mut self, rib: &Rib<u32>, changed: &[Prefix<u32>]) -> Result<(), BuildError> {
        self.tables.apply(rib, changed)
    }
}

#[cfg(test)]
impl SailB {
    /// True when both answer every address alike (chunks compared by content, since ids
    /// depend on the order of allocation).
    pub(crate) fn same_answers(&self, other: &SailB) -> bool {
        self.tables.same_answers(&other.tables)
    }
}
