//! SAIL_M: many virtual tables in one SAIL_L structure (Yang et al., "Guarantee IP Lookup
//! Performance with FIB Explosion", SIGCOMM 2014, §5 "SAIL for multiple FIBs", and
//! its talk slides). It is the comparator of LOOP's evaluation.
//!
//! **Idea.** Merge the tries of all tables into one trie, leaf-push it, and apply SAIL_L to
//! the merged trie: a slot at level 16, 24 (and 32, ...) is a chunk when *any* table has a
//! longer route inside it, and every leaf stores the next hops of *all* tables for its slot.
//! The lookup walks the merged levels exactly like SAIL_L (at most three array reads for IPv4)
//! and then reads one more entry: the leaf's next hop for the VRF.
//!
//! **Layout.** `top`: 2^16 words indexed by the first 16 address bits; `levels[k]`: the chunks
//! of level `24 + 8k`, 256 words each, chunk `c` at `[c * 256..]` (IPv4: two levels, IPv6 up to
//! /64: six). A word with its top bit set is a chunk id one level down; otherwise its payload
//! is a *composite id*. `hops[c * vrfs + v]` is the raw next hop (0: none) of table `v` for
//! composite `c`. The per-leaf next-hop arrays of the paper are stored once per distinct
//! vector (leaves of real table sets repeat few vectors; without sharing, memory would be
//! `leaves × vrfs` words). Words are 16 bits when chunk counts and composite ids fit 15 bits,
//! 32 bits otherwise ([`Width`], `width=auto|16|32` as SAIL_L).
//! Next hops are full 32-bit ids: no cap on their number.
//!
//! **Files**: `build.rs` (the merged levels), `update.rs` (route changes in place, the
//! composites' reference counts), `writer.rs` ([`SailMWriter`]: RIBs and the update calls),
//! `shared.rs` ([`SailMShared`] / [`SailMReader`]: concurrent readers on the library's QSBR
//! publication, two copies), `single.rs` ([`SailMFib`]'s `Incremental` updates, which
//! `fibforge replay --algo sail_m` runs).
//!
//! **Invariants.** A slot is a chunk exactly when some table has a route longer than the
//! slot inside it; a leaf's composite holds, for each table, its longest match for the whole
//! slot. Chunk ids are assigned in address order, level by level; the last level holds
//! composites only. Composite ids are assigned in first-seen (address) order.
//!
//! **Limits.** IPv6 prefixes up to /64 only, as SAIL_L (a table with a longer prefix is
//! refused with [`BuildError::Unsupported`] naming the table and prefix). Chunk and composite
//! ids have 31 bits.
//!
//! **Updates** ([`SailMWriter`]: `insert` / `remove` of one route of one table, as LOOP's
//! writer). The RIB of that table changes, then only the slots the route touches are walked
//! (`update.rs`), SAIL_L's update procedure on the merged levels: a slot the route covers
//! keeps its kind and gets its composite with the table's column replaced (left alone where a
//! longer route of the same table shadows the route); a slot strictly containing it becomes a
//! chunk (built from every table's RIB) when some table now has a longer route inside it, or
//! is freed back to a leaf of every table's answer when none has. Composites are reference
//! counted and their ids reused; freed chunks are reused per level. Invariants after every
//! update: the answers, the set of chunk slots and the set of live composites are a fresh
//! build's (ids may differ); every leaf word holds one reference to its composite. The cost
//! is bounded by the route's slots not shadowed in its table: one word and one chunk path for
//! a /25–/32, 2^(24 − l) words for a /l of /17–/24, up to the whole table for a short route
//! (the paper's unbounded case). A chunk or composite id past 16-bit words rebuilds the
//! structure in 32-bit words (`last_update_path() == "rebuild"`).

mod build;
mod shared;
mod single;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_shared;
#[cfg(test)]
mod tests_update;
mod update;
mod writer;

pub use shared::{SailMReader, SailMShared};
pub use writer::SailMWriter;

use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::algo::prefetch;
use crate::algo::sail;
use crate::algo::sail::entry::{CHUNKS, Entry, Overflow};
use crate::algo::sail::{Width, final_word, max_len};
use crate::fib::{BuildError, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;
use build::{Built, COMPOSITES, STRIDE, TOP};

const NAME: &str = "sail_m";

/// SAIL_M over `vrfs` tables (VRF id = position in the build's table list).
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct SailM<A: Address> {
    tables: Tables,
    family: std::marker::PhantomData<fn() -> A>,
}

#[derive(Clone, Debug)]
enum Tables {
    Narrow(Core<u16>),
    Wide(Core<u32>),
}

macro_rules! dispatch {
    ($tables:expr, $t:ident => $body:expr) => {
        match $tables {
            Tables::Narrow($t) => $body,
            Tables::Wide($t) => $body,
        }
    };
}

#[derive(Clone, Debug)]
struct Core<E> {
    top: Vec<E>,
    levels: Vec<Vec<E>>,
    hops: Vec<u32>,
    vrfs: usize,
}

/// Counters describing a SAIL_M structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SailMStats {
    /// Tables merged.
    pub vrfs: usize,
    /// Chunks per level (level 24 first).
    pub chunks: Vec<usize>,
    /// Distinct composites (per-table next-hop vectors of leaves).
    pub composites: usize,
    /// Word width in bits (16 or 32).
    pub width_bits: u32,
}

impl<E: Entry> Core<E> {
    fn from_built(b: &Built, vrfs: usize) -> Self {
        Core {
            top: build::narrow(&b.top),
            levels: b.levels.iter().map(|l| build::narrow(l)).collect(),
            hops: b.hops.clone(),
            vrfs,
        }
    }

    /// The composite id of the leaf covering `addr`.
    #[inline]
    fn leaf<A: Address>(&self, addr: A) -> usize {
        final_word(&self.top, &self.levels, addr).payload() as usize
    }

    #[inline]
    fn lookup<A: Address>(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        let v = vrf as usize;
        if v >= self.vrfs {
            return None;
        }
        NextHop::from_raw(self.hops[self.leaf(addr) * self.vrfs + v])
    }

    /// Groups of 16 keys walk down together, each level's reads prefetched for the group.
    fn lookup_batch<A: Address>(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= keys.len(), "output shorter than input");
        const G: usize = 16;
        for (group, res) in keys.chunks(G).zip(out.chunks_mut(G)) {
            let mut words = [E::default(); G];
            for &(_, a) in group {
                prefetch::read(&self.top, a.bits(0, TOP) as usize);
            }
            for (w, &(_, a)) in words.iter_mut().zip(group) {
                *w = self.top[a.bits(0, TOP) as usize];
            }
            let mut pos = TOP;
            for chunks in &self.levels {
                if !self.descend(chunks, pos, group, &mut words) {
                    break;
                }
                pos += STRIDE;
            }
            self.finish(group, &words, res);
        }
    }

    /// One level down for the words that are chunk ids; false when none was.
    #[inline]
    fn descend<A: Address>(
        &self,
        chunks: &[E],
        pos: u32,
        group: &[(VrfId, A)],
        w: &mut [E],
    ) -> bool {
        let mut at = [usize::MAX; 16];
        let mut any = false;
        for ((i, &x), &(_, a)) in at.iter_mut().zip(w.iter()).zip(group) {
            if x.is_chunk() {
                *i = (x.payload() as usize) << STRIDE | a.bits(pos, STRIDE) as usize;
                prefetch::read(chunks, *i);
                any = true;
            }
        }
        for (x, &i) in w.iter_mut().zip(&at) {
            if i != usize::MAX {
                *x = chunks[i];
            }
        }
        any
    }

    /// Reads each key's next hop from its leaf's composite.
    #[inline]
    fn finish<A: Address>(&self, group: &[(VrfId, A)], w: &[E], res: &mut [Option<NextHop>]) {
        let n = self.vrfs;
        for ((o, &x), &(vrf, _)) in res.iter_mut().zip(w).zip(group) {
            let v = vrf as usize;
            *o = if v < n {
                NextHop::from_raw(self.hops[x.payload() as usize * n + v])
            } else {
                None
            };
        }
    }

    fn memory_bytes(&self) -> usize {
        let chunks: usize = self.levels.iter().map(|l| l.capacity() * size_of::<E>()).sum();
        self.top.capacity() * size_of::<E>()
            + chunks
            + self.levels.capacity() * size_of::<Vec<E>>()
            + self.hops.capacity() * size_of::<u32>()
    }

    fn stats(&self, width_bits: u32) -> SailMStats {
        SailMStats {
            vrfs: self.vrfs,
            chunks: self.levels.iter().map(|l| l.len() >> STRIDE).collect(),
            composites: self.hops.len().checked_div(self.vrfs).unwrap_or(1),
            width_bits,
        }
    }
}

/// The first route longer than SAIL can represent, as an error naming its table.
fn check_lengths<A: Address>(ribs: &[Rib<A>]) -> Result<(), BuildError> {
    for (vrf, rib) in ribs.iter().enumerate() {
        if let Some((p, _)) = rib.iter().find(|(p, _)| p.len() > max_len::<A>()) {
            return Err(BuildError::Unsupported {
                algo: NAME,
                reason: format!(
                    "table {vrf}: prefix {p} is longer than /{}: SAIL supports {} prefixes up to /{} only",
                    max_len::<A>(),
                    A::FAMILY,
                    max_len::<A>()
                ),
            });
        }
    }
    Ok(())
}

/// Whether the built structure fits 16-bit words: `Err` names the first payload that does not.
fn fits_narrow(b: &Built) -> Result<(), Overflow> {
    let max = <u16 as Entry>::MAX_PAYLOAD as u64;
    let chunks = b.levels.iter().map(|l| (l.len() >> STRIDE) as u64).max().unwrap_or(0);
    if chunks > max + 1 {
        return Err(Overflow { what: CHUNKS, found: chunks });
    }
    if b.composites as u64 > max + 1 {
        return Err(Overflow { what: COMPOSITES, found: b.composites as u64 - 1 });
    }
    Ok(())
}

impl<A: Address> SailM<A> {
    /// Merges `tables` (VRF id = position) into one structure.
    pub fn build(tables: &[Rib<A>], cfg: &sail::Config) -> Result<Self, BuildError> {
        check_lengths(tables)?;
        let depth = (max_len::<A>() - TOP) / STRIDE;
        let built = build::build(tables, depth).map_err(|o| o.into_error::<u32>(NAME))?;
        let n = tables.len();
        let narrow = match (cfg.width, fits_narrow(&built)) {
            (Width::Wide, _) | (Width::Auto, Err(_)) => false,
            (_, Ok(())) => true,
            (Width::Narrow, Err(o)) => return Err(o.into_error::<u16>(NAME)),
        };
        let tables = if narrow {
            Tables::Narrow(Core::from_built(&built, n))
        } else {
            Tables::Wide(Core::from_built(&built, n))
        };
        Ok(SailM { tables, family: std::marker::PhantomData })
    }

    /// Storage counters.
    pub fn stats(&self) -> SailMStats {
        match &self.tables {
            Tables::Narrow(t) => t.stats(16),
            Tables::Wide(t) => t.stats(32),
        }
    }
}

impl<A: Address> MultiLookup<A> for SailM<A> {
    fn vrfs(&self) -> usize {
        dispatch!(&self.tables, t => t.vrfs)
    }
    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        dispatch!(&self.tables, t => t.lookup(vrf, addr))
    }
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        dispatch!(&self.tables, t => t.lookup_batch(keys, out))
    }
    /// Top array, chunk arrays and composite table.
    fn memory_bytes(&self) -> usize {
        dispatch!(&self.tables, t => t.memory_bytes())
    }
}

/// SAIL_M holding a single table, as a plain [`Lookup`] (the registry's `sail_m`), with
/// [`Incremental`](crate::fib::Incremental) route updates in place (`single.rs`).
#[derive(Clone, Debug)]
pub struct SailMFib<A: Address> {
    m: SailM<A>,
    /// The composites' reference counts, made at the first update (a lookup-only structure
    /// never pays for it).
    book: Option<update::Book>,
    last_path: &'static str,
}

impl<A: Address> SailMFib<A> {
    /// SAIL_M over the one table `rib`.
    #[doc(hidden)]
    pub fn build(rib: &Rib<A>, cfg: &sail::Config) -> Result<Self, BuildError> {
        let m = SailM::build(std::slice::from_ref(rib), cfg)?;
        Ok(SailMFib { m, book: None, last_path: "build" })
    }
}

impl<A: Address> Lookup<A> for SailMFib<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.m.lookup(0, addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut keys = [(0, A::ZERO); 64];
        for (a, o) in addrs.chunks(64).zip(out.chunks_mut(64)) {
            for (k, &x) in keys.iter_mut().zip(a) {
                k.1 = x;
            }
            MultiLookup::lookup_batch(&self.m, &keys[..a.len()], o);
        }
    }
    fn memory_bytes(&self) -> usize {
        MultiLookup::memory_bytes(&self.m)
    }
}
