//! Binary search on prefixes (Lampson, Srinivasan, Varghese, "IP Lookups using Multiway and
//! Multicolumn Search", INFOCOM 1998 / ToN 1999, §II–III): the comparator of the CPE paper's
//! Table 2 ("binary search" row).
//!
//! # Encoding
//!
//! Every prefix `P` is the address range `[low(P), high(P)]`. The *endpoints* are the `low`
//! and `high` of every route, plus address 0, sorted and deduplicated. An address `a` lies
//! either *on* an endpoint `e_i` or strictly *between* `e_i` and `e_{i+1}`; both cases have
//! one answer precomputed at build time, the paper's `=` and `>` columns:
//! - `eq[i]`: the longest match of `e_i` itself;
//! - `gt[i]`: the longest match of every address in `(e_i, e_{i+1})` (all share it: no
//!   prefix starts or ends strictly inside).
//!
//! A lookup finds the last endpoint `e_i ≤ a` by binary search and returns `eq[i]` when
//! `a == e_i`, else `gt[i]`. The answers come from the RIB's elementary intervals
//! ([`Rib::ranges`], the same sweep the interval B+-tree uses), merged with the endpoints in
//! one pass.
//!
//! # Layout
//!
//! - `keys: Vec<A>`: the endpoints, ascending (4 bytes each for IPv4, 16 for IPv6);
//! - `answers: Vec<[u32; 2]>`: `[eq, gt]` per endpoint, raw next-hop slots (0 = no route).
//!
//! `lookup` is a branch-free binary search (the step is a conditional move, so the search
//! costs `ceil(log2 n)` dependent loads and no mispredictions). `lookup_batch` runs the same
//! search for `lanes` addresses in lock step: every lane takes the same number of steps
//! (they search one array), so the steps interleave, each lane's next probe is prefetched,
//! and the loads of different lanes overlap instead of waiting one after the other.
//!
//! # Invariants
//!
//! - `keys[0] == 0`, `keys` strictly ascending, `keys.len() == answers.len()`;
//! - for every address `a` with `i` the last index with `keys[i] <= a`, the longest match
//!   of `a` is `eq[i]` if `a == keys[i]` and `gt[i]` otherwise.
//!
//! # Limits
//!
//! At most `2 * routes + 1` endpoints (`u32` indices: far above any table). The paper's
//! multiway (B-tree, 6-way per cache line) and multicolumn refinements are not built here:
//! the interval B+-tree (`bplus`) is the cache-line-node descendant, and stores only range
//! starts (one answer per key) where this keeps the paper's two-answer encoding. No
//! incremental updates: an insertion shifts the sorted arrays (the paper rebuilds too).

mod lookup;
#[cfg(test)]
mod tests;

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;

/// Build options (`bsearch:lanes=N`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Addresses searched in lock step by `lookup_batch` (1 to 64).
    pub lanes: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config { lanes: 16 }
    }
}

/// The largest `lanes` value.
#[doc(hidden)]
pub const MAX_LANES: usize = 64;

impl Config {
    /// The configuration `spec` names: option `lanes=N` (1 to 64).
    #[doc(hidden)]
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("bsearch", &["lanes"])?;
        let lanes = spec.get_u32("bsearch", "lanes", Self::default().lanes as u32)? as usize;
        let cfg = Config { lanes };
        cfg.check()?;
        Ok(cfg)
    }

    fn check(&self) -> Result<(), BuildError> {
        if (1..=MAX_LANES).contains(&self.lanes) {
            return Ok(());
        }
        Err(BuildError::BadOption {
            algo: "bsearch",
            option: format!("lanes={}", self.lanes),
            reason: format!("expected 1 to {MAX_LANES} addresses in lock step"),
        })
    }
}

/// Binary search on prefix endpoints, with the `=` and `>` answers precomputed.
#[derive(Clone, Debug)]
pub struct Bsearch<A: Address> {
    keys: Vec<A>,
    answers: Vec<[u32; 2]>,
    lanes: usize,
}

/// Raw slot of an answer (0: no route).
fn raw(hop: Option<NextHop>) -> u32 {
    hop.map_or(0, NextHop::raw)
}

impl<A: Address> Compile<A> for Bsearch<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        cfg.check()?;
        let mut keys: Vec<A> = Vec::with_capacity(rib.len() * 2 + 1);
        keys.push(A::ZERO);
        for (p, _) in rib.iter() {
            keys.push(p.addr());
            keys.push(p.last());
        }
        keys.sort_unstable();
        keys.dedup();
        let answers = answers(&keys, &rib.ranges());
        Ok(Bsearch { keys, answers, lanes: cfg.lanes })
    }
}

/// The `[eq, gt]` answers of every endpoint from the elementary intervals `ranges` (first at
/// address 0, ascending): one merge pass, as both lists are sorted.
fn answers<A: Address>(keys: &[A], ranges: &[crate::rib::Range<A>]) -> Vec<[u32; 2]> {
    let mut out = Vec::with_capacity(keys.len());
    let mut r = 0; // index of the range holding the current address
    let at = |a: A, r: &mut usize| {
        while *r + 1 < ranges.len() && ranges[*r + 1].start <= a {
            *r += 1;
        }
        raw(ranges[*r].hop)
    };
    for &k in keys {
        let eq = at(k, &mut r);
        // The addresses after `k` (up to the next endpoint) start at k + 1; the last
        // address of the space has nothing after it.
        let gt = if k.to_u128() == A::from_u128(u128::MAX).to_u128() {
            eq
        } else {
            let mut r2 = r;
            at(A::from_u128(k.to_u128() + 1), &mut r2)
        };
        out.push([eq, gt]);
    }
    out
}

impl<A: Address> Bsearch<A> {
    /// Endpoints in the sorted array.
    #[doc(hidden)]
    pub fn endpoints(&self) -> usize {
        self.keys.len()
    }
}

impl<A: Address> Lookup<A> for Bsearch<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        lookup::one(&self.keys, &self.answers, addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        lookup::batch(&self.keys, &self.answers, self.lanes, addrs, out);
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.keys.capacity() * std::mem::size_of::<A>()
            + self.answers.capacity() * std::mem::size_of::<[u32; 2]>()
    }

    fn describe(&self) -> Option<String> {
        Some(format!("{} endpoints, {} lanes per batch", self.keys.len(), self.lanes))
    }
}
