//! `lctrie`: the level- and path-compressed trie (S. Nilsson, G. Karlsson, "IP-Address Lookup
//! Using LC-Tries", IEEE JSAC 17(6), 1999), the family of Linux's `fib_trie` and one of the
//! comparators of the SAIL paper (Yang et al., SIGCOMM 2014). IPv4 and IPv6.
//!
//! The routes are split in two vectors. The *base vector* holds the routes that are not a
//! prefix of another route (the leaves of the binary trie); they are prefix-free, so a binary
//! trie over them has exactly one leaf per entry. The *prefix vector* holds the other routes
//! (the internal ones). Every entry points to the longest route of the prefix vector that is a
//! proper prefix of it (`pre`), so the routes covering an entry form a chain, longest first.
//!
//! The trie over the base vector is compressed twice: *path compression* skips the bits every
//! string below a node shares (a node's `skip`), and *level compression* replaces the top `b`
//! levels below a node by one node with 2^b children (`branch`), chosen as the largest `b`
//! for which at least `fill · 2^b` of the 2^b subtries are non-empty (the paper's *fill
//! factor*; 1.0 gives the original LC-trie, below 1 the variant of the journal paper). The root
//! may be given a fixed branching factor (the paper's experiments use 16).
//!
//! # Layout
//!
//! - `trie`: one array of 8-byte `Node`s. An internal node has `branch > 0`; its 2^branch
//!   children are consecutive at `trie[adr..adr + 2^branch]`. A leaf has `branch == 0` and
//!   `adr` indexes the base vector (`NONE` only in the trie of an empty table). The root is
//!   `trie[0]`.
//! - `base`, `prefixes`: `Entry`s (address, length, next hop, `pre`), the base vector sorted
//!   by address.
//!
//! Lookup: `pos` starts at the root's skip; at each internal node the `branch` address bits
//! at `pos` pick the child, and `pos` grows by the branch and the child's skip. At the leaf the
//! base entry is compared with the address (the skipped bits were never checked); on a
//! mismatch the `pre` chain is followed until an entry matches.
//!
//! A child slot with no base string under it (possible when `fill < 1`, or below a fixed root
//! branch) becomes a leaf pointing at the base entry before or after the slot in address
//! order, whichever shares more leading bits with it, as in the paper: the longest route
//! covering the slot covers that neighbour too, so it is on the neighbour's chain.
//!
//! # Differences from the paper
//!
//! The paper packs a node into 32 bits (5-bit branch, 7-bit skip, 20-bit address), which caps
//! a trie at 2^20 nodes. Here a node is `u32` address + `u8` skip + `u8` branch (8 bytes with
//! padding), so tables of millions of routes and IPv6 skips up to 127 fit. Next hops are kept
//! in the entries (the paper has a separate next-hop table; ours are already dense ids).
//!
//! # Invariants
//!
//! - The base vector is prefix-free and sorted by address; every route is in exactly one of
//!   the two vectors; each `pre` is the longest proper prefix of the entry in the prefix
//!   vector (`NONE` when there is none), so chains strictly shorten.
//! - Below a node, every base string has length greater than the node's `pos + skip` (they
//!   differ there), so `pos + branch ≤ BITS` at every internal node.
//!
//! # Limits
//!
//! `fill` in 0.1..=1.0 (smaller factors would allow branches of 2^24 mostly empty slots);
//! `root` in 0..=20 (0: the root's branch follows the fill factor like every other node);
//! branches are capped at 20 bits; up to 2^32 − 1 trie nodes and entries, reported as
//! [`BuildError::LimitExceeded`] beyond. No updates: the paper rebuilds the trie (it is built
//! in linear time from the sorted routes).

mod build;
#[cfg(test)]
mod tests;

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;

/// The leaf address of an empty trie, and the end of a `pre` chain.
const NONE: u32 = u32::MAX;
/// The widest branch a node may take.
const MAX_BRANCH: u32 = 20;

/// Build options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The fill factor: a node branches on `b` bits when at least `fill · 2^b` of its 2^b
    /// subtries are non-empty.
    pub fill: f64,
    /// The root's branching factor in bits; 0 lets the fill factor decide.
    pub root: u32,
}

impl Default for Config {
    /// The journal paper's experimental setting: fill factor 0.5, root branch 16.
    fn default() -> Self {
        Config { fill: 0.5, root: 16 }
    }
}

impl Config {
    /// Parses `lctrie:fill=F,root=B`.
    #[doc(hidden)]
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("lctrie", &["fill", "root"])?;
        let d = Config::default();
        let cfg = Config {
            fill: spec.get_f64("lctrie", "fill", d.fill)?,
            root: spec.get_u32("lctrie", "root", d.root)?,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<(), BuildError> {
        if !(0.1..=1.0).contains(&self.fill) {
            return Err(BuildError::BadOption {
                algo: "lctrie",
                option: format!("fill={}", self.fill),
                reason: "the fill factor must be between 0.1 and 1".into(),
            });
        }
        if self.root > MAX_BRANCH {
            return Err(BuildError::BadOption {
                algo: "lctrie",
                option: format!("root={}", self.root),
                reason: format!("the root branch must be 0 to {MAX_BRANCH} bits"),
            });
        }
        Ok(())
    }
}

/// One trie node: a leaf when `branch == 0`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
struct Node {
    /// First child (internal node) or base-vector index (leaf).
    adr: u32,
    /// Bits skipped before this node branches (path compression).
    skip: u8,
    /// Bits this node branches on (level compression); 0 for a leaf.
    branch: u8,
}

/// A route in the base or prefix vector.
#[derive(Debug, Clone, Copy)]
struct Entry<A: Address> {
    addr: A,
    hop: NextHop,
    /// The longest proper prefix of this route in the prefix vector, or `NONE`.
    pre: u32,
    len: u8,
}

impl<A: Address> Entry<A> {
    #[inline]
    fn matches(&self, addr: A) -> bool {
        addr.common_prefix_len(self.addr) >= self.len as u32
    }
}

/// The LC-trie for addresses `A`.
#[derive(Debug, Clone)]
pub struct LcTrie<A: Address> {
    trie: Vec<Node>,
    base: Vec<Entry<A>>,
    prefixes: Vec<Entry<A>>,
    cfg: Config,
    /// Leaves whose slot holds no base string (counted at build time, for reports).
    empty_leaves: usize,
    /// The deepest leaf, the root being depth 1 (counted at build time).
    max_depth: u32,
}

/// Counts describing a built trie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[doc(hidden)]
pub struct LcTrieStats {
    /// Trie nodes (internal and leaves).
    pub nodes: usize,
    /// Entries of the base vector.
    pub base: usize,
    /// Entries of the prefix vector.
    pub prefixes: usize,
    /// Leaves pointing at a neighbour because no base string lies under their slot.
    pub empty_leaves: usize,
    /// The deepest leaf, counting the root as depth 1.
    pub max_depth: u32,
}

impl<A: Address> LcTrie<A> {
    /// Counts of nodes, vector entries, empty slots and depth.
    #[doc(hidden)]
    pub fn stats(&self) -> LcTrieStats {
        LcTrieStats {
            nodes: self.trie.len(),
            base: self.base.len(),
            prefixes: self.prefixes.len(),
            empty_leaves: self.empty_leaves,
            max_depth: self.max_depth,
        }
    }

    /// The answer once the walk reached the leaf holding base index `adr`.
    #[inline]
    fn resolve(&self, adr: u32, addr: A) -> Option<NextHop> {
        let e = self.base.get(adr as usize)?;
        if e.matches(addr) {
            return Some(e.hop);
        }
        let mut p = e.pre;
        while let Some(e) = self.prefixes.get(p as usize) {
            if e.matches(addr) {
                return Some(e.hop);
            }
            p = e.pre;
        }
        None
    }
}

impl<A: Address> Lookup<A> for LcTrie<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        let mut n = self.trie[0];
        let mut pos = n.skip as u32;
        while n.branch != 0 {
            let b = n.branch as u32;
            n = self.trie[n.adr as usize + addr.bits(pos, b) as usize];
            pos += b + n.skip as u32;
        }
        self.resolve(n.adr, addr)
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.trie.capacity() * std::mem::size_of::<Node>()
            + (self.base.capacity() + self.prefixes.capacity()) * std::mem::size_of::<Entry<A>>()
    }

    fn describe(&self) -> Option<String> {
        let s = self.stats();
        Some(format!(
            "fill {}, root {}: {} nodes, depth {}, {} base + {} internal routes",
            self.cfg.fill, self.cfg.root, s.nodes, s.max_depth, s.base, s.prefixes
        ))
    }
}

impl<A: Address> Compile<A> for LcTrie<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        cfg.validate()?;
        build::build(rib, cfg)
    }
}
