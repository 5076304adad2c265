//! SAIL_U: routes pushed to levels 6, 12, 18 and 24, chunks below /24.
//!
//! Layout: four levels `L = 6, 12, 18, 24`, each a bitmap `bits[k]` of 2^L bits (on-chip in
//! the paper: 2^6 + 2^12 + 2^18 + 2^24 bits, about 2.03 MiB) and a word array `next[k]` of 2^L
//! entries (off-chip). Routes of length 0–6 are expanded to level 6, 7–12 to 12, 13–18 to 18
//! and 19–24 to 24; routes longer than /24 live in 256-entry chunks (`chunks`) below the /24
//! pivot exactly as in SAIL_B.
//!
//! Lookup: probe B24, B18, B12, B6 (at most four bitmap probes) with the first L bits of the
//! address; the first set bit's word is the answer, or the chunk whose entry for the last 8
//! bits is.
//!
//! Invariants: bit `v` of level `L` is set exactly when a route with length in `(L-6, L]`
//! (`[0, 6]` for level 6) covers slot `v`, or, at level 24, when routes longer than /24 lie in
//! it; the word is then the longest such route's next hop, or the chunk id; clear bits have
//! zero words. The chunk of a /24 holds the longest match among all routes for each address.
//!
//! Updates (the point of this variant): a route of length `l` in band `L` covers
//! `2^(L-l) <= 64` aligned slots of level `L`, so changing it rewrites one 64-bit bitmap word;
//! a change longer than /24 rewrites one bit of B24; the rest (next-hop words, chunk contents)
//! is off-chip.

use super::dispatch;
use super::entry::{Config, Demand, Entry, Overflow, choose_wide, fits};
use super::push::{self, ChunkPool};
use super::widths::{Tables, Variant, WordCore, lookup_via_tables};
use crate::algo::prefetch;
use crate::fib::{BuildError, Compile, Incremental};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

const NAME: &str = "sail_u";
/// The levels routes are pushed to; the last one is the pivot.
const LEVELS: [u32; 4] = [6, 12, 18, 24];
const PIVOT: u32 = 24;

/// SAIL_U for IPv4 (Yang et al., SIGCOMM 2014, §4: update-oriented optimisation).
#[derive(Clone, Debug)]
pub struct SailU {
    tables: Tables<UpdateOriented>,
}

#[derive(Clone, Debug)]
pub(crate) struct Core<E> {
    bits: [Vec<u64>; 4],
    next: [Vec<E>; 4],
    chunks: ChunkPool<E>,
}

/// Index into `LEVELS` of the level a route of length `len <= 24` is pushed to.
#[inline]
fn band(len: u32) -> usize {
    (len.max(1) as usize - 1) / 6
}

/// The shortest route length pushed to `LEVELS[k]`.
fn band_start(k: usize) -> u32 {
    if k == 0 { 0 } else { LEVELS[k - 1] + 1 }
}

/// The slot of `addr` at `LEVELS[k]`.
#[inline]
fn slot(addr: u32, k: usize) -> usize {
    (addr >> (32 - LEVELS[k])) as usize
}

impl<E: Entry> WordCore<E> for Core<E> {
    /// The word of the deepest level whose bit is set for `addr`.
    #[inline]
    fn deepest(&self, addr: u32) -> Option<E> {
        for k in (0..LEVELS.len()).rev() {
            let v = slot(addr, k);
            if self.is_set(k, v) {
                return Some(self.next[k][v]);
            }
        }
        None
    }

    #[inline]
    fn prefetch_top(&self, addr: u32) {
        let v = slot(addr, 3);
        prefetch::read(&self.bits[3], v / 64);
        prefetch::read(&self.next[3], v);
    }

    fn chunks(&self) -> &ChunkPool<E> {
        &self.chunks
    }

    fn build(rib: &Rib<u32>) -> Result<Self, Overflow> {
        let mut core = Self::empty();
        // Paint shorter routes first so that longer ones of the same band win.
        let mut by_len: Vec<Vec<(Prefix<u32>, NextHop)>> = vec![Vec::new(); PIVOT as usize + 1];
        for (p, h) in rib.iter().filter(|(p, _)| p.len() <= PIVOT) {
            by_len[p.len() as usize].push((p, h));
        }
        for (p, h) in by_len.into_iter().flatten() {
            let k = band(p.len());
            for v in core.slots(&p, k) {
                core.set(k, v, Some(E::hop(Some(h))));
            }
        }
        for q in push::deeper_slots(rib, None, PIVOT) {
            let word = core.chunks.build(rib, q)?;
            core.set(3, slot(q.addr(), 3), Some(word));
        }
        Ok(core)
    }

    fn memory_bytes(&self) -> usize {
        let bits: usize = self.bits.iter().map(|b| b.capacity() * 8).sum();
        let next: usize = self.next.iter().map(|n| n.capacity() * size_of::<E>()).sum();
        bits + next + self.chunks.memory_bytes()
    }

    fn apply(&mut self, rib: &Rib<u32>, changed: &[Prefix<u32>]) -> Result<(), Overflow> {
        fits::<E>(Demand { max_hop_raw: push::max_changed_hop(rib, changed), max_chunks: 0 })?;
        for p in changed {
            if p.len() > PIVOT {
                self.refresh_slot(rib, 3, slot(p.addr(), 3))?;
                continue;
            }
            let k = band(p.len());
            for v in self.slots(p, k) {
                self.refresh_slot(rib, k, v)?;
            }
            if k < 3 {
                // The answers pushed into the chunks below `p` may have changed.
                let pivots: Vec<_> = push::deeper_slots(rib, Some(*p), PIVOT).collect();
                for q in pivots {
                    self.refresh_slot(rib, 3, slot(q.addr(), 3))?;
                }
            }
        }
        Ok(())
    }

    #[cfg(test)]
    fn same_answers(&self, other: &Self) -> bool {
        self.bits == other.bits
            && (0..LEVELS.len()).all(|k| {
                super::set_bits(&self.bits[k])
                    .all(|v| self.same_word(self.next[k][v], other, other.next[k][v]))
            })
    }
}

impl<E: Entry> Core<E> {
    fn empty() -> Self {
        Core {
            bits: LEVELS.map(|l| vec![0u64; (1usize << l).div_ceil(64)]),
            next: LEVELS.map(|l| vec![E::default(); 1 << l]),
            chunks: ChunkPool::default(),
        }
    }

    /// The slots of level `LEVELS[k]` covered by `p` (`p.len() <= LEVELS[k]`).
    fn slots(&self, p: &Prefix<u32>, k: usize) -> std::ops::Range<usize> {
        let first = (p.addr() as u64 >> (32 - LEVELS[k])) as usize;
        first..first + (1 << (LEVELS[k] - p.len()))
    }

    fn set(&mut self, k: usize, v: usize, word: Option<E>) {
        let bit = 1u64 << (v % 64);
        match word {
            Some(w) => {
                self.bits[k][v / 64] |= bit;
                self.next[k][v] = w;
            }
            None => {
                self.bits[k][v / 64] &= !bit;
                self.next[k][v] = E::default();
            }
        }
    }

    #[inline]
    fn is_set(&self, k: usize, v: usize) -> bool {
        self.bits[k][v / 64] >> (v % 64) & 1 != 0
    }

    /// Recomputes slot `v` of level `LEVELS[k]` from `rib`.
    fn refresh_slot(&mut self, rib: &Rib<u32>, k: usize, v: usize) -> Result<(), Overflow> {
        let level = LEVELS[k];
        let p = Prefix::from_parts_unchecked(((v as u64) << (32 - level)) as u32, level);
        if level == PIVOT
            && let Some(word) = self.chunks.refresh(rib, p, self.next[k][v])?
        {
            self.set(k, v, Some(word));
            return Ok(());
        }
        let hop = push::band_hop(rib, &p, band_start(k));
        self.set(k, v, hop.map(|h| E::hop(Some(h))));
        Ok(())
    }
}

/// SAIL_U's core in either width (`widths.rs`).
#[derive(Clone, Debug)]
pub(crate) struct UpdateOriented;

impl Variant for UpdateOriented {
    const NAME: &'static str = NAME;
    type Core<E: Entry> = Core<E>;
}

impl SailU {
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

    /// The four bitmaps (levels 6, 12, 18, 24): what the paper keeps on chip.
    #[doc(hidden)]
    pub fn bitmaps(&self) -> [&[u64]; 4] {
        dispatch!(&self.tables, t => [&t.bits[0][..], &t.bits[1][..], &t.bits[2][..], &t.bits[3][..]])
    }
}

lookup_via_tables!(SailU);

impl Compile<u32> for SailU {
    type Config = Config;
    fn compile(rib: &Rib<u32>, cfg: &Config) -> Result<Self, BuildError> {
        let wide = choose_wide(NAME, cfg.width, push::demand(rib, &[PIVOT]))?;
        Ok(SailU { tables: Tables::build(rib, wide)? })
    }
}

impl Incremental<u32> for SailU {
    /// Recomputes the at most 64 slots a changed route of at most /24 covers in its band level
    /// (one bitmap word) and refills the chunks below it; a change longer than /24 refreshes
    /// its /24's chunk. When 16-bit words overflow, the structure is rebuilt with 32-bit words.
    fn apply_changes(&mut self, rib: &Rib<u32>, changed: &[Prefix<u32>]) -> Result<(), BuildError> {
        self.tables.apply(rib, changed)
    }
}

#[cfg(test)]
impl SailU {
    /// True when both answer every address alike (chunks compared by content, since ids
    /// depend on the order of allocation).
    pub(crate) fn same_answers(&self, other: &SailU) -> bool {
        self.tables.same_answers(&other.tables)
    }
}
