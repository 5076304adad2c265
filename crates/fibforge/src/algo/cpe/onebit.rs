//! The 1-bit trie the variable-stride dynamic program runs on (§5, Figure 5).
//!
//! Nodes live in flat arrays indexed by id; ids are assigned in preorder (a parent before its
//! children, a left subtree before the right one), because routes are inserted in address
//! order. Reverse id order is therefore a valid bottom-up order.
//!
//! The trie may be a *forest* of blocks of `block` bits (used by the IPv6 hybrid of §7): a
//! route of length `l > 0` belongs to block `(l - 1) / block` and is inserted into the tree
//! rooted at its first `block * j` bits; a node at a block boundary is a leaf of the upper
//! tree and, separately, the root of a lower one. With `block = BITS` there is one tree rooted
//! at the empty prefix.

use crate::addr::Address;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::collections::BTreeMap;

/// Child slot value meaning "no child" (node 0 is always a root, never a child).
pub(crate) const NO_CHILD: u32 = 0;

/// A 1-bit trie (or forest) of the routes of a RIB; see the module doc.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct OneBitTrie<A: Address> {
    pub(crate) child: Vec<[u32; 2]>,
    pub(crate) depth: Vec<u8>,
    /// Longest route below the node, in bits below it (0 for leaves).
    pub(crate) height: Vec<u8>,
    /// Tree roots: their prefix and node id, by (length, address).
    pub(crate) roots: Vec<(Prefix<A>, u32)>,
}

impl<A: Address> OneBitTrie<A> {
    /// The 1-bit trie of every route (one tree rooted at the empty prefix).
    pub fn new(rib: &Rib<A>) -> Self {
        Self::forest(rib, A::BITS)
    }

    /// The forest of `block`-bit blocks (see the module doc); `block` in `1..=BITS`.
    pub fn forest(rib: &Rib<A>, block: u32) -> Self {
        assert!((1..=A::BITS).contains(&block), "block width {block} out of range");
        let mut trees: BTreeMap<(u32, A), Vec<Prefix<A>>> = BTreeMap::new();
        for (p, _) in rib.iter() {
            let root_len = p.len().saturating_sub(1) / block * block;
            trees.entry((root_len, p.addr().truncate(root_len))).or_default().push(p);
        }
        if trees.is_empty() {
            trees.insert((0, A::ZERO), Vec::new());
        }
        let mut t = OneBitTrie { child: vec![], depth: vec![], height: vec![], roots: vec![] };
        for ((root_len, addr), routes) in trees {
            let root = t.alloc(root_len);
            t.roots.push((Prefix::from_parts_unchecked(addr, root_len), root));
            for p in routes {
                t.insert(root, root_len, &p);
            }
        }
        t.compute_heights();
        t
    }

    fn alloc(&mut self, depth: u32) -> u32 {
        self.child.push([NO_CHILD; 2]);
        self.depth.push(depth as u8);
        self.height.push(0);
        u32::try_from(self.child.len() - 1).expect("1-bit trie exceeds 2^32 nodes")
    }

    fn insert(&mut self, root: u32, root_len: u32, p: &Prefix<A>) {
        let mut cur = root;
        for d in root_len..p.len() {
            let bit = p.bit(d) as usize;
            let mut next = self.child[cur as usize][bit];
            if next == NO_CHILD {
                next = self.alloc(d + 1);
                self.child[cur as usize][bit] = next;
            }
            cur = next;
        }
    }

    fn compute_heights(&mut self) {
        for id in (0..self.child.len()).rev() {
            let h = self.child[id]
                .iter()
                .filter(|&&c| c != NO_CHILD)
                .map(|&c| self.height[c as usize] + 1)
                .max()
                .unwrap_or(0);
            self.height[id] = h;
        }
    }

    /// Number of nodes.
    #[allow(clippy::len_without_is_empty)] // a trie always has its root
    pub fn len(&self) -> usize {
        self.child.len()
    }

    /// The roots of the forest (prefix, node id).
    pub fn roots(&self) -> &[(Prefix<A>, u32)] {
        &self.roots
    }

    /// True when node `id` has at least one child.
    #[inline]
    pub(crate) fn has_children(&self, id: u32) -> bool {
        self.height[id as usize] > 0
    }

    /// The existing children of node `id`.
    #[inline]
    pub(crate) fn children(&self, id: u32) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.child[id as usize].iter().copied().enumerate().filter(|&(_, c)| c != NO_CHILD)
    }

    /// Heap bytes of the arrays.
    pub fn memory_bytes(&self) -> usize {
        self.child.capacity() * 8 + self.depth.capacity() * 2 + self.roots.capacity() * 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nexthop::NextHop;

    fn rib(routes: &[&str]) -> Rib<u32> {
        routes.iter().map(|s| (s.parse().unwrap(), NextHop::from_index(0))).collect()
    }

    #[test]
    fn preorder_ids_and_heights() {
        let t = OneBitTrie::new(&rib(&["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3"]));
        // root, 0, 1, 10, 11, 110
        assert_eq!(t.len(), 6);
        assert_eq!(t.height[0], 3);
        for id in 0..t.len() as u32 {
            for (_, c) in t.children(id) {
                assert!(c > id);
                assert_eq!(t.depth[c as usize], t.depth[id as usize] + 1);
            }
        }
    }

    #[test]
    fn forest_blocks_split_at_boundaries() {
        let t = OneBitTrie::forest(&rib(&["10.0.0.0/8", "10.0.0.0/16", "10.1.0.0/20"]), 8);
        let roots: Vec<String> = t.roots().iter().map(|(p, _)| p.to_string()).collect();
        assert_eq!(roots, ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16"]);
        let (_, r) = t.roots()[0];
        assert_eq!(t.height[r as usize], 8);
        let empty = OneBitTrie::<u32>::new(&Rib::new());
        assert_eq!((empty.len(), empty.roots().len()), (1, 1));
    }
}
