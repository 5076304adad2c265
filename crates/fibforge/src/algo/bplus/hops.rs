//! The answer of each interval: a raw next hop (`NextHop::raw`, 0 for no route) or a tag
//! naming a side table, in 16-bit words when the table allows and 32-bit words otherwise.
//!
//! Words are atomics so that the writer can change an answer in place while readers look
//! up (a relaxed load is a plain load on the targets we run on).

use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// One array of interval answers.
pub(super) trait HopSlots: Send + Sync {
    /// The bit marking a side-table tag; the bits below it are the side's slot.
    const TAG: u32;
    /// The word at `i`.
    fn get(&self, i: usize) -> u32;
    /// Writes the word at `i` (published to readers with release ordering).
    fn set(&self, i: usize, word: u32);
    /// Hints that the word at `i` will be read soon.
    fn prefetch(&self, i: usize);
}

macro_rules! hop_slots {
    ($atomic:ty, $word:ty, $tag:expr) => {
        impl HopSlots for [$atomic] {
            const TAG: u32 = $tag;
            #[inline(always)]
            fn get(&self, i: usize) -> u32 {
                self[i].load(Ordering::Acquire) as u32
            }
            fn set(&self, i: usize, word: u32) {
                debug_assert!(word <= <$word>::MAX as u32);
                self[i].store(word as $word, Ordering::Release)
            }
            #[inline(always)]
            fn prefetch(&self, i: usize) {
                crate::algo::prefetch::read(self, i)
            }
        }
    };
}
hop_slots!(AtomicU16, u16, 1 << 15);
hop_slots!(AtomicU32, u32, 1 << 31);

/// The answers of every interval, as narrow as the table allows.
pub(super) enum Hops {
    /// 16-bit words: raw next hops and side slots below 2^15.
    Narrow(Box<[AtomicU16]>),
    /// 32-bit words: raw next hops and side slots below 2^31.
    Wide(Box<[AtomicU32]>),
}

impl Hops {
    /// The tag bit of the narrowest width holding values up to `largest`.
    pub(super) fn tag_for(largest: u32) -> u32 {
        if largest < <[AtomicU16] as HopSlots>::TAG {
            <[AtomicU16] as HopSlots>::TAG
        } else {
            <[AtomicU32] as HopSlots>::TAG
        }
    }

    /// The array of `words`, in the width `tag_for(largest)` gives.
    pub(super) fn new(words: &[u32], largest: u32) -> Hops {
        if Self::tag_for(largest) == <[AtomicU16] as HopSlots>::TAG {
            Hops::Narrow(words.iter().map(|&w| AtomicU16::new(w as u16)).collect())
        } else {
            Hops::Wide(words.iter().map(|&w| AtomicU32::new(w)).collect())
        }
    }

    /// The tag bit of this width.
    pub(super) fn tag(&self) -> u32 {
        match self {
            Hops::Narrow(_) => <[AtomicU16] as HopSlots>::TAG,
            Hops::Wide(_) => <[AtomicU32] as HopSlots>::TAG,
        }
    }

    /// The word at `i`.
    pub(super) fn get(&self, i: usize) -> u32 {
        match self {
            Hops::Narrow(h) => HopSlots::get(&**h, i),
            Hops::Wide(h) => HopSlots::get(&**h, i),
        }
    }

    /// Writes the word at `i` (which must fit the width: below `2 * tag()`).
    pub(super) fn set(&self, i: usize, word: u32) {
        match self {
            Hops::Narrow(h) => HopSlots::set(&**h, i, word),
            Hops::Wide(h) => HopSlots::set(&**h, i, word),
        }
    }

    /// Bytes of the array.
    pub(super) fn memory_bytes(&self) -> usize {
        match self {
            Hops::Narrow(h) => std::mem::size_of_val(&**h),
            Hops::Wide(h) => std::mem::size_of_val(&**h),
        }
    }

    /// Bits per word.
    pub(super) fn width(&self) -> u32 {
        match self {
            Hops::Narrow(_) => 16,
            Hops::Wide(_) => 32,
        }
    }
}
