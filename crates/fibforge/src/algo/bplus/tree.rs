//! The linearized B+-tree: sorted keys in 64-byte nodes, children found by arithmetic.
//!
//! Layout: one array of lines, the levels stored top-down (the root first, the leaves
//! last). A level holds `ceil(below / F)` nodes of the level below it, `F = B + 1` where `B`
//! is the keys per node (16 for `u32`, 8 for `u64`), so inner levels are sized by what
//! exists, not by a full-capacity shape. The leaf level is the sorted key array itself, cut
//! into lines and padded with `K::MAX`.
//!
//! Inner node `k` of a level has children `k·F + i` (`i` in `0..=B`) in the level below; its
//! key `i` is the smallest key under child `i + 1`, or `K::MAX` when that child does not
//! exist. The rank of a probe `x` in a node (keys `<= x`) is therefore the child to descend
//! into, and at the leaf one past the position of the predecessor of `x`.
//!
//! Invariants: the keys are strictly ascending, the first is 0 (so every probe has a
//! predecessor) and all are below `K::MAX`; probes are clamped below `K::MAX`, so padding
//! keys and separators of missing children never count and every index stays in bounds.

use super::node::{Isa, TreeKey};

/// A static search tree over sorted keys.
#[derive(Clone)]
pub(super) struct Tree<K: TreeKey> {
    lines: Box<[K::Line]>,
    /// Index of each level's first line; the last entry is the leaf level.
    level_start: Box<[usize]>,
    len: usize,
}

impl<K: TreeKey> Tree<K> {
    /// Children per inner node.
    pub(super) const FANOUT: usize = K::PER_NODE + 1;

    /// Builds the tree of `keys` (strictly ascending, starting at 0, all below `K::MAX`).
    pub(super) fn build(keys: &[K]) -> Self {
        assert!(keys.first() == Some(&K::default()), "the first key must be 0");
        debug_assert!(keys.windows(2).all(|w| w[0] < w[1]) && keys.last() < Some(&K::MAX));
        let b = K::PER_NODE;
        let mut sizes = vec![keys.len().div_ceil(b)];
        while *sizes.last().unwrap() > 1 {
            sizes.push(sizes.last().unwrap().div_ceil(Self::FANOUT));
        }
        sizes.reverse(); // top-down: root first
        let mut level_start = Vec::with_capacity(sizes.len());
        let mut lines = Vec::with_capacity(sizes.iter().sum());
        let leaf_level = sizes.len() - 1;
        for (level, &size) in sizes.iter().enumerate() {
            level_start.push(lines.len());
            for node in 0..size {
                lines.push(if level == leaf_level {
                    leaf_line(keys, node)
                } else {
                    inner_line(keys, &sizes, level, node)
                });
            }
        }
        Tree { lines: lines.into(), level_start: level_start.into(), len: keys.len() }
    }

    /// Inner levels above the leaves.
    pub(super) fn height(&self) -> usize {
        self.level_start.len() - 1
    }

    /// Number of keys.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The key at `position` (`< len`).
    pub(super) fn key(&self, position: usize) -> K {
        let leaves = &self.lines[self.leaf_start()..];
        leaves[position / K::PER_NODE].as_ref()[position % K::PER_NODE]
    }

    /// Position of the greatest key `<= x` (`x` is clamped below `K::MAX`).
    #[inline(always)]
    pub(super) fn search<I: Isa>(&self, x: K) -> usize {
        self.search_from::<I>(0, 0, x)
    }

    /// [`Tree::search`] starting at `node` of `level`, an ancestor of the leaf of `x`.
    #[inline(always)]
    pub(super) fn search_from<I: Isa>(&self, level: usize, node: usize, x: K) -> usize {
        // Probes equal to K::MAX are answered by the caller (`Fib::position`).
        let x = x.min(K::MAX_BELOW);
        // A checked start keeps the unchecked descent in bounds (see `line`).
        let _ = self.level(level)[node];
        let mut node = node;
        for level in level..self.height() {
            node = node * Self::FANOUT + K::rank::<I>(self.line(level, node), x);
        }
        node * K::PER_NODE + K::rank::<I>(self.line(self.height(), node), x) - 1
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

    /// Bytes of the node array.
    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.lines) + std::mem::size_of_val(&*self.level_start)
    }
}

/// Leaf line `node`: keys `node·B ..`, padded with `K::MAX`.
fn leaf_line<K: TreeKey>(keys: &[K], node: usize) -> K::Line {
    let mut line = K::PADDING;
    let b = K::PER_NODE;
    let part = &keys[node * b..((node + 1) * b).min(keys.len())];
    line.as_mut()[..part.len()].copy_from_slice(part);
    line
}

/// Inner line `node` of `level`: the smallest key under each child but the first.
fn inner_line<K: TreeKey>(keys: &[K], sizes: &[usize], level: usize, node: usize) -> K::Line {
    let mut line = K::PADDING;
    let fanout = Tree::<K>::FANOUT;
    // Leaves under one node of the level below this one.
    let leaves_per_child = fanout.pow((sizes.len() - 2 - level) as u32);
    for i in 0..K::PER_NODE {
        let child = node * fanout + i + 1;
        if child < sizes[level + 1] {
            line.as_mut()[i] = keys[child * leaves_per_child * K::PER_NODE];
        }
    }
    line
}
