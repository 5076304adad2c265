//! Insert, delete and route change on the non-leaf-pushed trie (§5.1, "Insertion and
//! Deletion"), driven by the RIB after the change.
//!
//! A changed prefix `p` of length `l` lives in the one node on its path whose window
//! `(d, d + s]` contains `l`. Its update *repaints* `p`'s `2^(d+s-l)` entries of that node:
//! each gets the longest route of the window covering it, i.e. the longest route inside `p`
//! of at most `d + s` bits (prefix capture, via the expansion sweep) or else the longest
//! window route covering `p` (none after a delete). A route change is exactly this:
//! O(1) per entry `p` expands to, no structural change.
//!
//! Insert also creates the missing nodes on `p`'s path (fixed tries: the level's stride;
//! variable tries: just enough stride for `p`, at most the maximum stride). A variable trie
//! whose last-level node has no children is instead *widened* to reach `p` (a rebuild of one
//! node of at most `2^maxstride` entries) so the level bound holds; only a route longer than
//! the maximum stride allows adds a level. Delete frees the nodes on `p`'s path below which
//! no route longer than the node's depth remains. A packed node is rewritten through its
//! decoded array (at most `2^maxstride` entries) and moves to a full array if its runs no
//! longer fit; full nodes are not re-packed (a rebuild restores the optimal layout).

use super::packed;
use super::updatable::{
    NewNodeRule, UpdatableTrie, child_of, code_of, offset_of, pointer, with_child, with_hop,
};
use crate::addr::Address;
use crate::algo::cpe::sweep;
use crate::fib::{BuildError, Incremental};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::{NIL, Rib};

/// One node on the path from the root to a changed prefix.
#[derive(Copy, Clone, Debug)]
struct Step<A: Address> {
    ptr: u32,
    node: Prefix<A>,
    level: u32,
    /// The entry of the parent that points here.
    idx_in_parent: u32,
}

impl<A: Address> Incremental<A> for UpdatableTrie<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        let mut ps = changed.to_vec();
        ps.sort_unstable();
        ps.dedup();
        for p in ps {
            self.apply(rib, p)?;
        }
        Ok(())
    }
}

impl<A: Address> UpdatableTrie<A> {
    /// Brings the trie in line with `rib`'s route (or its absence) for `p`.
    fn apply(&mut self, rib: &Rib<A>, p: Prefix<A>) -> Result<(), BuildError> {
        let present = rib.get(&p).is_some();
        let root = Step { ptr: self.root, node: Prefix::DEFAULT_ROUTE, level: 0, idx_in_parent: 0 };
        let mut path = vec![root];
        loop {
            let cur = *path.last().expect("the path starts at the root");
            let end = cur.node.len() + self.stride(cur.ptr);
            if p.len() <= end {
                self.repaint(rib, &mut path, p)?;
                break;
            }
            let idx = p.addr().bits(cur.node.len(), end - cur.node.len()) as u32;
            let child = child_of(self.read(cur.ptr, idx));
            let node = p.truncated(end);
            if child != 0 {
                path.push(Step { ptr: child, node, level: cur.level + 1, idx_in_parent: idx });
            } else if !present {
                return Ok(()); // nothing of p was ever stored below here
            } else if self.may_widen(&cur, p.len()) {
                self.widen(rib, &mut path, p.len())?;
            } else {
                let ptr = self.new_child(&mut path, idx, end, p.len())?;
                path.push(Step { ptr, node, level: cur.level + 1, idx_in_parent: idx });
            }
        }
        if !present {
            self.prune(rib, &mut path)?;
        }
        Ok(())
    }

    /// Rewrites the entries `p` expands to in the last node of `path`.
    fn repaint(
        &mut self,
        rib: &Rib<A>,
        path: &mut [Step<A>],
        p: Prefix<A>,
    ) -> Result<(), BuildError> {
        let cur = *path.last().expect("non-empty path");
        let (d, is_root) = (cur.node.len(), path.len() == 1);
        let end = d + self.stride(cur.ptr);
        let outer = rib
            .covering(&p)
            .filter(|(q, _)| q.len() > d || is_root)
            .last()
            .map_or(0, |(_, h)| h.raw());
        let inner: Vec<(Prefix<A>, NextHop)> =
            routes_within(rib, &p, end).into_iter().filter(|(q, _)| q.len() > p.len()).collect();
        let base = (p.addr().bits(d, p.len() - d) as usize) << (end - p.len());
        let count = 1usize << (end - p.len());
        self.modify(path, path.len() - 1, |entries| {
            let range = &mut entries[base..base + count];
            let mut next = 0;
            sweep(inner, p, end, |first, last, hop| {
                let (first, last) = (first as usize, last as usize);
                set_hops(&mut range[next..first], outer);
                set_hops(&mut range[first..=last], hop.raw());
                next = last + 1;
            });
            set_hops(&mut range[next..], outer);
        })
    }

    /// Applies `f` to the entries of node `path[i]`. A packed node is decoded, changed and
    /// stored again, possibly elsewhere; its parent then gets the new pointer.
    fn modify(
        &mut self,
        path: &mut [Step<A>],
        i: usize,
        f: impl FnOnce(&mut [u64]),
    ) -> Result<(), BuildError> {
        let ptr = path[i].ptr;
        if code_of(ptr) != 0 {
            f(self.nodes.node_mut(offset_of(ptr), code_of(ptr)));
            return Ok(());
        }
        let line = self.nodes.node_mut(offset_of(ptr), super::updatable::PACKED_LOG2);
        let stride = packed::stride_of(line[0]);
        let mut entries = packed::nlp_decode(line);
        f(&mut entries);
        if let Some(runs) = packed::runs(&entries, packed::NLP_RUNS) {
            packed::nlp_encode(stride, &runs, line);
            return Ok(());
        }
        self.stats.packed_nodes -= 1;
        self.stats.nodes -= 1;
        let pack = std::mem::replace(&mut self.pack, false);
        let stored = self.store(stride, &entries);
        self.pack = pack;
        let new = stored?;
        self.nodes.free(offset_of(ptr), super::updatable::PACKED_LOG2);
        self.replace_pointer(path, i, new)
    }

    /// Makes whatever pointed to `path[i]` point to `new` instead.
    fn replace_pointer(
        &mut self,
        path: &mut [Step<A>],
        i: usize,
        new: u32,
    ) -> Result<(), BuildError> {
        path[i].ptr = new;
        if i == 0 {
            self.root = new;
            return Ok(());
        }
        let idx = path[i].idx_in_parent as usize;
        self.modify(path, i - 1, |e| e[idx] = with_child(e[idx], new))
    }

    /// True when the last-level node `cur` of a variable trie may grow to reach `len` bits.
    fn may_widen(&self, cur: &Step<A>, len: u32) -> bool {
        matches!(self.rule, NewNodeRule::Variable)
            && cur.level + 1 >= self.levels
            && len - cur.node.len() <= self.max_stride
            && !self.has_children(cur.ptr)
    }

    fn has_children(&self, ptr: u32) -> bool {
        (0..1u32 << self.stride(ptr)).any(|i| child_of(self.read(ptr, i)) != 0)
    }

    /// Rebuilds the (childless) last node of `path` with a stride reaching `len` bits.
    fn widen(&mut self, rib: &Rib<A>, path: &mut [Step<A>], len: u32) -> Result<(), BuildError> {
        let i = path.len() - 1;
        let (node, old) = (path[i].node, path[i].ptr);
        let stride = len - node.len();
        let mut entries = vec![0u64; 1 << stride];
        let window = routes_within(rib, &node, len)
            .into_iter()
            .filter(|(q, _)| q.len() > node.len() || i == 0);
        sweep(window, node, len, |first, last, hop| {
            entries[first as usize..=last as usize].fill(hop.raw() as u64);
        });
        let new = self.store(stride, &entries)?;
        self.release(old);
        self.replace_pointer(path, i, new)
    }

    /// Creates an empty child at entry `idx` of the last node of `path`, at depth `depth`,
    /// for a route of `len` bits.
    fn new_child(
        &mut self,
        path: &mut [Step<A>],
        idx: u32,
        depth: u32,
        len: u32,
    ) -> Result<u32, BuildError> {
        let level = path.last().expect("non-empty path").level + 1;
        let planned = match &self.rule {
            NewNodeRule::Fixed(strides) => strides.get(level as usize).copied(),
            NewNodeRule::Variable => None,
        };
        let stride = planned.unwrap_or_else(|| (len - depth).clamp(1, self.max_stride));
        let offset = self.nodes.alloc(stride)?;
        self.stats.nodes += 1;
        self.stats.levels = self.stats.levels.max(level as usize + 1);
        let ptr = pointer(offset, stride);
        let i = path.len() - 1;
        self.modify(path, i, |e| e[idx as usize] = with_child(e[idx as usize], ptr))?;
        Ok(ptr)
    }

    /// After a delete: frees the nodes of `path`, deepest first, with no route below them
    /// longer than their depth, each with its whole subtree: when one batch deletes routes
    /// in two subtrees of a node, the first delete's prune frees the node while the second
    /// subtree still hangs below it.
    fn prune(&mut self, rib: &Rib<A>, path: &mut [Step<A>]) -> Result<(), BuildError> {
        for i in (1..path.len()).rev() {
            let node = path[i].node;
            if rib.covered(&node).any(|(q, _)| q.len() > node.len()) {
                break;
            }
            self.release_subtree(path[i].ptr);
            let idx = path[i].idx_in_parent as usize;
            self.modify(path, i - 1, |e| e[idx] = with_child(e[idx], 0))?;
        }
        Ok(())
    }
}

impl<A: Address> UpdatableTrie<A> {
    /// Frees `ptr` and every node below it.
    fn release_subtree(&mut self, ptr: u32) {
        let mut stack = vec![ptr];
        while let Some(p) = stack.pop() {
            let children = (0..1u32 << self.stride(p)).map(|i| child_of(self.read(p, i)));
            stack.extend(children.filter(|&c| c != 0));
            self.release(p);
        }
    }
}

fn set_hops(entries: &mut [u64], hop: u32) {
    for e in entries {
        *e = with_hop(*e, hop);
    }
}

/// The routes inside `p` (itself included) of at most `max_len` bits, in (address, length)
/// order; subtrees of longer routes are skipped, so the cost is bounded by the answer.
pub(crate) fn routes_within<A: Address>(
    rib: &Rib<A>,
    p: &Prefix<A>,
    max_len: u32,
) -> Vec<(Prefix<A>, NextHop)> {
    let mut cur = rib.root;
    while cur != NIL {
        let n = &rib.nodes[cur as usize];
        if p.covers(&n.prefix) {
            break;
        }
        if !n.prefix.covers(p) {
            return Vec::new();
        }
        cur = n.child[p.bit(n.prefix.len()) as usize];
    }
    let mut out = Vec::new();
    let mut stack = vec![cur];
    while let Some(id) = stack.pop() {
        if id == NIL || rib.nodes[id as usize].prefix.len() > max_len {
            continue;
        }
        let n = &rib.nodes[id as usize];
        if let Some(h) = n.value {
            out.push((n.prefix, h));
        }
        stack.push(n.child[1]);
        stack.push(n.child[0]);
    }
    out
}
