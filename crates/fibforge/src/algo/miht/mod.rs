//! `miht`: the Multi-Index Hybrid Trie (Lin, Hsu, Hsieh, "A multi-index hybrid trie for
//! lookup and updates", IEEE TPDS 25(10), 2014), as used for comparison in Lucchesi et al.
//! 2018 §5 (`bloomfwd-lucchesi-2018.txt`): a (k, m)-MIHT.
//!
//! # What is implemented
//!
//! Every route `p` with `len(p) >= k` is split into its k-prefix key (the first `k` bits) and
//! its suffix. The keys are the index of a B+ tree of order `m` (`bptree.rs`, the i-nodes);
//! each leaf entry points to a priority trie (`ptrie.rs`, the d-nodes) that holds the routes
//! of that key. Routes shorter than `k` are keyless and live in one more priority trie,
//! `PT[-1]`. A lookup takes the address's k-bit key down the B+ tree; when the key is present
//! it searches the key's priority trie, and when that has no match (or the key is absent)
//! it searches `PT[-1]`. Defaults: (k, m) = (16, 16) for IPv4 and (32, 32) for IPv6 (the
//! paper's best IPv4 setting and the IPv6 one Lucchesi et al. use); options `k=1..=32` and
//! `m=16|32`.
//!
//! Updates ([`Incremental`]) are dynamic as in the paper: a new key is inserted in the B+ tree
//! (splitting nodes), a key whose last route goes is deleted (borrowing from or merging with
//! a sibling), and routes are inserted into / removed from their priority trie in place.
//!
//! # Layout
//!
//! - B+ tree nodes: 64-byte aligned, `8m` bytes (128 for m = 16, 256 for m = 32), in one
//!   arena; see `bptree.rs`. Compilation bulk-loads full nodes (a lower tree than repeated
//!   insertion, which leaves nodes half full).
//! - Priority trie nodes: one arena shared by all tries, 20 bytes (IPv4) or 48 bytes (IPv6
//!   with alignment), one node per route; see `ptrie.rs`.
//!
//! # Invariants
//!
//! - The B+ tree holds exactly the keys of the routes of length `>= k`, each with the root of
//!   the non-empty priority trie of those routes; `PT[-1]` holds exactly the shorter routes.
//! - After [`Incremental::apply_changes`] the structure answers like a fresh compile (the
//!   tree's shape and node placement may differ).
//!
//! # Limits
//!
//! `k` at most 32 (keys are `u32`) and at most the address width; next hops are stored raw
//! (32 bits), so no cap beyond [`NextHop`]'s own. A lookup costs `height + 1` B+ tree nodes
//! plus up to `W − k + 1` priority trie nodes (and as many again in `PT[-1]` on a miss).

mod bptree;
mod ptrie;

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use bptree::BPlusTree;
use ptrie::{NIL, PtArena, Route};
use std::collections::BTreeMap;

/// Parameters of a (k, m)-MIHT; `None` picks the family's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Key length in bits (default 16 for IPv4, 32 for IPv6).
    pub k: Option<u32>,
    /// B+ tree order, 16 or 32 (default 16 for IPv4, 32 for IPv6).
    pub m: Option<u32>,
}

/// The B+ tree, of one of the two supported orders.
#[derive(Clone, Debug)]
enum Tree {
    M16(BPlusTree<16>),
    M32(BPlusTree<32>),
}

/// Calls `$body` with `$t` bound to the tree of either order.
macro_rules! with_tree {
    ($tree:expr, $t:ident => $body:expr) => {
        match $tree {
            Tree::M16($t) => $body,
            Tree::M32($t) => $body,
        }
    };
}

/// A (k, m)-MIHT; see the module doc.
#[derive(Clone, Debug)]
pub struct Miht<A: Address> {
    k: u32,
    tree: Tree,
    tries: PtArena<A>,
    /// Root of `PT[-1]`.
    short: u32,
}

/// Sizes of a built MIHT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct MihtStats {
    /// Key length.
    pub k: u32,
    /// B+ tree order.
    pub m: u32,
    /// Keys in the B+ tree (= priority tries besides `PT[-1]`).
    pub keys: usize,
    /// Internal levels of the B+ tree above its leaves.
    pub height: u32,
    /// Priority trie nodes (= routes).
    pub trie_nodes: usize,
}

impl<A: Address> Miht<A> {
    /// An empty table with the given parameters.
    #[doc(hidden)]
    pub fn new(cfg: &Config) -> Result<Self, BuildError> {
        let wide = A::BITS > 32;
        let k = cfg.k.unwrap_or(if wide { 32 } else { 16 });
        let m = cfg.m.unwrap_or(if wide { 32 } else { 16 });
        if k == 0 || k > 32 || k > A::BITS {
            let reason = format!("k must be in 1..={}", A::BITS.min(32));
            return Err(BuildError::BadOption { algo: "miht", option: format!("k={k}"), reason });
        }
        let tree = match m {
            16 => Tree::M16(BPlusTree::new()),
            32 => Tree::M32(BPlusTree::new()),
            _ => {
                let (option, reason) = (format!("m={m}"), "the order must be 16 or 32".into());
                return Err(BuildError::BadOption { algo: "miht", option, reason });
            }
        };
        Ok(Miht { k, tree, tries: PtArena::new(), short: NIL })
    }

    /// Sizes of the structure.
    #[doc(hidden)]
    pub fn stats(&self) -> MihtStats {
        let (m, keys, height) = with_tree!(&self.tree, t => (
            if matches!(self.tree, Tree::M16(_)) { 16 } else { 32 },
            t.len(),
            t.height(),
        ));
        MihtStats { k: self.k, m, keys, height, trie_nodes: self.tries.live() }
    }

    #[inline(always)]
    fn key(&self, addr: A) -> u32 {
        addr.bits(0, self.k) as u32
    }

    fn insert_route(&mut self, p: Prefix<A>, hop: NextHop) {
        if p.len() < self.k {
            return self.tries.insert(&mut self.short, 0, p, hop.raw());
        }
        let (key, k) = (self.key(p.addr()), self.k);
        let tries = &mut self.tries;
        with_tree!(&mut self.tree, t => {
            let mut root = t.find(key).unwrap_or(NIL);
            let before = root;
            tries.insert(&mut root, k, p, hop.raw());
            if root != before {
                t.insert(key, root);
            }
        })
    }

    fn remove_route(&mut self, p: Prefix<A>) {
        if p.len() < self.k {
            self.tries.remove(&mut self.short, 0, p);
            return;
        }
        let (key, k) = (self.key(p.addr()), self.k);
        let tries = &mut self.tries;
        with_tree!(&mut self.tree, t => {
            let Some(before) = t.find(key) else { return };
            let mut root = before;
            tries.remove(&mut root, k, p);
            if root == NIL {
                t.remove(key);
            } else if root != before {
                t.insert(key, root);
            }
        })
    }

    /// The answer of the key's priority trie `trie` (if the key is in the B+ tree), else of
    /// `PT[-1]`.
    #[inline(always)]
    fn finish(&self, trie: Option<u32>, addr: A) -> Option<NextHop> {
        if let Some(root) = trie {
            let h = self.tries.lookup(root, self.k, addr);
            if h != 0 {
                return NextHop::from_raw(h);
            }
        }
        NextHop::from_raw(self.tries.lookup(self.short, 0, addr))
    }

    /// Batch lookup over a tree of order `M`: the B+ tree walks of a group of addresses
    /// advance level by level, each step prefetching the next node of every address.
    fn batch<const M: usize>(&self, t: &BPlusTree<M>, addrs: &[A], out: &mut [Option<NextHop>]) {
        const GROUP: usize = 8;
        let (root, height) = t.root();
        for (chunk, outs) in addrs.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
            let mut node = [root; GROUP];
            let mut keys = [0u32; GROUP];
            for (i, &a) in chunk.iter().enumerate() {
                keys[i] = self.key(a);
            }
            for _ in 0..height {
                for i in 0..chunk.len() {
                    node[i] = t.descend(node[i], keys[i]);
                    t.prefetch(node[i]);
                }
            }
            let mut trie = [None; GROUP];
            for i in 0..chunk.len() {
                trie[i] = t.leaf_find(node[i], keys[i]);
                if let Some(r) = trie[i] {
                    self.tries.prefetch(r);
                }
            }
            for (i, (o, &a)) in outs.iter_mut().zip(chunk).enumerate() {
                *o = self.finish(trie[i], a);
            }
        }
    }
}

impl<A: Address> Lookup<A> for Miht<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        let key = self.key(addr);
        let trie = with_tree!(&self.tree, t => t.find(key));
        self.finish(trie, addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        with_tree!(&self.tree, t => self.batch(t, addrs, out))
    }

    fn memory_bytes(&self) -> usize {
        let tree = with_tree!(&self.tree, t => t.memory_bytes());
        size_of::<Self>() + tree + self.tries.memory_bytes()
    }
}

impl<A: Address> Compile<A> for Miht<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        let mut miht = Miht::new(cfg)?;
        let mut short = Vec::new();
        let mut by_key: BTreeMap<u32, Vec<Route<A>>> = BTreeMap::new();
        for (p, h) in rib.iter() {
            if p.len() < miht.k {
                short.push((p, h.raw()));
            } else {
                by_key.entry(miht.key(p.addr())).or_default().push((p, h.raw()));
            }
        }
        miht.short = miht.tries.build(0, short);
        let (tries, k) = (&mut miht.tries, miht.k);
        let entries: Vec<(u32, u32)> =
            by_key.into_iter().map(|(key, routes)| (key, tries.build(k, routes))).collect();
        miht.tree = match miht.tree {
            Tree::M16(_) => Tree::M16(BPlusTree::from_sorted(&entries)),
            Tree::M32(_) => Tree::M32(BPlusTree::from_sorted(&entries)),
        };
        miht.tries.shrink_to_fit();
        Ok(miht)
    }
}

impl<A: Address> Incremental<A> for Miht<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        for p in changed {
            match rib.get(p) {
                Some(h) => self.insert_route(*p, h),
                None => self.remove_route(*p),
            }
        }
        Ok(())
    }
}

impl Config {
    /// The configuration `spec` names: options `k=N` (key bits), `m=16|32` (B+ tree order).
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("miht", &["k", "m"])?;
        let opt = |key| spec.options.get(key).map(|_| spec.get_u32("miht", key, 0)).transpose();
        Ok(Config { k: opt("k")?, m: opt("m")? })
    }
}

#[cfg(test)]
mod tests;
