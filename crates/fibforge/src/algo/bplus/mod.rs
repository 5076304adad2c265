//! Interval B+-tree: longest-prefix match as a predecessor search over elementary intervals,
//! in a pointer-free tree of 64-byte nodes searched with SIMD compares (after PlanB, Zhang et
//! al., NSDI 2026, "Efficient Software IPv6 Lookup with Linearized B+-Tree"; our own design).
//!
//! # Idea
//!
//! The routes cut the address space into maximal runs of addresses with one answer (the
//! RIB's range partition, `Rib::ranges`: boundaries are prefix starts and the address after
//! each prefix end, adjacent runs with equal answers merged). A lookup finds the last run
//! starting at or before the address: a 1-D predecessor search, whatever the prefix lengths.
//!
//! # Layout
//!
//! - Keys: IPv4 the address (16 `u32` per node, 17 children), IPv6 the top 64 bits (8 `u64`
//!   per node, 9 children, stored with the sign bit flipped for signed SIMD compares).
//!   `tree.rs` states the node layout; `node.rs` the rank of a probe in a node (AVX-512, AVX2
//!   or portable, detected once; `FIBFORGE_ISA` or the `isa` option forces one).
//! - Leaves (option `leaf`): plain lines of full keys, relative lines (`leaf.rs`) of up to
//!   13 keys stored as 32-bit offsets from the leaf's first key together with the position
//!   of that key, so the IPv6 leaf level is about 40 % smaller, or hop lines (`hopleaf.rs`)
//!   of up to 9 such keys with their 16-bit answers beside them, so a lookup ends in the
//!   leaf it searched; the inner levels are built the same way over whichever leaves exist,
//!   and the answer array is kept in every layout.
//! - Answers: one word per interval in `hops.rs` (16 bits when every raw next hop and side
//!   slot is below 2^15, else 32 bits): a raw next hop, or a tag naming a side table.
//! - Side tables (`side.rs`): exact full-address ranges. IPv6 /64 blocks holding routes
//!   /65–/128 get one at build (so all of IPv6 is exact, not only the top 64 bits); updates
//!   that move boundaries get one for the intervals they touch.
//! - A front directory (`dir.rs`, option `dir`): one word per value of the top 16 key bits,
//!   either the interval of a block that holds only one, or the deepest tree node every key
//!   of the block passes (option `dhop`: a one-interval block holds the interval's next hop
//!   itself, rewritten with it by updates; option `dir2`: populous blocks get a second level
//!   on 8 more bits). A lookup tests for a block word holding a hop before decoding any
//!   other; a batch takes 16 blocks at once, with AVX-512 by one gather of a 16-bit copy of
//!   the blocks' hops (`Dir::hops16`, the index vector from `algo::top_bits`, shared with
//!   Poptrie), else by 16 loads of the words. Batches walk the rest in lock step
//!   (`lookup.rs`, option `lanes`), from the root or (option `bgroup`) each lane from its
//!   directory node, one lock step per start level.
//! - `profile.rs`: the path of one lookup (levels, nodes, side table) and the lines per
//!   level, for profiles (`crates/fibforge-bench/examples/bplus_profile.rs`); never on the
//!   lookup path.
//! - The last key (`K::MAX`, e.g. the block `ffff:ffff:ffff:ffff::/64`) cannot be a tree key
//!   (it pads the nodes), so when it starts an interval that interval's word sits after the
//!   others and lookups of that key go to it directly.
//!
//! # Updates
//!
//! A change repaints the tree intervals its prefix touches (widened to whole side tables):
//! the RIB's ranges over them are computed; when they start exactly at the intervals' first
//! addresses, the words are rewritten in place (a next-hop change that moves no boundary);
//! otherwise a new side table answers the whole span, and the span's words are retagged to
//! it. Replaced side tables are freed after a grace period of the table's readers
//! (`sync::Grace`) once they share the view. When the side slots run out (option `delta`),
//! the tree is rebuilt from the RIB and the new view published with one atomic swap by
//! `sync::Table`.
//!
//! # Invariants
//!
//! - Every interval word is a raw next hop of the current RIB for every address of its
//!   interval, or a tag whose side answers like the current RIB over the whole interval.
//! - A side is published before any word names it, and freed only after no word names it
//!   and a grace period has passed.
//!
//! # Limits
//!
//! Raw next-hop ids and side slots below 2^31. IPv6 blocks with very many long routes are
//! searched by binary search in their side table (exact, but a deeper search).

mod dir;
mod hopleaf;
mod hops;
mod key;
mod leaf;
mod lookup;
mod node;
mod profile;
mod side;
mod tree;
mod update;
mod view;

#[cfg(test)]
mod tests;

pub use key::Key;
pub use lookup::LANES;
pub use profile::Path;
pub use view::Fib;

use crate::cpu;
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::qsbr::{Grace, Ticket};
use crate::rib::Rib;
use std::collections::VecDeque;
use std::sync::Arc;

/// Build parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The node search's instruction set; `None` detects it (see [`cpu::Isa::detect`]).
    pub isa: Option<cpu::Isa>,
    /// Side slots for updates that move boundaries before a rebuild.
    pub delta: usize,
    /// The front directory on the top 16 key bits (see the module doc).
    pub dir: bool,
    /// Directory blocks inside one interval hold its next hop, not only its position
    /// (`dir.rs`): one read instead of two for addresses the directory answers. On by
    /// default (faster random lookups, no loss elsewhere: `docs/lab/bplus.md`).
    pub dir_hops: bool,
    /// Second-level directory tables (8 more key bits) for populous blocks (`dir.rs`). On by
    /// default: single lookups inside prefixes start deeper.
    pub dir2: bool,
    /// Batch lanes start at their directory node, sorted into one lock step per start
    /// level (`lookup.rs`), instead of all at the root. Off by default: sorting the lanes
    /// cost more than the levels it skipped on random traffic.
    pub bgroup: bool,
    /// Addresses a batch walks in lock step: 8, 16 or 32.
    pub lanes: usize,
    /// The layout of the leaf level; `None` picks hop leaves for IPv6 (relative leaves when
    /// its answers need 32-bit words) and plain leaves for IPv4 (whose plain lines already
    /// hold 16 keys).
    pub leaf: Option<Leaf>,
}

/// The layout of the tree's leaf level.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Leaf {
    /// Full keys, as many as fill a line (8 for IPv6, 16 for IPv4).
    Plain,
    /// Up to 13 keys per line as 32-bit offsets from the leaf's first key (`leaf.rs`).
    Rel,
    /// Up to 9 keys per line as 32-bit offsets, with their intervals' answers beside them
    /// (`hopleaf.rs`); tables whose answers need 32-bit words get relative leaves instead.
    Hop,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            isa: None,
            delta: 4096,
            dir: true,
            dir_hops: true,
            dir2: true,
            bgroup: false,
            lanes: LANES,
            leaf: None,
        }
    }
}

/// The interval B+-tree with its update state (the writer's handle; readers use [`Fib`]).
pub struct BPlus<A: Key> {
    view: Arc<Fib<A>>,
    cfg: Config,
    /// Per side slot: the interval positions its tag covers, while in use.
    spans: Vec<Option<(usize, usize)>>,
    next_slot: usize,
    side_ranges: usize,
    /// Set once readers share the view: freed sides wait for their grace period.
    grace: Option<Grace>,
    /// Side slots unlinked from the view (which the `Arc` keeps alive), waiting for a ticket.
    retired: VecDeque<(Ticket, Arc<Fib<A>>, usize)>,
    rebuilds: u64,
    last_path: Option<&'static str>,
}

impl<A: Key> BPlus<A> {
    /// The view readers search.
    #[doc(hidden)]
    pub fn view(&self) -> &Arc<Fib<A>> {
        &self.view
    }

    /// From now on freed side tables wait for a grace period of `grace`'s readers.
    #[doc(hidden)]
    pub fn defer_reclamation(&mut self, grace: Grace) {
        self.grace = Some(grace);
    }

    /// Side tables unlinked by updates and not yet freed (waiting for readers).
    #[doc(hidden)]
    pub fn pending_retirements(&self) -> usize {
        self.retired.len()
    }

    /// Full rebuilds done by updates so far.
    #[doc(hidden)]
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }
}

impl<A: Key> Lookup<A> for BPlus<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.view.lookup(addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.view.lookup_batch(addrs, out)
    }
    fn memory_bytes(&self) -> usize {
        self.view.memory_bytes()
    }
    fn describe(&self) -> Option<String> {
        Some(Fib::describe(&self.view))
    }
}

impl<A: Key> Lookup<A> for Fib<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        Fib::lookup(self, addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        Fib::lookup_batch(self, addrs, out)
    }
    fn memory_bytes(&self) -> usize {
        Fib::memory_bytes(self)
    }
    fn describe(&self) -> Option<String> {
        Some(Fib::describe(self))
    }
}

impl<A: Key> Compile<A> for BPlus<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        let view = Fib::build(rib, cfg, cpu::Isa::resolve("bplus", cfg.isa)?)?;
        let mut spans = vec![None; view.sides.capacity()];
        for pos in 0..view.intervals() {
            let word = view.hops.get(pos);
            if word & view.hops.tag() != 0 {
                spans[(word & !view.hops.tag()) as usize] = Some((pos, pos));
            }
        }
        // Build fills the first slots, one per tagged interval.
        let next_slot = spans.iter().filter(|s| s.is_some()).count();
        Ok(BPlus {
            view: Arc::new(view),
            cfg: cfg.clone(),
            spans,
            next_slot,
            side_ranges: 0,
            grace: None,
            retired: VecDeque::new(),
            rebuilds: 0,
            last_path: None,
        })
    }
}

impl<A: Key> Incremental<A> for BPlus<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        self.free_retired();
        // Side tables hold any next hop, but a rebuild could not: refuse such routes now.
        for p in changed {
            if let Some(h) = rib.get(p).filter(|h| h.raw() > view::WIDE_LIMIT) {
                return Err(BuildError::LimitExceeded {
                    algo: "bplus",
                    what: "raw next-hop id",
                    limit: view::WIDE_LIMIT as u64,
                    found: h.raw() as u64,
                });
            }
        }
        let mut path = "in place";
        for p in changed {
            match self.repaint(rib, p) {
                Ok(update::Repaint::InPlace) => {}
                Ok(update::Repaint::SideTable) => path = "side table",
                Err(update::NeedRebuild) => {
                    self.last_path = Some("rebuild");
                    return self.rebuild(rib);
                }
            }
        }
        self.last_path = Some(path);
        self.free_retired();
        Ok(())
    }

    fn last_update_path(&self) -> Option<&'static str> {
        self.last_path
    }
}

impl<A: Key> crate::qsbr::Concurrent<A> for BPlus<A> {
    type View = Fib<A>;
    fn view(&self) -> &Arc<Fib<A>> {
        &self.view
    }
    fn share(&mut self, grace: &Grace) {
        self.defer_reclamation(grace.clone());
    }
    fn retired_inside(&self) -> (usize, usize) {
        let bytes = self.retired.iter().map(|(_, view, slot)| side_bytes(view, *slot)).sum();
        (self.retired.len(), bytes)
    }
}

/// Bytes of the side table in `slot` of `view` (0 once freed).
fn side_bytes<A: Key>(view: &Fib<A>, slot: usize) -> usize {
    if view.sides.is_used(slot) { view.sides.get(slot).memory_bytes() } else { 0 }
}

impl Config {
    /// The configuration `spec` names (`bplus:isa=avx2,delta=1024`).
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Config, BuildError> {
        spec.check_options(
            "bplus",
            &["isa", "delta", "dir", "dhop", "dir2", "bgroup", "lanes", "leaf"],
        )?;
        let isa = cpu::Isa::from_option("bplus", spec)?;
        let delta = spec.get_u32("bplus", "delta", Config::default().delta as u32)?;
        if !(1..=1 << 20).contains(&delta) {
            return Err(BuildError::BadOption {
                algo: "bplus",
                option: format!("delta={delta}"),
                reason: "expected 1 to 1048576 side slots".into(),
            });
        }
        let dir = spec.get_bool("bplus", "dir", true)?;
        let dir_hops = spec.get_bool("bplus", "dhop", true)?;
        let dir2 = spec.get_bool("bplus", "dir2", true)?;
        let bgroup = spec.get_bool("bplus", "bgroup", false)?;
        let lanes = spec.get_u32("bplus", "lanes", LANES as u32)? as usize;
        if ![8, 16, 32].contains(&lanes) {
            return Err(BuildError::BadOption {
                algo: "bplus",
                option: format!("lanes={lanes}"),
                reason: "expected 8, 16 or 32".into(),
            });
        }
        let leaf = match spec.options.get("leaf").map(String::as_str) {
            None | Some("auto") => None,
            Some("plain") => Some(Leaf::Plain),
            Some("rel") => Some(Leaf::Rel),
            Some("hop") => Some(Leaf::Hop),
            Some(v) => {
                let why = "expected auto, plain, rel or hop";
                return Err(crate::spec::bad("bplus", "leaf", v, why));
            }
        };
        Ok(Config { isa, delta: delta as usize, dir, dir_hops, dir2, bgroup, lanes, leaf })
    }
}
