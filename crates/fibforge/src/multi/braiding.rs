//! Trie Braiding (H. Song, M. Kodialam, F. Hao, T. V. Lakshman, "Building Scalable Virtual
//! Routers with Trie Braiding", INFOCOM 2010; LOOP's comparator, `papers/loop-mi-yang.txt`
//! §II: "allows swapping the left and right children of trie nodes to increase the structural
//! similarity among multiple FIBs").
//!
//! **Build.** The tables' binary tries are merged one after another into a shared trie
//! (`trie_build::merge` with braiding). At each node a table chooses its *braiding bit*: when
//! set, the table's left child is mapped onto the shared right child and vice versa. Option
//! `braid=optimal|greedy|off` (default `optimal`; `on` means `optimal`) picks how:
//! - `optimal`: each table is braided against the trie built so far by the paper's dynamic
//!   program over isomorphism classes of subtrees (`braid_exact`: the most shared nodes, exact),
//!   as long as it needs at most a few memoised class pairs per table node; past that budget
//!   (full tables whose subtrees differ) by a one-level lookahead with exact straight overlaps
//!   (`braid_choice`), which still never adds more nodes than the plain merge. Braiding a
//!   table optimally against an earlier braided trie can leave a later table less to overlap
//!   than the plain trie would, so the build also merges without braiding and keeps the
//!   smaller trie: its node count is never above `braid=off`'s. So the result is the paper's
//!   optimal braiding only for the tables the exact program finished within its budget, and
//!   only when the braided trie is kept: [`TrieBraiding::outcome`] records which.
//! - `greedy`: overlaps estimated by subtree sizes (the earlier stand-in; it can add nodes).
//! - `off`: no bit set, the Merged Trie's shape with the bits, to measure what braiding saves.
//!
//! **Layout.** `nodes[i] = { child: [u32; 2], comp: u32 }` (12 bytes; node 0 the root, child
//! 0 meaning none; `comp` the PortMapTable id of the routes on the node, 0 for none) and a
//! flat bit array `braid` of `nodes × vrfs` bits, bit `i * vrfs + v` the braiding bit of
//! table `v` at node `i` (the paper's per-node, per-table bits). A lookup of table `v` goes
//! to child `address bit XOR braid(i, v)`, remembering `v`'s entry of each vector it passes.
//!
//! **Invariants.** Table `v`'s route `p/l` is `v`'s entry of the vector of the node reached
//! from the root by `p`'s first `l` bits, each XOR-ed with `v`'s braiding bit of the node it
//! leaves. Nodes that only other tables use may lie on `v`'s path: `v`'s entries there are
//! empty, so they never change its answer.
//!
//! **Limits.** Node counts and PortMapTable ids below 2^31. No incremental updates (a change
//! may invalidate the global braiding); batches walk 16 keys interleaved (`lanes`,
//! `walk_plain`).

use super::lanes::batch;
use super::trie_build::{Pmt, limit, merge, node_composites};
use super::trie_shape::{LEAF, Node, plain_nodes, pmt_hop};
use super::walk_plain::{Flip, PlainWalk};
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;
use crate::spec::bad;
use std::marker::PhantomData;

pub use super::trie_shape::Braid;

const NAME: &str = "trie_braiding";

/// Trie Braiding options (`braid=optimal|greedy|off`, default optimal).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// How braiding bits are chosen.
    pub braid: Braid,
}

impl Config {
    /// Parses `braid=optimal|greedy|off` (`on` is `optimal`).
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options(NAME, &["braid"])?;
        let braid = match spec.options.get("braid").map(String::as_str) {
            None | Some("optimal" | "on") => Braid::Optimal,
            Some("greedy") => Braid::Greedy,
            Some("off") => Braid::Off,
            Some(v) => return Err(bad(NAME, "braid", v, "expected optimal, greedy or off")),
        };
        Ok(Config { braid })
    }
}

/// Trie Braiding over `vrfs` tables (VRF id = position in the build's table list).
#[derive(Clone, Debug)]
pub struct TrieBraiding<A: Address> {
    nodes: Vec<Node>,
    braid: Vec<u64>,
    pmt: Vec<u32>,
    vrfs: usize,
    outcome: BraidOutcome,
    family: PhantomData<fn() -> A>,
}

/// How a Trie Braiding build chose its braiding bits ([`TrieBraiding::outcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BraidOutcome {
    /// The option the build ran with.
    pub braid: Braid,
    /// Tables merged (the non-empty ones).
    pub tables: usize,
    /// With `braid=optimal`: tables the exact program braided within its budget; the other
    /// `tables - exact` were braided by the one-level lookahead.
    pub exact: usize,
    /// The braided trie was kept; false when the plain merge (no bits set) was smaller and
    /// kept instead (always true for `greedy`, false for `off`).
    pub kept_braided: bool,
}

/// `exact 9/9, braided kept`, `exact 2/7 (lookahead 5), plain kept`, `greedy`, `off`.
impl std::fmt::Display for BraidOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.braid {
            Braid::Off => return write!(f, "off"),
            Braid::Greedy => return write!(f, "greedy"),
            Braid::Optimal => write!(f, "exact {}/{}", self.exact, self.tables)?,
        }
        if self.exact < self.tables {
            write!(f, " (lookahead {})", self.tables - self.exact)?;
        }
        let kept = if self.kept_braided { "braided" } else { "plain" };
        write!(f, ", {kept} kept")
    }
}

impl<A: Address> TrieBraiding<A> {
    /// Braids `tables` (VRF id = position) into one trie.
    pub fn build(tables: &[Rib<A>], cfg: &Config) -> Result<Self, BuildError> {
        let mut m = merge(tables, cfg.braid);
        let mut outcome = BraidOutcome {
            braid: cfg.braid,
            tables: tables.iter().filter(|t| !t.is_empty()).count(),
            exact: m.exact,
            kept_braided: cfg.braid != Braid::Off,
        };
        if cfg.braid == Braid::Optimal {
            let plain = merge(tables, Braid::Off);
            if plain.child.len() < m.child.len() {
                m = plain;
                outcome.kept_braided = false;
            }
        }
        if m.child.len() as u64 >= LEAF as u64 {
            return Err(limit(NAME, "trie nodes", LEAF as u64, m.child.len() as u64));
        }
        let n = tables.len();
        let mut pmt = Pmt::new(n, NAME);
        let nodes = plain_nodes(&m.child, &node_composites(&m, &mut pmt)?);
        let mut braid = vec![0u64; (nodes.len() * n).div_ceil(64)];
        for &(node, v) in &m.swaps {
            let bit = node as usize * n + v as usize;
            braid[bit / 64] |= 1 << (bit % 64);
        }
        let pmt = pmt.into_hops();
        Ok(TrieBraiding { nodes, braid, pmt, vrfs: n, outcome, family: PhantomData })
    }

    /// Which tables the exact program braided (the others: the lookahead), and whether the
    /// braided trie or the plain merge was kept.
    pub fn outcome(&self) -> BraidOutcome {
        self.outcome
    }

    /// Trie nodes, distinct vectors and braiding bits set.
    pub fn counts(&self) -> (usize, usize, usize) {
        let set = self.braid.iter().map(|w| w.count_ones() as usize).sum();
        (self.nodes.len(), self.pmt.len().checked_div(self.vrfs).unwrap_or(1), set)
    }

    #[inline]
    fn swapped(&self, node: usize, v: usize) -> usize {
        BraidBits { bits: &self.braid, vrfs: self.vrfs }.flip(node, v)
    }
}

/// The braiding bits as the batch walk reads them.
struct BraidBits<'a> {
    bits: &'a [u64],
    vrfs: usize,
}

impl Flip for BraidBits<'_> {
    #[inline]
    fn flip(&self, i: usize, v: usize) -> usize {
        let bit = i * self.vrfs + v;
        (self.bits[bit / 64] >> (bit % 64)) as usize & 1
    }

    #[inline]
    fn prefetch(&self, i: usize, v: usize) {
        crate::algo::prefetch::read(self.bits, (i * self.vrfs + v) / 64);
    }
}

impl<A: Address> MultiLookup<A> for TrieBraiding<A> {
    fn vrfs(&self) -> usize {
        self.vrfs
    }

    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        let v = vrf as usize;
        if v >= self.vrfs {
            return None;
        }
        let (mut i, mut best) = (0usize, None);
        for d in 0..=A::BITS {
            let n = self.nodes[i];
            if n.comp != 0 {
                best = pmt_hop(&self.pmt, self.vrfs, n.comp, v).or(best);
            }
            if d == A::BITS {
                break;
            }
            match n.child[addr.bit(d) as usize ^ self.swapped(i, v)] {
                0 => break,
                c => i = c as usize,
            }
        }
        best
    }

    /// Interleaved walks (`lanes`).
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        let flip = BraidBits { bits: &self.braid, vrfs: self.vrfs };
        let walk = PlainWalk { nodes: &self.nodes, pmt: &self.pmt, vrfs: self.vrfs, flip };
        batch(&walk, self.vrfs, keys, out);
    }

    /// Nodes, braiding bits and PortMapTable.
    fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + self.braid.capacity() * size_of::<u64>()
            + self.pmt.capacity() * size_of::<u32>()
    }
}
