//! The RIB: a path-compressed binary radix (Patricia) tree of routes, and the oracle.
//!
//! Layout: nodes live in one arena (`Vec<Node>`), linked by `u32` indices; freed slots are
//! reused. Each node holds a canonical prefix, an optional next hop (nodes without one are
//! branching "glue" nodes) and two children.
//!
//! Invariants (checked by `check_invariants` in tests):
//! - a child's prefix is strictly covered by its parent's and lies in the half named by the
//!   bit at the parent's length (`child[0]` when that bit is 0);
//! - every glue node has exactly two children (glue with fewer is spliced out on removal);
//! - `len` counts the nodes that carry a next hop.
//!
//! Preorder traversal therefore yields routes ordered by (address, length). Every mutation that
//! changes what a prefix maps to is appended to the change log (see [`Rib::changes_since`]),
//! which incremental compilers use to find the subtrees to rebuild.

mod changes;
mod query;
mod ranges;
mod stats;

pub use changes::ChangeMark;
pub use query::Iter;
pub use ranges::Range;
pub use stats::{DepthHistogram, LengthHistogram};

use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;

pub(crate) type NodeId = u32;
pub(crate) const NIL: NodeId = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) struct Node<A: Address> {
    pub(crate) prefix: Prefix<A>,
    pub(crate) value: Option<NextHop>,
    pub(crate) child: [NodeId; 2],
}

/// Routes (prefix → next hop) in a binary radix tree; the reference every FIB is checked against.
#[derive(Clone, Debug)]
pub struct Rib<A: Address> {
    pub(crate) nodes: Vec<Node<A>>,
    free: Vec<NodeId>,
    pub(crate) root: NodeId,
    len: usize,
    log: changes::ChangeLog<A>,
}

impl<A: Address> Default for Rib<A> {
    fn default() -> Self {
        Rib { nodes: Vec::new(), free: Vec::new(), root: NIL, len: 0, log: Default::default() }
    }
}

/// Where a search for a prefix ended: the slot to attach to and the node found there.
struct Slot {
    parent: NodeId,
    dir: usize,
}

impl<A: Address> Rib<A> {
    /// An empty RIB.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty RIB with room for `routes` routes without reallocation.
    pub fn with_capacity(routes: usize) -> Self {
        let mut rib = Self::new();
        rib.nodes.reserve(routes * 2);
        rib
    }

    /// Number of routes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no routes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Heap bytes used by the tree (arena capacity, free list and change log).
    #[doc(hidden)]
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node<A>>()
            + self.free.capacity() * std::mem::size_of::<NodeId>()
            + self.log.memory_bytes()
    }

    /// Releases spare arena capacity (after a bulk load).
    #[doc(hidden)]
    pub fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
        self.free.shrink_to_fit();
    }

    /// Inserts or replaces a route; returns the previous next hop of exactly this prefix.
    pub fn insert(&mut self, prefix: Prefix<A>, hop: NextHop) -> Option<NextHop> {
        let mut slot = Slot { parent: NIL, dir: 0 };
        let mut cur = self.root;
        loop {
            if cur == NIL {
                let leaf = self.alloc(prefix, Some(hop));
                self.attach(&slot, leaf);
                return self.added(prefix);
            }
            let node = &self.nodes[cur as usize];
            let (nlen, plen) = (node.prefix.len(), prefix.len());
            let common = node.prefix.addr().common_prefix_len(prefix.addr()).min(nlen).min(plen);
            if common == nlen && nlen == plen {
                let old = self.nodes[cur as usize].value.replace(hop);
                if old.is_none() {
                    self.len += 1;
                }
                if old != Some(hop) {
                    self.log.record(prefix);
                }
                return old;
            }
            if common == nlen {
                slot = Slot { parent: cur, dir: prefix.bit(nlen) as usize };
                cur = node.child[slot.dir];
                continue;
            }
            let existing_dir = node.prefix.bit(common) as usize;
            if common == plen {
                let new = self.alloc(prefix, Some(hop));
                self.nodes[new as usize].child[existing_dir] = cur;
                self.attach(&slot, new);
                return self.added(prefix);
            }
            let glue = self.alloc(prefix.truncated(common), None);
            let leaf = self.alloc(prefix, Some(hop));
            self.nodes[glue as usize].child[existing_dir] = cur;
            self.nodes[glue as usize].child[1 - existing_dir] = leaf;
            self.attach(&slot, glue);
            return self.added(prefix);
        }
    }

    fn added(&mut self, prefix: Prefix<A>) -> Option<NextHop> {
        self.len += 1;
        self.log.record(prefix);
        None
    }

    /// Removes a route; returns its next hop if it was present.
    pub fn remove(&mut self, prefix: &Prefix<A>) -> Option<NextHop> {
        let mut path: Vec<(NodeId, usize)> = Vec::with_capacity(32);
        let mut cur = self.root;
        while cur != NIL {
            let node = &self.nodes[cur as usize];
            if !node.prefix.covers(prefix) {
                return None;
            }
            if node.prefix.len() == prefix.len() {
                break;
            }
            let dir = prefix.bit(node.prefix.len()) as usize;
            path.push((cur, dir));
            cur = node.child[dir];
        }
        if cur == NIL {
            return None;
        }
        let old = self.nodes[cur as usize].value.take()?;
        self.len -= 1;
        self.log.record(*prefix);
        self.compact(cur, &path);
        Some(old)
    }

    /// Splices out `cur` (now without a value) and, if that leaves it, its glue parent.
    fn compact(&mut self, cur: NodeId, path: &[(NodeId, usize)]) {
        let [c0, c1] = self.nodes[cur as usize].child;
        if c0 != NIL && c1 != NIL {
            return; // still a branching point: keep as glue
        }
        let survivor = if c0 != NIL { c0 } else { c1 };
        self.set_slot(path.last().copied(), survivor);
        self.release(cur);
        if survivor != NIL {
            return;
        }
        // `cur` was a leaf: a glue parent is now left with a single child.
        let Some(&(parent, dir)) = path.last() else {
            return;
        };
        let pnode = &self.nodes[parent as usize];
        if pnode.value.is_none() {
            let only = pnode.child[1 - dir];
            let grandparent = path.len().checked_sub(2).map(|i| path[i]);
            self.set_slot(grandparent, only);
            self.release(parent);
        }
    }

    fn set_slot(&mut self, slot: Option<(NodeId, usize)>, node: NodeId) {
        match slot {
            Some((p, dir)) => self.nodes[p as usize].child[dir] = node,
            None => self.root = node,
        }
    }

    fn attach(&mut self, slot: &Slot, node: NodeId) {
        if slot.parent == NIL {
            self.root = node;
        } else {
            self.nodes[slot.parent as usize].child[slot.dir] = node;
        }
    }

    fn alloc(&mut self, prefix: Prefix<A>, value: Option<NextHop>) -> NodeId {
        let node = Node { prefix, value, child: [NIL, NIL] };
        if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = node;
            id
        } else {
            assert!(self.nodes.len() < NIL as usize, "RIB arena exceeds 2^32 - 1 nodes");
            self.nodes.push(node);
            (self.nodes.len() - 1) as NodeId
        }
    }

    fn release(&mut self, id: NodeId) {
        self.nodes[id as usize].child = [NIL, NIL];
        self.nodes[id as usize].value = None;
        self.free.push(id);
    }

    /// Removes every route (the change log records each of them).
    pub fn clear(&mut self) {
        let routes: Vec<Prefix<A>> = self.iter().map(|(p, _)| p).collect();
        for p in routes {
            self.log.record(p);
        }
        self.nodes.clear();
        self.free.clear();
        self.root = NIL;
        self.len = 0;
    }

    /// Verifies the structural invariants; used by tests. Panics with a description on failure.
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        let mut count = 0;
        let mut stack = vec![(self.root, None::<Prefix<A>>)];
        while let Some((id, parent)) = stack.pop() {
            if id == NIL {
                continue;
            }
            let n = &self.nodes[id as usize];
            if let Some(pp) = parent {
                assert!(pp.covers(&n.prefix) && pp.len() < n.prefix.len(), "{pp} !> {}", n.prefix);
            }
            for (dir, &c) in n.child.iter().enumerate() {
                if c != NIL {
                    let cp = self.nodes[c as usize].prefix;
                    assert_eq!(cp.bit(n.prefix.len()) as usize, dir, "{cp} under {}", n.prefix);
                }
            }
            if n.value.is_some() {
                count += 1;
            } else {
                assert!(n.child.iter().all(|&c| c != NIL), "glue {} with < 2 children", n.prefix);
            }
            stack.push((n.child[0], Some(n.prefix)));
            stack.push((n.child[1], Some(n.prefix)));
        }
        assert_eq!(count, self.len, "route count");
    }
}

impl<A: Address> FromIterator<(Prefix<A>, NextHop)> for Rib<A> {
    fn from_iter<I: IntoIterator<Item = (Prefix<A>, NextHop)>>(iter: I) -> Self {
        let mut rib = Rib::new();
        for (p, h) in iter {
            rib.insert(p, h);
        }
        rib
    }
}

#[cfg(test)]
mod tests;
