//! Route updates of the Merged Trie without leaf pushing ([`MergedWriter`]): a route of table
//! `v` is table `v`'s entry of the vector of the node at its depth on its path (the module
//! invariant of `merged.rs`), so an update walks the route's bits from the root and replaces
//! that one entry:
//! - insert: the missing nodes on the path are created (a freed node slot reused first), and
//!   the last node gets the vector of its old one with column `v` set;
//! - remove: the node's vector gets column `v` cleared; a node left with the empty vector and
//!   no child is freed, and so is every ancestor that this leaves empty and childless (the
//!   root stays). No other node changes: no RIB is needed.
//!
//! Vectors are reference counted (nodes naming each id): an id no node names any more is
//! reused by the next new vector, so the PortMapTable does not grow with the number of
//! updates. After every update the answers are a fresh build's, and so are the set of
//! reachable nodes (the union of the tables' route paths) and the live vectors; node and
//! vector ids depend on the order of allocation. Limits as the build's: node and vector ids
//! below 2^31. The leaf-pushed shape (`leafpush=on`) has no updates (refused by name).

use super::{Config, MergedTrie, NAME, Shape};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::multi::trie_build::limit;
use crate::multi::trie_shape::{LEAF, Node};
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::collections::HashMap;

/// A Merged Trie (`leafpush=off`) updated one route at a time.
#[derive(Clone, Debug)]
pub struct MergedWriter<A: Address> {
    trie: MergedTrie<A>,
    /// Live vectors (one raw hop per table) and their ids; id 0, the empty vector, is not
    /// listed and never freed.
    index: HashMap<Box<[u32]>, u32>,
    /// Nodes naming each vector id (0 for free ids and for id 0).
    refs: Vec<u32>,
    /// Vector ids no node names, reused first.
    free_comps: Vec<u32>,
    /// Node slots freed by removals (zeroed), reused first.
    free_nodes: Vec<u32>,
}

impl<A: Address> MergedWriter<A> {
    /// Merges `tables` (VRF id = position) into a Merged Trie without leaf pushing.
    pub fn build(tables: &[Rib<A>], cfg: &Config) -> Result<Self, BuildError> {
        if cfg.leaf_push {
            let reason = "the leaf-pushed shape has no route updates: use leafpush=off".into();
            return Err(BuildError::Unsupported { algo: NAME, reason });
        }
        let trie = MergedTrie::build(tables, cfg)?;
        let Shape::Plain(nodes) = &trie.shape else { unreachable!("leafpush=off builds plain") };
        let count = trie.pmt.len().checked_div(trie.vrfs).unwrap_or(1);
        let mut refs = vec![0u32; count.max(1)];
        for n in nodes {
            refs[n.comp as usize] += 1;
        }
        refs[0] = 0;
        let index =
            (1..count).map(|c| (trie.pmt[c * trie.vrfs..][..trie.vrfs].into(), c as u32)).collect();
        Ok(MergedWriter { trie, index, refs, free_comps: Vec::new(), free_nodes: Vec::new() })
    }

    /// The lookup structure.
    pub fn structure(&self) -> &MergedTrie<A> {
        &self.trie
    }

    /// Nodes in use (reachable from the root) and live vectors, the empty one included:
    /// a fresh build's [`MergedTrie::counts`].
    pub fn counts(&self) -> (usize, usize) {
        (self.nodes().len() - self.free_nodes.len(), self.index.len() + 1)
    }

    fn nodes(&self) -> &Vec<Node> {
        match &self.trie.shape {
            Shape::Plain(n) => n,
            Shape::Pushed { .. } => unreachable!("a writer holds the plain shape"),
        }
    }

    fn nodes_mut(&mut self) -> &mut Vec<Node> {
        match &mut self.trie.shape {
            Shape::Plain(n) => n,
            Shape::Pushed { .. } => unreachable!("a writer holds the plain shape"),
        }
    }

    fn check(&self, vrf: VrfId) -> Result<usize, BuildError> {
        let v = vrf as usize;
        if v >= self.trie.vrfs {
            let reason = format!("no table with VRF id {vrf} ({} tables)", self.trie.vrfs);
            return Err(BuildError::Unsupported { algo: NAME, reason });
        }
        Ok(v)
    }

    /// Inserts or replaces route `prefix` of table `vrf`; returns the previous next hop.
    pub fn insert(
        &mut self,
        vrf: VrfId,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        let v = self.check(vrf)?;
        let mut n = 0usize;
        for d in 0..prefix.len() {
            let b = prefix.bit(d) as usize;
            n = match self.nodes()[n].child[b] {
                0 => {
                    let c = self.new_node()?;
                    self.nodes_mut()[n].child[b] = c;
                    c as usize
                }
                c => c as usize,
            };
        }
        self.set(n, v, hop.raw())
    }

    /// Withdraws route `prefix` of table `vrf`; returns its next hop if it was present.
    pub fn remove(
        &mut self,
        vrf: VrfId,
        prefix: &Prefix<A>,
    ) -> Result<Option<NextHop>, BuildError> {
        let v = self.check(vrf)?;
        let mut path = Vec::with_capacity(prefix.len() as usize + 1);
        let mut n = 0usize;
        for d in 0..prefix.len() {
            path.push(n);
            match self.nodes()[n].child[prefix.bit(d) as usize] {
                0 => return Ok(None),
                c => n = c as usize,
            }
        }
        let old = self.set(n, v, 0)?;
        // Free the node and every ancestor left empty and childless (the root stays).
        for (d, &parent) in path.iter().enumerate().rev() {
            let node = self.nodes()[n];
            if node.comp != 0 || node.child != [0, 0] {
                break;
            }
            self.nodes_mut()[parent].child[prefix.bit(d as u32) as usize] = 0;
            self.free_nodes.push(n as u32);
            n = parent;
        }
        Ok(old)
    }

    /// Sets table `v`'s entry of node `n`'s vector to `raw` (0: none); the old entry.
    fn set(&mut self, n: usize, v: usize, raw: u32) -> Result<Option<NextHop>, BuildError> {
        let vrfs = self.trie.vrfs;
        let old_id = self.nodes()[n].comp;
        let mut row = self.trie.pmt[old_id as usize * vrfs..][..vrfs].to_vec();
        let old = NextHop::from_raw(row[v]);
        if row[v] == raw {
            return Ok(old);
        }
        row[v] = raw;
        let new_id = self.intern(&row)?;
        self.release(old_id);
        self.nodes_mut()[n].comp = new_id;
        Ok(old)
    }

    /// The id of vector `row` with one more reference (0 for the empty vector).
    fn intern(&mut self, row: &[u32]) -> Result<u32, BuildError> {
        if row.iter().all(|&h| h == 0) {
            return Ok(0);
        }
        if let Some(&id) = self.index.get(row) {
            self.refs[id as usize] += 1;
            return Ok(id);
        }
        let id = match self.free_comps.pop() {
            Some(id) => {
                let n = self.trie.vrfs;
                self.trie.pmt[id as usize * n..][..n].copy_from_slice(row);
                id
            }
            None => {
                let id = self.refs.len() as u32;
                if id >= 1 << 31 {
                    return Err(limit(NAME, "PortMapTable entries", 1 << 31, id as u64 + 1));
                }
                self.trie.pmt.extend_from_slice(row);
                self.refs.push(0);
                id
            }
        };
        self.refs[id as usize] = 1;
        self.index.insert(row.into(), id);
        Ok(id)
    }

    /// Drops one reference to vector `id`, freeing it at zero (never the empty vector).
    fn release(&mut self, id: u32) {
        if id == 0 {
            return;
        }
        let r = &mut self.refs[id as usize];
        *r -= 1;
        if *r == 0 {
            let n = self.trie.vrfs;
            self.index.remove(&self.trie.pmt[id as usize * n..][..n]);
            self.free_comps.push(id);
        }
    }

    /// A zeroed node slot: a freed one, or a new one at the end.
    fn new_node(&mut self) -> Result<u32, BuildError> {
        if let Some(i) = self.free_nodes.pop() {
            self.nodes_mut()[i as usize] = Node::default();
            return Ok(i);
        }
        let nodes = self.nodes_mut();
        let i = nodes.len() as u32;
        if i >= LEAF {
            return Err(limit(NAME, "trie nodes", LEAF as u64, i as u64 + 1));
        }
        nodes.push(Node::default());
        Ok(i)
    }

    /// True when the reference counts and the index are those a fresh count gives (tests).
    #[cfg(test)]
    pub(super) fn consistent(&self) -> bool {
        let mut refs = vec![0u32; self.refs.len()];
        let mut stack = vec![0u32];
        let mut reachable = 0;
        while let Some(i) = stack.pop() {
            let node = self.nodes()[i as usize];
            reachable += 1;
            refs[node.comp as usize] += 1;
            stack.extend(node.child.iter().copied().filter(|&c| c != 0));
        }
        refs[0] = 0;
        let n = self.trie.vrfs;
        let indexed =
            self.index.iter().all(|(row, &id)| self.trie.pmt[id as usize * n..][..n] == **row);
        let live = refs.iter().filter(|&&r| r > 0).count();
        refs == self.refs && indexed && live == self.index.len() && reachable == self.counts().0
    }
}

impl<A: Address> MultiLookup<A> for MergedWriter<A> {
    fn vrfs(&self) -> usize {
        self.trie.vrfs
    }
    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.trie.lookup(vrf, addr)
    }
    /// The trie's nodes (freed slots included) and PortMapTable.
    fn memory_bytes(&self) -> usize {
        self.trie.memory_bytes()
    }
}
