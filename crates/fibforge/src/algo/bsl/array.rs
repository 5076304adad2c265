//! The full-array first level of Srinivasan & Varghese §6.3 ("the first 16-17 bit table is
//! implemented as a full array, while the others are hash tables"): one `u32` per value of
//! the first `len` address bits, so its probe is one indexed read with no key compare.
//!
//! # Invariants
//!
//! `vals[k]` is exactly the value the hash table of the same entries would return for key
//! `k` (0: no entry), so swapping the table for the array changes no answer. `len` is at
//! most [`super::MAX_ARRAY_BITS`], which bounds the array at 4 MiB.

use std::collections::HashMap;

/// A direct-indexed table of `2^len` values.
#[derive(Clone, Debug)]
pub(super) struct ArrayTable {
    vals: Vec<u32>,
}

impl ArrayTable {
    /// Builds the array of `2^len` slots from `entries` (keys below `2^len`, nonzero values).
    pub(super) fn build(len: u32, entries: &HashMap<u64, u32>) -> Self {
        debug_assert!(len <= super::MAX_ARRAY_BITS);
        let mut vals = vec![0u32; 1usize << len];
        for (&k, &v) in entries {
            vals[k as usize] = v;
        }
        ArrayTable { vals }
    }

    /// The slot of `key` (the key itself).
    #[inline(always)]
    pub(super) fn bucket_of(&self, key: u64) -> usize {
        key as usize
    }

    /// Hints the cache that slot `b` is read next.
    #[inline(always)]
    pub(super) fn prefetch(&self, b: usize) {
        crate::algo::prefetch::read(&self.vals, b);
    }

    /// The value in slot `b` (0 when absent); the key is the slot, so it is not compared.
    #[inline(always)]
    pub(super) fn find_in(&self, b: usize, _key: u64) -> u32 {
        self.vals[b]
    }

    /// The value of `key` (0 when absent).
    #[inline(always)]
    pub(super) fn find(&self, key: u64) -> u32 {
        self.vals[key as usize]
    }

    /// Bytes of the array.
    pub(super) fn memory_bytes(&self) -> usize {
        self.vals.capacity() * size_of::<u32>()
    }

    /// Number of slots.
    pub(super) fn buckets(&self) -> usize {
        self.vals.len()
    }
}
