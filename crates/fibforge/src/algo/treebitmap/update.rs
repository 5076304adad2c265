//! Incremental updates: rebuild the node holding each changed route, create the
//! missing nodes on its path, remove the nodes left empty.

use super::TreeBitmap;
use super::build::{field, left_aligned};
use super::node::{NodeLayout, position, rank};
use crate::addr::Address;
use crate::fib::{BuildError, Incremental};
use crate::prefix::Prefix;
use crate::rib::Rib;

impl<A: Address, N: NodeLayout> Incremental<A> for TreeBitmap<A, N> {
    /// Brings the nodes of every changed route up to date from `rib`.
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        let mut changed = changed.to_vec();
        changed.sort_unstable();
        changed.dedup();
        for p in &changed {
            self.update_route(rib, p)?;
        }
        Ok(())
    }
}

impl<A: Address, N: NodeLayout> TreeBitmap<A, N> {
    /// Follows the path of `route` to the node that holds it: refreshes that node and prunes
    /// it if empty, or grows the missing part of the path.
    fn update_route(&mut self, rib: &Rib<A>, route: &Prefix<A>) -> Result<(), BuildError> {
        let s = N::STRIDE;
        let target = route.len() / s * s;
        let key = left_aligned(route.addr());
        // (node, chunk to its child on the path) for every ancestor of the target node.
        let mut path: Vec<(u32, u64)> = Vec::new();
        let (mut node, mut depth) = (0u32, 0u32);
        while depth < target {
            let n = self.nodes[node as usize];
            let chunk = field(key, depth, s);
            if n.external() >> chunk & 1 == 0 {
                return self.grow(rib, node, chunk, &route.truncated(depth + s));
            }
            path.push((node, chunk));
            node = n.child() + rank(n.external(), chunk as u32);
            depth += s;
        }
        self.refresh_prefixes(rib, node, &route.truncated(depth))?;
        self.prune(node, &path)
    }

    /// Rewrites the internal bitmap and results of `node`, whose region is `region`, from the
    /// RIB's routes of lengths `region.len()..region.len() + S` under it.
    fn refresh_prefixes(
        &mut self,
        rib: &Rib<A>,
        node: u32,
        region: &Prefix<A>,
    ) -> Result<(), BuildError> {
        let depth = region.len();
        let mut entries = Vec::new();
        for l in (0..N::STRIDE).take_while(|l| depth + l <= A::BITS) {
            for v in 0..1u64 << l {
                let offset = if l == 0 { 0 } else { (v as u128) << (A::BITS - depth - l) };
                let addr = A::from_u128(region.addr().to_u128() | offset);
                if let Some(h) = rib.get(&Prefix::from_parts_unchecked(addr, depth + l)) {
                    entries.push((position(l, v), h.raw()));
                }
            }
        }
        let old = self.nodes[node as usize];
        self.free_results(old.result(), old.internal().count_ones());
        let (internal, result) = self.store_results(&mut entries)?;
        self.nodes[node as usize] = N::new(internal, old.external(), old.child(), result);
        Ok(())
    }

    /// Builds the subtree of `region` (the child `chunk` of `parent`, missing so far) from the
    /// RIB and links it in, when the RIB has routes there.
    fn grow(
        &mut self,
        rib: &Rib<A>,
        parent: u32,
        chunk: u64,
        region: &Prefix<A>,
    ) -> Result<(), BuildError> {
        let routes: Vec<_> = rib.covered(region).map(|(p, h)| (p, h.raw())).collect();
        if routes.is_empty() {
            return Ok(());
        }
        let child = self.build_subtree(region.len(), &routes)?;
        self.relink(parent, chunk, Some(child))
    }

    /// Removes `node` from its parent while it has neither prefixes nor children, walking up
    /// `path` (the root stays).
    fn prune(&mut self, mut node: u32, path: &[(u32, u64)]) -> Result<(), BuildError> {
        for &(parent, chunk) in path.iter().rev() {
            let n = self.nodes[node as usize];
            if n.internal() != 0 || n.external() != 0 {
                break;
            }
            self.relink(parent, chunk, None)?;
            node = parent;
        }
        Ok(())
    }

    /// Copies the child block of `parent` into a new block with child `chunk` added (`Some`)
    /// or removed (`None`), and frees the old block.
    fn relink(&mut self, parent: u32, chunk: u64, child: Option<N>) -> Result<(), BuildError> {
        let p = self.nodes[parent as usize];
        let (old, count) = (p.child() as usize, p.external().count_ones());
        let at = rank(p.external(), chunk as u32) as usize;
        let (new_count, external) = match child {
            Some(_) => (count + 1, p.external() | 1 << chunk),
            None => (count - 1, p.external() & !(1 << chunk)),
        };
        let new = self.alloc_nodes(new_count)?;
        let mut block = self.nodes[old..old + count as usize].to_vec();
        match child {
            Some(c) => block.insert(at, c),
            None => drop(block.remove(at)),
        }
        self.nodes[new as usize..new as usize + block.len()].copy_from_slice(&block);
        self.free_nodes(old as u32, count);
        self.nodes[parent as usize] = N::new(p.internal(), external, new, p.result());
        Ok(())
    }
}
