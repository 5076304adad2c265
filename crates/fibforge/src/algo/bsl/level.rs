//! One searched length: its hash table, keyed by the first `len` address bits in the
//! narrowest key type that holds them (32, 64 or 128 bits; narrower keys fit more slots in
//! a bucket line), or for the first length with `first=array` a full array indexed by them.

use super::array::ArrayTable;
use super::hash::{Bucket32, Bucket64, Bucket128, OneLineTable};
use crate::addr::Address;
use std::collections::HashMap;

/// A hash table of one of the three key widths, or a full array.
#[derive(Clone, Debug)]
pub(super) enum LevelTable {
    Array(ArrayTable),
    K32(OneLineTable<Bucket32>),
    K64(OneLineTable<Bucket64>),
    K128(OneLineTable<Bucket128>),
}

/// Calls `$body` with `$t` bound to the table of any key width and `$key` to `$addr`'s key.
macro_rules! with_key {
    ($level:expr, $addr:expr, |$t:ident, $key:ident| $body:expr) => {{
        let len = $level.len;
        match &$level.table {
            LevelTable::Array($t) => {
                let $key = $addr.bits(0, len);
                $body
            }
            LevelTable::K32($t) => {
                let $key = $addr.bits(0, len) as u32;
                $body
            }
            LevelTable::K64($t) => {
                let $key = $addr.bits(0, len);
                $body
            }
            LevelTable::K128($t) => {
                let $key = $addr.truncate(len).to_u128();
                $body
            }
        }
    }};
}

/// One searched length.
#[derive(Clone, Debug)]
pub(super) struct Level<A: Address> {
    pub len: u32,
    pub entries: usize,
    pub markers: usize,
    pub table: LevelTable,
    _addr: std::marker::PhantomData<A>,
}

impl<A: Address> Level<A> {
    /// Builds the table of length `len` (1..=BITS) from entries keyed by the prefix address:
    /// a full array when `array` (the caller checks `len <= MAX_ARRAY_BITS`), else hashed.
    pub(super) fn build(len: u32, entries: &HashMap<A, u32>, array: bool) -> Self {
        let markers = entries.values().filter(|&&v| v & super::MARKER != 0).count();
        let table = if array {
            let m = entries.iter().map(|(&a, &v)| (a.bits(0, len), v)).collect();
            LevelTable::Array(ArrayTable::build(len, &m))
        } else if len <= 32 {
            let m = entries.iter().map(|(&a, &v)| (a.bits(0, len) as u32, v)).collect();
            LevelTable::K32(OneLineTable::build(&m))
        } else if len <= 64 {
            let m = entries.iter().map(|(&a, &v)| (a.bits(0, len), v)).collect();
            LevelTable::K64(OneLineTable::build(&m))
        } else {
            let m = entries.iter().map(|(&a, &v)| (a.to_u128(), v)).collect();
            LevelTable::K128(OneLineTable::build(&m))
        };
        let entries = entries.len();
        Level { len, entries, markers, table, _addr: std::marker::PhantomData }
    }

    /// Whether this length is a full array.
    pub(super) fn is_array(&self) -> bool {
        matches!(self.table, LevelTable::Array(_))
    }

    /// The value stored for `addr`'s first `len` bits (0: none).
    #[inline(always)]
    pub(super) fn find(&self, addr: A) -> u32 {
        with_key!(self, addr, |t, key| t.find(key))
    }

    /// The bucket holding `addr`'s first `len` bits.
    #[inline(always)]
    pub(super) fn bucket_of(&self, addr: A) -> usize {
        with_key!(self, addr, |t, key| t.bucket_of(key))
    }

    /// [`Self::find`] in a bucket already located with [`Self::bucket_of`].
    #[inline(always)]
    pub(super) fn find_in(&self, b: usize, addr: A) -> u32 {
        with_key!(self, addr, |t, key| t.find_in(b, key))
    }
}

impl LevelTable {
    /// Hints the cache that bucket `b` is read next.
    #[inline(always)]
    pub(super) fn prefetch(&self, b: usize) {
        match self {
            LevelTable::Array(t) => t.prefetch(b),
            LevelTable::K32(t) => t.prefetch(b),
            LevelTable::K64(t) => t.prefetch(b),
            LevelTable::K128(t) => t.prefetch(b),
        }
    }

    pub(super) fn buckets(&self) -> usize {
        match self {
            LevelTable::Array(t) => t.buckets(),
            LevelTable::K32(t) => t.buckets(),
            LevelTable::K64(t) => t.buckets(),
            LevelTable::K128(t) => t.buckets(),
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        match self {
            LevelTable::Array(t) => t.memory_bytes(),
            LevelTable::K32(t) => t.memory_bytes(),
            LevelTable::K64(t) => t.memory_bytes(),
            LevelTable::K128(t) => t.memory_bytes(),
        }
    }
}
