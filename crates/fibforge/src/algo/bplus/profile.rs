//! The path of one lookup through the structure, for profiles
//! (`crates/fibforge-bench/examples/bplus_profile.rs`): which lines a lookup reads, so that
//! measured rates can be set against lines per lookup.
//! Never on the lookup path: it walks with the portable rank and allocates.

use super::dir::Entry;
use super::key::Key;
use super::node::{Portable, TreeKey};
use super::tree::Tree;
use super::view::Fib;

/// Where the lookup of one address goes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Path {
    /// Answered by the directory word (or the last key's own word): no tree line read.
    pub direct: bool,
    /// The level a single lookup starts its descent at (the directory's node, second level
    /// included); batches start there too with option `bgroup`, else at the root (level 0).
    pub start_level: usize,
    /// The node of each level from the root to the leaf (the leaf last), as a batch lane
    /// visits them.
    pub nodes: Vec<usize>,
    /// The interval found.
    pub position: usize,
    /// The interval's word is a tag: the answer needs a side table (IPv6 /65–/128).
    pub side: bool,
}

impl<A: Key> Fib<A> {
    /// The path of a lookup of `addr` (see [`Path`]).
    pub fn path(&self, addr: A) -> Path {
        let k = addr.top();
        let x = k.min(A::T::MAX_BELOW);
        let (direct, start_level) = match self.dir.entry(k) {
            _ if k == A::T::MAX => (true, 0),
            Entry::Direct(_) | Entry::Hop(_) => (true, 0),
            Entry::Descend { level, .. } => (false, level),
        };
        let mut nodes = vec![0];
        for level in 0..self.tree.height() {
            let node = *nodes.last().expect("the root is pushed first");
            let rank = A::T::rank::<Portable>(self.tree.line(level, node), x.probe::<Portable>());
            nodes.push(node * Tree::<A::T>::FANOUT + rank);
        }
        let position = self.position(k);
        let side = self.hops.get(position) & self.hops.tag() != 0;
        Path { direct, start_level, nodes, position, side }
    }

    /// Lines (nodes) of each level, root first, the leaf level last.
    pub fn level_lines(&self) -> Vec<usize> {
        (0..=self.tree.height()).map(|l| self.tree.level_len(l)).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::algo::bplus::{BPlus, Config, Leaf};
    use crate::fib::{Compile, Lookup};
    use crate::nexthop::NextHop;
    use crate::rib::Rib;

    #[test]
    fn paths_end_at_the_interval_lookups_find() {
        let mut rib = Rib::<u128>::new();
        for i in 0..3000u128 {
            let p = format!("2001:db8:{:x}:{:x}::/64", i / 7, i % 97).parse().unwrap();
            rib.insert(p, NextHop::from_index((i % 5) as u32));
        }
        rib.insert("2001:db8:1::1/128".parse().unwrap(), NextHop::from_index(8));
        for leaf in [Leaf::Plain, Leaf::Rel, Leaf::Hop] {
            let cfg = Config { leaf: Some(leaf), ..Config::default() };
            let t = BPlus::<u128>::compile(&rib, &cfg).unwrap();
            let fib = t.view();
            let lines = fib.level_lines();
            assert_eq!(lines.len(), fib.height() + 1);
            for a in [0x2001_0db8_0000_0005u128 << 64, 0x2001_0db8_0001u128 << 80 | 1, 0] {
                let p = fib.path(a);
                assert_eq!(p.nodes.len(), lines.len());
                assert!(p.nodes.iter().zip(&lines).all(|(n, l)| n < l));
                let hop = t.lookup(a).map_or(0, |h| h.raw());
                assert_eq!(p.side, hop == 9 && a >> 64 == 0x2001_0db8_0001_0000);
            }
        }
    }
}
