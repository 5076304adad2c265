//! The linearized B+-tree: sorted keys in 64-byte nodes, children found by arithmetic.
//!
//! Layout: one array of lines, the levels stored top-down (the root first, the leaves
//! last). A level holds `ceil(below / F)` nodes of the level below it, `F = B + 1` where `B`
//! is the keys per node (16 for `u32`, 8 for `u64`), so inner levels are sized by what
//! exists, not by a full-capacity shape. The leaf level is the sorted key array itself, cut
//! into lines and padded with `K::MAX` (plain leaves), or packed into relative leaves of up
//! to 13 keys each (`leaf.rs`) or hop leaves of up to 9 keys with their answers
//! (`hopleaf.rs`), both kept apart from the inner lines; inner levels are built over
//! whichever leaves exist, so only the leaf step differs.
//!
//! Inner node `k` of a level has children `k·F + i` (`i` in `0..=B`) in the level below; its
//! key `i` is the first key of the leftmost leaf under child `i + 1`, or `K::MAX` when that
//! child does not exist. The rank of a probe `x` in a node (keys `<= x`) is therefore the
//! child to descend into, and at a plain leaf one past the position of the predecessor of `x`.
//!
//! Keys are stored in their line form (`TreeKey::line_form`: IPv6 keys with the sign bit
//! flipped). Invariants: the keys are strictly ascending, the first is 0 (so every probe has a
//! predecessor) and all are below `K::MAX`; probes are clamped below `K::MAX`, so padding
//! keys and separators of missing children never count and every index stays in bounds.

use super::hopleaf::HopLeaves;
use super::leaf::RelLeaves;
use super::node::{Isa, TreeKey};

/// The leaf layout a build asks for.
#[derive(Copy, Clone, Debug)]
pub(super) enum Layout<'a> {
    /// Lines of full keys (`leaf_line`).
    Plain,
    /// Relative leaves (`leaf.rs`).
    Rel,
    /// Hop leaves (`hopleaf.rs`) with these answer words, one per key (below `2^16`).
    Hop(&'a [u32]),
}

/// The leaf level when it lives apart from the inner lines.
#[derive(Clone)]
pub(super) enum Leaves {
    /// Plain leaves: the last level of the lines.
    Plain,
    /// Relative leaves.
    Rel(RelLeaves),
    /// Hop leaves.
    Hop(HopLeaves),
}

/// A static search tree over sorted keys.
#[derive(Clone)]
pub(super) struct Tree<K: TreeKey> {
    /// Inner levels, then (plain layout) the leaf level.
    lines: Box<[K::Line]>,
    /// Index of each level's first line; the last entry is the leaf level (for relative
    /// and hop leaves it is `lines.len()`: those leaves live in `leaves`).
    level_start: Box<[usize]>,
    leaves: Leaves,
    len: usize,
}

impl<K: TreeKey> Tree<K> {
    /// Children per inner node.
    pub(super) const FANOUT: usize = K::PER_NODE + 1;

    /// Builds the tree of `keys` (strictly ascending, starting at 0, all below `K::MAX`)
    /// with leaves in `layout`.
    pub(super) fn build(keys: &[K], layout: Layout) -> Self {
        assert!(keys.first() == Some(&K::default()), "the first key must be 0");
        debug_assert!(keys.windows(2).all(|w| w[0] < w[1]) && keys.last() < Some(&K::MAX));
        let b = K::PER_NODE;
        // The first key of every leaf: inner separators are first keys of child subtrees.
        let firsts_of = |firsts: Vec<usize>| firsts.into_iter().map(|i| keys[i]).collect();
        let (leaves, leaf_firsts): (Leaves, Vec<K>) = match layout {
            Layout::Plain => (Leaves::Plain, keys.iter().step_by(b).copied().collect()),
            Layout::Rel => {
                let (leaves, firsts) = RelLeaves::build(keys);
                (Leaves::Rel(leaves), firsts_of(firsts))
            }
            Layout::Hop(words) => {
                let (leaves, firsts) = HopLeaves::build(keys, words);
                (Leaves::Hop(leaves), firsts_of(firsts))
            }
        };
        let mut sizes = vec![leaf_firsts.len()];
        while *sizes.last().unwrap() > 1 {
            sizes.push(sizes.last().unwrap().div_ceil(Self::FANOUT));
        }
        sizes.reverse(); // top-down: root first
        let mut level_start = Vec::with_capacity(sizes.len());
        let mut lines = Vec::with_capacity(sizes.iter().sum());
        let leaf_level = sizes.len() - 1;
        for (level, &size) in sizes.iter().enumerate() {
            level_start.push(lines.len());
            if level == leaf_level {
                if let Leaves::Plain = leaves {
                    lines.extend((0..size).map(|node| leaf_line(keys, node)));
                }
            } else {
                lines.extend((0..size).map(|node| inner_line(&leaf_firsts, &sizes, level, node)));
            }
        }
        Tree { lines: lines.into(), level_start: level_start.into(), leaves, len: keys.len() }
    }

    /// Inner levels above the leaves.
    pub(super) fn height(&self) -> usize {
        self.level_start.len() - 1
    }

    /// Number of keys.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The leaf layout (relative and hop leaves live apart from the inner lines).
    #[inline(always)]
    pub(super) fn leaves(&self) -> &Leaves {
        &self.leaves
    }

    /// The relative leaf level, when the tree has one.
    #[cfg(test)]
    pub(super) fn rel(&self) -> Option<&RelLeaves> {
        match &self.leaves {
            Leaves::Rel(rel) => Some(rel),
            _ => None,
        }
    }

    /// The hop leaf level, when the tree has one.
    #[inline(always)]
    pub(super) fn hop_leaves(&self) -> Option<&HopLeaves> {
        match &self.leaves {
            Leaves::Hop(hop) => Some(hop),
            _ => None,
        }
    }

    /// Nodes of `level` (`0..=height()`).
    pub(super) fn level_len(&self, level: usize) -> usize {
        match &self.leaves {
            Leaves::Rel(rel) if level == self.height() => rel.len(),
            Leaves::Hop(hop) if level == self.height() => hop.len(),
            _ => self.level(level).len(),
        }
    }

    /// The key at `position` (`< len`).
    pub(super) fn key(&self, position: usize) -> K {
        match &self.leaves {
            Leaves::Rel(rel) => K::from_u128_lossy(rel.key(position) as u128),
            Leaves::Hop(hop) => K::from_u128_lossy(hop.key(position) as u128),
            Leaves::Plain => {
                let leaves = &self.lines[self.leaf_start()..];
                leaves[position / K::PER_NODE].as_ref()[position % K::PER_NODE].line_form()
            }
        }
    }

    /// The leaf holding `position` (`< len`).
    pub(super) fn leaf_of(&self, position: usize) -> usize {
        match &self.leaves {
            Leaves::Rel(rel) => rel.leaf_of(position),
            Leaves::Hop(hop) => hop.leaf_of(position),
            Leaves::Plain => position / K::PER_NODE,
        }
    }

    /// Position of the greatest key `<= x` (`x` is clamped below `K::MAX`).
    #[inline(always)]
    pub(super) fn search<I: Isa>(&self, x: K) -> usize {
        self.search_from::<I>(0, 0, x)
    }

    /// [`Tree::search`] starting at `node` of `level`, an ancestor of the leaf of `x`.
    #[inline(always)]
    pub(super) fn search_from<I: Isa>(&self, level: usize, node: usize, x: K) -> usize {
        let (leaf, x) = self.leaf_from::<I>(level, node, x);
        self.leaf_position::<I>(leaf, x)
    }

    /// The leaf of `x` below `node` of `level`, an ancestor of it, and `x` clamped below
    /// `K::MAX` as the leaf step wants it.
    #[inline(always)]
    pub(super) fn leaf_from<I: Isa>(&self, level: usize, node: usize, x: K) -> (usize, K) {
        // Probes equal to K::MAX are answered by the caller (`Fib::position`).
        let x = x.min(K::MAX_BELOW);
        // A checked start keeps the unchecked descent in bounds (see `line`).
        assert!(node < self.level_len(level), "start node {node} outside level {level}");
        let (mut node, probe) = (node, x.probe::<I>());
        for level in level..self.height() {
            node = node * Self::FANOUT + K::rank::<I>(self.line(level, node), probe);
        }
        (node, x)
    }

    /// Position of the greatest key `<= x` in leaf `node`, reached by a descent.
    #[inline(always)]
    pub(super) fn leaf_position<I: Isa>(&self, node: usize, x: K) -> usize {
        match &self.leaves {
            Leaves::Rel(rel) => rel.position::<I>(node, x.to_u128() as u64),
            Leaves::Hop(hop) => hop.position::<I>(node, x.to_u128() as u64),
            Leaves::Plain => {
                let rank = K::rank::<I>(self.line(self.height(), node), x.probe::<I>());
                node * K::PER_NODE + rank - 1
            }
        }
    }

    /// Line `node` of `level`.
    #[inline(always)]
    pub(super) fn line(&self, level: usize, node: usize) -> &K::Line {
        let index = self.level_start[level] + node;
        debug_assert!(index < self.lines.len());
        // SAFETY: callers descend by ranks from an existing node (the root, or a checked
        // start); a rank counts only real separators (probes are clamped below `K::MAX`),
        // each naming an existing child, so `node` is within its level (see the module
        // invariants).
        unsafe { self.lines.get_unchecked(index) }
    }

    /// The lines of `level` (`0..=height()`).
    #[inline(always)]
    pub(super) fn level(&self, level: usize) -> &[K::Line] {
        let end = self.level_start.get(level + 1).copied().unwrap_or(self.lines.len());
        &self.lines[self.level_start[level]..end]
    }

    /// Line `node` of `lines`, a level reached by a descent (see `line`).
    #[inline(always)]
    pub(super) fn line_in<'a>(&self, lines: &'a [K::Line], node: usize) -> &'a K::Line {
        debug_assert!(node < lines.len());
        // SAFETY: as in `line`: a descent's node index is within its level.
        unsafe { lines.get_unchecked(node) }
    }

    fn leaf_start(&self) -> usize {
        self.level_start[self.height()]
    }

    /// Bytes of the node arrays.
    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.lines)
            + std::mem::size_of_val(&*self.level_start)
            + match &self.leaves {
                Leaves::Plain => 0,
                Leaves::Rel(rel) => rel.memory_bytes(),
                Leaves::Hop(hop) => hop.memory_bytes(),
            }
    }
}

/// Leaf line `node`: keys `node·B ..`, padded with `K::MAX`.
fn leaf_line<K: TreeKey>(keys: &[K], node: usize) -> K::Line {
    let mut line = K::PADDING;
    let b = K::PER_NODE;
    let part = &keys[node * b..((node + 1) * b).min(keys.len())];
    for (slot, &key) in line.as_mut().iter_mut().zip(part) {
        *slot = key.line_form();
    }
    line
}

/// Inner line `node` of `level`: the smallest key under each child but the first
/// (`leaf_firsts`: the first key of every leaf).
fn inner_line<K: TreeKey>(
    leaf_firsts: &[K],
    sizes: &[usize],
    level: usize,
    node: usize,
) -> K::Line {
    let mut line = K::PADDING;
    let fanout = Tree::<K>::FANOUT;
    // Leaves under one node of the level below this one.
    let leaves_per_child = fanout.pow((sizes.len() - 2 - level) as u32);
    for i in 0..K::PER_NODE {
        let child = node * fanout + i + 1;
        if child < sizes[level + 1] {
            line.as_mut()[i] = leaf_firsts[child * leaves_per_child].line_form();
        }
    }
    line
}
