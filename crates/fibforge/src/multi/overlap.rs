//! Trie Overlap (J. Fu and J. Rexford, "Efficient IP-Address Lookup with a Shared Forwarding
//! Table for Multiple Virtual Routers", CoNEXT 2008; LOOP's comparator, `papers/loop-mi-yang.txt`
//! §II: "first adopts leaf pushing to ensure the correct LPM and then applies level
//! compression to transform prefix trie into a trie node array").
//!
//! **Build.** The tables' tries are overlapped into one (`trie_build::merge`), leaf-pushed so
//! every leaf holds each table's longest match (a PortMapTable id, as LOOP's implementation of
//! its comparators, §V-A), then level-compressed as an LC-trie (Nilsson & Karlsson): a node
//! at depth `d` branches on the next `k` bits, `k` the largest (at most [`MAX_BRANCH`]) for
//! which at least `fill × 2^k` of the trie's nodes at depth `d + k` exist (Nilsson's fill
//! factor; a leaf met above `d + k` is repeated over all its positions). The root's branch can be
//! fixed (`root=N`, default 16, Nilsson's usual root), and `stride=N` replaces the fill rule
//! by a fixed stride (a leaf-pushed multibit trie).
//!
//! **Layout.** One `u32` node array, children of a node contiguous (`2^k` words): a word with
//! the top bit set is a leaf (payload: PortMapTable id); otherwise bits 26..31 hold `k` and
//! bits 0..26 the index of the first child. `pmt[c * vrfs + v]` is table `v`'s raw next hop.
//! A lookup reads one word per level and one PortMapTable entry.
//!
//! **Invariants.** Every node's branch stays within the address (`d + k ≤ BITS`); every word
//! below a node at the position of address bits `b` is the leaf-pushed trie's node (or
//! covering leaf) at that position.
//!
//! **Limits.** At most 2^26 node words and 2^31 PortMapTable ids (`LimitExceeded`). No
//! incremental updates (the paper's point: an update may re-level the trie). Batches look
//! keys up one by one: a 16-lane interleaved walk measured slower (two or three reads a key).

use super::trie_build::{Pmt, leaf_push, limit, merge};
use super::trie_shape::{Braid, LEAF, pmt_hop};
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::spec::AlgoSpec;
use std::marker::PhantomData;

const NAME: &str = "trie_overlap";

/// The widest branch of one node, in bits.
pub const MAX_BRANCH: u32 = 16;
const BRANCH_SHIFT: u32 = 26;
const BASE_MASK: u32 = (1 << BRANCH_SHIFT) - 1;

/// Trie Overlap options.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Fill factor of level compression, in `(0, 1]` (default 0.5).
    pub fill: f64,
    /// Branch of the root in bits, 0 for the fill rule (default 16).
    pub root: u32,
    /// A fixed stride for every node instead of the fill rule (0: off, the default).
    pub stride: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { fill: 0.5, root: 16, stride: 0 }
    }
}

impl Config {
    /// Parses `fill=F`, `root=N`, `stride=N`.
    pub fn from_spec(spec: &AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options(NAME, &["fill", "root", "stride"])?;
        let d = Config::default();
        let cfg = Config {
            fill: spec.get_f64(NAME, "fill", d.fill)?,
            root: spec.get_u32(NAME, "root", d.root)?,
            stride: spec.get_u32(NAME, "stride", d.stride)?,
        };
        cfg.check()?;
        Ok(cfg)
    }

    fn check(&self) -> Result<(), BuildError> {
        let bad = |option: String, reason: &str| BuildError::BadOption {
            algo: NAME,
            option,
            reason: reason.into(),
        };
        if !(self.fill > 0.0 && self.fill <= 1.0) {
            return Err(bad(format!("fill={}", self.fill), "expected a number in (0, 1]"));
        }
        if self.root > MAX_BRANCH {
            return Err(bad(format!("root={}", self.root), "expected 0 to 16 bits"));
        }
        if self.stride > MAX_BRANCH {
            return Err(bad(format!("stride={}", self.stride), "expected 0 to 16 bits"));
        }
        Ok(())
    }
}

/// Trie Overlap over `vrfs` tables (VRF id = position in the build's table list).
#[derive(Clone, Debug)]
pub struct TrieOverlap<A: Address> {
    root: u32,
    nodes: Vec<u32>,
    pmt: Vec<u32>,
    vrfs: usize,
    family: PhantomData<fn() -> A>,
}

impl<A: Address> TrieOverlap<A> {
    /// Overlaps `tables` (VRF id = position).
    pub fn build(tables: &[Rib<A>], cfg: &Config) -> Result<Self, BuildError> {
        cfg.check()?;
        let m = merge(tables, Braid::Off);
        let mut pmt = Pmt::new(tables.len(), NAME);
        let (root, pairs) = leaf_push(&m, &mut pmt, NAME)?;
        drop(m);
        let mut lc = Leveller { pairs: &pairs, cfg, nodes: Vec::new(), bits: A::BITS };
        let root = lc.place(root, 0, true)?;
        let mut nodes = lc.nodes;
        nodes.shrink_to_fit();
        Ok(TrieOverlap {
            root,
            nodes,
            pmt: pmt.into_hops(),
            vrfs: tables.len(),
            family: PhantomData,
        })
    }

    /// Node words and distinct vectors.
    pub fn counts(&self) -> (usize, usize) {
        (self.nodes.len() + 1, self.pmt.len().checked_div(self.vrfs).unwrap_or(1))
    }
}

/// Level compression of the leaf-pushed binary trie.
struct Leveller<'a> {
    pairs: &'a [[u32; 2]],
    cfg: &'a Config,
    nodes: Vec<u32>,
    /// The address width.
    bits: u32,
}

impl Leveller<'_> {
    /// The LC word of binary word `w` at depth `d`, its children placed.
    fn place(&mut self, w: u32, d: u32, is_root: bool) -> Result<u32, BuildError> {
        if w & LEAF != 0 {
            return Ok(w);
        }
        let k = self.branch(w, d, is_root);
        let base = self.nodes.len();
        let end = base + (1usize << k);
        if end as u64 > BASE_MASK as u64 + 1 {
            return Err(limit(NAME, "node words", BASE_MASK as u64 + 1, end as u64));
        }
        self.nodes.resize(end, 0);
        for j in 0..1u32 << k {
            let below = self.descend(w, j, k);
            let (word, depth) = below;
            let placed = self.place(word, d + depth, false)?;
            self.nodes[base + j as usize] = placed;
        }
        Ok(k << BRANCH_SHIFT | base as u32)
    }

    /// From `w`, the word reached by the `k`-bit path `j` (or the leaf met first) and its depth.
    fn descend(&self, mut w: u32, j: u32, k: u32) -> (u32, u32) {
        for i in 0..k {
            if w & LEAF != 0 {
                return (w, i);
            }
            w = self.pairs[w as usize][(j >> (k - 1 - i)) as usize & 1];
        }
        (w, k)
    }

    /// The branch of internal word `w` at depth `d` (at least 1, within the address).
    fn branch(&self, w: u32, d: u32, is_root: bool) -> u32 {
        let room = MAX_BRANCH.min(self.bits - d);
        if is_root && self.cfg.root > 0 {
            return self.cfg.root.min(room);
        }
        if self.cfg.stride > 0 {
            return self.cfg.stride.min(room).max(1);
        }
        // Grow level by level while the level below is filled enough.
        let mut level = vec![w];
        let mut k = 0;
        while k < room {
            let next: Vec<u32> = level
                .iter()
                .filter(|&&x| x & LEAF == 0)
                .flat_map(|&x| self.pairs[x as usize])
                .collect();
            if (next.len() as f64) < self.cfg.fill * (1u64 << (k + 1)) as f64 {
                break;
            }
            level = next;
            k += 1;
        }
        k.max(1)
    }
}

impl<A: Address> MultiLookup<A> for TrieOverlap<A> {
    fn vrfs(&self) -> usize {
        self.vrfs
    }

    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        let v = vrf as usize;
        if v >= self.vrfs {
            return None;
        }
        let (mut w, mut d) = (self.root, 0);
        while w & LEAF == 0 {
            let k = w >> BRANCH_SHIFT;
            w = self.nodes[(w & BASE_MASK) as usize + addr.bits(d, k) as usize];
            d += k;
        }
        pmt_hop(&self.pmt, self.vrfs, w & !LEAF, v)
    }

    /// Node array and PortMapTable.
    fn memory_bytes(&self) -> usize {
        (self.nodes.capacity() + self.pmt.capacity()) * size_of::<u32>()
    }
}
