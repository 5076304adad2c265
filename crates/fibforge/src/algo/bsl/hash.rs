//! Hash tables whose probe reads exactly one 64-byte bucket: the "semi-perfect hashing" of
//! Srinivasan & Varghese §6.3 (a hash function with at most 6 collisions per line), in a
//! form that is guaranteed to succeed at a useful load.
//!
//! # Layout
//!
//! A bucket is one cache line (`#[repr(C, align(64))]`) of `SLOTS` keys followed by `SLOTS`
//! `u32` values: 8 slots for 32-bit keys, 5 for 64-bit keys, 3 for 128-bit keys. A value of
//! 0 marks an empty slot (the callers never store 0).
//!
//! Buckets are grouped by [`GROUP`]: the key's hash picks a group, and the group's one-byte
//! seed (`seeds`, one byte per 16 buckets: 8 KiB for 2^17 buckets, so it stays in cache)
//! picks the bucket inside it. The build tries seeds per group until no bucket of the group
//! overflows, and doubles the bucket count if some group finds none. A global seed as in the
//! paper only works at very low loads for large tables (the chance that no bucket of 2^17
//! overflows vanishes); per-group seeds keep the load at 50% and the probe at one line.

use std::collections::HashMap;

/// Buckets per group (one seed byte each).
pub(super) const GROUP: usize = 16;

/// Target fraction of slots in use.
const LOAD: f64 = 0.5;

/// A key type and its one-line bucket.
pub(super) trait Bucket: Copy + Default + Send + Sync + 'static {
    /// The key.
    type Key: Copy + Eq + std::hash::Hash + Default + Send + Sync;
    /// Slots per line.
    const SLOTS: usize;
    /// 64 well-mixed bits of `key`.
    fn hash(key: Self::Key) -> u64;
    /// The value of `key` in this bucket, 0 when absent.
    fn find(&self, key: Self::Key) -> u32;
    /// Stores `key → val` in the first empty slot; false when full.
    fn put(&mut self, key: Self::Key, val: u32) -> bool;
}

/// 64-bit finaliser (SplitMix64): a bijection, so distinct keys stay distinct.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

macro_rules! bucket {
    ($name:ident, $key:ty, $slots:expr, $fold:expr) => {
        /// One cache line of keys and values.
        #[derive(Clone, Copy, Default, Debug)]
        #[repr(C, align(64))]
        pub(super) struct $name {
            keys: [$key; $slots],
            vals: [u32; $slots],
        }

        impl Bucket for $name {
            type Key = $key;
            const SLOTS: usize = $slots;
            #[inline(always)]
            fn hash(key: $key) -> u64 {
                mix($fold(key))
            }
            #[inline(always)]
            fn find(&self, key: $key) -> u32 {
                let mut v = 0;
                for i in 0..$slots {
                    if self.keys[i] == key {
                        v |= self.vals[i];
                    }
                }
                v
            }
            fn put(&mut self, key: $key, val: u32) -> bool {
                let Some(i) = self.vals.iter().position(|&v| v == 0) else { return false };
                (self.keys[i], self.vals[i]) = (key, val);
                true
            }
        }
    };
}

bucket!(Bucket32, u32, 8, |k: u32| k as u64);
bucket!(Bucket64, u64, 5, |k: u64| k);
bucket!(Bucket128, u128, 3, |k: u128| (k as u64) ^ mix((k >> 64) as u64));

/// A static hash table of one-line buckets; see the module doc.
#[derive(Clone, Debug)]
pub(super) struct OneLineTable<B: Bucket> {
    buckets: Vec<B>,
    seeds: Vec<u8>,
    /// log2 of the number of groups.
    group_bits: u32,
}

impl<B: Bucket> OneLineTable<B> {
    /// Builds a table of `entries` (distinct keys, nonzero values).
    pub(super) fn build(entries: &HashMap<B::Key, u32>) -> Self {
        let slots = (entries.len() as f64 / LOAD).ceil() as usize;
        let groups = slots.div_ceil(B::SLOTS * GROUP).max(1).next_power_of_two();
        let mut group_bits = groups.trailing_zeros();
        loop {
            if let Some(t) = Self::try_build(entries, group_bits) {
                return t;
            }
            group_bits += 1;
        }
    }

    fn try_build(entries: &HashMap<B::Key, u32>, group_bits: u32) -> Option<Self> {
        let groups = 1usize << group_bits;
        let mut members: Vec<Vec<(B::Key, u32, u64)>> = vec![Vec::new(); groups];
        for (&k, &v) in entries {
            let h = B::hash(k);
            members[Self::group(h, group_bits)].push((k, v, h));
        }
        let mut t = OneLineTable {
            buckets: vec![B::default(); groups * GROUP],
            seeds: vec![0; groups],
            group_bits,
        };
        for (g, keys) in members.iter().enumerate() {
            t.seeds[g] = (0..=255u8).find(|&s| t.place(g, s, keys))?;
        }
        Some(t)
    }

    /// Places the keys of group `g` with seed `s`; false (buckets cleared) on overflow.
    fn place(&mut self, g: usize, s: u8, keys: &[(B::Key, u32, u64)]) -> bool {
        let base = g * GROUP;
        for &(k, v, h) in keys {
            if !self.buckets[base + Self::slot(h, s)].put(k, v) {
                self.buckets[base..base + GROUP].fill(B::default());
                return false;
            }
        }
        true
    }

    #[inline(always)]
    fn group(h: u64, group_bits: u32) -> usize {
        if group_bits == 0 { 0 } else { (h >> (64 - group_bits)) as usize }
    }

    #[inline(always)]
    fn slot(h: u64, seed: u8) -> usize {
        let x = (h ^ (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xD6E8_FEB8_6659_FD93);
        (x >> 60) as usize & (GROUP - 1)
    }

    /// The bucket index `key` lives in.
    #[inline(always)]
    pub(super) fn bucket_of(&self, key: B::Key) -> usize {
        let h = B::hash(key);
        let g = Self::group(h, self.group_bits);
        g * GROUP + Self::slot(h, self.seeds[g])
    }

    /// Hints the cache that bucket `b` is read next.
    #[inline(always)]
    pub(super) fn prefetch(&self, b: usize) {
        crate::algo::prefetch::read(&self.buckets, b);
    }

    /// The value of `key` in bucket `b` (0 when absent).
    #[inline(always)]
    pub(super) fn find_in(&self, b: usize, key: B::Key) -> u32 {
        self.buckets[b].find(key)
    }

    /// The value of `key` (0 when absent).
    #[inline(always)]
    pub(super) fn find(&self, key: B::Key) -> u32 {
        self.find_in(self.bucket_of(key), key)
    }

    /// Bytes of buckets and seeds.
    pub(super) fn memory_bytes(&self) -> usize {
        self.buckets.capacity() * size_of::<B>() + self.seeds.capacity()
    }

    /// Number of buckets.
    pub(super) fn buckets(&self) -> usize {
        self.buckets.len()
    }
}
