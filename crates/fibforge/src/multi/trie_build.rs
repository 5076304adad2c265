//! Building blocks of the merged-trie baselines of LOOP's evaluation (`merged`, `overlap`,
//! `braiding`, `bitmap_trie`): the binary trie of every table merged into one shape, the
//! PortMapTable of distinct per-table next-hop vectors, and leaf pushing of the merged trie.
//!
//! **Layout (build time only).** [`Merged`] (types in `trie_shape`) holds the shared binary trie as child pairs
//! (`NONE` for an absent child; node 0 is the root and children are created after their
//! parent, so indices grow downwards), each table's routes as `(node, vrf, raw hop)` and, for
//! Trie Braiding, the `(node, vrf)` pairs whose children that table sees swapped. A table's own
//! trie is merged into the shared one top-down; with braiding each table node chooses the
//! orientation of its children (`braid_choice`: greedy or the one-level lookahead).
//!
//! **Invariants.** A table's route of length `l` sits on a node of depth `l` reached from the
//! root by the route's bits, each bit XOR-ed with that table's swap bit of the node it leaves;
//! without braiding no swap exists and the shape is the plain union of the tables' tries.
//! [`Pmt`] id 0 is the all-empty vector.

use super::VrfId;
use super::braid_choice::{greedy, lookahead};
use super::braid_exact::Exact;
use super::trie_shape::{Braid, LEAF, Merged, NONE, TableTrie};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::rib::Rib;
use std::collections::HashMap;

fn table_trie<A: Address>(rib: &Rib<A>) -> TableTrie {
    let mut t = TableTrie { child: vec![[NONE; 2]], hop: vec![0], size: Vec::new() };
    for (p, h) in rib.iter() {
        let mut n = 0usize;
        for i in 0..p.len() {
            let b = p.bit(i) as usize;
            if t.child[n][b] == NONE {
                t.child[n][b] = t.child.len() as u32;
                t.child.push([NONE; 2]);
                t.hop.push(0);
            }
            n = t.child[n][b] as usize;
        }
        t.hop[n] = h.raw();
    }
    // Children come after their parent, so one backward pass sums the subtrees.
    t.size = vec![1; t.child.len()];
    for i in (0..t.child.len()).rev() {
        let s: u32 = t.child[i].iter().filter(|&&c| c != NONE).map(|&c| t.size[c as usize]).sum();
        t.size[i] += s;
    }
    t
}

/// How the table being merged chooses its braiding bits.
enum Chooser {
    Off,
    Greedy,
    Lookahead,
    Exact(Exact),
}

/// The exact program's budget of memoised class pairs for a table of `nodes` nodes: a few
/// per node keeps it linear in the table.
fn exact_budget(nodes: usize) -> usize {
    4 * nodes + 1024
}

/// Merges the tables' tries (VRF id = position); `braid` lets each table swap children.
pub(super) fn merge<A: Address>(ribs: &[Rib<A>], braid: Braid) -> Merged {
    let mut m = Merged {
        child: vec![[NONE; 2]],
        size: vec![1],
        routes: Vec::new(),
        swaps: Vec::new(),
        vrfs: ribs.len(),
        exact: 0,
    };
    for (v, rib) in ribs.iter().enumerate() {
        if rib.is_empty() {
            continue;
        }
        let t = table_trie(rib);
        let mut ch = match braid {
            Braid::Off => Chooser::Off,
            Braid::Greedy => Chooser::Greedy,
            Braid::Optimal => match Exact::new(&m, &t, exact_budget(t.child.len())) {
                Some(e) => Chooser::Exact(e),
                None => Chooser::Lookahead,
            },
        };
        m.exact += matches!(ch, Chooser::Exact(_)) as usize;
        merge_into(&mut m, &t, (0, 0, None), v as VrfId, &mut ch);
    }
    m.routes.sort_unstable();
    m.swaps.sort_unstable();
    m
}

/// Maps table node `tn` onto shared node `s` and recurses (depth at most the address width);
/// `known` is `braid_choice::straight(s, tn)` when already counted.
fn merge_into(
    m: &mut Merged,
    t: &TableTrie,
    (s, tn, known): (u32, u32, Option<u32>),
    v: VrfId,
    ch: &mut Chooser,
) {
    let hop = t.hop[tn as usize];
    if hop != 0 {
        m.routes.push((s, v, hop));
    }
    let tc = t.child[tn as usize];
    let (swap, below) = match ch {
        Chooser::Off => (false, None),
        Chooser::Greedy => (greedy(m, s, t, tc), None),
        Chooser::Exact(e) => (e.swap(m, s, tc), None),
        Chooser::Lookahead => {
            let c = lookahead(m, s, t, tc, known);
            (c.swap, Some(c.below))
        }
    };
    if swap {
        m.swaps.push((s, v));
    }
    for (side, &c) in tc.iter().enumerate() {
        if c == NONE {
            continue;
        }
        let target = side ^ swap as usize;
        let mut sc = m.child[s as usize][target];
        let mut known = below.map(|b| b[side]);
        if sc == NONE {
            sc = m.child.len() as u32;
            m.child.push([NONE; 2]);
            m.size.push(1);
            m.child[s as usize][target] = sc;
            // A new childless node overlaps only itself.
            known = known.map(|_| 1);
        }
        merge_into(m, t, (sc, c, known), v, ch);
    }
    let [a, b] = m.child[s as usize];
    m.size[s as usize] = 1 + m.size_of(a) + m.size_of(b);
}

/// The PortMapTable: each distinct per-table vector of raw next hops stored once.
pub(super) struct Pmt {
    pub hops: Vec<u32>,
    index: HashMap<Box<[u32]>, u32>,
    vrfs: usize,
    algo: &'static str,
}

impl Pmt {
    /// A table for `vrfs` tables holding the empty vector as id 0.
    pub(super) fn new(vrfs: usize, algo: &'static str) -> Self {
        let mut p = Pmt { hops: Vec::new(), index: HashMap::new(), vrfs, algo };
        p.intern(&vec![0; vrfs]).expect("the first id fits");
        p
    }

    /// The stored vectors, `vrfs` raw hops each, without spare capacity.
    pub(super) fn into_hops(mut self) -> Vec<u32> {
        self.hops.shrink_to_fit();
        self.hops
    }

    /// The id of `raw` (one raw hop per table), added when new; ids below 2^31.
    pub(super) fn intern(&mut self, raw: &[u32]) -> Result<u32, BuildError> {
        debug_assert_eq!(raw.len(), self.vrfs);
        if let Some(&id) = self.index.get(raw) {
            return Ok(id);
        }
        let id = self.index.len() as u32;
        if id >= 1 << 31 {
            return Err(limit(self.algo, "PortMapTable entries", 1 << 31, id as u64 + 1));
        }
        self.hops.extend_from_slice(raw);
        self.index.insert(raw.into(), id);
        Ok(id)
    }
}

/// A `LimitExceeded` error.
pub(super) fn limit(algo: &'static str, what: &'static str, max: u64, found: u64) -> BuildError {
    BuildError::LimitExceeded { algo, what, limit: max, found }
}

/// The PortMapTable id of every node's own routes (0 where it has none).
pub(super) fn node_composites(m: &Merged, pmt: &mut Pmt) -> Result<Vec<u32>, BuildError> {
    let first = m.route_offsets();
    let mut raw = vec![0u32; m.vrfs];
    let mut comps = vec![0u32; m.child.len()];
    for (n, c) in comps.iter_mut().enumerate() {
        let routes = &m.routes[first[n] as usize..first[n + 1] as usize];
        if routes.is_empty() {
            continue;
        }
        raw.fill(0);
        for &(_, v, h) in routes {
            raw[v as usize] = h;
        }
        *c = pmt.intern(&raw)?;
    }
    Ok(comps)
}

/// The leaf-pushed merged trie (no swaps): every internal node has two children, every leaf
/// the vector of each table's longest match. Returns the root word and the child pairs.
pub(super) fn leaf_push(
    m: &Merged,
    pmt: &mut Pmt,
    algo: &'static str,
) -> Result<(u32, Vec<[u32; 2]>), BuildError> {
    debug_assert!(m.swaps.is_empty(), "leaf pushing of a braided trie");
    let mut p = Pusher { m, first: m.route_offsets(), pmt, pairs: Vec::new(), algo };
    let mut cur = vec![0u32; m.vrfs];
    let root = p.node(0, &mut cur)?;
    p.pairs.shrink_to_fit();
    Ok((root, p.pairs))
}

struct Pusher<'a> {
    m: &'a Merged,
    first: Vec<u32>,
    pmt: &'a mut Pmt,
    pairs: Vec<[u32; 2]>,
    algo: &'static str,
}

impl Pusher<'_> {
    /// The word of node `n`, `cur` holding every table's match above it.
    fn node(&mut self, n: u32, cur: &mut Vec<u32>) -> Result<u32, BuildError> {
        let routes =
            &self.m.routes[self.first[n as usize] as usize..self.first[n as usize + 1] as usize];
        let saved: Vec<(VrfId, u32)> =
            routes.iter().map(|&(_, v, _)| (v, cur[v as usize])).collect();
        for &(_, v, h) in routes {
            cur[v as usize] = h;
        }
        let kids = self.m.child[n as usize];
        let word = if kids == [NONE; 2] {
            LEAF | self.pmt.intern(cur)?
        } else {
            let at = self.pairs.len();
            if at as u64 >= LEAF as u64 {
                return Err(limit(self.algo, "trie nodes", LEAF as u64, at as u64 + 1));
            }
            self.pairs.push([0; 2]);
            for (side, &c) in kids.iter().enumerate() {
                let w = if c == NONE { LEAF | self.pmt.intern(cur)? } else { self.node(c, cur)? };
                self.pairs[at][side] = w;
            }
            at as u32
        };
        for (v, old) in saved {
            cur[v as usize] = old;
        }
        Ok(word)
    }
}
