//! Pivot pushing and prefix expansion: the one transformation all SAIL variants share.
//!
//! SAIL never walks a trie at lookup time. Instead, routes are *pushed* to a few fixed levels
//! (Yang et al. 2014, §3–§4): a route of length `l` placed at level `L >= l` is expanded to the
//! `2^(L-l)` level-`L` slots it covers, and a shorter route loses to a longer one in the same
//! slot. At a *pivot* level (24 in SAIL_B and SAIL_U; 16, 24, 32, ... in SAIL_L), a slot that
//! contains a route longer than the level becomes a *chunk* of `2^stride` entries one level
//! down, and the best route of the slot itself (inherited from the enclosing routes) is pushed
//! into every entry of the chunk that no longer route claims. This file computes those
//! expansions from the RIB and keeps the level-32 chunk pool of SAIL_B and SAIL_U.

use super::entry::{CHUNKS, Demand, Entry, Overflow};
use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// The level-`region.len() + stride` view of a region: the answer of every slot among the
/// routes not longer than that level, and which slots hold longer routes.
pub(crate) struct Expansion {
    /// Longest match of each slot among routes of length `<= region.len() + stride` (inherited
    /// from outside the region where no route inside claims it).
    pub hops: Vec<Option<NextHop>>,
    /// True for slots containing a route longer than the level: these become chunks.
    pub deeper: Vec<bool>,
}

/// Pushes the routes inside `region` to level `region.len() + stride`.
///
/// `inherited` is the answer of the region itself (its longest covering route, the region
/// included); routes of exactly the region's length are taken as already in `inherited`.
/// Shorter routes are painted first so that longer ones overwrite them.
pub(crate) fn expand<A: Address>(
    rib: &Rib<A>,
    region: Prefix<A>,
    stride: u32,
    inherited: Option<NextHop>,
) -> Expansion {
    let (base, level) = (region.len(), region.len() + stride);
    let mut hops = vec![inherited; 1 << stride];
    let mut deeper = vec![false; 1 << stride];
    let mut within: Vec<(Prefix<A>, NextHop)> = Vec::new();
    for (p, h) in rib.covered(&region) {
        if p.len() <= base {
            continue;
        }
        if p.len() > level {
            deeper[p.addr().bits(base, stride) as usize] = true;
        } else {
            within.push((p, h));
        }
    }
    within.sort_by_key(|(p, _)| p.len());
    for (p, h) in within {
        let first = p.addr().bits(base, stride) as usize;
        hops[first..first + (1 << (level - p.len()))].fill(Some(h));
    }
    Expansion { hops, deeper }
}

/// The answer of a whole prefix: its longest covering route, itself included.
pub(crate) fn inherited<A: Address>(rib: &Rib<A>, region: &Prefix<A>) -> Option<NextHop> {
    rib.covering(region).last().map(|(_, h)| h)
}

/// The longest route covering `slot` whose length is at least `shortest` (a band of lengths
/// pushed to `slot.len()`).
pub(crate) fn band_hop<A: Address>(
    rib: &Rib<A>,
    slot: &Prefix<A>,
    shortest: u32,
) -> Option<NextHop> {
    rib.covering(slot).filter(|(p, _)| p.len() >= shortest).last().map(|(_, h)| h)
}

/// True when a route longer than `region` lies inside it.
pub(crate) fn has_deeper<A: Address>(rib: &Rib<A>, region: &Prefix<A>) -> bool {
    rib.covered(region).any(|(p, _)| p.len() > region.len())
}

/// The distinct level-`level` slots inside `within` (everything when `None`) that contain a
/// route longer than `level`, in address order.
///
/// The RIB iterates in preorder, so the routes below one slot are consecutive.
pub(crate) fn deeper_slots<A: Address>(
    rib: &Rib<A>,
    within: Option<Prefix<A>>,
    level: u32,
) -> impl Iterator<Item = Prefix<A>> + '_ {
    let routes = match within {
        Some(p) => rib.covered(&p),
        None => rib.iter(),
    };
    let mut last: Option<Prefix<A>> = None;
    routes.filter(move |(p, _)| p.len() > level).filter_map(move |(p, _)| {
        let slot = p.truncated(level);
        (last != Some(slot)).then(|| {
            last = Some(slot);
            slot
        })
    })
}

/// The largest next-hop raw value of the table and its number of chunks at `pivot` levels.
pub(crate) fn demand<A: Address>(rib: &Rib<A>, pivots: &[u32]) -> Demand {
    let max_hop_raw = rib.iter().map(|(_, h)| h.raw()).max().unwrap_or(0);
    let max_chunks =
        pivots.iter().map(|&l| deeper_slots(rib, None, l).count() as u64).max().unwrap_or(0);
    Demand { max_hop_raw, max_chunks }
}

/// The largest next-hop raw value among the routes now at `changed` (for updates).
pub(crate) fn max_changed_hop<A: Address>(rib: &Rib<A>, changed: &[Prefix<A>]) -> u32 {
    changed.iter().filter_map(|p| rib.get(p)).map(NextHop::raw).max().unwrap_or(0)
}

/// Entries per level-32 chunk below a /24 pivot slot.
pub(crate) const CHUNK: usize = 256;

/// The pool of level-32 chunks below the /24 pivot (SAIL_B and SAIL_U): 256 next-hop words
/// per chunk, chunk `id` at `entries[id * 256..]`; ids of released chunks are reused.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChunkPool<E> {
    pub entries: Vec<E>,
    free: Vec<u32>,
}

impl<E: Entry> ChunkPool<E> {
    /// Heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.entries.capacity() * size_of::<E>() + self.free.capacity() * size_of::<u32>()
    }

    /// Number of chunks in use.
    pub(crate) fn in_use(&self) -> usize {
        self.entries.len() / CHUNK - self.free.len()
    }

    fn alloc(&mut self) -> Result<u32, Overflow> {
        if let Some(id) = self.free.pop() {
            return Ok(id);
        }
        let id = (self.entries.len() / CHUNK) as u32;
        if id > E::MAX_PAYLOAD {
            return Err(Overflow { what: CHUNKS, found: id as u64 + 1 });
        }
        self.entries.resize(self.entries.len() + CHUNK, E::default());
        Ok(id)
    }

    fn release(&mut self, id: u32) {
        self.entries[id as usize * CHUNK..][..CHUNK].fill(E::default());
        self.free.push(id);
    }

    /// Writes the level-32 answers of pivot slot `q` (a /24) into chunk `id`.
    fn fill(&mut self, id: u32, rib: &Rib<u32>, q: Prefix<u32>) {
        let pushed = expand(rib, q, 8, inherited(rib, &q));
        let chunk = &mut self.entries[id as usize * CHUNK..][..CHUNK];
        for (e, h) in chunk.iter_mut().zip(pushed.hops) {
            *e = E::hop(h);
        }
    }

    /// Builds a new chunk for pivot slot `q` and returns the word pointing at it.
    pub(crate) fn build(&mut self, rib: &Rib<u32>, q: Prefix<u32>) -> Result<E, Overflow> {
        let id = self.alloc()?;
        self.fill(id, rib, q);
        Ok(E::chunk(id))
    }

    /// Brings pivot slot `q` (a /24) whose current word is `current` up to date: refills its
    /// chunk (allocating one if needed) when routes longer than /24 lie in it and returns the
    /// chunk word; otherwise releases any chunk it had and returns `None`.
    pub(crate) fn refresh(
        &mut self,
        rib: &Rib<u32>,
        q: Prefix<u32>,
        current: E,
    ) -> Result<Option<E>, Overflow> {
        let had = current.is_chunk().then(|| current.payload());
        if !has_deeper(rib, &q) {
            if let Some(id) = had {
                self.release(id);
            }
            return Ok(None);
        }
        let id = match had {
            Some(id) => id,
            None => self.alloc()?,
        };
        self.fill(id, rib, q);
        Ok(Some(E::chunk(id)))
    }

    /// The 256 words of chunk `id`.
    pub(crate) fn chunk(&self, id: u32) -> &[E] {
        &self.entries[id as usize * CHUNK..][..CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rib(routes: &[(&str, u32)]) -> Rib<u32> {
        routes.iter().map(|&(p, h)| (p.parse().unwrap(), NextHop::from_index(h))).collect()
    }

    #[test]
    fn expansion_paints_longer_over_shorter_and_marks_deeper() {
        let r =
            rib(&[("10.0.0.0/8", 1), ("10.0.0.0/23", 2), ("10.0.1.0/24", 3), ("10.0.2.7/32", 4)]);
        let q: Prefix<u32> = "10.0.0.0/16".parse().unwrap();
        let e = expand(&r, q, 8, inherited(&r, &q));
        let h = |i| NextHop::from_index(i);
        assert_eq!(e.hops[0], Some(h(2)));
        assert_eq!(e.hops[1], Some(h(3)));
        assert_eq!(e.hops[2], Some(h(1)));
        assert_eq!(e.deeper.iter().filter(|&&d| d).count(), 1);
        assert!(e.deeper[2]);
        let slots: Vec<_> = deeper_slots(&r, None, 16).collect();
        assert_eq!(slots, vec![q]);
        assert_eq!(deeper_slots(&r, None, 24).count(), 1);
        assert_eq!(band_hop(&r, &"10.0.1.0/24".parse().unwrap(), 9), Some(h(3)));
        assert_eq!(band_hop(&r, &"10.0.4.0/24".parse().unwrap(), 9), None);
    }
}
