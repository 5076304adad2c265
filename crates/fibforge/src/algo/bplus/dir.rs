//! The front directory: one word per block of the top 16 key bits, so that most lookups
//! skip the tree's upper levels and many skip the tree altogether.
//!
//! A block whose keys all fall in one interval is answered directly (`DIRECT | position`):
//! uniform random IPv6 traffic mostly lands in such blocks (the /16s without routes). For
//! other blocks the word names the deepest node through which every key of the block
//! descends. Positions and nodes only change with a rebuild, so updates never touch the
//! directory.

use super::node::{Portable, TreeKey};
use super::tree::Tree;

/// Top key bits indexing the directory.
pub(super) const DIR_BITS: u32 = 16;
/// A word answered by one interval: the low bits are its position.
pub(super) const DIRECT: u32 = 1 << 31;
const LEVEL_SHIFT: u32 = 27;
const NODE_MASK: u32 = (1 << LEVEL_SHIFT) - 1;

/// The directory of a tree.
pub(super) struct Dir {
    /// `None`: no directory (option `dir=off`): every lookup descends from the root.
    words: Option<Box<[u32]>>,
}

/// Where a lookup goes after the directory.
pub(super) enum Entry {
    /// The interval at this position.
    Direct(usize),
    /// Descend from this node of this level.
    Descend { level: usize, node: usize },
}

impl Dir {
    /// The directory of `tree` (whose last-key interval is `max_pos`), or none.
    pub(super) fn build<K: TreeKey>(tree: &Tree<K>, max_pos: usize, enabled: bool) -> Dir {
        if !enabled {
            return Dir { words: None };
        }
        let shift = key_bits::<K>() - DIR_BITS;
        let words = (0..1u128 << DIR_BITS)
            .map(|block| {
                let first = K::from_u128_lossy(block << shift);
                let last = K::from_u128_lossy(((block + 1) << shift) - 1);
                let lo = tree.search::<Portable>(first);
                let hi_pos = if last == K::MAX { max_pos } else { tree.search::<Portable>(last) };
                if lo == hi_pos {
                    return DIRECT | lo as u32;
                }
                // Keys below K::MAX descend; the last key itself is answered apart.
                let hi = tree.search::<Portable>(last);
                let (level, node) = shared_ancestor(tree, lo, hi);
                ((level as u32) << LEVEL_SHIFT) | node as u32
            })
            .collect();
        Dir { words: Some(words) }
    }

    /// The entry of key `k`.
    #[inline(always)]
    pub(super) fn entry<K: TreeKey>(&self, k: K) -> Entry {
        let Some(words) = &self.words else {
            return Entry::Descend { level: 0, node: 0 };
        };
        let word = words[(k.to_u128() >> (key_bits::<K>() - DIR_BITS)) as usize];
        if word & DIRECT != 0 {
            Entry::Direct((word & !DIRECT) as usize)
        } else {
            Entry::Descend {
                level: (word >> LEVEL_SHIFT) as usize,
                node: (word & NODE_MASK) as usize,
            }
        }
    }

    /// The share of blocks answered directly, or `None` without a directory.
    pub(super) fn direct_share(&self) -> Option<f64> {
        let words = self.words.as_ref()?;
        let direct = words.iter().filter(|&&w| w & DIRECT != 0).count();
        Some(direct as f64 / words.len() as f64)
    }

    /// Bytes of the directory.
    pub(super) fn memory_bytes(&self) -> usize {
        self.words.as_ref().map_or(0, |w| std::mem::size_of_val(&**w))
    }
}

/// Bits of a key.
fn key_bits<K: TreeKey>() -> u32 {
    (std::mem::size_of::<K>() * 8) as u32
}

/// The deepest level whose node is an ancestor of the leaves of both positions, and that
/// node.
fn shared_ancestor<K: TreeKey>(tree: &Tree<K>, lo: usize, hi: usize) -> (usize, usize) {
    let (height, fanout) = (tree.height(), Tree::<K>::FANOUT);
    let (leaf_lo, leaf_hi) = (tree.leaf_of(lo), tree.leaf_of(hi));
    (0..=height)
        .rev()
        .map(|level| {
            let span = fanout.pow((height - level) as u32);
            (level, leaf_lo / span, leaf_hi / span)
        })
        .find(|&(_, a, b)| a == b)
        .map(|(level, node, _)| (level, node))
        .expect("the root is an ancestor of every leaf")
}
