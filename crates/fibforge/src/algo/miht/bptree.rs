//! The B+ tree of MIHT: `u32` keys (the first `k` address bits) to `u32` values (priority
//! trie roots), of order `M` (at most `M` children per internal node, at most `M − 1`
//! entries per leaf).
//!
//! # Layout
//!
//! Nodes live in one arena (`Vec<Node<M>>`, freed slots reused) and are 64-byte aligned:
//! `keys: [u32; M − 1]`, `vals: [u32; M]` and the length, which is exactly 128 bytes for
//! `M = 16` and 256 bytes for `M = 32` (two and four cache lines). An internal node with
//! `len` children holds the separators `keys[..len − 1]` (child `i + 1` holds keys `>= keys[i]`) and the child
//! indices `vals[..len]`; a leaf holds `len` sorted keys and their values. All leaves are at
//! depth `height`; the tree has no leaf links (lookups never scan).
//!
//! # Invariants
//!
//! - Every node but the root holds at least `M / 2` children (internal) or `(M − 1) / 2`
//!   entries (leaf); the root of a non-empty tree of height > 0 has at least 2 children.
//! - Keys are unique and sorted across the leaves left to right.
//!
//! Updates load a node into small vectors, edit, and store it back: they are not the hot
//! path, the searches (`find`, `descend`) are.

use std::fmt;

/// One 64-byte aligned node; see the module doc. `keys` has `M` slots because `[u32; M − 1]`
/// needs unstable const generics: the last slot holds the node's length (entries of a leaf,
/// children of an internal node), so the node is exactly `8M` bytes.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct Node<const M: usize> {
    keys: [u32; M],
    vals: [u32; M],
}

impl<const M: usize> Node<M> {
    const EMPTY: Self = Node { keys: [0; M], vals: [0; M] };

    #[inline(always)]
    fn len(&self) -> usize {
        self.keys[M - 1] as usize
    }

    fn set_len(&mut self, len: usize) {
        self.keys[M - 1] = len as u32;
    }
}

/// A B+ tree of order `M`; see the module doc.
#[derive(Clone)]
pub(super) struct BPlusTree<const M: usize> {
    nodes: Vec<Node<M>>,
    free: Vec<u32>,
    root: u32,
    height: u32,
    entries: usize,
}

impl<const M: usize> fmt::Debug for BPlusTree<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BPlusTree")
            .field("order", &M)
            .field("entries", &self.entries)
            .field("height", &self.height)
            .field("nodes", &(self.nodes.len() - self.free.len()))
            .finish()
    }
}

/// `n` items cut into the fewest runs of at most `max`, of nearly equal sizes (one empty
/// run for `n = 0`).
fn even_parts(n: usize, max: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let parts = n.div_ceil(max).max(1);
    (0..parts).map(move |i| i * n / parts..(i + 1) * n / parts)
}

/// What a child reports to its parent after an insert: a split off right sibling.
type Split = Option<(u32, u32)>;

impl<const M: usize> BPlusTree<M> {
    const MAX_LEAF: usize = M - 1;
    const MIN_LEAF: usize = (M - 1) / 2;
    const MIN_CHILDREN: usize = M / 2;

    /// An empty tree: one empty leaf as the root.
    pub(super) fn new() -> Self {
        assert!(M >= 4, "order at least 4");
        BPlusTree { nodes: vec![Node::EMPTY], free: Vec::new(), root: 0, height: 0, entries: 0 }
    }

    /// A tree of `entries` (sorted by key, keys unique) with full nodes: leaves of `M − 1`
    /// entries and internal nodes of `M` children, the remainder spread evenly so that every
    /// node keeps its minimum fill.
    pub(super) fn from_sorted(entries: &[(u32, u32)]) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        let mut t =
            BPlusTree { nodes: Vec::new(), free: Vec::new(), root: 0, height: 0, entries: 0 };
        t.entries = entries.len();
        // (first key of the subtree, node index) of the level being built.
        let mut level: Vec<(u32, u32)> = Vec::new();
        for part in even_parts(entries.len(), Self::MAX_LEAF) {
            let (keys, vals): (Vec<u32>, Vec<u32>) = part.map(|i| entries[i]).unzip();
            let node = t.alloc();
            t.store(node, &keys, &vals);
            level.push((keys.first().copied().unwrap_or(0), node));
        }
        while level.len() > 1 {
            let mut up = Vec::new();
            for part in even_parts(level.len(), M) {
                let kids = &level[part];
                let seps: Vec<u32> = kids[1..].iter().map(|&(k, _)| k).collect();
                let vals: Vec<u32> = kids.iter().map(|&(_, n)| n).collect();
                let node = t.alloc();
                t.store(node, &seps, &vals);
                up.push((kids[0].0, node));
            }
            level = up;
            t.height += 1;
        }
        t.root = level[0].1;
        t
    }

    /// Number of keys.
    pub(super) fn len(&self) -> usize {
        self.entries
    }

    /// Levels of internal nodes above the leaves.
    pub(super) fn height(&self) -> u32 {
        self.height
    }

    /// Bytes of the node arena and free list.
    pub(super) fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node<M>>() + self.free.capacity() * 4
    }

    /// Index of the child of internal node `n` whose range holds `k`: the number of
    /// separators `<= k` (a branch-free count over at most `M − 1` keys).
    #[inline(always)]
    fn child_slot(n: &Node<M>, k: u32) -> usize {
        let seps = (n.len()).saturating_sub(1);
        n.keys[..seps].iter().filter(|&&s| s <= k).count()
    }

    /// The value stored under `k`.
    #[inline]
    pub(super) fn find(&self, k: u32) -> Option<u32> {
        let mut n = &self.nodes[self.root as usize];
        for _ in 0..self.height {
            n = &self.nodes[n.vals[Self::child_slot(n, k)] as usize];
        }
        let i = n.keys[..n.len()].iter().position(|s| *s == k)?;
        Some(n.vals[i])
    }

    /// The root node index (start of a [`Self::descend`] walk) and the number of steps.
    #[inline(always)]
    pub(super) fn root(&self) -> (u32, u32) {
        (self.root, self.height)
    }

    /// One step of a walk: the child of internal node `node` towards `k`.
    #[inline(always)]
    pub(super) fn descend(&self, node: u32, k: u32) -> u32 {
        let n = &self.nodes[node as usize];
        n.vals[Self::child_slot(n, k)]
    }

    /// The value under `k` in leaf `node`.
    #[inline(always)]
    pub(super) fn leaf_find(&self, node: u32, k: u32) -> Option<u32> {
        let n = &self.nodes[node as usize];
        let i = n.keys[..n.len()].iter().position(|s| *s == k)?;
        Some(n.vals[i])
    }

    /// Hints the cache that `node` is read next.
    #[inline(always)]
    pub(super) fn prefetch(&self, node: u32) {
        crate::algo::prefetch::read(&self.nodes, node as usize);
    }

    fn load(&self, i: u32) -> (Vec<u32>, Vec<u32>, bool) {
        let n = &self.nodes[i as usize];
        let len = n.len();
        let keys = n.keys[..len.min(M - 1)].to_vec();
        (keys, n.vals[..len].to_vec(), false)
    }

    fn store(&mut self, i: u32, keys: &[u32], vals: &[u32]) {
        debug_assert!(keys.len() < M && vals.len() <= M);
        let n = &mut self.nodes[i as usize];
        *n = Node::EMPTY;
        n.keys[..keys.len()].copy_from_slice(keys);
        n.vals[..vals.len()].copy_from_slice(vals);
        n.set_len(vals.len());
    }

    fn alloc(&mut self) -> u32 {
        match self.free.pop() {
            Some(i) => i,
            None => {
                self.nodes.push(Node::EMPTY);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// Inserts `k → v`; returns the previous value (and keeps it replaced by `v`).
    pub(super) fn insert(&mut self, k: u32, v: u32) -> Option<u32> {
        let mut old = None;
        if let Some((sep, right)) = self.insert_at(self.root, self.height, k, v, &mut old) {
            let root = self.alloc();
            self.store(root, &[sep], &[self.root, right]);
            self.root = root;
            self.height += 1;
        }
        if old.is_none() {
            self.entries += 1;
        }
        old
    }

    fn insert_at(&mut self, node: u32, h: u32, k: u32, v: u32, old: &mut Option<u32>) -> Split {
        let (mut keys, mut vals, _) = self.load(node);
        if h == 0 {
            match keys.binary_search(&k) {
                Ok(i) => {
                    *old = Some(std::mem::replace(&mut vals[i], v));
                    self.store(node, &keys, &vals);
                    return None;
                }
                Err(i) => {
                    keys.insert(i, k);
                    vals.insert(i, v);
                }
            }
            if keys.len() <= Self::MAX_LEAF {
                self.store(node, &keys, &vals);
                return None;
            }
            let half = keys.len() / 2;
            let right = self.alloc();
            self.store(right, &keys[half..], &vals[half..]);
            self.store(node, &keys[..half], &vals[..half]);
            return Some((keys[half], right));
        }
        let slot = keys[..vals.len() - 1].iter().filter(|&&s| s <= k).count();
        let (sep, new) = self.insert_at(vals[slot], h - 1, k, v, old)?;
        keys.truncate(vals.len() - 1);
        keys.insert(slot, sep);
        vals.insert(slot + 1, new);
        self.store_internal(node, keys, vals)
    }

    /// Stores an internal node, splitting it when it has more than `M` children.
    fn store_internal(&mut self, node: u32, keys: Vec<u32>, vals: Vec<u32>) -> Split {
        if vals.len() <= M {
            self.store(node, &keys, &vals);
            return None;
        }
        let half = vals.len() / 2;
        let right = self.alloc();
        self.store(right, &keys[half..], &vals[half..]);
        self.store(node, &keys[..half - 1], &vals[..half]);
        Some((keys[half - 1], right))
    }

    /// Removes `k`; returns its value.
    pub(super) fn remove(&mut self, k: u32) -> Option<u32> {
        let v = self.remove_at(self.root, self.height, k)?;
        self.entries -= 1;
        if self.height > 0 && self.nodes[self.root as usize].len() == 1 {
            let old = self.root;
            self.root = self.nodes[old as usize].vals[0];
            self.free.push(old);
            self.height -= 1;
        }
        Some(v)
    }

    fn remove_at(&mut self, node: u32, h: u32, k: u32) -> Option<u32> {
        let (mut keys, mut vals, _) = self.load(node);
        if h == 0 {
            let i = keys.binary_search(&k).ok()?;
            keys.remove(i);
            let v = vals.remove(i);
            self.store(node, &keys, &vals);
            return Some(v);
        }
        keys.truncate(vals.len() - 1);
        let slot = keys.iter().filter(|&&s| s <= k).count();
        let v = self.remove_at(vals[slot], h - 1, k)?;
        let child = &self.nodes[vals[slot] as usize];
        let min = if h == 1 { Self::MIN_LEAF } else { Self::MIN_CHILDREN };
        if child.len() >= min {
            return Some(v);
        }
        let left = if slot + 1 < vals.len() { slot } else { slot - 1 };
        self.rebalance(&mut keys, &mut vals, left, h - 1);
        self.store(node, &keys, &vals);
        Some(v)
    }

    /// Merges or redistributes children `left` and `left + 1` of a node whose separators
    /// and children are `keys` and `vals`; the children are at height `h`.
    fn rebalance(&mut self, keys: &mut Vec<u32>, vals: &mut Vec<u32>, left: usize, h: u32) {
        let (a, b) = (vals[left], vals[left + 1]);
        let (mut ka, mut va, _) = self.load(a);
        let (kb, vb, _) = self.load(b);
        if h > 0 {
            ka.truncate(va.len() - 1);
            ka.push(keys[left]);
            ka.extend_from_slice(&kb[..vb.len() - 1]);
        } else {
            ka.extend_from_slice(&kb);
        }
        va.extend_from_slice(&vb);
        let fits = if h == 0 { va.len() <= Self::MAX_LEAF } else { va.len() <= M };
        if fits {
            self.store(a, &ka, &va);
            self.free.push(b);
            keys.remove(left);
            vals.remove(left + 1);
            return;
        }
        let half = va.len() / 2;
        if h == 0 {
            self.store(a, &ka[..half], &va[..half]);
            self.store(b, &ka[half..], &va[half..]);
            keys[left] = ka[half];
        } else {
            self.store(a, &ka[..half - 1], &va[..half]);
            self.store(b, &ka[half..], &va[half..]);
            keys[left] = ka[half - 1];
        }
    }

    /// Every key in order (tests).
    #[cfg(test)]
    pub(super) fn keys(&self) -> Vec<u32> {
        let mut seen = Vec::new();
        self.check_node(self.root, self.height, true, &mut seen);
        seen
    }

    /// Checks the invariants of the module doc (tests).
    #[cfg(test)]
    pub(super) fn check(&self) {
        let mut seen = Vec::new();
        self.check_node(self.root, self.height, true, &mut seen);
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "keys sorted and unique");
        assert_eq!(seen.len(), self.entries);
    }

    #[cfg(test)]
    fn check_node(&self, node: u32, h: u32, is_root: bool, seen: &mut Vec<u32>) {
        let n = &self.nodes[node as usize];
        let len = n.len();
        if h == 0 {
            assert!(len <= Self::MAX_LEAF && (is_root || len >= Self::MIN_LEAF), "leaf {len}");
            seen.extend((0..len).map(|i| n.keys[i]));
            return;
        }
        assert!(len <= M && len >= if is_root { 2 } else { Self::MIN_CHILDREN }, "node {len}");
        for i in 0..len {
            let before = seen.len();
            self.check_node(n.vals[i], h - 1, false, seen);
            if i > 0 {
                assert!(seen[before] >= n.keys[i - 1], "separator {i}");
            }
            if i + 1 < len {
                assert!(seen.last().is_none_or(|&l| l < n.keys[i]), "separator {i} right");
            }
        }
    }
}
