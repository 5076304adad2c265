//! Block allocation inside one contiguous arena (nodes or leaves).
//!
//! The paper keeps the node and leaf arrays contiguous with a buddy allocator (§3, §3.5) so
//! that updates do not scatter the structure over memory. Blocks here are the children or the
//! leaves of one node, 1 to 64 slots. This allocator keeps them contiguous too, with
//! *segregated exact-size free lists*: a freed block of `n` slots goes to list `n`; an
//! allocation of `n` slots takes from list `n`, else bumps the top of the arena, else splits
//! the smallest larger free block. Unlike a buddy allocator it does not round sizes up to
//! powers of two, so a freshly compiled structure is packed with no gaps (the memory figures
//! of a compile are exact) and update-time allocations are O(1) (a `Vec` pop).
//!
//! It does not coalesce neighbouring free blocks; the owner watches [`BlockAlloc::free_slots`]
//! and recompiles (compacts) when free space exceeds a share of the arena (see `update.rs`).
//! When nothing fits, `alloc` returns `None` and the owner grows the arena by copying it.

/// Largest block: a node has 64 slots.
pub(crate) const MAX_BLOCK: u32 = 64;

#[derive(Clone, Debug)]
pub(crate) struct BlockAlloc {
    /// First slot never handed out.
    top: u32,
    /// Arena capacity in slots.
    cap: u32,
    /// `free[n]`: starts of free blocks of exactly `n` slots.
    free: Vec<Vec<u32>>,
    free_slots: u64,
}

impl BlockAlloc {
    /// An allocator whose first `used` slots are taken, in an arena of `cap` slots.
    pub(crate) fn new(used: u32, cap: u32) -> Self {
        debug_assert!(used <= cap);
        BlockAlloc { top: used, cap, free: vec![Vec::new(); MAX_BLOCK as usize + 1], free_slots: 0 }
    }

    /// A block of `len` slots (`1..=MAX_BLOCK`), or `None` when the arena is full.
    pub(crate) fn alloc(&mut self, len: u32) -> Option<u32> {
        debug_assert!((1..=MAX_BLOCK).contains(&len));
        if let Some(start) = self.free[len as usize].pop() {
            self.free_slots -= len as u64;
            return Some(start);
        }
        if self.cap - self.top >= len {
            self.top += len;
            return Some(self.top - len);
        }
        let bigger = (len + 1..=MAX_BLOCK).find(|&n| !self.free[n as usize].is_empty())?;
        let start = self.free[bigger as usize].pop().expect("non-empty list");
        self.free[(bigger - len) as usize].push(start + len);
        self.free_slots -= len as u64;
        Some(start)
    }

    /// Returns a block to the allocator.
    pub(crate) fn free(&mut self, start: u32, len: u32) {
        debug_assert!((1..=MAX_BLOCK).contains(&len) && start + len <= self.top);
        self.free[len as usize].push(start);
        self.free_slots += len as u64;
    }

    /// Slots handed out and not freed.
    pub(crate) fn live(&self) -> u64 {
        self.top as u64 - self.free_slots
    }

    /// Slots in free lists (not counting the untouched space above the top).
    pub(crate) fn free_slots(&self) -> u64 {
        self.free_slots
    }

    /// The arena now has `cap` slots.
    pub(crate) fn set_capacity(&mut self, cap: u32) {
        debug_assert!(cap >= self.top);
        self.cap = cap;
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.cap
    }

    /// Heap bytes of the free lists.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.free.iter().map(|v| v.capacity() * 4).sum::<usize>() + self.free.capacity() * 24
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_reuse_bump_and_split() {
        let mut a = BlockAlloc::new(10, 100);
        assert_eq!(a.alloc(5), Some(10));
        assert_eq!(a.alloc(64), Some(15));
        a.free(10, 5);
        assert_eq!(a.free_slots(), 5);
        assert_eq!(a.alloc(5), Some(10));
        assert_eq!(a.alloc(22), None, "21 slots left at the top, no free block");
        a.free(15, 64);
        // No list of 22, no room at the top: split the 64.
        assert_eq!(a.alloc(22), Some(15));
        assert_eq!(a.alloc(42), Some(37));
        assert_eq!(a.live(), 10 + 5 + 64);
        assert_eq!(a.alloc(22), None);
        a.set_capacity(200);
        assert_eq!(a.alloc(22), Some(79));
    }
}
