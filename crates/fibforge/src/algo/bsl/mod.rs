//! `bsl`: binary search on prefix lengths (Waldvogel, Varghese, Turner, Plattner, "Scalable
//! High Speed IP Routing Lookups", SIGCOMM 1997), with the controlled prefix expansion of
//! Srinivasan & Varghese 1998 §6 (`cpe-srinivasan-varghese-1998.txt`) as an option.
//!
//! # What is implemented
//!
//! - One hash table per searched length `L1 < … < Ln`. A lookup binary-searches the lengths:
//!   a hit at `Lmid` moves to longer lengths, a miss to shorter ones.
//! - *Markers*: every prefix at `Lj` leaves its first `Lmid` bits in the table of each length
//!   `Lmid < Lj` where the search towards `Lj` turns right, so the search finds it.
//! - *Precomputed best matching prefixes*: every entry (prefix or marker) carries the next hop
//!   of the longest route of length `<= L` covering it, so a hit never backtracks; an entry
//!   that is not a marker stops the search.
//! - Default: the searched lengths are the distinct route lengths. Option `levels=K` (§6.1–
//!   6.2): expand the table to the `K` lengths chosen by the CPE dynamic program
//!   ([`crate::algo::cpe::min_expansion_levels`], fewest expanded prefixes), so the search
//!   takes at most `ceil(log2(K + 1))` probes.
//! - Hash tables that read one cache line per probe (`hash.rs`, "semi-perfect hashing" §6.3).
//!
//! The default route is kept apart (the answer before any probe) and never expanded.
//!
//! # Layout
//!
//! `levels`: one `{len, table}` per searched length; `table` has 32-, 64- or 128-bit keys by
//! `len` (the first `len` address bits), values `MARKER | raw next hop` (`raw = 0`: no route).
//!
//! # Invariants
//!
//! - An entry exists at `L` exactly for the (expanded) prefixes of length `L` and the markers
//!   of longer prefixes; its value's hop is the RIB's longest match among routes of length
//!   `<= L` covering it; `MARKER` is set iff some longer prefix placed it.
//!
//! # Limits
//!
//! Next-hop raw values below 2^31 (bit 31 is the marker flag), else
//! [`BuildError::LimitExceeded`]. With `levels=K` at most [`MAX_ENTRIES`] expanded prefixes.
//! No incremental updates: a change recompiles (markers and precomputed answers of many
//! entries can change with one route). The IPv6 hybrid of §7 (hashing on lengths 32, 64, 96,
//! then tries) is [`hybrid::BslHybrid`] (`bsl_hybrid`).

mod build;
mod hash;
pub mod hybrid;
mod level;
impl BslConfig {
    /// The configuration `spec` names: `levels=K` (expand to K lengths; 0 or absent: every
    /// route length).
    pub fn from_spec(spec: &crate::registry::AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("bsl", &["levels"])?;
        let levels = spec.get_u32("bsl", "levels", 0)?;
        Ok(BslConfig { levels: (levels > 0).then_some(levels) })
    }
}

#[cfg(test)]
mod tests;

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;
use level::Level;

/// Value bit: a longer prefix placed this entry; the search continues right.
const MARKER: u32 = 1 << 31;

/// Largest number of expanded prefixes `levels=K` may produce.
pub const MAX_ENTRIES: u64 = 1 << 26;

/// Build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BslConfig {
    /// Expand to this many lengths chosen by the CPE dynamic program (`None`: search every
    /// distinct route length).
    pub levels: Option<u32>,
}

/// Binary search on prefix lengths; see the module doc.
#[derive(Clone, Debug)]
pub struct Bsl<A: Address> {
    /// Raw next hop of the default route (0: none).
    default: u32,
    levels: Vec<Level<A>>,
}

/// Sizes of a built table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BslStats {
    /// The searched lengths.
    pub lengths: Vec<u32>,
    /// Entries (prefixes and markers) per length.
    pub entries: Vec<usize>,
    /// Markers per length (entries with the marker bit, including prefixes that are markers).
    pub markers: Vec<usize>,
    /// Buckets per length.
    pub buckets: Vec<usize>,
}

impl<A: Address> Bsl<A> {
    /// Sizes of the structure.
    pub fn stats(&self) -> BslStats {
        BslStats {
            lengths: self.levels.iter().map(|l| l.len).collect(),
            entries: self.levels.iter().map(|l| l.entries).collect(),
            markers: self.levels.iter().map(|l| l.markers).collect(),
            buckets: self.levels.iter().map(|l| l.table.buckets()).collect(),
        }
    }

    /// Most probes a lookup makes.
    pub fn max_probes(&self) -> u32 {
        usize::BITS - self.levels.len().leading_zeros()
    }
}

impl<A: Address> Lookup<A> for Bsl<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        let (mut lo, mut hi, mut best) = (0, self.levels.len(), self.default);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let v = self.levels[mid].find(addr);
            if v == 0 {
                hi = mid;
                continue;
            }
            best = v & !MARKER;
            if v & MARKER == 0 {
                break;
            }
            lo = mid + 1;
        }
        NextHop::from_raw(best)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        for (chunk, outs) in addrs.chunks(8).zip(out.chunks_mut(8)) {
            self.batch8(chunk, outs);
        }
    }

    fn memory_bytes(&self) -> usize {
        let tables: usize = self.levels.iter().map(|l| l.table.memory_bytes()).sum();
        size_of::<Self>() + self.levels.capacity() * size_of::<Level<A>>() + tables
    }
}

impl<A: Address> Bsl<A> {
    /// Up to 8 lookups whose binary searches advance together: each round computes every
    /// live search's bucket and prefetches it, then probes them all.
    fn batch8(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        const N: usize = 8;
        let n = addrs.len();
        let mut lo = [0usize; N];
        let mut hi = [self.levels.len(); N];
        let mut best = [self.default; N];
        let mut bucket = [0usize; N];
        loop {
            let mut live = false;
            for i in 0..n {
                if lo[i] < hi[i] {
                    let level = &self.levels[(lo[i] + hi[i]) / 2];
                    bucket[i] = level.bucket_of(addrs[i]);
                    level.table.prefetch(bucket[i]);
                    live = true;
                }
            }
            if !live {
                break;
            }
            for i in 0..n {
                if lo[i] >= hi[i] {
                    continue;
                }
                let mid = (lo[i] + hi[i]) / 2;
                let v = self.levels[mid].find_in(bucket[i], addrs[i]);
                if v == 0 {
                    hi[i] = mid;
                } else {
                    best[i] = v & !MARKER;
                    (lo[i], hi[i]) =
                        if v & MARKER == 0 { (hi[i], hi[i]) } else { (mid + 1, hi[i]) };
                }
            }
        }
        for (o, &b) in out.iter_mut().zip(&best[..n]) {
            *o = NextHop::from_raw(b);
        }
    }
}

impl<A: Address> Compile<A> for Bsl<A> {
    type Config = BslConfig;

    fn compile(rib: &Rib<A>, cfg: &BslConfig) -> Result<Self, BuildError> {
        build::build(rib, cfg)
    }
}
