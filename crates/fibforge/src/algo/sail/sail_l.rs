//! SAIL_L: routes pushed to levels 16, 24 and 32 (IPv6: on to 64), two or more levels of chunks.
//!
//! Layout: `top` has 2^16 words indexed by the first 16 address bits; `levels[0]` holds the
//! level-24 chunks and `levels[1]` the level-32 chunks (IPv6: `levels[k]` holds the level
//! `24 + 8k` chunks, up to 64), 256 words per chunk, chunk `c` at `[c * 256..]`. A word is a
//! next hop or, with its top bit set, the id of a chunk in the next level (the paper's BCN
//! arrays: `top` is BCN16, `levels[0]` BCN24, the last level N32 holds next hops only).
//! Words are 16 bits with 15-bit payloads as in the paper when the table fits, 32 bits with
//! 31-bit payloads otherwise (see [`super::Width`]).
//!
//! Lookup: `w = top[a >> 16]`; while `w` is a chunk id, `w = levels[k][id * 256 + next 8 bits]`.
//! IPv4 needs at most three memory accesses.
//!
//! Invariants: a slot at level `L` (16, 24, ...) is a chunk exactly when a route longer than
//! `L` lies inside it (chunk existence depends on the routes, not on their next hops: no
//! route aggregation); every other word holds the longest match of its whole slot. A compile
//! assigns chunk ids in address order, level by level; updates (`sail_l_update.rs`) free
//! chunks that no longer hold a longer route (zeroed, their ids kept in `free` and reused
//! first), so afterwards ids follow no order and a level may hold unreferenced free chunks.
//! The last level never holds chunk ids.

use super::dispatch;
use super::entry::{CHUNKS, Config, Entry, Overflow, choose_wide};
use super::push;
use crate::addr::Address;
use crate::algo::prefetch;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::marker::PhantomData;

pub(super) const NAME: &str = "sail_l";
/// Bits resolved by `top`.
pub(crate) const TOP: u32 = 16;
/// Bits resolved by each chunk level.
pub(crate) const STRIDE: u32 = 8;

/// The word that answers `addr` in SAIL_L's layout (SAIL_M's too): `top` by the first `TOP`
/// bits, then a chunk level per `STRIDE` bits while the word names a chunk.
#[inline]
pub(crate) fn final_word<E: Entry, A: Address>(top: &[E], levels: &[Vec<E>], addr: A) -> E {
    let mut w = top[addr.bits(0, TOP) as usize];
    let mut pos = TOP;
    for chunks in levels {
        if !w.is_chunk() {
            break;
        }
        w = chunks[(w.payload() as usize) << STRIDE | addr.bits(pos, STRIDE) as usize];
        pos += STRIDE;
    }
    w
}

/// The longest route length SAIL_L represents: /32 for IPv4, /64 for IPv6 (as the paper).
#[doc(hidden)]
pub const fn max_len<A: Address>() -> u32 {
    if A::BITS == 32 { 32 } else { 64 }
}

/// SAIL_L for IPv4 and IPv6 up to /64 (Yang et al., SIGCOMM 2014, §4: lookup-oriented
/// optimisation; the variant the Poptrie paper compares against).
#[derive(Clone, Debug)]
pub struct SailL<A: Address> {
    pub(super) tables: Tables<A>,
    /// How the last update was applied (`"in place"` or `"rebuild"`), for reports.
    pub(super) last_path: &'static str,
}

/// The arrays in 16-bit or 32-bit words (`export.rs` reads and builds them too).
#[derive(Clone, Debug)]
pub(super) enum Tables<A: Address> {
    Narrow(Core<A, u16>),
    Wide(Core<A, u32>),
}

#[derive(Clone, Debug)]
pub(super) struct Core<A, E> {
    pub(super) top: Vec<E>,
    pub(super) levels: Vec<Vec<E>>,
    /// Per chunk level, the ids of chunks freed by updates (zeroed, reused first).
    pub(super) free: Vec<Vec<u32>>,
    pub(super) family: PhantomData<A>,
}

/// A region waiting for its chunk: the slot and its pushed-down answer.
type Pending<A> = Vec<(Prefix<A>, Option<NextHop>)>;

/// Sub-slot `j` of `region` one stride down.
pub(super) fn child<A: Address>(region: &Prefix<A>, stride: u32, j: usize) -> Prefix<A> {
    let len = region.len() + stride;
    let addr = region.addr().to_u128() | (j as u128) << (A::BITS - len);
    Prefix::from_parts_unchecked(A::from_u128(addr), len)
}

impl<A: Address, E: Entry> Core<A, E> {
    pub(super) fn build(rib: &Rib<A>) -> Result<Self, Overflow> {
        let root = Prefix::DEFAULT_ROUTE;
        let mut pending: Pending<A> = Vec::new();
        let top = Self::words(rib, root, TOP, push::inherited(rib, &root), &mut pending)?;
        let depth = (max_len::<A>() - TOP) / STRIDE;
        let mut levels = Vec::with_capacity(depth as usize);
        for _ in 0..depth {
            let mut below: Pending<A> = Vec::new();
            let mut words = Vec::with_capacity(pending.len() << STRIDE);
            for &(region, answer) in &pending {
                words.extend(Self::words(rib, region, STRIDE, answer, &mut below)?);
            }
            levels.push(words);
            pending = below;
        }
        Ok(Core::new(top, levels))
    }

    /// The arrays as given, with no freed chunks.
    pub(super) fn new(top: Vec<E>, levels: Vec<Vec<E>>) -> Self {
        let free = vec![Vec::new(); levels.len()];
        Core { top, levels, free, family: PhantomData }
    }

    /// The words of `region` pushed `stride` levels down (`answer`: the region's own longest
    /// match). Slots holding longer routes become chunks: they are appended to `below` with
    /// their pushed-down answer, and their word is the new chunk's id.
    fn words(
        rib: &Rib<A>,
        region: Prefix<A>,
        stride: u32,
        answer: Option<NextHop>,
        below: &mut Pending<A>,
    ) -> Result<Vec<E>, Overflow> {
        let exp = push::expand(rib, region, stride, answer);
        let mut out = Vec::with_capacity(exp.hops.len());
        for (j, (&hop, &deeper)) in exp.hops.iter().zip(&exp.deeper).enumerate() {
            if !deeper {
                out.push(E::hop(hop));
                continue;
            }
            let id = below.len();
            if id > E::MAX_PAYLOAD as usize {
                return Err(Overflow { what: CHUNKS, found: id as u64 + 1 });
            }
            below.push((child(&region, stride, j), hop));
            out.push(E::chunk(id as u32));
        }
        Ok(out)
    }

    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        final_word(&self.top, &self.levels, addr).next_hop()
    }

    /// Groups of 16 addresses walk down together: each level's entries are prefetched for the
    /// whole group before any is read.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        const G: usize = 16;
        for (group, res) in addrs.chunks(G).zip(out.chunks_mut(G)) {
            let mut words = [E::default(); G];
            for &a in group {
                prefetch::read(&self.top, a.bits(0, TOP) as usize);
            }
            for (w, &a) in words.iter_mut().zip(group) {
                *w = self.top[a.bits(0, TOP) as usize];
            }
            let mut pos = TOP;
            for chunks in &self.levels {
                let mut at = [usize::MAX; G];
                let mut any = false;
                for ((i, &w), &a) in at.iter_mut().zip(&words).zip(group) {
                    if w.is_chunk() {
                        *i = (w.payload() as usize) << STRIDE | a.bits(pos, STRIDE) as usize;
                        prefetch::read(chunks, *i);
                        any = true;
                    }
                }
                if !any {
                    break;
                }
                for (w, &i) in words.iter_mut().zip(&at) {
                    if i != usize::MAX {
                        *w = chunks[i];
                    }
                }
                pos += STRIDE;
            }
            for (o, w) in res.iter_mut().zip(words) {
                *o = w.next_hop();
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        let chunks: usize = self.levels.iter().map(|l| l.capacity() * size_of::<E>()).sum();
        let free: usize = self.free.iter().map(|f| f.capacity() * size_of::<u32>()).sum();
        self.top.capacity() * size_of::<E>()
            + chunks
            + free
            + self.levels.capacity() * size_of::<Vec<E>>()
    }

    fn chunk_counts(&self) -> Vec<usize> {
        self.levels.iter().zip(&self.free).map(|(l, f)| (l.len() >> STRIDE) - f.len()).collect()
    }
}

impl<A: Address> SailL<A> {
    /// The structure holding `tables`, not yet updated.
    pub(super) fn new(tables: Tables<A>) -> Self {
        SailL { tables, last_path: "compile" }
    }

    /// Chunks in use per level (level 24 first).
    #[doc(hidden)]
    pub fn chunk_counts(&self) -> Vec<usize> {
        dispatch!(&self.tables, t => t.chunk_counts())
    }

    /// Bytes of the level-16 array (the paper's BCN16), the part of this layout the paper
    /// keeps on chip. The paper also keeps a 2^24-bit bitmap B24 on chip; here the chunk
    /// flag of each level-24 word plays its part, so it is off chip with the chunks.
    #[doc(hidden)]
    pub fn on_chip_bytes(&self) -> usize {
        dispatch!(&self.tables, t => std::mem::size_of_val(&t.top[..]))
    }

    /// The word width in bits (16 or 32).
    #[doc(hidden)]
    pub fn width_bits(&self) -> u32 {
        match self.tables {
            Tables::Narrow(_) => 16,
            Tables::Wide(_) => 32,
        }
    }
}

/// The first route (in address order) longer than SAIL_L can represent, as an error.
pub(super) fn check_lengths<A: Address>(rib: &Rib<A>) -> Result<(), BuildError> {
    match rib.iter().find(|(p, _)| p.len() > max_len::<A>()) {
        None => Ok(()),
        Some((p, _)) => Err(BuildError::Unsupported {
            algo: NAME,
            reason: format!(
                "prefix {p} is longer than /{}: SAIL supports {} prefixes up to /{} only",
                max_len::<A>(),
                A::FAMILY,
                max_len::<A>()
            ),
        }),
    }
}

impl<A: Address> Lookup<A> for SailL<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        dispatch!(&self.tables, t => t.lookup(addr))
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        dispatch!(&self.tables, t => t.lookup_batch(addrs, out))
    }
    fn memory_bytes(&self) -> usize {
        dispatch!(&self.tables, t => t.memory_bytes())
    }
}

impl<A: Address> Compile<A> for SailL<A> {
    type Config = Config;
    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        check_lengths(rib)?;
        let pivots: Vec<u32> = (TOP..max_len::<A>()).step_by(STRIDE as usize).collect();
        let tables = if choose_wide(NAME, cfg.width, push::demand(rib, &pivots))? {
            Tables::Wide(Core::build(rib).map_err(|o| o.into_error::<u32>(NAME))?)
        } else {
            Tables::Narrow(Core::build(rib).map_err(|o| o.into_error::<u16>(NAME))?)
        };
        Ok(SailL::new(tables))
    }
}
