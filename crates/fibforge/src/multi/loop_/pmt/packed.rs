//! The bitmap-compressed PortMapTable (paper §V-B, `S_pmt2`; `Config::compress_pmt`).
//!
//! The paper only names the idea ("employ bitmap technique to compress PortMapTable"); this is
//! the overlay-bitmap idea applied across the tables, one row per composite. Entry `i` starts
//! at `offsets[i]`: `ceil(width / 32)` bitmap words, where bit `c` (bit `c % 32` of word
//! `c / 32`) is 1 when column `c` starts a run — `c = 0` or its value differs from column
//! `c - 1` — followed by one value per run. The value of table `v` is
//! `values[ones(bitmap[0..=v]) - 1]`: two more dependent accesses and a popcount per started
//! 32-table word than the column layout. Composites of similar tables (runs of equal next hops
//! or of "no route") shrink the most.
//!
//! Rows are append-only while a structure is live (a retired composite stays until the next
//! rebuild), so readers never see an entry change under them. An entry's words and offset are
//! written before the lookup entry naming it is published (`Release`). Because a row holds
//! every table, adding or removing a table rewrites every row in use (time grows with the
//! number of tables); a removed table's column stays as "no route" (one run at most).

use super::super::words::{filled, limit_error};
use crate::fib::BuildError;
use std::sync::atomic::{AtomicU32, Ordering};

pub(in crate::multi::loop_) struct Packed {
    width: usize,
    offsets: Box<[AtomicU32]>,
    words: Box<[AtomicU32]>,
}

/// The compressed words of one composite.
pub(in crate::multi::loop_) fn encode(composite: &[u32]) -> Vec<u32> {
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

impl Packed {
    /// Live table from `flat` composites (`width` values each), with room for
    /// `spare_entries` more. Returns the table and the words in use.
    pub(in crate::multi::loop_) fn new(
        flat: &[u32],
        width: usize,
        spare_entries: usize,
    ) -> (Packed, u32) {
        let entries = flat.len() / width.max(1);
        let mut words = Vec::new();
        let mut offsets = Vec::with_capacity(entries);
        for i in 0..entries {
            offsets.push(words.len() as u32);
            words.extend(encode(&flat[i * width..][..width]));
        }
        let per = width.div_ceil(32) + width.min(4);
        let used = words.len() as u32;
        let words = filled(&words, words.len() + spare_entries * per);
        let offsets = filled(&offsets, entries + spare_entries);
        (Packed { width, offsets, words }, used)
    }

    pub(in crate::multi::loop_) fn width(&self) -> usize {
        self.width
    }

    /// The value of column `vrf` (< width) of entry `i`.
    #[inline]
    pub(in crate::multi::loop_) fn get(&self, i: u32, vrf: u32) -> u32 {
        let off = self.offsets[i as usize].load(Ordering::Relaxed) as usize;
        let (w, r) = (vrf as usize / 32, vrf % 32);
        let mut ones =
            (self.words[off + w].load(Ordering::Relaxed) & (u32::MAX >> (31 - r))).count_ones();
        for k in 0..w {
            ones += self.words[off + k].load(Ordering::Relaxed).count_ones();
        }
        let heads = self.width.div_ceil(32);
        self.words[off + heads + ones as usize - 1].load(Ordering::Relaxed)
    }

    /// Hints that entry `i`'s offset is read soon.
    #[inline]
    pub(in crate::multi::loop_) fn prefetch(&self, i: u32) {
        if (i as usize) < self.offsets.len() {
            crate::algo::prefetch::read(&self.offsets, i as usize);
        }
    }

    /// Stores `composite` as entry `i` (the next one), advancing `words_top`.
    pub(in crate::multi::loop_) fn append(
        &self,
        i: u32,
        words_top: &mut u32,
        composite: &[u32],
    ) -> Result<(), BuildError> {
        let full = || limit_error("reserved PortMapTable entries");
        let words = encode(composite);
        let at = *words_top as usize;
        if at + words.len() > self.words.len() {
            return Err(full());
        }
        self.offsets.get(i as usize).ok_or_else(full)?.store(at as u32, Ordering::Relaxed);
        for (k, &x) in words.iter().enumerate() {
            self.words[at + k].store(x, Ordering::Relaxed);
        }
        *words_top += words.len() as u32;
        Ok(())
    }

    /// Bytes in use for `entries` entries and `words` words.
    pub(in crate::multi::loop_) fn used_bytes(&self, entries: u32, words: u32) -> usize {
        4 * (words as usize + entries as usize)
    }

    /// Bytes allocated.
    pub(in crate::multi::loop_) fn allocated_bytes(&self) -> usize {
        4 * (self.words.len() + self.offsets.len())
    }
}
