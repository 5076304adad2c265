//! Song et al.'s exact braiding program for one table against the shared trie, within a
//! budget (`braid=optimal`; the fallback beyond the budget is `braid_choice::lookahead`).
//!
//! The overlap of shared subtree `x` and table subtree `y` (same depth) is
//! `ov(x, y) = 1 + max(ov(x0, y0) + ov(x1, y1), ov(x1, y0) + ov(x0, y1))`, 0 when either is
//! absent. It depends only on the two subtrees' shapes up to child swaps, so, as in the paper,
//! the program runs on *isomorphism classes*: both tries' subtrees are interned bottom-up as
//! `class = (smaller child class, larger child class)` (class 0: no subtree), and `ov` is
//! memoised on class pairs. Two equal classes overlap completely (`ov = size`), and the
//! crossed sum is skipped when the bound `min(|x1|, |y0|) + min(|x0|, |y1|)` cannot beat the
//! straight one, so the answer stays exact.
//!
//! **Budget.** The class pairs are at worst every pair of same-depth subtrees, far too many
//! for full tables whose subtrees differ. [`Exact::new`] gives up (returns `None`) once the
//! memo holds `budget` pairs, and the merge then uses the lookahead for that table.
//!
//! **Invariant.** While a table is merged top-down, the subtrees below the shared node being
//! decided are those the classes were computed on (the table adds nodes only below decided
//! nodes), so the memoised values hold for every decision; a new shared node has no children.

use super::trie_shape::{Merged, NONE, TableTrie};
use std::collections::HashMap;

/// The exact program's state for one table merge.
pub(super) struct Exact {
    /// Children classes of each class (sorted), class 0 none.
    kids: Vec<[u32; 2]>,
    /// Nodes of each class's subtree.
    size: Vec<u32>,
    shared: Vec<u32>,
    table: Vec<u32>,
    memo: HashMap<(u32, u32), u32>,
    budget: usize,
}

/// Interns the classes of a trie whose children come after their parent.
fn classes(child: &[[u32; 2]], index: &mut HashMap<[u32; 2], u32>, e: &mut Exact) -> Vec<u32> {
    let mut cls = vec![0u32; child.len()];
    for n in (0..child.len()).rev() {
        let [a, b] = child[n].map(|c| if c == NONE { 0 } else { cls[c as usize] });
        let key = [a.min(b), a.max(b)];
        cls[n] = *index.entry(key).or_insert_with(|| {
            e.kids.push(key);
            e.size.push(1 + e.size[key[0] as usize] + e.size[key[1] as usize]);
            e.kids.len() as u32 - 1
        });
    }
    cls
}

impl Exact {
    /// The program for table `t` against `m`, or `None` when the root's overlap needs more
    /// than `budget` memoised class pairs.
    pub(super) fn new(m: &Merged, t: &TableTrie, budget: usize) -> Option<Exact> {
        let mut e = Exact {
            kids: vec![[0, 0]],
            size: vec![0],
            shared: Vec::new(),
            table: Vec::new(),
            memo: HashMap::new(),
            budget,
        };
        let mut index = HashMap::new();
        e.shared = classes(&m.child, &mut index, &mut e);
        e.table = classes(&t.child, &mut index, &mut e);
        let (rs, rt) = (e.shared[0], e.table[0]);
        e.ov(rs, rt)?;
        Some(e)
    }

    /// The overlap of classes `a` and `b`; `None` past the budget.
    fn ov(&mut self, a: u32, b: u32) -> Option<u32> {
        if a == 0 || b == 0 {
            return Some(0);
        }
        if a == b {
            return Some(self.size[a as usize]);
        }
        let key = (a.min(b), a.max(b));
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        if self.memo.len() >= self.budget {
            return None;
        }
        let (v, _) = self.best(self.kids[a as usize], self.kids[b as usize])?;
        self.memo.insert(key, v);
        Some(v)
    }

    /// `1 + max(straight, crossed)` for children classes `x` and `y`, and whether crossed is
    /// strictly better.
    fn best(&mut self, [x0, x1]: [u32; 2], [y0, y1]: [u32; 2]) -> Option<(u32, bool)> {
        let whole = |s: &Self| 1 + s.size[x0 as usize] + s.size[x1 as usize];
        if [x0, x1] == [y0, y1] {
            return Some((whole(self), false));
        }
        if [x1, x0] == [y0, y1] {
            return Some((whole(self), true));
        }
        let straight = self.ov(x0, y0)? + self.ov(x1, y1)?;
        let sz = |c: u32| self.size[c as usize];
        let bound = sz(x1).min(sz(y0)) + sz(x0).min(sz(y1));
        if bound <= straight {
            return Some((1 + straight, false));
        }
        let crossed = self.ov(x1, y0)? + self.ov(x0, y1)?;
        Some((1 + straight.max(crossed), crossed > straight))
    }

    /// Whether table node `tn` (children `tc`) on shared node `s` swaps, by the program; the
    /// values are memoised from [`Exact::new`], so this stays within the budget.
    pub(super) fn swap(&mut self, m: &Merged, s: u32, tc: [u32; 2]) -> bool {
        let cls_s =
            m.child[s as usize].map(|c| if c == NONE { 0 } else { self.shared[c as usize] });
        let cls_t = tc.map(|c| if c == NONE { 0 } else { self.table[c as usize] });
        // Past the budget here would mean a value missing from the root's program; no swap
        // is then the safe choice.
        self.best(cls_s, cls_t).is_some_and(|(_, swap)| swap)
    }
}
