//! The variable-stride dynamic program (§5, Figure 5): every trie node picks its own stride.
//!
//! `Opt(N, r)`, the least bytes of a trie for the subtree of 1-bit node `N` with at most `r`
//! levels, is `min over s of node(N, s) + Σ Opt(M, r - 1)` over the descendants `M` of `N` at
//! `s` bits below it that have children (a descendant without children is a plain entry of
//! `N`'s array and costs nothing more). `Opt(leaf, r) = 0`, `Opt(N, 0) = ∞` for inner nodes.
//!
//! Pass `r` computes `Opt(·, r)` for every node from `Opt(·, r - 1)`, so `k` passes give the
//! optimum for every `r <= k` at once (the memory-by-levels tables come from one run). For
//! each node the pass walks its descendants breadth-first, one depth per candidate stride,
//! and stops as soon as a wider array alone would cost more than the best plan so far (and
//! packing is no longer possible): sparse subtrees, most of the trie, cost a few steps.
//! Strides are limited to [`MAX_STRIDE`] (and to an optional smaller maximum stride, which
//! bounds the cost of a node rebuild on update).

use super::cost::{CostModel, INFEASIBLE};
use super::onebit::OneBitTrie;
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// The widest stride any trie node may have: `2^24` entries.
#[doc(hidden)]
pub const MAX_STRIDE: u32 = 24;

/// The results of the variable-stride dynamic program for `1..=max_levels` levels.
#[doc(hidden)]
pub struct VarStrideDp<A: Address> {
    roots: Vec<(Prefix<A>, u32)>,
    model: CostModel,
    /// `costs[r - 1]`: least total bytes with at most `r` levels per tree.
    costs: Vec<u64>,
    /// `choice[r - 1][node]`: the best stride of `node` with `r` levels left (0 = none).
    choice: Vec<Vec<u8>>,
    /// Time spent up to and including pass `r`.
    elapsed: Vec<Duration>,
}

/// Reused buffers of the breadth-first walks.
#[derive(Default)]
struct Frontiers {
    cur: Vec<u32>,
    next: Vec<u32>,
}

impl<A: Address> VarStrideDp<A> {
    /// Runs the program on `trie` for up to `max_levels` levels and strides up to
    /// `max_stride` (clamped to [`MAX_STRIDE`]).
    pub fn run(trie: &OneBitTrie<A>, max_levels: u32, model: CostModel, max_stride: u32) -> Self {
        let max_stride = max_stride.clamp(1, MAX_STRIDE);
        let n = trie.len();
        let start = Instant::now();
        let mut prev: Vec<u64> =
            (0..n as u32).map(|id| if trie.has_children(id) { INFEASIBLE } else { 0 }).collect();
        let mut cur = vec![0u64; n];
        let mut dp = VarStrideDp {
            roots: trie.roots().to_vec(),
            model,
            costs: Vec::new(),
            choice: Vec::new(),
            elapsed: Vec::new(),
        };
        let mut fr = Frontiers::default();
        let whole_segments = whole_subtree_segments(trie);
        for r in 0..max_levels {
            let mut choice = vec![0u8; n];
            for id in 0..n as u32 {
                if !trie.has_children(id) {
                    continue;
                }
                let (best, s) = if r == 0 {
                    one_level(trie, id, whole_segments[id as usize], &model, max_stride)
                } else {
                    best_stride(trie, id, &prev, &model, max_stride, &mut fr)
                };
                cur[id as usize] = best;
                choice[id as usize] = s;
            }
            std::mem::swap(&mut prev, &mut cur);
            dp.costs.push(dp.total(trie, &prev));
            dp.choice.push(choice);
            dp.elapsed.push(start.elapsed());
        }
        dp
    }

    fn total(&self, trie: &OneBitTrie<A>, opt: &[u64]) -> u64 {
        self.roots.iter().fold(0u64, |acc, &(_, id)| {
            let c = if trie.has_children(id) { opt[id as usize] } else { self.lone_root_bytes() };
            acc.saturating_add(c)
        })
    }

    /// A root without children still needs a node: stride 1, one segment.
    fn lone_root_bytes(&self) -> u64 {
        self.model.node_bytes(1, 1)
    }

    /// Least bytes with at most `levels` levels, `None` when no such trie exists.
    pub fn bytes(&self, levels: u32) -> Option<u64> {
        let c = *self.costs.get(levels.checked_sub(1)? as usize)?;
        (c != INFEASIBLE).then_some(c)
    }

    /// Time the program took for `levels` levels (its first `levels` passes).
    pub fn elapsed(&self, levels: u32) -> Duration {
        self.elapsed[levels as usize - 1]
    }

    /// The per-node strides of the best trie with at most `levels` levels.
    pub fn plan(&self, trie: &OneBitTrie<A>, levels: u32) -> Result<VarPlan<A>, BuildError> {
        let bytes = self.bytes(levels).ok_or_else(|| BuildError::Unsupported {
            algo: "cpe_var",
            reason: format!("no trie of {levels} levels within the stride limit covers the table"),
        })?;
        let mut plan = VarPlan { strides: HashMap::new(), bytes, levels, by_level: vec![] };
        for &(prefix, root) in &self.roots {
            if trie.has_children(root) {
                self.extract(trie, root, prefix, levels, &mut plan);
            } else {
                plan.record(prefix, 1, 0);
            }
        }
        Ok(plan)
    }

    fn extract(
        &self,
        trie: &OneBitTrie<A>,
        root: u32,
        prefix: Prefix<A>,
        r: u32,
        plan: &mut VarPlan<A>,
    ) {
        let mut stack = vec![(root, prefix, r)];
        while let Some((id, p, r)) = stack.pop() {
            let s = self.choice[r as usize - 1][id as usize] as u32;
            plan.record(p, s, levels_used(r, plan.levels));
            for (c, cp) in descendants_at(trie, id, p, s) {
                if trie.has_children(c) {
                    stack.push((c, cp, r - 1));
                }
            }
        }
    }
}

fn levels_used(left: u32, total: u32) -> usize {
    (total - left) as usize
}

/// Segments of each node's array when its stride reaches the bottom of its subtree: one per
/// leaf and one per missing child slot, summed bottom-up.
fn whole_subtree_segments<A: Address>(trie: &OneBitTrie<A>) -> Vec<u64> {
    let mut seg = vec![1u64; trie.len()];
    for id in (0..trie.len()).rev() {
        if trie.has_children(id as u32) {
            seg[id] = trie.child[id]
                .iter()
                .map(|&c| if c == super::onebit::NO_CHILD { 1 } else { seg[c as usize] })
                .sum();
        }
    }
    seg
}

/// `Opt(N, 1)`: a single node whose stride reaches the bottom of the subtree.
fn one_level<A: Address>(
    trie: &OneBitTrie<A>,
    id: u32,
    segments: u64,
    model: &CostModel,
    max_stride: u32,
) -> (u64, u8) {
    let h = trie.height[id as usize] as u32;
    if h > max_stride { (INFEASIBLE, 0) } else { (model.node_bytes(h, segments), h as u8) }
}

/// The best stride of inner node `id` given `Opt(·, r - 1)` in `prev`: (bytes, stride).
fn best_stride<A: Address>(
    trie: &OneBitTrie<A>,
    id: u32,
    prev: &[u64],
    model: &CostModel,
    max_stride: u32,
    fr: &mut Frontiers,
) -> (u64, u8) {
    let max_s = max_stride.min(trie.height[id as usize] as u32);
    fr.cur.clear();
    fr.cur.push(id);
    let (mut best, mut best_s) = (INFEASIBLE, 0u8);
    let mut segments = 1u64;
    for s in 1..=max_s {
        segments += fr.cur.len() as u64;
        fr.next.clear();
        let mut below = 0u64;
        for &f in &fr.cur {
            for (_, c) in trie.children(f) {
                if trie.has_children(c) {
                    fr.next.push(c);
                    below = below.saturating_add(prev[c as usize]);
                }
            }
        }
        let cost = model.node_bytes(s, segments).saturating_add(below);
        if cost < best {
            (best, best_s) = (cost, s as u8);
        }
        std::mem::swap(&mut fr.cur, &mut fr.next);
        let next_segments = segments + fr.cur.len() as u64;
        if fr.cur.is_empty() || (model.array_bytes(s + 1) >= best && !model.may_pack(next_segments))
        {
            break;
        }
    }
    (best, best_s)
}

/// The descendants of node `id` (prefix `p`) exactly `s` bits below it, with their prefixes.
pub(crate) fn descendants_at<A: Address>(
    trie: &OneBitTrie<A>,
    id: u32,
    p: Prefix<A>,
    s: u32,
) -> Vec<(u32, Prefix<A>)> {
    let mut level = vec![(id, p)];
    for _ in 0..s {
        let mut next = Vec::with_capacity(level.len() * 2);
        for &(n, q) in &level {
            for (bit, c) in trie.children(n) {
                next.push((c, child_prefix(q, bit)));
            }
        }
        level = next;
    }
    level
}

fn child_prefix<A: Address>(q: Prefix<A>, bit: usize) -> Prefix<A> {
    let len = q.len() + 1;
    let addr = q.addr().to_u128() | ((bit as u128) << (A::BITS - len));
    Prefix::from_parts_unchecked(A::from_u128(addr), len)
}

/// Per-node strides chosen by the variable-stride program.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct VarPlan<A: Address> {
    pub(crate) strides: HashMap<Prefix<A>, u8>,
    bytes: u64,
    levels: u32,
    /// Per level: stride → number of nodes.
    by_level: Vec<BTreeMap<u32, usize>>,
}

impl<A: Address> VarPlan<A> {
    /// A hand-made plan: the stride of every node (by its path), the level bound and the
    /// bytes it is expected to take.
    pub fn from_strides(strides: HashMap<Prefix<A>, u8>, levels: u32, bytes: u64) -> Self {
        VarPlan { strides, bytes, levels, by_level: vec![] }
    }

    fn record(&mut self, p: Prefix<A>, stride: u32, level: usize) {
        self.strides.insert(p, stride as u8);
        if self.by_level.len() <= level {
            self.by_level.resize(level + 1, BTreeMap::new());
        }
        *self.by_level[level].entry(stride).or_default() += 1;
    }

    /// The stride planned for the node whose path is `p`, if the plan has such a node.
    pub fn stride_of(&self, p: &Prefix<A>) -> Option<u32> {
        self.strides.get(p).map(|&s| s as u32)
    }

    /// The bytes the program predicts.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The level bound the plan was made for.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Number of planned nodes.
    pub fn nodes(&self) -> usize {
        self.strides.len()
    }

    /// For each level, how many nodes have each stride.
    pub fn strides_by_level(&self) -> &[BTreeMap<u32, usize>] {
        &self.by_level
    }
}
