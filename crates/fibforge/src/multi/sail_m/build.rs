//! Building SAIL_M: the tables pushed together level by level, leaves interned as composites.
//!
//! Every step takes *regions* (prefixes of length `L`, each with the pushed-down answer of every
//! table) and pushes each table's routes `STRIDE` bits further with SAIL's own
//! [`push::expand`]. A slot is a chunk when any table has a longer route inside it (the merged
//! trie's internal nodes); every other slot is a leaf whose per-table answers form a composite,
//! stored once in the composite table. The first step starts from the 256 regions of length 8
//! (their answers: each table's longest route covering them), so the 2^16 top words are the
//! concatenation of their expansions and the working set stays `vrfs × 256` answers.

use crate::addr::Address;
use crate::algo::sail::entry::{CHUNKS, Entry, Overflow};
use crate::algo::sail::push;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::collections::HashMap;

/// SAIL_L's layout: `TOP` bits resolved by the top array, `STRIDE` by each chunk level (the
/// top is two steps from /0); SAIL_M also shares its walk (`final_word`).
pub(super) use crate::algo::sail::{STRIDE, TOP};

/// `"composites"` for overflow errors.
pub(super) const COMPOSITES: &str = "distinct per-table next-hop vectors (composite ids)";

/// The structure before it is narrowed to its word width: 32-bit words, 31-bit payloads.
pub(super) struct Built {
    pub top: Vec<u32>,
    pub levels: Vec<Vec<u32>>,
    /// `composites × vrfs` raw next hops (0: no route).
    pub hops: Vec<u32>,
    pub composites: usize,
}

/// A region waiting for its words, with every table's answer for the region as a whole.
struct Region<A: Address> {
    prefix: Prefix<A>,
    answers: Vec<Option<NextHop>>,
}

/// Distinct composites, each stored once (the paper's per-leaf next-hop arrays, shared).
struct Composites {
    hops: Vec<u32>,
    index: HashMap<Box<[u32]>, u32>,
    last: Option<(Box<[u32]>, u32)>,
}

impl Composites {
    fn new() -> Self {
        Composites { hops: Vec::new(), index: HashMap::new(), last: None }
    }

    /// The id of `raw` (one raw next hop per table), adding it when new. Neighbouring slots
    /// mostly repeat the previous composite, which is checked before hashing.
    fn intern(&mut self, raw: &[u32]) -> Result<u32, Overflow> {
        if let Some((prev, id)) = &self.last
            && **prev == *raw
        {
            return Ok(*id);
        }
        let id = match self.index.get(raw) {
            Some(&id) => id,
            None => {
                let id = self.index.len() as u32;
                if id > <u32 as Entry>::MAX_PAYLOAD {
                    return Err(Overflow { what: COMPOSITES, found: id as u64 + 1 });
                }
                self.hops.extend_from_slice(raw);
                self.index.insert(raw.into(), id);
                id
            }
        };
        self.last = Some((raw.into(), id));
        Ok(id)
    }
}

/// Sub-slot `j` of `region`, `stride` bits down.
pub(super) fn child<A: Address>(region: &Prefix<A>, stride: u32, j: usize) -> Prefix<A> {
    let len = region.len() + stride;
    let addr = region.addr().to_u128() | (j as u128) << (A::BITS - len);
    Prefix::from_parts_unchecked(A::from_u128(addr), len)
}

/// The word of a leaf: composite `id` with the chunk bit clear.
pub(super) fn leaf<E: Entry>(id: u32) -> E {
    E::hop(NextHop::from_raw(id))
}

/// Builds the 32-bit structure; `depth` chunk levels below the top (IPv4: 2, IPv6: 6).
pub(super) fn build<A: Address>(ribs: &[Rib<A>], depth: u32) -> Result<Built, Overflow> {
    let mut comps = Composites::new();
    let root = Prefix::<A>::DEFAULT_ROUTE;
    let eighths: Vec<Region<A>> = (0..1 << STRIDE)
        .map(|j| {
            let prefix = child(&root, STRIDE, j);
            Region { answers: ribs.iter().map(|r| push::inherited(r, &prefix)).collect(), prefix }
        })
        .collect();
    let (top, mut pending) = step(ribs, &eighths, &mut comps)?;
    let mut levels = Vec::with_capacity(depth as usize);
    for _ in 0..depth {
        let (words, below) = step(ribs, &pending, &mut comps)?;
        levels.push(words);
        pending = below;
    }
    debug_assert!(pending.is_empty(), "routes longer than the last level were checked out");
    let composites = comps.index.len();
    Ok(Built { top, levels, hops: comps.hops, composites })
}

/// The words of `regions` pushed one stride down, and the regions of the chunks they point at.
fn step<A: Address>(
    ribs: &[Rib<A>],
    regions: &[Region<A>],
    comps: &mut Composites,
) -> Result<(Vec<u32>, Vec<Region<A>>), Overflow> {
    let mut words = Vec::with_capacity(regions.len() << STRIDE);
    let mut below = Vec::new();
    let mut raw = vec![0u32; ribs.len()];
    for region in regions {
        let exps: Vec<push::Expansion> = ribs
            .iter()
            .zip(&region.answers)
            .map(|(r, &a)| push::expand(r, region.prefix, STRIDE, a))
            .collect();
        for j in 0..1usize << STRIDE {
            if exps.iter().any(|e| e.deeper[j]) {
                let id = below.len() as u32;
                if id > <u32 as Entry>::MAX_PAYLOAD {
                    return Err(Overflow { what: CHUNKS, found: id as u64 + 1 });
                }
                let answers = exps.iter().map(|e| e.hops[j]).collect();
                below.push(Region { prefix: child(&region.prefix, STRIDE, j), answers });
                words.push(<u32 as Entry>::chunk(id));
            } else {
                for (r, e) in raw.iter_mut().zip(&exps) {
                    *r = e.hops[j].map_or(0, NextHop::raw);
                }
                words.push(leaf::<u32>(comps.intern(&raw)?));
            }
        }
    }
    Ok((words, below))
}

/// Re-encodes 32-bit words as `E` words (the caller checked that every payload fits).
pub(super) fn narrow<E: Entry>(words: &[u32]) -> Vec<E> {
    words
        .iter()
        .map(|&w| if w.is_chunk() { E::chunk(w.payload()) } else { leaf(w.payload()) })
        .collect()
}
