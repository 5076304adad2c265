//! `bloom_naive`, `bloom_base`, `bloomfwd`: longest-prefix match with Bloom filters and hash
//! tables, after Lucchesi, Drummond & Teodoro, *Bloomfwd* (2018), built on Dharmapurikar et al.'s
//! LPM with Bloom filters.
//!
//! # The three algorithms (one engine, three configurations)
//!
//! All three are a [`BloomFib`]: a list of *levels*, longest first, each a counting Bloom filter
//! (`counting.rs`) in front of a hash table (`table.rs`) of keys of one length (an address
//! truncated to that length) → next hop, then either a direct lookup array or the default route.
//! A lookup probes the levels longest first; a level's table is read only when its filter says
//! the key may be there (false positives cost a table miss, never a wrong answer).
//!
//! - **`bloom_naive`** (§3.1, Algorithms 1–2): one level per prefix length present (no
//!   expansion), *symmetric* filters (all sized for the most populated length), independent
//!   hashing (`k` seeded Murmur evaluations for the filter plus one for the table), the default
//!   route in a separate field. [`Config::naive`].
//! - **`bloom_base`** (§3.2): *asymmetric* filters sized per level from its key count and the
//!   target false-positive rate (eq. 1–3: `m = n·lg(1/f)/ln 2`, `k = ⌈lg(1/f)⌉`), counting
//!   filters so routes can be deleted, and for IPv4 controlled prefix expansion into a direct
//!   lookup array for lengths ≤ 20 (2^20 next hops) and two groups G1 = 21–24 → /24 and
//!   G2 = 25–32 → /32 with prefix capture (`expand.rs`); lookup order G2, G1, array. IPv6 keeps
//!   one level per present length. Independent hashing. [`Config::baseline`].
//! - **`bloomfwd`** (§4.1–4.3): the baseline with the paper's hash optimisations — a chosen
//!   base function (H2 = Algorithm 3, MurmurHash3 specialised to 32/64-bit keys, or Knuth's
//!   multiplicative hash; option `hash=`), double hashing `g_i = a + i·b` from one pair, reuse
//!   of `a` to address the level's table, the false-positive rate as a parameter (`fpr=`),
//!   SIMD batch hashing (`simd.rs` for IPv4 keys, `simd64.rs` for IPv6 keys; AVX2/AVX-512
//!   chosen at run time), and for IPv6 the DPCPE expansion ([`dpcpe`],
//!   option `levels=n`, default 5 as the paper found best; `levels=0`: one level per length).
//!   Defaults: `fpr=0.3`, `hash=h2` for IPv4 and `hash=murmur` for IPv6 (the paper's choices,
//!   §6.2). [`Config::default`].
//!
//! # Engineering choices the paper leaves open
//!
//! - **Batch lookups in stages** (`batch.rs`): the paper parallelises across addresses with
//!   threads and vectorises the hashing; on an out-of-order CPU the cost is memory latency, so
//!   `lookup_batch` moves 64 addresses through each level together — hash all (SIMD), prefetch
//!   all filter words, test all filter bits, prefetch the table slots of the hits, read them —
//!   and overlaps the next level's filter loads with this level's table reads. Single lookups
//!   start the direct-array load first and test all `k` bits of a filter without an early
//!   exit (independent loads, no branch per bit). Before this, batches spent most of their
//!   time waiting on table slots and the direct array one address at a time
//!   (`docs/lab/bloom.md`).
//! - **Table home slot** = top bits of `a · odd constant` rather than of `a` itself
//!   (`table.rs`): the filter also uses the top bits of `a`, so without the multiply a false
//!   positive tends to land on an occupied probe run.
//! - **Tables are sized for their own keys** in every variant; "symmetric" (naive) applies to
//!   the filters only.
//! - **Huge pages**: tables, filter bit vectors and the direct array are advised
//!   `MADV_HUGEPAGE` on Linux (`algo/huge.rs`), since almost every table probe would otherwise
//!   also miss the TLB.
//! - The counting filter keeps its 8-bit counters in a separate array that lookups never read
//!   (the bit vector is the "plain filter derived from it").
//!
//! Multi-threaded batches with dynamic scheduling (§4.3.1): [`lookup_parallel`] (rayon, work
//! stealing over small chunks). Not implemented: the paper's CPU + Xeon Phi cooperative
//! execution and PCIe double buffering (§4.4) need a coprocessor this machine does not have;
//! they are left out rather than imitated.
//!
//! # Memory layout
//!
//! Per level: the filter's bit vector (`⌈m/64⌉` words, the only part lookups read before a hit)
//! and its `m` 8-bit counters (updates only); the table, a power-of-two array of `(key, hop)`
//! slots, load ≤ 1/2 (8-byte slots for IPv4; for IPv6 16-byte slots holding the top 64 bits
//! of the key at levels ≤ 64 and 32-byte slots above, `key_table.rs`). IPv4 with expansion adds the
//! direct array (2^20 × 4 bytes = 4 MiB of raw next-hop ids, 0 = no route).
//!
//! # Invariants
//!
//! - Level lengths are the plan's expansion lengths; a level of length `q` holds exactly the
//!   keys of its group `(lo, q]` after expansion with capture, each with the next hop of the
//!   longest route of the group covering it; `lo` is the previous level (or the direct array's
//!   width, or 0).
//! - Every key in a table has all its filter bits set (counters > 0), so no false negatives.
//! - The direct array entry `i` holds the longest route of length ≤ 20 covering the `/20` `i`.
//! - After [`Incremental::apply_changes`](crate::Incremental::apply_changes) every lookup answers
//!   as a fresh compile would (the filters may differ in size: they only grow).
//!
//! # Structural limits
//!
//! Filters have at most 2^32 − 1 bits (indices come from 32-bit hashes); the expansion may
//! create at most [`Config::max_keys`] keys (default [`MAX_KEYS`] = 2^28) (else `BuildError::LimitExceeded`, e.g. IPv6 with too few
//! DPCPE levels). Next hops are stored as raw 32-bit ids: no cap. An update whose expansion
//! would exceed 2^20 keys, a route longer than the longest level, or a new length in a
//! structure without expansion triggers a full rebuild.

mod batch;
mod build;
pub(crate) mod counting;
#[doc(hidden)]
pub mod dpcpe;
pub(crate) mod expand;
mod export;
pub(crate) mod hash;
mod key;
pub(crate) mod key_table;
mod level;
mod lookup;
pub(crate) mod simd;
pub(crate) mod simd64;
mod stats;
pub(crate) mod table;
mod update;

impl Config {
    /// The configuration `spec` names: `bloom_naive`, `bloom_base` or `bloomfwd` with options
    /// `fpr=F`, `hash=h2|murmur|knuth`, `levels=N` (DPCPE levels; 0 = one level per length)
    /// and `cpe=on|off` (IPv4 /20+/24+/32 grouping).
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, crate::BuildError> {
        let (name, mut cfg) = match spec.name.as_str() {
            "bloom_naive" => ("bloom_naive", Config::naive()),
            "bloom_base" => ("bloom_base", Config::baseline()),
            _ => ("bloomfwd", Config::default()),
        };
        spec.check_options(name, &["fpr", "hash", "levels", "cpe", "isa"])?;
        cfg.isa = Isa::from_option(name, spec)?;
        cfg.fpr = spec.get_f64(name, "fpr", cfg.fpr)?;
        if let Some(h) = spec.options.get("hash") {
            let bad = || crate::spec::bad(name, "hash", h, "expected h2, murmur or knuth");
            cfg.hash = Some(HashFn::parse(h).ok_or_else(bad)?);
        }
        if spec.options.contains_key("levels") {
            cfg.expansion = match spec.get_u32(name, "levels", 0)? {
                0 => Expansion::None,
                n => Expansion::Levels(n as usize),
            };
        }
        if spec.options.contains_key("cpe") {
            let on = spec.get_bool(name, "cpe", true)?;
            cfg.expansion = if on { Expansion::Ipv4Groups } else { Expansion::None };
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_export;

pub use expand::{expanded_count, group_rib};
pub use hash::HashFn;
pub use key::BloomKey;
pub use lookup::lookup_parallel;
pub use stats::ProbeStats;

use crate::cpu::Isa;
use crate::nexthop::NextHop;
use hash::Scheme;
use level::Level;

/// The most keys an expansion may create.
#[doc(hidden)]
pub const MAX_KEYS: u128 = 1 << 28;

/// Which of the paper's algorithms a configuration describes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// §3.1: one level per length, symmetric filters, independent hashes.
    Naive,
    /// §3.2: asymmetric counting filters, IPv4 expansion, independent hashes.
    Baseline,
    /// §4: Bloomfwd, double hashing with a chosen function, hash reuse, DPCPE for IPv6.
    Bloomfwd,
}

/// How routes are grouped into levels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Expansion {
    /// The variant's choice for the family: IPv4 → [`Expansion::Ipv4Groups`] except naive;
    /// IPv6 → `Levels(5)` for Bloomfwd, `None` otherwise.
    FamilyDefault,
    /// One level per present length.
    None,
    /// IPv4 only: direct array for ≤ 20, G1 = 21–24 → /24, G2 = 25–32 → /32.
    Ipv4Groups,
    /// DPCPE with this many levels.
    Levels(usize),
}

/// Build parameters of a [`BloomFib`]; `Default` is Bloomfwd.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Which algorithm.
    pub variant: Variant,
    /// Target false-positive rate of each filter, in (0, 1).
    pub fpr: f64,
    /// Double hashing with this function; `None`: the family default for Bloomfwd (H2 for
    /// IPv4, Murmur for IPv6) and independent seeded hashing for naive and baseline.
    pub hash: Option<HashFn>,
    /// Level grouping.
    pub expansion: Expansion,
    /// The most keys the expansion may create (default [`MAX_KEYS`]).
    pub max_keys: u128,
    /// The batch hashing's instruction set; `None` detects it ([`Isa::detect`]).
    pub isa: Option<Isa>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            variant: Variant::Bloomfwd,
            fpr: 0.3,
            hash: None,
            expansion: Expansion::FamilyDefault,
            max_keys: MAX_KEYS,
            isa: None,
        }
    }
}

impl Config {
    /// `bloom_naive`.
    #[doc(hidden)]
    pub fn naive() -> Self {
        Config { variant: Variant::Naive, expansion: Expansion::None, ..Default::default() }
    }

    /// `bloom_base`.
    #[doc(hidden)]
    pub fn baseline() -> Self {
        Config { variant: Variant::Baseline, ..Default::default() }
    }
}

/// The resolved grouping: optional direct array width and level lengths (ascending).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Plan {
    direct_bits: u32,
    levels: Vec<u32>,
    /// Whether a route of a length that is not a level may be expanded into the next level
    /// (false for one-level-per-length structures: such a route forces a rebuild).
    expand_new: bool,
}

/// The Bloom-filter LPM structure (naive, baseline or Bloomfwd by configuration).
#[derive(Clone, Debug)]
pub struct BloomFib<A: BloomKey> {
    /// Levels, longest first.
    levels: Vec<Level<A>>,
    /// Direct lookup array indexed by the first `plan.direct_bits` bits (empty when none).
    direct: Vec<u32>,
    /// The default route, when there is no direct array.
    default: Option<NextHop>,
    plan: Plan,
    scheme: Scheme,
    /// The batch hashing's instruction set (resolved from `cfg.isa` at build time).
    isa: Isa,
    cfg: Config,
}

/// Bloomfwd (the default configuration of [`BloomFib`]).
pub type Bloomfwd<A> = BloomFib<A>;

/// One level as reported by [`BloomFib::levels`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct LevelInfo {
    /// Key length.
    pub len: u32,
    /// Keys stored.
    pub keys: usize,
    /// Filter bits.
    pub m: u32,
    /// Hashes per key.
    pub k: u32,
}

impl<A: BloomKey> BloomFib<A> {
    /// The configuration it was built with.
    #[doc(hidden)]
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Its levels, longest first.
    #[doc(hidden)]
    pub fn levels(&self) -> Vec<LevelInfo> {
        self.levels
            .iter()
            .map(|l| LevelInfo {
                len: l.len(),
                keys: l.keys(),
                m: l.filter().m(),
                k: l.filter().k(),
            })
            .collect()
    }

    /// Width of the direct lookup array in bits (0: none).
    #[doc(hidden)]
    pub fn direct_bits(&self) -> u32 {
        self.plan.direct_bits
    }
}
