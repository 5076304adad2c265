//! The front directory: one word per block of the top 16 key bits, so that most lookups
//! skip the tree's upper levels and many skip the tree altogether.
//!
//! A block whose keys all fall in one interval is answered directly: uniform random IPv6
//! traffic mostly lands in such blocks (the /16s without routes). Its word holds the
//! interval's raw next hop itself (`DIRECT | HOP | hop`, option `dhop`, when the interval's
//! word is a raw next hop below 2^30), so such a lookup reads one word; otherwise
//! (`DIRECT | position`) the lookup reads the interval's word. For other blocks the word names
//! the deepest node through which every key of the block descends.
//!
//! Invariants: positions and nodes only change with a rebuild. A direct block's interval
//! (the one holding all its keys) is fixed between rebuilds too, but its word is not: every
//! write of an interval word is followed by [`Dir::refresh`] of the blocks inside that
//! interval, so a `HOP` word always equals its interval's word (a reader may see the old
//! word or the new one, as with the interval word itself). Words are atomics for that writer.

use super::node::{Portable, TreeKey};
use super::tree::Tree;
use std::sync::atomic::{AtomicU32, Ordering};

/// Top key bits indexing the directory.
pub(super) const DIR_BITS: u32 = 16;
/// A word answered by one interval: the low bits are its position, or with `HOP` its hop.
pub(super) const DIRECT: u32 = 1 << 31;
/// With `DIRECT`: the low bits are the interval's raw next hop (below `HOP`).
const HOP: u32 = 1 << 30;
const LEVEL_SHIFT: u32 = 27;
const NODE_MASK: u32 = (1 << LEVEL_SHIFT) - 1;

/// The directory of a tree.
pub(super) struct Dir {
    /// `None`: no directory (option `dir=off`): every lookup descends from the root.
    words: Option<Box<[AtomicU32]>>,
    /// Direct blocks hold raw next hops (option `dhop`), not only positions.
    hops: bool,
}

/// Where a lookup goes after the directory.
pub(super) enum Entry {
    /// This raw next hop (the word of the interval holding the whole block).
    Hop(u32),
    /// The interval at this position.
    Direct(usize),
    /// Descend from this node of this level.
    Descend { level: usize, node: usize },
}

impl Dir {
    /// The directory of `tree` (whose last-key interval is `max_pos`), or none; `word` gives
    /// each interval's word, whose side-table tag is `tag`; direct blocks hold raw next hops
    /// when `hops`.
    pub(super) fn build<K: TreeKey>(
        tree: &Tree<K>,
        max_pos: usize,
        enabled: bool,
        hops: bool,
        word: impl Fn(usize) -> u32,
        tag: u32,
    ) -> Dir {
        if !enabled {
            return Dir { words: None, hops };
        }
        assert!(max_pos < HOP as usize, "positions must fit 30 bits");
        let shift = key_bits::<K>() - DIR_BITS;
        let words = (0..1u128 << DIR_BITS)
            .map(|block| {
                let first = K::from_u128_lossy(block << shift);
                let last = K::from_u128_lossy(((block + 1) << shift) - 1);
                let lo = tree.search::<Portable>(first);
                let hi_pos = if last == K::MAX { max_pos } else { tree.search::<Portable>(last) };
                if lo == hi_pos {
                    return AtomicU32::new(direct_word(lo, word(lo), tag, hops));
                }
                // Keys below K::MAX descend; the last key itself is answered apart.
                let hi = tree.search::<Portable>(last);
                let (level, node) = shared_ancestor(tree, lo, hi);
                AtomicU32::new(((level as u32) << LEVEL_SHIFT) | node as u32)
            })
            .collect();
        Dir { words: Some(words), hops }
    }

    /// Rewrites the words of the blocks lying wholly inside the interval at `pos`, keys
    /// `first..=last`, after its word changed to `word` (side-table tag `tag`).
    pub(super) fn refresh<K: TreeKey>(&self, pos: usize, first: K, last: K, word: u32, tag: u32) {
        let Some(words) = self.words.as_ref().filter(|_| self.hops) else { return };
        let shift = key_bits::<K>() - DIR_BITS;
        let (first, last) = (first.to_u128(), last.to_u128());
        // Blocks partly outside the interval hold other intervals: not direct.
        let from = first.div_ceil(1 << shift);
        let to = (last + 1) >> shift; // exclusive: the block holding `last` only if it ends there
        for block in from..to {
            words[block as usize].store(direct_word(pos, word, tag, true), Ordering::Release);
        }
    }

    /// The entry of key `k`.
    #[inline(always)]
    pub(super) fn entry<K: TreeKey>(&self, k: K) -> Entry {
        let Some(words) = &self.words else {
            return Entry::Descend { level: 0, node: 0 };
        };
        let word = words[(k.to_u128() >> (key_bits::<K>() - DIR_BITS)) as usize]
            .load(Ordering::Relaxed);
        if word & DIRECT != 0 {
            if word & HOP != 0 {
                Entry::Hop(word & !(DIRECT | HOP))
            } else {
                Entry::Direct((word & !DIRECT) as usize)
            }
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
        let direct = words.iter().filter(|w| w.load(Ordering::Relaxed) & DIRECT != 0).count();
        Some(direct as f64 / words.len() as f64)
    }

    /// Bytes of the directory.
    pub(super) fn memory_bytes(&self) -> usize {
        self.words.as_ref().map_or(0, |w| std::mem::size_of_val(&**w))
    }
}

/// The word of a block answered by the interval at `pos`, whose word is `word`.
fn direct_word(pos: usize, word: u32, tag: u32, hops: bool) -> u32 {
    if hops && word & tag == 0 && word < HOP { DIRECT | HOP | word } else { DIRECT | pos as u32 }
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
