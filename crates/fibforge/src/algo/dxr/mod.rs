//! `dxr16`, `dxr18`: DXR (Zec, Rizzo, Mikuc, "DXR: Towards a Billion Routing Lookups per
//! Second in Software", ACM SIGCOMM CCR 42(5), 2012: the D16R and D18R schemes), for IPv4 and,
//! as extended for the comparison of the Poptrie paper (Asai & Ohara, SIGCOMM 2015, §4.10),
//! for IPv6.
//!
//! The RIB is turned into its *range partition*: the address space as consecutive runs of
//! addresses sharing one longest match ([`Rib::ranges`]). The top `k` address bits (16 or 18)
//! index a direct table; a chunk (the addresses sharing those bits) covered by one range is
//! answered by the direct entry, any other chunk by a binary search in its own slice of a range
//! table.
//!
//! # Layout
//!
//! - `direct`: 2^k `u32` entries, indexed by the top `k` address bits.
//!   - bit 31 clear: a leaf; bits 0–30 are the raw next hop ([`NextHop::raw`], 0 = no route)
//!     of the whole chunk.
//!   - bit 31 set: a descriptor. Bit 30 is the format (1 = short, 0 = long). Bits 0–29 hold
//!     `base` in their low `base_bits` bits and `size` above it. `base` is the index of the
//!     chunk's first range in the format's array, `size` the number of its ranges. When
//!     `size` is all ones (`size_max`), the descriptor is *wide*: `base` indexes `wide`, which
//!     holds the real `(base, size)` pair.
//! - `short` (IPv4 only): one `u32` per range, `(low 16 address bits of the start) << 16 |
//!   raw next hop`; used for a chunk when all its raw next hops are below 2^16 (the chunk
//!   offset has 32 − k ≤ 16 bits, and the chunk's ranges share the bits above them).
//! - `long_starts` / `long_hops`: the first address and raw next hop of each range of the
//!   other chunks, in two parallel arrays so that the binary search touches only starts
//!   (4 bytes each for IPv4, 16 for IPv6).
//! - `wide`: `(base, size)` of the chunks whose size does not fit the descriptor.
//!
//! The first range of every chunk starts at the chunk's first address (ranges are clipped),
//! so the binary search for "last start ≤ address" always finds one.
//!
//! # Differences from the paper
//!
//! The original descriptor has fixed fields (19-bit base, 12-bit size, 1 format bit: the
//! limits the Poptrie paper reports in §4.8 and §4.10), which caps a table at 2^19 ranges and a
//! chunk at 4,095 ranges, and its range entries have narrow next-hop fields. Here:
//! - the split between `base` and `size` is chosen per table: `base_bits` is the smallest
//!   width that holds every base (and every `wide` index), `size` gets the remaining
//!   `30 − base_bits` bits, and larger chunks go through `wide`. So the structure holds up
//!   to 2^28 entries per range array with no limit per chunk; beyond 2^28 compilation fails
//!   with [`BuildError::LimitExceeded`] naming the limit (that is over a billion bytes of
//!   ranges, far past any real table);
//! - short entries are 16-bit start + 16-bit next hop, long entries a full start + 32-bit
//!   next hop, so next hops are never capped; a leaf holds raw next hops below 2^31, and a
//!   chunk answered by a larger one is stored as a one-range descriptor instead;
//! - IPv6 (the Poptrie paper's extension) uses only the long format, with 128-bit starts.
//!
//! # Invariants
//!
//! - Every address's answer is the RIB's longest match.
//! - A chunk is a leaf exactly when one range covers it and its raw next hop is below 2^31.
//! - The ranges of a descriptor are sorted by start, start inside the chunk (the first at its
//!   first address), and adjacent ranges have different next hops.
//!
//! # Limits
//!
//! `k` is 16 or 18 by the names (any value in 8..=24 through the `k` option); the short format
//! needs `k ≥ 16` and IPv4. Up to 2^28 ranges in each of the short and long arrays.
//! Updates ([`crate::Incremental`], `update.rs`) re-cut only the chunks a changed route
//! covers, as FreeBSD's DXR does; updates may leave dead entries in the range arrays (counted
//! in [`DxrStats`]'s range counts until a rebuild compacts them).

mod build;
mod lookup;
mod update;
impl Config {
    /// The configuration `spec` names: `dxr16` or `dxr18`, options `short=on|off` (the short
    /// range format, IPv4 only) and `k=N` (direct-table bits, overriding the name's).
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        let (name, k) = if spec.name == "dxr18" { ("dxr18", 18) } else { ("dxr16", 16) };
        spec.check_options(name, &["short", "k"])?;
        Ok(Config { k: spec.get_u32(name, "k", k)?, short: spec.get_bool(name, "short", true)? })
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_update;

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;

/// Bit 31 of a direct entry: a descriptor, not a leaf.
const DESCRIPTOR: u32 = 1 << 31;
/// Bit 30 of a descriptor: its ranges are in the short array.
const SHORT: u32 = 1 << 30;
/// Bits 0–29 of a descriptor: `base` and `size`.
const FIELDS: u32 = SHORT - 1;
/// Bits shared by `base` and `size`.
const FIELD_BITS: u32 = 30;
/// The fewest bits left to `size`: base indices are capped at 2^(30 − this).
const MIN_SIZE_BITS: u32 = 2;

/// Build options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Bits of the direct table index (16 for D16R, 18 for D18R).
    pub k: u32,
    /// Use the short range format where it fits (IPv4 only; ignored for IPv6).
    pub short: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { k: 16, short: true }
    }
}

impl Config {
    /// D16R or D18R with the paper's short format.
    #[doc(hidden)]
    pub fn with_k(k: u32) -> Self {
        Config { k, short: true }
    }
}

/// The DXR lookup structure for addresses `A`.
#[derive(Clone)]
pub struct Dxr<A: Address> {
    /// Bits of the direct table index.
    k: u32,
    /// Low bits of a descriptor's fields holding `base`.
    base_bits: u32,
    /// `(1 << base_bits) - 1`.
    base_mask: u32,
    /// The `size` value meaning "wide": all ones in `30 - base_bits` bits.
    size_max: u32,
    /// One entry per chunk: a leaf or a descriptor.
    direct: Box<[u32]>,
    /// Short ranges: `start_low16 << 16 | raw hop`.
    short: Vec<u32>,
    /// Long ranges: first addresses.
    long_starts: Vec<A>,
    /// Long ranges: raw next hops.
    long_hops: Vec<u32>,
    /// `(base, size)` of chunks too large for a descriptor's `size`.
    wide: Vec<(u32, u32)>,
    /// Whether chunks may use the short format (the option, IPv4, `k >= 16`).
    use_short: bool,
    /// Range entries (short and long) left unused by updates (see `update.rs`).
    dead: usize,
    /// How the last update was applied, for reports.
    last_path: &'static str,
}

impl<A: Address> std::fmt::Debug for Dxr<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dxr")
            .field("k", &self.k)
            .field("base_bits", &self.base_bits)
            .field("short_ranges", &self.short.len())
            .field("long_ranges", &self.long_starts.len())
            .field("wide", &self.wide.len())
            .finish()
    }
}

/// Counts describing a built structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[doc(hidden)]
pub struct DxrStats {
    /// Chunks answered by their direct entry.
    pub leaves: usize,
    /// Ranges in short format.
    pub short_ranges: usize,
    /// Ranges in long format.
    pub long_ranges: usize,
    /// Chunks whose size does not fit a descriptor.
    pub wide_chunks: usize,
    /// Bits of a descriptor holding `base`.
    pub base_bits: u32,
}

impl<A: Address> Dxr<A> {
    /// Counts of leaves, ranges per format and wide chunks.
    #[doc(hidden)]
    pub fn stats(&self) -> DxrStats {
        DxrStats {
            leaves: self.direct.iter().filter(|&&e| e & DESCRIPTOR == 0).count(),
            short_ranges: self.short.len(),
            long_ranges: self.long_starts.len(),
            wide_chunks: self.wide.len(),
            base_bits: self.base_bits,
        }
    }
}

impl<A: Address> Lookup<A> for Dxr<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.lookup_one(addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.lookup_many(addrs, out)
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(&*self.direct)
            + self.short.capacity() * 4
            + self.long_starts.capacity() * std::mem::size_of::<A>()
            + self.long_hops.capacity() * 4
            + self.wide.capacity() * 8
    }
}

impl<A: Address> Compile<A> for Dxr<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        if !(8..=24).contains(&cfg.k) {
            return Err(BuildError::BadOption {
                algo: "dxr",
                option: format!("k={}", cfg.k),
                reason: "the direct table index must have 8 to 24 bits".into(),
            });
        }
        build::build(rib, cfg, 0)
    }
}
