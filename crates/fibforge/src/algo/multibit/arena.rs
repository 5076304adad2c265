//! Node storage: one array of 64-byte-aligned cache lines, seen as entries of `u32` or `u64`.
//!
//! Nodes are power-of-two runs of entries. A node of at least a line sits on whole lines; a
//! smaller one sits inside one line, aligned to its own size, so no node ever straddles two
//! lines and a packed node (exactly one line) costs exactly one cache miss. Freed nodes go to
//! a free list per size and are reused first. Line 0 is reserved so that no node has offset
//! 0 (the non-leaf-pushed trie uses pointer 0 for "no child").

use crate::fib::BuildError;
use std::marker::PhantomData;

/// One cache line.
#[derive(Copy, Clone, Default)]
#[repr(C, align(64))]
struct Line([u64; 8]);

const LINE_BYTES: usize = 64;

/// An entry type: `u32` or `u64`.
pub(crate) trait Entry: Copy + Default + 'static {}
impl Entry for u32 {}
impl Entry for u64 {}

/// Power-of-two node storage on aligned lines; see the module doc.
#[derive(Clone)]
pub(crate) struct Arena<T: Entry> {
    lines: Vec<Line>,
    /// Free nodes by log2 of their entry count.
    free: Vec<Vec<u32>>,
    /// For sizes below a line: (next free offset, end of its line) of the line being filled.
    partial: Vec<Option<(u32, u32)>>,
    /// Entries held by live nodes.
    used: u64,
    /// Largest offset a node may have (the pointer encoding's limit).
    max_entries: u64,
    _t: PhantomData<T>,
}

impl<T: Entry> Arena<T> {
    const PER_LINE: u32 = (LINE_BYTES / size_of::<T>()) as u32;

    /// An arena whose offsets stay below `max_entries`.
    pub(crate) fn new(max_entries: u64) -> Self {
        Arena {
            lines: vec![Line::default()],
            free: vec![Vec::new(); 32],
            partial: vec![None; 8],
            used: 0,
            max_entries,
            _t: PhantomData,
        }
    }

    /// All entries.
    #[inline]
    pub(crate) fn entries(&self) -> &[T] {
        let len = self.lines.len() * Self::PER_LINE as usize;
        // SAFETY: `Line` is 64 bytes of plain integers with alignment 64, a multiple of the
        // size and alignment of `T` (u32 or u64, for which every bit pattern is valid); the
        // vector holds `lines.len()` initialised lines, i.e. exactly `len` values of `T`.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<T>(), len) }
    }

    /// All entries, mutably.
    #[inline]
    pub(crate) fn entries_mut(&mut self) -> &mut [T] {
        let len = self.lines.len() * Self::PER_LINE as usize;
        // SAFETY: as in `entries`; the exclusive borrow of `self` makes the view unique.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<T>(), len) }
    }

    /// The node at `offset` with `2^log2` entries.
    #[inline]
    pub(crate) fn node_mut(&mut self, offset: u32, log2: u32) -> &mut [T] {
        let o = offset as usize;
        &mut self.entries_mut()[o..o + (1 << log2)]
    }

    /// Allocates a zeroed node of `2^log2` entries and returns its offset.
    pub(crate) fn alloc(&mut self, log2: u32) -> Result<u32, BuildError> {
        let offset = match self.free[log2 as usize].pop() {
            Some(o) => o,
            None if (1u32 << log2) >= Self::PER_LINE => self.append_lines(1 << log2)?,
            None => self.alloc_in_line(log2)?,
        };
        self.node_mut(offset, log2).fill(T::default());
        self.used += 1 << log2;
        Ok(offset)
    }

    /// Returns a node to its free list.
    pub(crate) fn free(&mut self, offset: u32, log2: u32) {
        self.free[log2 as usize].push(offset);
        self.used -= 1 << log2;
    }

    fn append_lines(&mut self, entries: u32) -> Result<u32, BuildError> {
        let offset = self.lines.len() as u64 * Self::PER_LINE as u64;
        if offset + entries as u64 > self.max_entries {
            return Err(BuildError::LimitExceeded {
                algo: "multibit",
                what: "trie entries",
                limit: self.max_entries,
                found: offset + entries as u64,
            });
        }
        let lines = (entries / Self::PER_LINE) as usize;
        self.lines.resize(self.lines.len() + lines, Line::default());
        Ok(offset as u32)
    }

    fn alloc_in_line(&mut self, log2: u32) -> Result<u32, BuildError> {
        let size = 1u32 << log2;
        let slot = match self.partial[log2 as usize] {
            Some((next, end)) if next < end => next,
            _ => {
                let start = self.append_lines(Self::PER_LINE)?;
                self.partial[log2 as usize] = Some((start, start + Self::PER_LINE));
                start
            }
        };
        let end = self.partial[log2 as usize].map_or(slot, |(_, e)| e);
        self.partial[log2 as usize] = Some((slot + size, end));
        Ok(slot)
    }

    /// Entries held by live nodes (what the dynamic program predicts, times the entry size).
    pub(crate) fn used_entries(&self) -> u64 {
        self.used
    }

    /// Bytes of the line array (capacity) and the free lists.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.lines.capacity() * LINE_BYTES
            + self.free.iter().map(|f| f.capacity() * 4).sum::<usize>()
            + self.partial.capacity() * 12
    }

    /// Releases spare capacity (after a build).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.lines.shrink_to_fit();
    }

    /// Sets the spare capacity to a quarter of the lines in use plus `min_entries`, so that
    /// updates allocate nodes without moving the whole array (a growth past the spare copies
    /// every line once: O(size), amortised O(1)).
    pub(crate) fn keep_spare(&mut self, min_entries: u64) {
        let extra = self.lines.len() / 4 + min_entries.div_ceil(Self::PER_LINE as u64) as usize;
        let target = self.lines.len() + extra;
        if self.lines.capacity() > target {
            self.lines.shrink_to(target);
        } else {
            self.lines.reserve_exact(extra);
        }
    }

    /// Lines the array holds without moving.
    #[cfg(test)]
    pub(crate) fn capacity_lines(&self) -> usize {
        self.lines.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_never_straddle_lines_and_are_reused() {
        let mut a: Arena<u32> = Arena::new(1 << 26);
        let small: Vec<u32> = (0..10).map(|_| a.alloc(2).unwrap()).collect();
        for &o in &small {
            assert_eq!(o % 4, 0);
            assert_eq!(o / 16, (o + 3) / 16, "4-entry node at {o} straddles a line");
            assert!(o >= 16, "line 0 is reserved");
        }
        let big = a.alloc(6).unwrap();
        assert_eq!(big % 16, 0);
        assert_eq!(a.used_entries(), 10 * 4 + 64);
        a.node_mut(big, 6)[5] = 7;
        a.free(big, 6);
        assert_eq!(a.alloc(6).unwrap(), big);
        assert_eq!(a.node_mut(big, 6)[5], 0, "reused nodes are zeroed");
        let mut tiny: Arena<u64> = Arena::new(40);
        assert!(tiny.alloc(5).is_ok());
        assert!(matches!(tiny.alloc(5), Err(BuildError::LimitExceeded { .. })));
    }

    #[test]
    fn spare_capacity_is_kept_after_a_build() {
        let mut a: Arena<u64> = Arena::new(1 << 27);
        for _ in 0..100 {
            a.alloc(6).unwrap();
        }
        a.keep_spare(1 << 10);
        // The reserved line and 100 nodes of 8 lines: 801 lines; spare 801 / 4 + 1024 / 8.
        assert!(a.capacity_lines() >= 801 + 200 + 128);
        let before = a.entries().as_ptr();
        for _ in 0..40 {
            a.alloc(6).unwrap();
        }
        assert_eq!(a.entries().as_ptr(), before, "allocations within the spare moved the array");
    }
}
