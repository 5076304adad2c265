//! Priority tries (Lim, Yim, Swartzlander, IEEE Trans. Computers 59(6), 2010), the d-nodes
//! of MIHT: one binary trie per B+ tree key, plus `PT[-1]` for the routes shorter than `k`.
//!
//! # Shape
//!
//! A trie whose root sits at depth `d0` (`k`, or 0 for `PT[-1]`) covers one region of the
//! address space; the node reached by bits `b_d0 … b_(d−1)` is at depth `d`. Every node holds
//! exactly one route of its region:
//!
//! - an *ordinary* node at depth `d` holds the route equal to its position (length `d`);
//! - a *priority* node holds a route strictly longer than `d` inside its region, and that
//!   route is at least as long as every route stored in the node's subtree.
//!
//! A lookup walks the address's path from the root: an ordinary match is remembered and
//! the walk continues; a priority match is the answer (nothing below is longer). Every route
//! matching an address lies on the walked path, so the walk is exact.
//!
//! # Layout
//!
//! All tries share one arena of nodes `{addr: A, hop: u32, len: u8, priority, child: [u32; 2]}`
//! (index 0 is a sentinel meaning "no node"); freed nodes are reused. Routes are stored
//! with their full address, not only the suffix after the key: 16 bytes more per IPv6 node,
//! but a match is one masked compare.
//!
//! # Updates
//!
//! Insert is the paper's top-down insertion: a longer route takes a priority node and pushes
//! the shorter one down; a route of the node's own length makes it ordinary. Delete removes
//! the route's node and rebuilds the subtree below it from its remaining routes (bounded by
//! the size of that subtree; the paper refills the node from its children in place).

use crate::addr::Address;
use crate::prefix::Prefix;

/// "No node" (the arena's slot 0 is never a real node).
pub(super) const NIL: u32 = 0;

/// One priority trie node.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PtNode<A: Address> {
    addr: A,
    hop: u32,
    len: u8,
    priority: bool,
    child: [u32; 2],
}

/// The arena of every priority trie; a trie is named by its root index.
#[derive(Clone, Debug)]
pub(super) struct PtArena<A: Address> {
    nodes: Vec<PtNode<A>>,
    free: Vec<u32>,
}

/// A route: prefix and raw next hop.
pub(super) type Route<A> = (Prefix<A>, u32);

impl<A: Address> PtArena<A> {
    pub(super) fn new() -> Self {
        PtArena { nodes: vec![PtNode::default()], free: Vec::new() }
    }

    /// Releases spare capacity (after a bulk build).
    pub(super) fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
        self.free.shrink_to_fit();
    }

    /// Nodes in use.
    pub(super) fn live(&self) -> usize {
        self.nodes.len() - 1 - self.free.len()
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<PtNode<A>>() + self.free.capacity() * 4
    }

    /// The raw next hop of the longest route of trie `root` containing `addr` (0: none).
    #[inline]
    pub(super) fn lookup(&self, root: u32, depth: u32, addr: A) -> u32 {
        let (mut cur, mut d, mut best) = (root, depth, 0);
        while cur != NIL {
            let n = &self.nodes[cur as usize];
            if addr.truncate(n.len as u32) == n.addr {
                best = n.hop;
                if n.priority {
                    break;
                }
            }
            if d >= A::BITS {
                break;
            }
            cur = n.child[addr.bit(d) as usize];
            d += 1;
        }
        best
    }

    /// Hints the cache that node `i` is read next.
    #[inline(always)]
    pub(super) fn prefetch(&self, i: u32) {
        crate::algo::prefetch::read(&self.nodes, i as usize);
    }

    fn alloc(&mut self, n: PtNode<A>) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = n;
                i
            }
            None => {
                self.nodes.push(n);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn node_for(p: Prefix<A>, hop: u32, depth: u32) -> PtNode<A> {
        let priority = p.len() > depth;
        PtNode { addr: p.addr(), hop, len: p.len() as u8, priority, child: [NIL; 2] }
    }

    /// Builds a trie at `depth` from routes inside one region of that depth (any order).
    pub(super) fn build(&mut self, depth: u32, mut routes: Vec<Route<A>>) -> u32 {
        if routes.is_empty() {
            return NIL;
        }
        // The route of length `depth`, else the longest: it takes this node.
        let pick = routes
            .iter()
            .enumerate()
            .max_by_key(|(_, (p, _))| (p.len() == depth, p.len()))
            .map(|(i, _)| i)
            .unwrap_or(0);
        let (p, hop) = routes.swap_remove(pick);
        let (right, left): (Vec<_>, Vec<_>) = routes.into_iter().partition(|(q, _)| q.bit(depth));
        let me = self.alloc(Self::node_for(p, hop, depth));
        let l = self.build(depth + 1, left);
        let r = self.build(depth + 1, right);
        self.nodes[me as usize].child = [l, r];
        me
    }

    /// Inserts (or replaces) route `p → hop` into the trie at `root` (depth `depth`).
    pub(super) fn insert(&mut self, root: &mut u32, depth: u32, p: Prefix<A>, hop: u32) {
        let (mut slot, mut d) = (None::<(u32, usize)>, depth);
        let (mut p, mut hop) = (p, hop);
        loop {
            let cur = match slot {
                None => *root,
                Some((parent, side)) => self.nodes[parent as usize].child[side],
            };
            if cur == NIL {
                let new = self.alloc(Self::node_for(p, hop, d));
                match slot {
                    None => *root = new,
                    Some((parent, side)) => self.nodes[parent as usize].child[side] = new,
                }
                return;
            }
            let n = &mut self.nodes[cur as usize];
            let here = Prefix::from_parts_unchecked(n.addr, n.len as u32);
            if here == p {
                n.hop = hop;
                return;
            }
            if p.len() == d || (n.priority && p.len() > here.len()) {
                // `p` takes this node; the displaced (priority) route goes further down.
                let old = (here, n.hop);
                *n = PtNode { child: n.child, ..Self::node_for(p, hop, d) };
                (p, hop) = old;
            }
            slot = Some((cur, p.bit(d) as usize));
            d += 1;
        }
    }

    /// Removes route `p` from the trie at `root`; returns whether it was there.
    pub(super) fn remove(&mut self, root: &mut u32, depth: u32, p: Prefix<A>) -> bool {
        let (mut slot, mut d) = (None::<(u32, usize)>, depth);
        loop {
            let cur = match slot {
                None => *root,
                Some((parent, side)) => self.nodes[parent as usize].child[side],
            };
            if cur == NIL || d > p.len() {
                return false;
            }
            let n = self.nodes[cur as usize];
            if n.addr == p.addr() && n.len as u32 == p.len() {
                let mut rest = Vec::new();
                self.collect(n.child[0], &mut rest);
                self.collect(n.child[1], &mut rest);
                self.free.push(cur);
                let new = self.build(d, rest);
                match slot {
                    None => *root = new,
                    Some((parent, side)) => self.nodes[parent as usize].child[side] = new,
                }
                return true;
            }
            if d == p.len() {
                return false;
            }
            slot = Some((cur, p.bit(d) as usize));
            d += 1;
        }
    }

    /// Moves every route of the subtree at `i` into `out` and frees its nodes.
    fn collect(&mut self, i: u32, out: &mut Vec<Route<A>>) {
        if i == NIL {
            return;
        }
        let n = self.nodes[i as usize];
        out.push((Prefix::from_parts_unchecked(n.addr, n.len as u32), n.hop));
        self.free.push(i);
        self.collect(n.child[0], out);
        self.collect(n.child[1], out);
    }

    /// Checks the invariants of the module doc for the trie at `root` (tests); returns its
    /// number of routes.
    #[cfg(test)]
    pub(super) fn check(&self, root: u32, depth: u32, region: A) -> usize {
        if root == NIL {
            return 0;
        }
        let n = self.nodes[root as usize];
        let len = n.len as u32;
        assert_eq!(n.addr.truncate(depth), region.truncate(depth), "route inside its region");
        assert_eq!(n.priority, len > depth, "priority iff longer than the depth");
        assert!(len >= depth);
        let mut count = 1;
        for side in 0..2u32 {
            let c = n.child[side as usize];
            if depth >= A::BITS {
                assert_eq!(c, NIL, "a host route has no children");
                continue;
            }
            if c != NIL && n.priority {
                assert!(self.max_len(c) <= len, "priority route is the longest of its subtree");
            }
            let bit = (side as u128) << (A::BITS - depth - 1);
            let sub = A::from_u128(region.truncate(depth).to_u128() | bit);
            count += self.check(c, depth + 1, sub);
        }
        count
    }

    #[cfg(test)]
    fn max_len(&self, i: u32) -> u32 {
        if i == NIL {
            return 0;
        }
        let n = &self.nodes[i as usize];
        (n.len as u32).max(self.max_len(n.child[0])).max(self.max_len(n.child[1]))
    }
}
