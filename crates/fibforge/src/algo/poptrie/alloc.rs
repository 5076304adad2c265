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

impl BlockAlloc {
    /// Every slot not handed out (free lists and the untouched top), as blocks.
    fn into_free_blocks(self) -> impl Iterator<Item = (u32, u32)> {
        let lists = self.free.into_iter().enumerate();
        let listed = lists.flat_map(|(n, starts)| starts.into_iter().map(move |s| (s, n as u32)));
        let top = (self.top..self.cap)
            .step_by(MAX_BLOCK as usize)
            .map(move |s| (s, MAX_BLOCK.min(self.cap - s)));
        listed.chain(top)
    }
}

/// The node arena's allocators. With a narrow direct-pointing table (`dir.rs`) the nodes that
/// `dir` entries name (*roots*) must lie below its root limit `r`: single-slot roots come from
/// `[0, r)`, every other block from above. With a wide table everything comes from `main`.
#[derive(Clone, Debug)]
pub(crate) struct NodeAlloc {
    main: BlockAlloc,
    /// Roots in `[0, r)` (`r` = its capacity) while the table is narrow.
    roots: Option<BlockAlloc>,
}

impl NodeAlloc {
    /// `main` over the whole arena (its first slots taken, including `[0, r)` if `roots`).
    pub(crate) fn new(main: BlockAlloc, roots: Option<BlockAlloc>) -> Self {
        NodeAlloc { main, roots }
    }

    /// A block of `len` slots for children.
    pub(crate) fn alloc(&mut self, len: u32) -> Option<u32> {
        self.main.alloc(len)
    }

    /// A slot for a root: below the root limit while there is one (`None`: none left there,
    /// or the arena is full).
    pub(crate) fn alloc_root(&mut self) -> Option<u32> {
        match &mut self.roots {
            Some(r) => r.alloc(1),
            None => self.main.alloc(1),
        }
    }

    /// True while roots must lie below a root limit.
    pub(crate) fn has_root_limit(&self) -> bool {
        self.roots.is_some()
    }

    /// Returns a block to the allocator it came from.
    pub(crate) fn free(&mut self, start: u32, len: u32) {
        match &mut self.roots {
            Some(r) if start < r.capacity() => r.free(start, len),
            _ => self.main.free(start, len),
        }
    }

    /// Drops the root limit (the table became wide): the unused slots of `[0, r)` join the
    /// main free lists.
    pub(crate) fn release_root_region(&mut self) {
        if let Some(r) = self.roots.take() {
            r.into_free_blocks().for_each(|(start, len)| self.main.free(start, len));
        }
    }

    /// Slots handed out and not freed.
    pub(crate) fn live(&self) -> u64 {
        match &self.roots {
            Some(r) => self.main.live() - r.capacity() as u64 + r.live(),
            None => self.main.live(),
        }
    }

    /// Slots in free lists.
    pub(crate) fn free_slots(&self) -> u64 {
        self.main.free_slots() + self.roots.as_ref().map_or(0, BlockAlloc::free_slots)
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.main.capacity()
    }

    /// The arena now has `cap` slots.
    pub(crate) fn set_capacity(&mut self, cap: u32) {
        self.main.set_capacity(cap);
    }

    /// Heap bytes of the free lists.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.main.memory_bytes() + self.roots.as_ref().map_or(0, BlockAlloc::memory_bytes)
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

    #[test]
    fn roots_stay_below_the_limit_until_released() {
        // Roots 0..3 of a limit of 4; other blocks 4..10.
        let mut a = NodeAlloc::new(BlockAlloc::new(10, 20), Some(BlockAlloc::new(3, 4)));
        assert_eq!(a.live(), 9);
        assert_eq!(a.alloc_root(), Some(3));
        assert_eq!(a.alloc_root(), None, "the root region is full");
        assert_eq!(a.alloc(2), Some(10));
        a.free(1, 1);
        assert_eq!(a.alloc_root(), Some(1), "a freed root slot is a root slot again");
        a.free(2, 1);
        assert_eq!((a.live(), a.free_slots()), (11, 1));
        a.release_root_region();
        assert!(!a.has_root_limit());
        assert_eq!((a.live(), a.free_slots()), (11, 1));
        assert_eq!(a.alloc_root(), Some(2), "from the main free lists now");
    }
}
