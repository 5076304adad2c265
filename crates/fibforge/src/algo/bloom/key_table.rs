//! A level's hash table in the narrowest slot layout that holds its keys exactly.
//!
//! An IPv6 key of length ≤ 64 has its low 64 bits zero, so its top 64 bits identify it: such a
//! level stores `(u64, hop)` slots of 16 bytes instead of `(u128, hop)` slots of 32 (a `u128`
//! is 16-byte aligned). Nearly all IPv6 routes are ≤ /64, so this halves most IPv6 tables.
//! Levels longer than 64 bits, and IPv4 levels (`(u32, hop)`, 8 bytes), keep the full key.
//! The hash is always computed from the full key, so both layouts place a key in the same
//! home slot and answer identically.

use super::key::BloomKey;
use super::table::HopTable;
use crate::nexthop::NextHop;

/// The table of one level: full keys, or the top 64 bits of IPv6 keys of length ≤ 64.
#[derive(Clone, Debug)]
pub(crate) enum KeyTable<A: BloomKey> {
    /// Keys as they are.
    Full(HopTable<A>),
    /// [`BloomKey::high64`] of each key (all keys have zero low 64 bits).
    High(HopTable<u64>),
}

impl<A: BloomKey> KeyTable<A> {
    /// A table for `n` keys of length `len`: [`KeyTable::High`] when the address is wider than
    /// 64 bits and `len ≤ 64`.
    pub(crate) fn for_length(len: u32, n: usize) -> Self {
        if A::BITS > 64 && len <= 64 {
            KeyTable::High(HopTable::with_capacity(n))
        } else {
            KeyTable::Full(HopTable::with_capacity(n))
        }
    }

    /// Number of keys.
    pub(crate) fn len(&self) -> usize {
        match self {
            KeyTable::Full(t) => t.len(),
            KeyTable::High(t) => t.len(),
        }
    }

    /// Hints the cache that the home slot of hash `h` is read soon.
    #[inline(always)]
    pub(crate) fn prefetch(&self, h: u32) {
        match self {
            KeyTable::Full(t) => t.prefetch(h),
            KeyTable::High(t) => t.prefetch(h),
        }
    }

    /// The next hop stored for `key`, whose hash is `h`.
    #[inline(always)]
    pub(crate) fn get(&self, key: A, h: u32) -> Option<NextHop> {
        match self {
            KeyTable::Full(t) => t.get(key, h),
            KeyTable::High(t) => t.get(key.high64(), h),
        }
    }

    /// Slots a lookup of `key` with hash `h` reads.
    pub(crate) fn run_length(&self, key: A, h: u32) -> usize {
        match self {
            KeyTable::Full(t) => t.run_length(key, h),
            KeyTable::High(t) => t.run_length(key.high64(), h),
        }
    }

    /// Stores `key → hop` (see [`HopTable::insert`]); `rehash` hashes a full key.
    pub(crate) fn insert(
        &mut self,
        key: A,
        h: u32,
        hop: NextHop,
        rehash: impl Fn(A) -> u32,
    ) -> bool {
        match self {
            KeyTable::Full(t) => t.insert(key, h, hop, rehash),
            KeyTable::High(t) => t.insert(key.high64(), h, hop, |x| rehash(A::from_high64(x))),
        }
    }

    /// Grows to hold `n` keys (see [`HopTable::reserve`]); `rehash` hashes a full key.
    pub(crate) fn reserve(&mut self, n: usize, rehash: impl Fn(A) -> u32) {
        match self {
            KeyTable::Full(t) => t.reserve(n, rehash),
            KeyTable::High(t) => t.reserve(n, |x| rehash(A::from_high64(x))),
        }
    }

    /// Removes `key` (see [`HopTable::remove`]); `rehash` hashes a full key.
    pub(crate) fn remove(&mut self, key: A, h: u32, rehash: impl Fn(A) -> u32) -> bool {
        match self {
            KeyTable::Full(t) => t.remove(key, h, rehash),
            KeyTable::High(t) => t.remove(key.high64(), h, |x| rehash(A::from_high64(x))),
        }
    }

    /// Every `(key, hop)` pair with full keys, in slot order.
    pub(crate) fn entries(&self) -> Box<dyn Iterator<Item = (A, NextHop)> + '_> {
        match self {
            KeyTable::Full(t) => Box::new(t.entries()),
            KeyTable::High(t) => Box::new(t.entries().map(|(x, h)| (A::from_high64(x), h))),
        }
    }

    /// The first occupied slot a lookup does not reach ([`HopTable::first_unreachable`]);
    /// `hash` hashes a full key.
    pub(crate) fn first_unreachable(&self, hash: impl Fn(A) -> u32) -> Option<usize> {
        match self {
            KeyTable::Full(t) => t.first_unreachable(hash),
            KeyTable::High(t) => t.first_unreachable(|x| hash(A::from_high64(x))),
        }
    }

    /// Bytes of the slot array.
    pub(crate) fn memory_bytes(&self) -> usize {
        match self {
            KeyTable::Full(t) => t.memory_bytes(),
            KeyTable::High(t) => t.memory_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::bloom::hash::HashFn;

    fn hash(key: u128) -> u32 {
        key.pair(HashFn::Murmur).0
    }

    #[test]
    fn short_ipv6_levels_use_16_byte_slots_and_long_ones_32() {
        let short = KeyTable::<u128>::for_length(64, 1000);
        let long = KeyTable::<u128>::for_length(65, 1000);
        assert!(matches!(short, KeyTable::High(_)));
        assert!(matches!(long, KeyTable::Full(_)));
        assert_eq!(short.memory_bytes() * 2, long.memory_bytes());
        assert!(matches!(KeyTable::<u32>::for_length(24, 10), KeyTable::Full(_)));
    }

    #[test]
    fn high_keys_round_trip_through_insert_get_remove() {
        let mut t = KeyTable::<u128>::for_length(64, 4);
        let keys: Vec<u128> = (0..300u128).map(|i| (i * 0x9e37_79b9_7f4a_7c15) << 64).collect();
        for (i, &k) in keys.iter().enumerate() {
            assert!(t.insert(k, hash(k), NextHop::from_index(i as u32), hash));
        }
        for &k in keys.iter().step_by(2) {
            assert!(t.remove(k, hash(k), hash));
        }
        for (i, &k) in keys.iter().enumerate() {
            let want = (i % 2 == 1).then(|| NextHop::from_index(i as u32));
            assert_eq!(t.get(k, hash(k)), want, "key {k:#x}");
        }
        let mut got: Vec<u128> = t.entries().map(|(k, _)| k).collect();
        got.sort_unstable();
        let mut want: Vec<u128> = keys.iter().skip(1).step_by(2).copied().collect();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}
