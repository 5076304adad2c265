//! The PortMapTable: one composite (a raw next hop per table, 0 = no route) per entry, in one
//! of two layouts:
//!
//! - [`Columns`] (default): one array per table, `cols[vrf][i]`, of cells as narrow as the
//!   table's next hops allow (one byte up to 255 of them, as the paper's port numbers; see
//!   [`cells`]); one dependent access per lookup, and adding or removing a table touches only
//!   that table's column and the entries it divides or merges (see [`columns`]);
//! - [`Packed`] (`Config::compress_pmt`, the paper's `S_pmt2`): bitmap-compressed rows;
//!   smaller when tables share next hops, at two more dependent accesses per lookup, and table
//!   insertion/deletion rewrites every row (see [`packed`]).
//!
//! Columns rather than one flat `entries × width` row table: lookups are the same, and adding
//! a table no longer copies every row (history: `docs/lab/loop.md`). The trade-off is
//! locality across tables: the values of one composite for all tables are no longer adjacent,
//! so the writer's whole-composite reads (interning checks, Optimization 1) touch one cache
//! line per table instead of `width / 16`; lookups read one value and are unaffected.

pub(super) mod cells;
pub(super) mod columns;
pub(super) mod index;
mod packed;

use crate::fib::BuildError;
use columns::Columns;
use packed::Packed;

pub(super) enum Pmt {
    Columns(Columns),
    Packed(Packed),
}

impl Pmt {
    /// Live table from `flat` composites (`slots.len()` values each, `entries` of them), with
    /// room for `spare` more entries; `slots[v]` lists the next hops of table `v`'s RIB, `None`
    /// for a free VRF slot. Returns the table and the packed words in use (0 for columns).
    pub(super) fn new(
        flat: &[u32],
        (slots, entries): (&[Option<Vec<u32>>], usize),
        compress: bool,
        spare: usize,
    ) -> Result<(Pmt, u32), BuildError> {
        if compress {
            let (p, words) = Packed::new(flat, slots.len(), spare);
            Ok((Pmt::Packed(p), words))
        } else {
            Ok((Pmt::Columns(Columns::new(flat, slots, entries, entries + spare)?), 0))
        }
    }

    /// Table slots (the composite width).
    pub(super) fn width(&self) -> usize {
        match self {
            Pmt::Columns(c) => c.width(),
            Pmt::Packed(p) => p.width(),
        }
    }

    /// The value of column `vrf` (< width) of entry `i`.
    #[inline]
    pub(super) fn get(&self, i: u32, vrf: u32) -> u32 {
        match self {
            Pmt::Columns(c) => c.get(i, vrf),
            Pmt::Packed(p) => p.get(i, vrf),
        }
    }

    /// Hints that the value of column `vrf` (< width) of entry `i` is read soon.
    #[inline]
    pub(super) fn prefetch(&self, i: u32, vrf: u32) {
        match self {
            Pmt::Columns(c) => c.prefetch(i, vrf),
            Pmt::Packed(p) => p.prefetch(i),
        }
    }

    /// Entry `i` as a composite.
    pub(super) fn composite(&self, i: u32) -> Vec<u32> {
        (0..self.width() as u32).map(|v| self.get(i, v)).collect()
    }

    /// True when entry `i` holds `composite`.
    pub(super) fn holds(&self, i: u32, composite: &[u32]) -> bool {
        composite.iter().enumerate().all(|(v, &x)| self.get(i, v as u32) == x)
    }

    /// Stores `composite` as entry `i` (the next one); packed words advance `words_top`.
    pub(super) fn append(
        &self,
        i: u32,
        words_top: &mut u32,
        composite: &[u32],
    ) -> Result<(), BuildError> {
        match self {
            Pmt::Columns(c) => c.append(i, composite),
            Pmt::Packed(p) => p.append(i, words_top, composite),
        }
    }

    /// Bytes in use for `entries` entries and `words` packed words.
    pub(super) fn used_bytes(&self, entries: u32, words: u32) -> usize {
        match self {
            Pmt::Columns(c) => c.used_bytes(entries),
            Pmt::Packed(p) => p.used_bytes(entries, words),
        }
    }

    /// Bytes allocated.
    pub(super) fn allocated_bytes(&self) -> usize {
        match self {
            Pmt::Columns(c) => c.allocated_bytes(),
            Pmt::Packed(p) => p.allocated_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::packed::encode;
    use super::*;

    #[test]
    fn packed_and_columns_agree() {
        let width = 70;
        let comps: Vec<Vec<u32>> = vec![
            vec![0; width],
            (0..width as u32).collect(),
            (0..width as u32).map(|c| c / 20 + 1).collect(),
            (0..width as u32).map(|c| if c == 31 || c == 32 { 9 } else { 3 }).collect(),
        ];
        let flat: Vec<u32> = comps.concat();
        let slots: Vec<Option<Vec<u32>>> = (0..width)
            .map(|v| {
                let mut hops: Vec<u32> = comps.iter().map(|c| c[v]).filter(|&x| x != 0).collect();
                hops.dedup();
                Some(hops)
            })
            .collect();
        for compress in [false, true] {
            let (pmt, mut top) = Pmt::new(&flat[..width * 2], (&slots, 2), compress, 4).unwrap();
            pmt.append(2, &mut top, &comps[2]).unwrap();
            pmt.append(3, &mut top, &comps[3]).unwrap();
            for (i, c) in comps.iter().enumerate() {
                assert_eq!(&pmt.composite(i as u32), c, "entry {i} compress {compress}");
                assert!(pmt.holds(i as u32, c));
            }
            assert!(pmt.append(9, &mut top, &comps[0]).is_err(), "past the reserved room");
        }
        assert_eq!(encode(&[5, 5, 5, 0]), vec![0b1001, 5, 0]);
    }
}
