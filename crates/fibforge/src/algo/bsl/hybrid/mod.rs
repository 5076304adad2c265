//! `bsl_hybrid`: the IPv6 combination of Srinivasan & Varghese 1998 §7
//! (`cpe-srinivasan-varghese-1998.txt`): binary search with hashing on lengths 32, 64 and 96,
//! then a multibit trie over the 32 bits left (lengths 0–32, 32–64, 64–96 or 96–128).
//!
//! # Lookup
//!
//! 1. Probe the hash table of length 64 with the address's first 64 bits. A hit probes the
//!    table of length 96, a miss the table of length 32. The deepest hit `L` (0 when both
//!    probes miss) names the *band* `(L, L + 32]`; its value is the root entry of that band's
//!    trie for the address's first `L` bits. Every lookup makes exactly two probes.
//! 2. Walk that leaf-pushed trie (§4.3; strides `stride` bits, 32/stride levels) from bit `L`
//!    to its final answer.
//!
//! # Layout
//!
//! - `t32`, `t64`, `t96`: one-line-per-probe hash tables (`bsl/hash.rs`, the "semi-perfect
//!   hashing" of §6.3) with 32-, 64- and 128-bit keys and `u32` values.
//! - `nodes`: every band trie in one leaf-pushed arena (`crate::algo::multibit`): entries are
//!   a child pointer (bit 31) or a next-hop raw id; `root` is the entry of band 0.
//! - A hash value is a trie root entry (a pointer) or, for a key whose band holds no route,
//!   `LEAF | raw` (the best match of length `<= L`; `raw = 0`: none). `LEAF` (bit 30) keeps
//!   such values non-zero; trie answers never carry it, so a lookup clears it at the end.
//!
//! # Invariants
//!
//! - `t96` holds a key `K` (96 bits) iff some route of length in `(96, 128]` extends `K`;
//!   `t32` likewise for routes of length in `(32, 64]`; `t64` iff some route longer than 64
//!   extends `K` (a *marker* for the search towards 96 when none lies in `(64, 96]`).
//!   Thus a hit at 64 means no route of length in `(32, 64]` beats the band-64 answer, and a
//!   miss at 64 (resp. 96) means no route longer than 64 (resp. 96) matches.
//! - The trie of key `K` at `L` holds exactly the routes of length `(L, L + 32]` extending
//!   `K`, leaf-pushed over the longest route of length `<= L` covering `K` (precomputed best
//!   matching prefix), so it answers every address extending `K` whose deepest hit is `L`.
//!
//! # Limits
//!
//! IPv6 only (the bands split 128-bit addresses). Next-hop raw ids below 2^30 (bit 30 tags
//! `LEAF` values) and at most 2^26 trie entries, else [`BuildError::LimitExceeded`]. Stride
//! 4 or 8. No incremental updates: a change recompiles.

mod build;
impl Config {
    /// The configuration `spec` names: `stride=4|8` (bits per trie level), `packed=on|off`.
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        let default = Config::default();
        spec.check_options("bsl_hybrid", &["stride", "packed"])?;
        Ok(Config {
            stride: spec.get_u32("bsl_hybrid", "stride", default.stride)?,
            packed: spec.get_bool("bsl_hybrid", "packed", default.packed)?,
        })
    }
}

#[cfg(test)]
mod tests;

use super::hash::{Bucket32, Bucket64, Bucket128, OneLineTable};
use crate::algo::multibit::{LeafArena, PTR, leaf_step, leaf_walk};
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;

/// Hash-value flag: no trie below this key; the rest is the precomputed answer.
const LEAF: u32 = 1 << 30;

/// Build options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Bits per trie level (4 or 8: 8 or 4 levels per band).
    pub stride: u32,
    /// Store sparse trie nodes as packed arrays of one cache line.
    pub packed: bool,
}

impl Default for Config {
    /// Four 8-bit levels per band (the paper's "initial hash plus a 4 level trie"), packed.
    fn default() -> Self {
        Config { stride: 8, packed: true }
    }
}

/// Sizes of a built hybrid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct HybridStats {
    /// Keys in the hash tables of lengths 32, 64 and 96.
    pub keys: [usize; 3],
    /// Keys among them whose band holds no route (pure markers).
    pub markers: [usize; 3],
    /// Trie nodes (all bands).
    pub nodes: usize,
    /// Packed trie nodes among them.
    pub packed_nodes: usize,
    /// Bytes of live trie nodes.
    pub node_bytes: u64,
}

/// The §7 IPv6 hybrid of hashing on lengths and tries; see the module doc.
pub struct BslHybrid {
    root: u32,
    t32: OneLineTable<Bucket32>,
    t64: OneLineTable<Bucket64>,
    t96: OneLineTable<Bucket128>,
    nodes: LeafArena,
    stats: HybridStats,
}

impl BslHybrid {
    /// Sizes of the structure.
    #[doc(hidden)]
    pub fn stats(&self) -> &HybridStats {
        &self.stats
    }

    /// The band start and root entry for `addr`: two hash probes.
    #[inline(always)]
    fn band(&self, addr: u128) -> (u32, u32) {
        let v64 = self.t64.find((addr >> 64) as u64);
        if v64 != 0 {
            let v96 = self.t96.find(addr >> 32);
            if v96 != 0 { (v96, 96) } else { (v64, 64) }
        } else {
            let v32 = self.t32.find((addr >> 96) as u32);
            if v32 != 0 { (v32, 32) } else { (self.root, 0) }
        }
    }
}

/// Lookups in flight at once in `lookup_batch`.
const LANES: usize = 8;

impl Lookup<u128> for BslHybrid {
    #[inline]
    fn lookup(&self, addr: u128) -> Option<NextHop> {
        let (entry, depth) = self.band(addr);
        NextHop::from_raw(leaf_walk(self.nodes.entries(), entry, addr, depth) & !LEAF)
    }

    /// Per group of `LANES` addresses: the probes at 64 (prefetched together), then at 96
    /// or 32, then the trie walks level by level.
    fn lookup_batch(&self, addrs: &[u128], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        for (a, o) in addrs.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut entry = [0u32; LANES];
            let mut depth = [0u32; LANES];
            self.probe_lanes(a, &mut entry, &mut depth);
            self.walk_lanes(a, &mut entry, &mut depth);
            for (o, &e) in o.iter_mut().zip(&entry) {
                *o = NextHop::from_raw(e & !LEAF);
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        size_of::<Self>()
            + self.t32.memory_bytes()
            + self.t64.memory_bytes()
            + self.t96.memory_bytes()
            + self.nodes.memory_bytes()
    }
}

impl BslHybrid {
    /// The band of each lane: bucket addresses are computed and prefetched a level at a time.
    fn probe_lanes(&self, a: &[u128], entry: &mut [u32; LANES], depth: &mut [u32; LANES]) {
        let mut b64 = [0usize; LANES];
        for (i, &x) in a.iter().enumerate() {
            b64[i] = self.t64.bucket_of((x >> 64) as u64);
            self.t64.prefetch(b64[i]);
        }
        let mut b2 = [0usize; LANES];
        let mut hit64 = [false; LANES];
        for (i, &x) in a.iter().enumerate() {
            let v = self.t64.find_in(b64[i], (x >> 64) as u64);
            (hit64[i], entry[i]) = (v != 0, v);
            b2[i] = if v != 0 {
                let b = self.t96.bucket_of(x >> 32);
                self.t96.prefetch(b);
                b
            } else {
                let b = self.t32.bucket_of((x >> 96) as u32);
                self.t32.prefetch(b);
                b
            };
        }
        for (i, &x) in a.iter().enumerate() {
            (entry[i], depth[i]) = if hit64[i] {
                let v = self.t96.find_in(b2[i], x >> 32);
                if v != 0 { (v, 96) } else { (entry[i], 64) }
            } else {
                let v = self.t32.find_in(b2[i], (x >> 96) as u32);
                if v != 0 { (v, 32) } else { (self.root, 0) }
            };
        }
    }

    /// Advances every lane's trie walk one level per round until all reach an answer.
    fn walk_lanes(&self, a: &[u128], entry: &mut [u32; LANES], depth: &mut [u32; LANES]) {
        let nodes = self.nodes.entries();
        let mut pending = true;
        while pending {
            pending = false;
            for i in 0..a.len() {
                if entry[i] & PTR != 0 {
                    (entry[i], depth[i]) = leaf_step(nodes, entry[i], a[i], depth[i]);
                    pending |= entry[i] & PTR != 0;
                }
            }
        }
    }
}

impl Compile<u128> for BslHybrid {
    type Config = Config;

    fn compile(rib: &Rib<u128>, cfg: &Config) -> Result<Self, BuildError> {
        build::build(rib, cfg)
    }
}
