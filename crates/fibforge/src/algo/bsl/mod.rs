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
//! - Option `lengths=L1/L2/…`: expand to these lengths instead (Table 11's `(16,24,32)`).
//! - Hash tables that read one cache line per probe (`hash.rs`, "semi-perfect hashing" §6.3).
//! - Option `first=array` (§6.3, "the first 16-17 bit table is implemented as a full
//!   array"): the table of the shortest searched length becomes a direct-indexed array
//!   (`array.rs`) holding the same values, so only that probe changes; allowed while that
//!   length is at most [`MAX_ARRAY_BITS`].
//!
//! The default route is kept apart (the answer before any probe) and never expanded.
//!
//! # Layout
//!
//! `levels`: one `{len, table}` per searched length; `table` has 32-, 64- or 128-bit keys by
//! `len` (the first `len` address bits), values `MARKER | raw next hop` (`raw = 0`: no route);
//! with `first=array` the first level's `table` is an array of `2^len` such values.
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

mod array;
mod build;
mod hash;
pub mod hybrid;
mod level;
impl Config {
    /// The configuration `spec` names: `levels=K` (expand to K lengths; 0 or absent: every
    /// route length), `lengths=L1/L2/…` (expand to these lengths), `first=hash|array`.
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("bsl", &["levels", "lengths", "first"])?;
        let levels = spec.get_u32("bsl", "levels", 0)?;
        let lengths = spec.options.get("lengths").map(|v| parse_lengths(v)).transpose()?;
        if levels > 0 && lengths.is_some() {
            let reason = "give levels or lengths, not both".into();
            return Err(BuildError::BadOption { algo: "bsl", option: "lengths".into(), reason });
        }
        let first = match spec.options.get("first").map(String::as_str) {
            None | Some("hash") => FirstLevel::Hash,
            Some("array") => FirstLevel::Array,
            Some(v) => return Err(bad_option("first", v, "expected hash or array")),
        };
        Ok(Config { levels: (levels > 0).then_some(levels), lengths, first })
    }
}

/// `L1/L2/…` as lengths (their order and range are checked when building).
fn parse_lengths(v: &str) -> Result<Vec<u32>, BuildError> {
    let bad = || bad_option("lengths", v, "expected lengths like 16/24/32");
    v.split('/').map(|l| l.trim().parse().map_err(|_| bad())).collect()
}

fn bad_option(key: &str, value: &str, reason: &str) -> BuildError {
    BuildError::BadOption { algo: "bsl", option: format!("{key}={value}"), reason: reason.into() }
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

/// Largest number of expanded prefixes `levels=K` or `lengths=…` may produce.
#[doc(hidden)]
pub const MAX_ENTRIES: u64 = 1 << 26;

/// Longest first searched length `first=array` accepts: its array has `2^len` 4-byte slots,
/// so 20 bits bound it at 4 MiB (the paper's array is 16–17 bits).
#[doc(hidden)]
pub const MAX_ARRAY_BITS: u32 = 20;

/// Build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Expand to this many lengths chosen by the CPE dynamic program (`None`: search every
    /// distinct route length).
    pub levels: Option<u32>,
    /// Expand to exactly these lengths (strictly increasing; exclusive with `levels`).
    pub lengths: Option<Vec<u32>>,
    /// How the table of the shortest searched length is stored.
    pub first: FirstLevel,
}

/// How the table of the shortest searched length is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FirstLevel {
    /// A one-line-per-probe hash table, like every other length.
    #[default]
    Hash,
    /// A full array indexed by the first `len` bits (§6.3); `len <= MAX_ARRAY_BITS`.
    Array,
}

/// Binary search on prefix lengths; see the module doc.
#[derive(Clone, Debug)]
pub struct Bsl<A: Address> {
    /// Raw next hop of the default route (0: none).
    default: u32,
    levels: Vec<Level<A>>,
    /// See [`BslStats::hash_time`].
    hash_time: std::time::Duration,
}

/// Sizes of a built table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct BslStats {
    /// The searched lengths.
    pub lengths: Vec<u32>,
    /// Entries (prefixes and markers) per length.
    pub entries: Vec<usize>,
    /// Markers per length (entries with the marker bit, including prefixes that are markers).
    pub markers: Vec<usize>,
    /// Buckets per length (slots for an array level).
    pub buckets: Vec<usize>,
    /// Bytes per length's table.
    pub bytes: Vec<usize>,
    /// Whether the first length is a full array.
    pub first_array: bool,
    /// Time the build spent building the hash tables, finding their per-group seeds included
    /// (the paper's "time to find hash", Table 11).
    pub hash_time: std::time::Duration,
}

impl<A: Address> Bsl<A> {
    /// Sizes of the structure.
    #[doc(hidden)]
    pub fn stats(&self) -> BslStats {
        BslStats {
            lengths: self.levels.iter().map(|l| l.len).collect(),
            entries: self.levels.iter().map(|l| l.entries).collect(),
            markers: self.levels.iter().map(|l| l.markers).collect(),
            buckets: self.levels.iter().map(|l| l.table.buckets()).collect(),
            bytes: self.levels.iter().map(|l| l.table.memory_bytes()).collect(),
            first_array: self.levels.first().is_some_and(|l| l.is_array()),
            hash_time: self.hash_time,
        }
    }

    /// Most probes a lookup makes.
    #[doc(hidden)]
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
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        build::build(rib, cfg)
    }
}
