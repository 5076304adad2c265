//! Hop leaves (option `leaf=hop`): relative leaves that hold their intervals' answers too,
//! so that a lookup ends in the line its search already read instead of one more read of
//! the answer array (`hops.rs`) at a position it has just computed.
//!
//! Layout of one line (64 bytes, `HopLine`): bytes 0–7 the base (the leaf's first key),
//! 8–11 the position of the base among all keys, 12 a shift `s`, 14–31 nine 16-bit answer
//! words (the base's interval first), 32–63 eight 32-bit offsets `(key - base) >> s` of the
//! leaf's next keys, padded with `u32::MAX`. Leaves are packed greedily as in `leaf.rs`, with
//! at most nine keys each (relative leaves hold 13, but their answers live apart).
//!
//! Exactness is that of `leaf.rs`: for a probe `x >= base`, `key <= x` exactly when
//! `(key - base) >> s <= (x - base) >> s`, and the probe's offset is clamped below
//! `u32::MAX`. The rank among the offsets is the index of the answer word.
//!
//! Answers are 16-bit atomics, rewritten in place by updates (`Fib::set_word`) while
//! readers look up; the other fields never change after the build. The rank reads only the
//! offset half of the line (one 32-byte load), never the words beside it. Only tables whose
//! answers fit 16 bits get hop leaves (the answer array's narrow width, `hops.rs`); the
//! answer array stays the writer's record and serves the directory's position words.

use super::leaf::pack;
use super::node::{Isa, TreeKey};
use std::sync::atomic::{AtomicU16, Ordering};

/// Offsets per line; a line holds one more key (its base).
pub(super) const OFFSETS: usize = 8;
/// Keys per line at most.
pub(super) const MAX_KEYS: usize = OFFSETS + 1;

/// One hop leaf (see the module doc for the layout).
#[repr(C, align(64))]
pub(super) struct HopLine {
    base: u64,
    first: u32,
    shift: u8,
    _pad: u8,
    words: [AtomicU16; MAX_KEYS],
    offsets: [u32; OFFSETS],
}

const _: () = assert!(std::mem::size_of::<HopLine>() == 64);
const _: () = assert!(std::mem::offset_of!(HopLine, offsets) == 32);

/// The hop leaf level of a tree.
pub(super) struct HopLeaves {
    lines: Box<[HopLine]>,
}

impl Clone for HopLeaves {
    fn clone(&self) -> Self {
        let copy = |l: &HopLine| HopLine {
            words: std::array::from_fn(|i| AtomicU16::new(l.words[i].load(Ordering::Relaxed))),
            ..*l
        };
        HopLeaves { lines: self.lines.iter().map(copy).collect() }
    }
}

impl HopLeaves {
    /// Packs `keys` (ascending, below `2^64`, fewer than `2^32`) with the answer word of
    /// each (`words[i]` for `keys[i]`, below `2^16`); also returns the index of each leaf's
    /// first key.
    pub(super) fn build<K: TreeKey>(keys: &[K], words: &[u32]) -> (HopLeaves, Vec<usize>) {
        assert!(words.len() >= keys.len(), "one answer word per key");
        let mut lines = Vec::with_capacity(keys.len() / MAX_KEYS + 1);
        let firsts = pack(keys, MAX_KEYS, |leaf| {
            let mut offsets = [u32::MAX; OFFSETS];
            for (slot, offset) in offsets.iter_mut().zip(leaf.offsets(keys)) {
                *slot = offset;
            }
            let word = |j: usize| {
                let w = if leaf.first + j < leaf.end { words[leaf.first + j] } else { 0 };
                AtomicU16::new(u16::try_from(w).expect("hop leaves hold 16-bit answer words"))
            };
            lines.push(HopLine {
                base: leaf.base,
                first: leaf.first as u32,
                shift: leaf.shift as u8,
                _pad: 0,
                words: std::array::from_fn(word),
                offsets,
            });
        });
        (HopLeaves { lines: lines.into() }, firsts)
    }

    /// Number of leaves.
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    /// The lines, for prefetches.
    #[inline(always)]
    pub(super) fn lines(&self) -> &[HopLine] {
        &self.lines
    }

    /// The line of `leaf`, reached by a descent.
    #[inline(always)]
    fn line(&self, leaf: usize) -> &HopLine {
        debug_assert!(leaf < self.lines.len());
        // SAFETY: callers reach `leaf` by a descent (see `Tree::line`): its index is within
        // the leaf level.
        unsafe { self.lines.get_unchecked(leaf) }
    }

    /// Index within leaf `leaf` (whose base is `<= x`) of the greatest key `<= x`.
    #[inline(always)]
    fn rank<I: Isa>(&self, leaf: usize, x: u64) -> (&HopLine, usize) {
        let line = self.line(leaf);
        debug_assert!(x >= line.base);
        let d = (x.wrapping_sub(line.base) >> line.shift).min(u32::MAX as u64 - 1) as u32;
        (line, I::rank_offsets(&line.offsets, d))
    }

    /// The answer word of the greatest key `<= x` in leaf `leaf`, whose base is `<= x`.
    #[inline(always)]
    pub(super) fn word<I: Isa>(&self, leaf: usize, x: u64) -> u32 {
        let (line, rank) = self.rank::<I>(leaf, x);
        // Acquire, as the answer array's reads: a tag's side table was published before it.
        line.words[rank].load(Ordering::Acquire) as u32
    }

    /// Position of the greatest key `<= x` in leaf `leaf`, whose base is `<= x`.
    #[inline(always)]
    pub(super) fn position<I: Isa>(&self, leaf: usize, x: u64) -> usize {
        let (line, rank) = self.rank::<I>(leaf, x);
        line.first as usize + rank
    }

    /// The leaf holding position `pos`.
    pub(super) fn leaf_of(&self, pos: usize) -> usize {
        self.lines.partition_point(|l| l.first as usize <= pos) - 1
    }

    /// The key at position `pos` (`<` the number of keys).
    pub(super) fn key(&self, pos: usize) -> u64 {
        let line = &self.lines[self.leaf_of(pos)];
        match pos - line.first as usize {
            0 => line.base,
            j => line.base + ((line.offsets[j - 1] as u64) << line.shift),
        }
    }

    /// Writes the answer word of position `pos` (below `2^16`).
    pub(super) fn set_word(&self, pos: usize, word: u32) {
        let line = &self.lines[self.leaf_of(pos)];
        let w = u16::try_from(word).expect("hop leaves hold 16-bit answer words");
        line.words[pos - line.first as usize].store(w, Ordering::Release);
    }

    /// Bytes of the lines.
    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.lines)
    }
}
