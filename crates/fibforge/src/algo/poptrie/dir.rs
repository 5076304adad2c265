//! The direct-pointing array (§3.4) in 16- or 32-bit entries.
//!
//! Readers and the writer speak one encoding, the *wide* one: `DIRECT_LEAF | raw next hop`,
//! or a node index. [`DirTable::Wide`] stores exactly that. [`DirTable::Narrow`] stores half
//! the bytes: with `2^s` entries the array is the largest thing a random lookup touches
//! (1 MiB at `s = 18`), and halving it made random lookups faster (`docs/lab/poptrie.md`). A narrow entry
//! `e` below the
//! *root limit* `r` is a node index (so every node a `dir` entry names lives in `nodes[..r]`,
//! see `mod.rs`), and `e >= r` is the next hop `e - r`:
//!
//! ```text
//! 0 ..................... r-1 | r ...................... 65535
//!      node index e            |   leaf: raw next hop e - r
//! ```
//!
//! A compile picks `Narrow` when the roots and the next hops fit with room to spare; an
//! update that would overflow either converts the array to `Wide` first ([`DirTable::widened`]:
//! same node indices, so nothing else moves).
//!
//! The narrow array has one padding entry after the last, so that the AVX-512 path can read
//! every entry as the low half of an unaligned 32-bit gather lane.

use crate::mapped::{Region, Slab};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// Direct-pointing entries with this bit set hold a raw next hop, otherwise a node index.
pub(crate) const DIRECT_LEAF: u32 = 1 << 31;

/// The direct-pointing entries of one structure (public only for [`super::Key`]'s SIMD hook;
/// the module is private).
pub enum DirTable {
    /// `DIRECT_LEAF | raw`, or a node index.
    Wide(Slab<AtomicU32>),
    /// `e < roots`: node index `e`; else next hop `e - roots`. `e` has `2^s + 1` entries (the
    /// last one is padding for 32-bit gathers).
    Narrow { e: Slab<AtomicU16>, roots: u32 },
}

impl DirTable {
    /// A wide table holding `entries` (wide encoding).
    pub(crate) fn wide(entries: &[u32]) -> Self {
        DirTable::Wide(entries.iter().map(|&d| AtomicU32::new(d)).collect())
    }

    /// A narrow table holding `entries` (wide encoding) with root limit `roots`, or `None`
    /// when an entry does not fit.
    pub(crate) fn narrow(entries: &[u32], roots: u32) -> Option<Self> {
        let mut e = Vec::with_capacity(entries.len() + 1);
        for &d in entries {
            e.push(AtomicU16::new(encode_narrow(d, roots)?));
        }
        e.push(AtomicU16::new(0));
        Some(DirTable::Narrow { e: e.into_boxed_slice().into(), roots })
    }

    /// A wide table read from `region` at byte range `bytes` (read-only: a mapped snapshot),
    /// or `None` when the range is not an aligned whole number of entries.
    pub(crate) fn wide_in_region(region: &Arc<Region>, bytes: Range<usize>) -> Option<Self> {
        Some(DirTable::Wide(Slab::in_region(region, bytes)?))
    }

    /// Number of entries (`2^s`).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        match self {
            DirTable::Wide(e) => e.len(),
            DirTable::Narrow { e, .. } => e.len() - 1,
        }
    }

    /// Entry `i` in the wide encoding, loaded with `order`.
    #[inline(always)]
    fn load(&self, i: usize, order: Ordering) -> u32 {
        match self {
            DirTable::Wide(e) => e[i].load(order),
            DirTable::Narrow { e, roots } => decode_narrow(e[i].load(order), *roots),
        }
    }

    /// Entry `i` as readers see it (Acquire).
    #[inline(always)]
    pub(crate) fn entry(&self, i: usize) -> u32 {
        self.load(i, Ordering::Acquire)
    }

    /// Entry `i` without a bounds check (Acquire).
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub(crate) unsafe fn entry_unchecked(&self, i: usize) -> u32 {
        debug_assert!(i < self.len());
        // SAFETY: in bounds by the caller's contract.
        unsafe {
            match self {
                DirTable::Wide(e) => e.get_unchecked(i).load(Ordering::Acquire),
                DirTable::Narrow { e, roots } => {
                    decode_narrow(e.get_unchecked(i).load(Ordering::Acquire), *roots)
                }
            }
        }
    }

    /// Entry `i` for the writer (which made every value it can see).
    pub(crate) fn entry_relaxed(&self, i: usize) -> u32 {
        self.load(i, Ordering::Relaxed)
    }

    /// Publishes entry `i` (wide encoding, which [`DirTable::fits`] accepted) with Release.
    pub(crate) fn publish(&self, i: usize, entry: u32) {
        match self {
            DirTable::Wide(e) => e[i].store(entry, Ordering::Release),
            DirTable::Narrow { e, roots } => {
                let v = encode_narrow(entry, *roots).expect("the writer checked the entry fits");
                e[i].store(v, Ordering::Release)
            }
        }
    }

    /// Publishes the leaf `entry` (wide encoding, which [`DirTable::fits`] accepted) with
    /// Release at every entry of `run` that does not hold it yet, handing each replaced node
    /// index to `unlinked`; the entries written. One pass for a short route's many entries.
    pub(crate) fn publish_leaf_run(
        &self,
        run: std::ops::Range<usize>,
        entry: u32,
        mut unlinked: impl FnMut(u32),
    ) -> u64 {
        debug_assert!(entry & DIRECT_LEAF != 0, "a leaf entry");
        let mut written = 0;
        match self {
            DirTable::Wide(e) => {
                for slot in &e[run] {
                    let old = slot.load(Ordering::Relaxed);
                    if old != entry {
                        if old & DIRECT_LEAF == 0 {
                            unlinked(old);
                        }
                        slot.store(entry, Ordering::Release);
                        written += 1;
                    }
                }
            }
            DirTable::Narrow { e, roots } => {
                let v = encode_narrow(entry, *roots).expect("the writer checked the entry fits");
                for slot in &e[run] {
                    let old = slot.load(Ordering::Relaxed);
                    if old != v {
                        if u32::from(old) < *roots {
                            unlinked(u32::from(old));
                        }
                        slot.store(v, Ordering::Release);
                        written += 1;
                    }
                }
            }
        }
        written
    }

    /// True when `entry` (wide encoding) can be stored.
    pub(crate) fn fits(&self, entry: u32) -> bool {
        match self {
            DirTable::Wide(_) => true,
            DirTable::Narrow { roots, .. } => encode_narrow(entry, *roots).is_some(),
        }
    }

    /// The largest raw next hop a leaf entry can hold.
    pub(crate) fn max_leaf_raw(&self) -> u32 {
        match self {
            DirTable::Wide(_) => DIRECT_LEAF - 1,
            DirTable::Narrow { roots, .. } => u16::MAX as u32 - roots,
        }
    }

    /// A copy (writer only).
    pub(crate) fn copy(&self) -> Self {
        let relaxed = Ordering::Relaxed;
        match self {
            DirTable::Wide(e) => {
                DirTable::Wide(e.iter().map(|x| AtomicU32::new(x.load(relaxed))).collect())
            }
            DirTable::Narrow { e, roots } => DirTable::Narrow {
                e: e.iter().map(|x| AtomicU16::new(x.load(relaxed))).collect(),
                roots: *roots,
            },
        }
    }

    /// A wide copy with the same entries (writer only).
    pub(crate) fn widened(&self) -> Self {
        DirTable::wide(&self.decoded())
    }

    /// Every entry in the wide encoding (writer only).
    fn decoded(&self) -> Vec<u32> {
        (0..self.len()).map(|i| self.entry_relaxed(i)).collect()
    }

    /// Bytes of the array.
    pub(crate) fn memory_bytes(&self) -> usize {
        match self {
            DirTable::Wide(e) => e.len() * 4,
            DirTable::Narrow { e, .. } => e.len() * 2,
        }
    }

    /// Entry width in bits.
    pub(crate) fn bits(&self) -> u32 {
        match self {
            DirTable::Wide(_) => 32,
            DirTable::Narrow { .. } => 16,
        }
    }

    /// Address of entry `i`, for prefetching.
    #[inline(always)]
    pub(crate) fn entry_ptr(&self, i: usize) -> *const u8 {
        match self {
            DirTable::Wide(e) => e.as_ptr().wrapping_add(i) as *const u8,
            DirTable::Narrow { e, .. } => e.as_ptr().wrapping_add(i) as *const u8,
        }
    }
}

/// The narrow form of a wide entry, if it has one.
#[inline(always)]
fn encode_narrow(d: u32, roots: u32) -> Option<u16> {
    let v =
        if d & DIRECT_LEAF != 0 { roots + (d & !DIRECT_LEAF) } else { (d < roots).then_some(d)? };
    u16::try_from(v).ok()
}

/// The wide form of a narrow entry.
#[inline(always)]
fn decode_narrow(e: u16, roots: u32) -> u32 {
    let e = e as u32;
    if e >= roots { DIRECT_LEAF | (e - roots) } else { e }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_round_trips_and_refuses_what_does_not_fit() {
        let entries = [DIRECT_LEAF, DIRECT_LEAF | 7, 0, 99, DIRECT_LEAF | (65535 - 100)];
        let t = DirTable::narrow(&entries, 100).expect("fits");
        assert_eq!((0..5).map(|i| t.entry(i)).collect::<Vec<_>>(), entries);
        assert_eq!(t.len(), 5);
        assert_eq!(t.max_leaf_raw(), 65435);
        assert!(t.fits(DIRECT_LEAF | 65435) && !t.fits(DIRECT_LEAF | 65436) && !t.fits(100));
        assert!(DirTable::narrow(&[100], 100).is_none(), "node index at the limit");
        assert!(DirTable::narrow(&[DIRECT_LEAF | 65436], 100).is_none(), "hop too large");
        t.publish(2, DIRECT_LEAF | 3);
        assert_eq!(t.entry(2), DIRECT_LEAF | 3);
        let w = t.widened();
        assert_eq!((w.bits(), w.len(), w.entry(2), w.entry(3)), (32, 5, DIRECT_LEAF | 3, 99));
        assert_eq!(t.copy().entry(4), entries[4]);
        assert_eq!(t.memory_bytes(), 12);
    }

    #[test]
    fn a_leaf_run_writes_what_differs_and_hands_back_the_nodes_it_replaces() {
        let entries = [DIRECT_LEAF | 5, 3, DIRECT_LEAF | 6, 7, DIRECT_LEAF | 5];
        for t in [DirTable::narrow(&entries, 100).expect("fits"), DirTable::wide(&entries)] {
            let mut unlinked = Vec::new();
            let written = t.publish_leaf_run(0..4, DIRECT_LEAF | 5, |n| unlinked.push(n));
            assert_eq!((written, unlinked.as_slice()), (3, &[3, 7][..]), "{} bits", t.bits());
            let now: Vec<u32> = (0..5).map(|i| t.entry(i)).collect();
            assert_eq!(now, [DIRECT_LEAF | 5; 5], "{} bits", t.bits());
        }
    }
}
