//! How a table chooses its braiding bits while it is merged into the shared trie (Trie
//! Braiding, `braiding.rs`; H. Song, M. Kodialam, F. Hao, T. V. Lakshman, INFOCOM 2010).
//!
//! A table is merged top-down: its root goes onto the shared root and, at each table node `t`
//! mapped onto shared node `s`, the table picks an orientation, *straight* (its child `i` onto
//! `s`'s child `i`) or *crossed* (onto child `1 - i`, braiding bit set). The nodes the table
//! adds are its size minus the *overlap*, the number of its nodes that land on existing
//! shared nodes; Song et al.'s dynamic program maximises the overlap with
//! `ov(s, t) = 1 + max(ov(s0, t0) + ov(s1, t1), ov(s1, t0) + ov(s0, t1))`.
//!
//! - [`greedy`]: estimates each child pair's overlap as the smaller subtree size (the most two
//!   subtrees can share) and picks the larger sum.
//! - [`lookahead`] (`braid=optimal` past the exact program's budget, `braid_exact`): the
//!   recurrence above with the child pairs' overlaps counted exactly for a straight mapping
//!   below them (`straight(x, y)`, no estimate), the crossed pair skipped when even its size
//!   bound cannot beat straight. It costs `O(nodes × depth)` per table, where the exact
//!   recurrence may need every pair of same-depth subtree classes of the two tries.
//!
//! **Invariant** (tested): with `lookahead` every table node's mapping overlaps at least as
//! many shared nodes as the straight mapping of the plain merge. By induction on depth: the
//! chosen orientation's straight overlaps are at least the straight orientation's, and
//! re-choosing below only adds. So merging one table into a given shared trie never adds more
//! nodes than `braid=off` would add to that trie.

use super::trie_shape::{Merged, NONE, TableTrie};

/// Greedy braiding: swap when the size-bound estimate of the crossed overlap is larger.
pub(super) fn greedy(m: &Merged, s: u32, t: &TableTrie, tc: [u32; 2]) -> bool {
    let [s0, s1] = m.child[s as usize].map(|c| m.size_of(c));
    let [t0, t1] = tc.map(|c| t.size_of(c));
    let straight = s0.min(t0) + s1.min(t1);
    let crossed = s1.min(t0) + s0.min(t1);
    crossed > straight
}

/// The nodes shared when table subtree `y` lies on shared subtree `x` with no swap below
/// (recursion depth at most the address width).
pub(super) fn straight(shared: &[[u32; 2]], table: &[[u32; 2]], x: u32, y: u32) -> u32 {
    if x == NONE || y == NONE {
        return 0;
    }
    let [x0, x1] = shared[x as usize];
    let [y0, y1] = table[y as usize];
    1 + straight(shared, table, x0, y0) + straight(shared, table, x1, y1)
}

/// A braiding decision at one node.
pub(super) struct Choice {
    /// The table sees the shared node's children swapped.
    pub swap: bool,
    /// For each table child, the straight overlap with the shared child it goes onto.
    pub below: [u32; 2],
}

/// One-level lookahead at table node `tn` (children `tc`) mapped onto shared node `s`.
/// `known` is `straight(s, tn)` when the caller counted it already (saves one count).
pub(super) fn lookahead(
    m: &Merged,
    s: u32,
    t: &TableTrie,
    tc: [u32; 2],
    known: Option<u32>,
) -> Choice {
    let [s0, s1] = m.child[s as usize];
    let [t0, t1] = tc;
    let a = straight(&m.child, &t.child, s0, t0);
    let b = match known {
        Some(k) => k - 1 - a,
        None => straight(&m.child, &t.child, s1, t1),
    };
    let keep = Choice { swap: false, below: [a, b] };
    let bound = m.size_of(s1).min(t.size_of(t0)) + m.size_of(s0).min(t.size_of(t1));
    if bound <= a + b {
        return keep;
    }
    let c0 = straight(&m.child, &t.child, s1, t0);
    let c1 = straight(&m.child, &t.child, s0, t1);
    if c0 + c1 > a + b { Choice { swap: true, below: [c0, c1] } } else { keep }
}
