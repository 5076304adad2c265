//! The PortMapTable: one composite (a raw next hop per table, 0 = no route) per entry, flat or
//! bitmap-compressed (paper §V-B, `S_pmt2`).
//!
//! **Flat**: entry `i` is `words[i * width ..][.. width]`; a lookup is one access.
//!
//! **Compressed** (`LoopConfig::compress_pmt`): the paper only names the idea ("employ bitmap
//! technique to compress PortMapTable"); this is the overlay-bitmap idea applied across the
//! tables. Entry `i` starts at `offsets[i]`: `ceil(width / 32)` bitmap words, where bit `c`
//! (bit `c % 32` of word `c / 32`) is 1 when column `c` starts a run — `c = 0` or its value
//! differs from column `c - 1` — followed by one value per run. The value of table `v` is
//! `values[ones(bitmap[0..=v]) - 1]`: two more dependent accesses and a popcount per started
//! 32-table word than the flat form. Composites of similar tables (runs of equal next hops or of
//! "no route") shrink the most.
//!
//! Invariant: entries are append-only while a structure is live (a retired composite stays
//! until the next rebuild), so readers never see an entry change under them. An entry's words
//! and offset are written before the lookup entry naming it is published (`Release`).

use super::build::limit_error;
use crate::fib::BuildError;
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) struct Pmt {
    width: usize,
    /// `None` for the flat form.
    offsets: Option<Box<[AtomicU32]>>,
    words: Box<[AtomicU32]>,
}

/// The compressed words of one composite.
pub(super) fn encode(composite: &[u32]) -> Vec<u32> {
    let mut out = vec![0u32; composite.len().div_ceil(32)];
    for (c, &x) in composite.iter().enumerate() {
        if c == 0 || x != composite[c - 1] {
            out[c / 32] |= 1 << (c % 32);
        }
    }
    let values: Vec<u32> = composite
        .iter()
        .enumerate()
        .filter(|&(c, _)| out[c / 32] >> (c % 32) & 1 == 1)
        .map(|(_, &x)| x)
        .collect();
    out.extend(values);
    out
}

impl Pmt {
    /// Live table from `flat` composites, with room for `spare_entries` more.
    /// Returns the table and the words in use.
    pub(super) fn new(
        flat: &[u32],
        width: usize,
        compress: bool,
        spare_entries: usize,
    ) -> (Pmt, u32) {
        let entries = flat.len() / width.max(1);
        if !compress {
            let words = super::filled(flat, flat.len() + spare_entries * width.max(1));
            return (Pmt { width, offsets: None, words }, flat.len() as u32);
        }
        let mut words = Vec::new();
        let mut offsets = Vec::with_capacity(entries);
        for i in 0..entries {
            offsets.push(words.len() as u32);
            words.extend(encode(&flat[i * width..][..width]));
        }
        let per = width.div_ceil(32) + width.min(4);
        let used = words.len() as u32;
        let words = super::filled(&words, words.len() + spare_entries * per);
        let offsets = Some(super::filled(&offsets, entries + spare_entries));
        (Pmt { width, offsets, words }, used)
    }

    /// The value of column `vrf` (< width) of entry `i`.
    #[inline]
    pub(super) fn get(&self, i: u32, vrf: u32) -> u32 {
        let Some(offsets) = &self.offsets else {
            return self.words[i as usize * self.width + vrf as usize].load(Ordering::Relaxed);
        };
        let off = offsets[i as usize].load(Ordering::Relaxed) as usize;
        let (w, r) = (vrf as usize / 32, vrf % 32);
        let mut ones =
            (self.words[off + w].load(Ordering::Relaxed) & (u32::MAX >> (31 - r))).count_ones();
        for k in 0..w {
            ones += self.words[off + k].load(Ordering::Relaxed).count_ones();
        }
        let heads = self.width.div_ceil(32);
        self.words[off + heads + ones as usize - 1].load(Ordering::Relaxed)
    }

    /// Entry `i` as a composite.
    pub(super) fn composite(&self, i: u32) -> Vec<u32> {
        (0..self.width as u32).map(|v| self.get(i, v)).collect()
    }

    /// True when entry `i` holds `composite`.
    pub(super) fn holds(&self, i: u32, composite: &[u32]) -> bool {
        composite.iter().enumerate().all(|(v, &x)| self.get(i, v as u32) == x)
    }

    /// Stores `composite` as entry `i` (the next one), advancing `words_top`.
    pub(super) fn append(
        &self,
        i: u32,
        words_top: &mut u32,
        composite: &[u32],
    ) -> Result<(), BuildError> {
        let full = || limit_error("reserved PortMapTable entries");
        let enc;
        let words: &[u32] = match &self.offsets {
            None => composite,
            Some(_) => {
                enc = encode(composite);
                &enc
            }
        };
        let at = *words_top as usize;
        if at + words.len() > self.words.len() {
            return Err(full());
        }
        if let Some(offsets) = &self.offsets {
            offsets.get(i as usize).ok_or_else(full)?.store(at as u32, Ordering::Relaxed);
        }
        for (k, &x) in words.iter().enumerate() {
            self.words[at + k].store(x, Ordering::Relaxed);
        }
        *words_top += words.len() as u32;
        Ok(())
    }

    /// Bytes in use for `entries` entries and `words` words.
    pub(super) fn used_bytes(&self, entries: u32, words: u32) -> usize {
        4 * (words as usize + self.offsets.as_ref().map_or(0, |_| entries as usize))
    }

    /// Bytes allocated.
    pub(super) fn allocated_bytes(&self) -> usize {
        4 * (self.words.len() + self.offsets.as_ref().map_or(0, |o| o.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_and_flat_agree() {
        let width = 70;
        let comps: Vec<Vec<u32>> = vec![
            vec![0; width],
            (0..width as u32).collect(),
            (0..width as u32).map(|c| c / 20 + 1).collect(),
            (0..width as u32).map(|c| if c == 31 || c == 32 { 9 } else { 3 }).collect(),
        ];
        let flat: Vec<u32> = comps.concat();
        for compress in [false, true] {
            let (pmt, mut top) = Pmt::new(&flat[..width * 2], width, compress, 4);
            pmt.append(2, &mut top, &comps[2]).unwrap();
            pmt.append(3, &mut top, &comps[3]).unwrap();
            for (i, c) in comps.iter().enumerate() {
                assert_eq!(&pmt.composite(i as u32), c, "entry {i} compress {compress}");
                assert!(pmt.holds(i as u32, c));
            }
        }
        assert_eq!(encode(&[5, 5, 5, 0]), vec![0b1001, 5, 0]);
    }
}
