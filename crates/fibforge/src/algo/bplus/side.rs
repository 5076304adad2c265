//! Side tables: exact full-address ranges for the intervals whose answer is not one next
//! hop. IPv6 blocks holding routes longer than /64 get one at build time; updates that move
//! interval boundaries get one for the intervals they touch until the next rebuild.
//!
//! A side is immutable once published. Readers reach it through a slot of `Sides` named by
//! a tagged interval word; a replaced side stays readable until its grace period has passed
//! (the writer retires it with a `sync::Grace` ticket).

use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::rib::Range;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Sorted ranges of full addresses and their answers.
pub(super) struct Side<A: Address> {
    starts: Box<[A]>,
    hops: Box<[Option<NextHop>]>,
}

impl<A: Address> Side<A> {
    /// The side of `ranges` (ascending, non-empty).
    pub(super) fn new(ranges: &[Range<A>]) -> Side<A> {
        assert!(!ranges.is_empty(), "a side table answers at least one range");
        Side {
            starts: ranges.iter().map(|r| r.start).collect(),
            hops: ranges.iter().map(|r| r.hop).collect(),
        }
    }

    /// The answer for `addr`, which is at or after the first range's start.
    #[inline]
    pub(super) fn lookup(&self, addr: A) -> Option<NextHop> {
        let after = self.starts.partition_point(|&s| s <= addr);
        self.hops[after.max(1) - 1]
    }

    /// Bytes of the side and its arrays.
    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(&*self.starts)
            + std::mem::size_of_val(&*self.hops)
    }
}

/// The slots readers find sides in. A slot holds a pointer from `Box::into_raw` or null;
/// `Sides` owns every non-null one.
pub(super) struct Sides<A: Address> {
    slots: Box<[AtomicPtr<Side<A>>]>,
}

impl<A: Address> Sides<A> {
    /// `capacity` empty slots.
    pub(super) fn new(capacity: usize) -> Self {
        Sides { slots: (0..capacity).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect() }
    }

    /// Number of slots.
    pub(super) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// True when `slot` holds a side.
    pub(super) fn is_used(&self, slot: usize) -> bool {
        !self.slots[slot].load(Ordering::Acquire).is_null()
    }

    /// Publishes `side` in the empty slot `slot`.
    pub(super) fn publish(&self, slot: usize, side: Side<A>) {
        let new = Box::into_raw(Box::new(side));
        let old = self.slots[slot].swap(new, Ordering::AcqRel);
        assert!(old.is_null(), "side slot {slot} is in use");
    }

    /// The side in `slot`, published before the tag that led the caller here.
    #[inline]
    pub(super) fn get(&self, slot: usize) -> &Side<A> {
        let p = self.slots[slot].load(Ordering::Acquire);
        assert!(!p.is_null(), "side slot {slot} is empty");
        // SAFETY: a non-null slot holds a live `Box<Side>` owned by `self`; it is freed only
        // by `free` (after every reader that could hold its tag is gone) or by `drop`
        // (`&mut self`), and the borrow is tied to `&self`.
        unsafe { &*p }
    }

    /// Empties `slot` and frees its side.
    ///
    /// # Safety
    /// No reader can still reach the side: no interval word names `slot`, and every lookup
    /// that could have read such a word has finished.
    pub(super) unsafe fn free(&self, slot: usize) {
        let p = self.slots[slot].swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: `p` came from `Box::into_raw` in `publish`; the caller guarantees no
            // reader holds it, and the swap made this the only owner.
            drop(unsafe { Box::from_raw(p) });
        }
    }

    /// Bytes of the slots and the sides in them.
    pub(super) fn memory_bytes(&self) -> usize {
        let sides: usize = (0..self.slots.len())
            .filter(|&s| !self.slots[s].load(Ordering::Acquire).is_null())
            .map(|s| self.get(s).memory_bytes())
            .sum();
        std::mem::size_of_val(&*self.slots) + sides
    }
}

impl<A: Address> Drop for Sides<A> {
    fn drop(&mut self) {
        for slot in 0..self.slots.len() {
            // SAFETY: `&mut self`: no reader is left.
            unsafe { self.free(slot) };
        }
    }
}
