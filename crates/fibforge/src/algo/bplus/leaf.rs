//! Relative leaves (option `leaf=rel`): up to 13 keys per 64-byte line, stored as 32-bit
//! offsets from the leaf's first key, so that the leaf level of an IPv6 tree (8 full keys
//! per plain line) shrinks by about 40 % and, with the rest of the structure, fits a 2 MiB L2.
//!
//! Layout of one line (16 `u32` words): words 0–1 the base (the leaf's first key, low word
//! first), word 2 the position of the base among all keys, word 3 a shift `s`; words 4–15 the
//! offsets `(key - base) >> s` of the leaf's next keys, padded with `u32::MAX`. Leaves are
//! packed greedily: a key joins the current leaf while the leaf has room and every offset,
//! with `s` the common trailing zeros of the differences, stays below `u32::MAX`. A key that
//! does not fit starts the next leaf (in the worst case a leaf holds one key).
//!
//! Exactness: every difference is a multiple of `2^s`, so for a probe `x >= base`,
//! `key <= x` exactly when `(key - base) >> s <= (x - base) >> s`; clamping the probe's
//! offset to `u32::MAX - 1` keeps the padding out of the count. The rank is one compare of
//! the line against the probe's offset with the header lanes masked off.

use super::node::{HEAD, Isa, Line32, TreeKey};

/// Keys per line at most: the base and one per offset word.
pub(super) const MAX_KEYS: usize = 1 + 16 - HEAD;

/// One leaf of a packing: keys `first..end`, stored as offsets from `base` shifted by `shift`.
pub(super) struct Packed {
    pub(super) first: usize,
    pub(super) end: usize,
    pub(super) base: u64,
    pub(super) shift: u32,
}

impl Packed {
    /// The offsets `(key - base) >> shift` of the leaf's keys after its base.
    pub(super) fn offsets<'a, K: TreeKey>(&self, keys: &'a [K]) -> impl Iterator<Item = u32> + 'a {
        let (base, shift) = (self.base, self.shift);
        keys[self.first + 1..self.end]
            .iter()
            .map(move |k| ((k.to_u128() as u64 - base) >> shift) as u32)
    }
}

/// Packs `keys` (ascending, below `2^64`, fewer than `2^32`) greedily into leaves of at
/// most `max_keys` keys whose offsets fit below `u32::MAX`, handing each to `leaf` in order;
/// returns the index of each leaf's first key.
pub(super) fn pack<K: TreeKey>(
    keys: &[K],
    max_keys: usize,
    mut leaf: impl FnMut(Packed),
) -> Vec<usize> {
    assert!(keys.len() < u32::MAX as usize, "positions must fit 32 bits");
    let mut firsts = Vec::with_capacity(keys.len() / max_keys + 1);
    let mut i = 0;
    while i < keys.len() {
        let base = keys[i].to_u128() as u64;
        let (mut end, mut bits) = (i + 1, 0u64);
        while end < keys.len() && end - i < max_keys {
            let diff = keys[end].to_u128() as u64 - base;
            let s = (bits | diff).trailing_zeros();
            // The largest difference is the newest; the shift only shrinks as keys join.
            if diff >> s >= u32::MAX as u64 {
                break;
            }
            bits |= diff;
            end += 1;
        }
        let shift = if bits == 0 { 0 } else { bits.trailing_zeros() };
        leaf(Packed { first: i, end, base, shift });
        firsts.push(i);
        i = end;
    }
    firsts
}

/// The relative leaf level of a tree.
#[derive(Clone)]
pub(super) struct RelLeaves {
    lines: Box<[Line32]>,
}

impl RelLeaves {
    /// Packs `keys` (ascending, below `2^64`, fewer than `2^32`); also returns the index of
    /// each leaf's first key.
    pub(super) fn build<K: TreeKey>(keys: &[K]) -> (RelLeaves, Vec<usize>) {
        let mut lines = Vec::with_capacity(keys.len() / MAX_KEYS + 1);
        let firsts = pack(keys, MAX_KEYS, |leaf| {
            let mut line = Line32([u32::MAX; 16]);
            line.0[0] = leaf.base as u32;
            line.0[1] = (leaf.base >> 32) as u32;
            line.0[2] = leaf.first as u32;
            line.0[3] = leaf.shift;
            for (slot, offset) in line.0[HEAD..].iter_mut().zip(leaf.offsets(keys)) {
                *slot = offset;
            }
            lines.push(line);
        });
        (RelLeaves { lines: lines.into() }, firsts)
    }

    /// Number of leaves.
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    /// The lines, for prefetches.
    #[inline(always)]
    pub(super) fn lines(&self) -> &[Line32] {
        &self.lines
    }

    /// Position of the greatest key `<= x` in leaf `leaf`, whose base is `<= x`.
    #[inline(always)]
    pub(super) fn position<I: Isa>(&self, leaf: usize, x: u64) -> usize {
        debug_assert!(leaf < self.lines.len());
        // SAFETY: callers reach `leaf` by a descent (see `Tree::line`): its index is within
        // the leaf level.
        let line = unsafe { self.lines.get_unchecked(leaf) };
        let base = line.0[0] as u64 | (line.0[1] as u64) << 32;
        debug_assert!(x >= base);
        let d = (x.wrapping_sub(base) >> line.0[3]).min(u32::MAX as u64 - 1) as u32;
        line.0[2] as usize + I::rank_rel(line, d)
    }

    /// The leaf holding position `pos`.
    pub(super) fn leaf_of(&self, pos: usize) -> usize {
        self.lines.partition_point(|l| l.0[2] as usize <= pos) - 1
    }

    /// The key at position `pos` (`<` the number of keys).
    pub(super) fn key(&self, pos: usize) -> u64 {
        let line = &self.lines[self.leaf_of(pos)];
        let base = line.0[0] as u64 | (line.0[1] as u64) << 32;
        match pos - line.0[2] as usize {
            0 => base,
            j => base + ((line.0[HEAD + j - 1] as u64) << line.0[3]),
        }
    }

    /// Bytes of the lines.
    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.lines)
    }
}
