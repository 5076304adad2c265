//! The maptable: every 16-bit bit-mask a cut of a leaf-pushed binary tree can produce, and for
//! each of its 16 positions the number of heads up to and including that position.
//!
//! An aligned block of 16 positions is a subtree of height 4. Its heads are the first
//! positions of the leaves of the leaf-pushed tree inside it, so its mask is either all zero
//! (a leaf that started in an earlier block spans it) or the head pattern of a complete binary
//! tree of height at most 4: a(0) = 1, a(h) = 1 + a(h − 1)^2 gives 677 such trees, 678 masks
//! with the zero mask, the paper's count. The table is the same for every routing table.

use std::sync::OnceLock;

/// Positions per mask.
pub(super) const MASK_BITS: usize = 16;
/// Rows of the maptable (the paper's 678).
pub(super) const ROWS: usize = 678;
/// `row_of` for a mask that no tree produces.
const NO_ROW: u16 = u16::MAX;

/// The maptable and the reverse index from a mask to its row.
pub(super) struct MapTable {
    /// `rows[r][j]`: heads of mask `r` at positions `0..=j` (position 0 is the mask's top bit).
    pub(super) rows: Box<[[u8; MASK_BITS]]>,
    /// The row of every possible mask (`NO_ROW` for masks no tree produces); build time only.
    row_of: Box<[u16]>,
}

impl MapTable {
    /// The shared table, built on first use.
    pub(super) fn get() -> &'static MapTable {
        static TABLE: OnceLock<MapTable> = OnceLock::new();
        TABLE.get_or_init(MapTable::new)
    }

    fn new() -> MapTable {
        let mut masks = vec![0u16];
        masks.extend(trees(4).into_iter().map(|m| m as u16));
        let mut row_of = vec![NO_ROW; 1 << MASK_BITS].into_boxed_slice();
        let mut rows = Vec::with_capacity(masks.len());
        for (r, &mask) in masks.iter().enumerate() {
            row_of[mask as usize] = r as u16;
            let mut row = [0u8; MASK_BITS];
            for (j, v) in row.iter_mut().enumerate() {
                *v = (mask >> (MASK_BITS - 1 - j)).count_ones() as u8;
            }
            rows.push(row);
        }
        debug_assert_eq!(rows.len(), ROWS);
        MapTable { rows: rows.into_boxed_slice(), row_of }
    }

    /// The row of `mask`, or `None` when no leaf-pushed tree produces it.
    pub(super) fn row(&self, mask: u16) -> Option<u16> {
        Some(self.row_of[mask as usize]).filter(|&r| r != NO_ROW)
    }
}

/// The head masks (2^h bits, first position in the top bit) of every complete binary tree of
/// height at most `h`: one leaf, or two subtrees of height at most `h − 1` side by side.
fn trees(h: u32) -> Vec<u32> {
    let width = 1u32 << h;
    let mut out = vec![1 << (width - 1)];
    if h > 0 {
        let half = trees(h - 1);
        for &l in &half {
            out.extend(half.iter().map(|&r| l << (width / 2) | r));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_the_papers_678_rows() {
        assert_eq!(trees(2).len(), 5);
        assert_eq!(trees(3).len(), 26);
        let t = MapTable::get();
        assert_eq!(t.rows.len(), ROWS);
        assert_eq!(t.row_of.iter().filter(|&&r| r != NO_ROW).count(), ROWS);
        // One leaf over the whole block, eight leaves of two, and a mask with a hole.
        assert_eq!(t.rows[t.row(0x8000).unwrap() as usize], [1; 16]);
        let pairs = t.rows[t.row(0xAAAA).unwrap() as usize];
        assert_eq!(pairs[..4], [1, 1, 2, 2]);
        assert_eq!(pairs[15], 8);
        assert_eq!(t.row(0x4000), None, "a block must start with a head or be empty");
        assert_eq!(t.row(0x8002), None, "a lone head at position 14 is not a leaf start");
    }
}
