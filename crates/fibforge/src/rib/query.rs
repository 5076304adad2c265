//! Read-only queries on the RIB: exact, longest match, covering, covered, iteration.

use super::{NIL, Node, NodeId, Rib};
use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;

impl<A: Address> Rib<A> {
    fn node(&self, id: NodeId) -> &Node<A> {
        &self.nodes[id as usize]
    }

    /// The next hop of exactly this prefix.
    pub fn get(&self, prefix: &Prefix<A>) -> Option<NextHop> {
        let mut cur = self.root;
        while cur != NIL {
            let n = self.node(cur);
            if !n.prefix.covers(prefix) {
                return None;
            }
            if n.prefix.len() == prefix.len() {
                return n.value;
            }
            cur = n.child[prefix.bit(n.prefix.len()) as usize];
        }
        None
    }

    /// The longest route containing `addr`, with its next hop: the oracle lookup.
    pub fn longest_match(&self, addr: A) -> Option<(Prefix<A>, NextHop)> {
        let mut best = None;
        let mut cur = self.root;
        while cur != NIL {
            let n = self.node(cur);
            if !n.prefix.contains(addr) {
                break;
            }
            if let Some(v) = n.value {
                best = Some((n.prefix, v));
            }
            if n.prefix.len() == A::BITS {
                break;
            }
            cur = n.child[addr.bit(n.prefix.len()) as usize];
        }
        best
    }

    /// The next hop of the longest route containing `addr`.
    #[inline]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.longest_match(addr).map(|(_, h)| h)
    }

    /// The longest route that covers `prefix` (itself included).
    #[doc(hidden)]
    pub fn longest_covering(&self, prefix: &Prefix<A>) -> Option<(Prefix<A>, NextHop)> {
        self.covering(prefix).last()
    }

    /// All routes that cover `prefix` (itself included), shortest first.
    pub fn covering<'r>(
        &'r self,
        prefix: &Prefix<A>,
    ) -> impl Iterator<Item = (Prefix<A>, NextHop)> + use<'r, A> {
        let prefix = *prefix;
        let mut cur = self.root;
        std::iter::from_fn(move || {
            while cur != NIL {
                let n = self.node(cur);
                if !n.prefix.covers(&prefix) {
                    cur = NIL;
                    break;
                }
                cur = if n.prefix.len() == prefix.len() {
                    NIL
                } else {
                    n.child[prefix.bit(n.prefix.len()) as usize]
                };
                if let Some(v) = n.value {
                    return Some((n.prefix, v));
                }
            }
            None
        })
    }

    /// All routes inside `prefix` (itself included), in (address, length) order.
    pub fn covered(&self, prefix: &Prefix<A>) -> Iter<'_, A> {
        Iter::from_root(self, self.region_root(prefix).1)
    }

    /// One descent towards `region`: the next hop of the longest route strictly covering it,
    /// and the root of the subtree of routes inside it (`NIL` when there are none). With
    /// [`Rib::visit_subtree`] this is `longest_covering` and `covered` in one walk.
    pub(crate) fn region_root(&self, region: &Prefix<A>) -> (Option<NextHop>, NodeId) {
        let mut outer = None;
        let mut cur = self.root;
        while cur != NIL {
            let n = self.node(cur);
            if region.covers(&n.prefix) {
                break;
            }
            if !n.prefix.covers(region) {
                return (outer, NIL);
            }
            outer = n.value.or(outer);
            cur = n.child[region.bit(n.prefix.len()) as usize];
        }
        (outer, cur)
    }

    /// Calls `visit` on every route of the subtree at `root` in (address, length) order.
    /// `stack` is scratch space that callers keep between calls (no allocation once grown).
    pub(crate) fn visit_subtree(
        &self,
        root: NodeId,
        stack: &mut Vec<NodeId>,
        mut visit: impl FnMut(Prefix<A>, NextHop),
    ) {
        stack.clear();
        if root != NIL {
            stack.push(root);
        }
        while let Some(id) = stack.pop() {
            let n = self.node(id);
            stack.extend(n.child.iter().rev().filter(|&&c| c != NIL));
            if let Some(v) = n.value {
                visit(n.prefix, v);
            }
        }
    }

    /// All routes in (address, length) order.
    pub fn iter(&self) -> Iter<'_, A> {
        Iter::from_root(self, self.root)
    }
}

/// Preorder iterator over routes: ordered by address, then by length.
pub struct Iter<'a, A: Address> {
    rib: &'a Rib<A>,
    stack: Vec<NodeId>,
}

impl<'a, A: Address> Iter<'a, A> {
    pub(super) fn from_root(rib: &'a Rib<A>, root: NodeId) -> Self {
        let mut stack = Vec::with_capacity(64);
        if root != NIL {
            stack.push(root);
        }
        Iter { rib, stack }
    }
}

impl<A: Address> Iterator for Iter<'_, A> {
    type Item = (Prefix<A>, NextHop);

    fn next(&mut self) -> Option<Self::Item> {
        while let Some(id) = self.stack.pop() {
            let n = self.rib.node(id);
            for &c in n.child.iter().rev() {
                if c != NIL {
                    self.stack.push(c);
                }
            }
            if let Some(v) = n.value {
                return Some((n.prefix, v));
            }
        }
        None
    }
}

impl<'a, A: Address> IntoIterator for &'a Rib<A> {
    type Item = (Prefix<A>, NextHop);
    type IntoIter = Iter<'a, A>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
