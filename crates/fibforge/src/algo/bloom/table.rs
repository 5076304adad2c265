//! The hash table behind each Bloom filter: expanded prefix → next hop.
//!
//! Open addressing with linear probing in one array of `(key, hop)` slots; `hop == 0` marks an
//! empty slot (next hops are stored raw, `NextHop::raw() >= 1`). The capacity is a power of two
//! kept at least twice the number of keys, so probe runs stay short. Removal shifts later
//! members of the probe run back (no tombstones), so lookups never see stale entries.
//!
//! The home slot of a key is the top bits of `h · HOME_MUL` for a 32-bit hash `h` the caller
//! supplies — with double hashing that is the same `a` that addressed the Bloom filter (the
//! paper's hash reuse). The extra multiply decorrelates the home slot from the filter bit that
//! `a` addresses (also the top bits of `a`): without it, a false positive caused by a stored
//! key with a nearby `a` lands on that key's own probe run, so a miss reads a longer run
//! (figures: `docs/lab/bloom.md`).

use crate::nexthop::NextHop;
use std::fmt::Debug;

/// Odd multiplier applied to a hash before its top bits pick the home slot.
const HOME_MUL: u32 = 0x2c1b_3c6d;

/// What a table can store as a key: a truncated address, or (for IPv6 levels of length ≤ 64)
/// its top 64 bits.
pub(crate) trait SlotKey: Copy + Eq + Default + Debug {}
impl<K: Copy + Eq + Default + Debug> SlotKey for K {}

#[derive(Copy, Clone, Debug, Default)]
struct Slot<A> {
    key: A,
    hop: u32,
}

/// An open-addressing map from keys (truncated addresses) to next hops.
#[derive(Clone, Debug)]
pub(crate) struct HopTable<A: SlotKey> {
    slots: Vec<Slot<A>>,
    shift: u32,
    len: usize,
}

impl<A: SlotKey> HopTable<A> {
    /// A table with room for `n` keys at load factor ≤ 1/2.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let cap = (n.max(4) * 2).next_power_of_two();
        HopTable { slots: crate::algo::huge::zeroed(cap), shift: 32 - cap.trailing_zeros(), len: 0 }
    }

    /// Number of keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn home(&self, h: u32) -> usize {
        // `shift` is at most 30 (capacity >= 4); a shift of 32 cannot occur.
        (h.wrapping_mul(HOME_MUL) >> self.shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Hints the cache that the home slot of hash `h` is read soon.
    #[inline(always)]
    pub(crate) fn prefetch(&self, h: u32) {
        crate::algo::prefetch::read(&self.slots, self.home(h));
    }

    /// The next hop stored for `key`, whose hash is `h`.
    #[inline(always)]
    pub(crate) fn get(&self, key: A, h: u32) -> Option<NextHop> {
        let mut i = self.home(h);
        loop {
            let s = &self.slots[i];
            if s.hop == 0 {
                return None;
            }
            if s.key == key {
                return NextHop::from_raw(s.hop);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// Slots a lookup of `key` with hash `h` reads (1 for a key or gap in its home slot).
    pub(crate) fn run_length(&self, key: A, h: u32) -> usize {
        let mut i = self.home(h);
        let mut n = 1;
        while self.slots[i].hop != 0 && self.slots[i].key != key {
            i = (i + 1) & self.mask();
            n += 1;
        }
        n
    }

    /// Stores `key → hop`; returns true when the key is new. Grows (rehashing every key with
    /// `rehash`) when the load would exceed 1/2.
    pub(crate) fn insert(
        &mut self,
        key: A,
        h: u32,
        hop: NextHop,
        rehash: impl Fn(A) -> u32,
    ) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(&rehash);
        }
        self.place(key, h, hop)
    }

    /// Stores `key → hop` without growing (the caller guarantees a free slot).
    fn place(&mut self, key: A, h: u32, hop: NextHop) -> bool {
        let mut i = self.home(h);
        loop {
            let s = &mut self.slots[i];
            if s.hop == 0 {
                *s = Slot { key, hop: hop.raw() };
                self.len += 1;
                return true;
            }
            if s.key == key {
                s.hop = hop.raw();
                return false;
            }
            i = (i + 1) & self.mask();
        }
    }

    /// Removes `key`; returns true when it was present.
    pub(crate) fn remove(&mut self, key: A, h: u32, rehash: impl Fn(A) -> u32) -> bool {
        let mask = self.mask();
        let mut i = self.home(h);
        loop {
            let s = &self.slots[i];
            if s.hop == 0 {
                return false;
            }
            if s.key == key {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: move later run members whose home is not in (hole, j].
        let mut hole = i;
        let mut j = (i + 1) & mask;
        while self.slots[j].hop != 0 {
            let home = self.home(rehash(self.slots[j].key));
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole] = Slot::default();
        self.len -= 1;
        true
    }

    /// Grows, once, to the capacity that `n` keys inserted one by one would reach (load ≤ 1/2).
    pub(crate) fn reserve(&mut self, n: usize, rehash: impl Fn(A) -> u32) {
        if n * 2 > self.slots.len() {
            self.rehash_into(HopTable::with_capacity(n), &rehash);
        }
    }

    fn grow(&mut self, rehash: &impl Fn(A) -> u32) {
        self.rehash_into(HopTable::with_capacity(self.slots.len()), rehash);
    }

    /// Moves every key into `bigger` (empty, with more slots) and becomes it.
    fn rehash_into(&mut self, mut bigger: HopTable<A>, rehash: &impl Fn(A) -> u32) {
        debug_assert!(bigger.slots.len() > self.slots.len());
        for (key, hop) in self.entries() {
            bigger.place(key, rehash(key), hop);
        }
        *self = bigger;
    }

    /// Every `(key, hop)` pair, in slot order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (A, NextHop)> + '_ {
        self.slots.iter().filter_map(|s| NextHop::from_raw(s.hop).map(|h| (s.key, h)))
    }

    /// Bytes of the slot array.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<A>>()
    }

    /// Every slot as `(key, raw hop)` in slot order, empty ones (`hop == 0`) included: the
    /// table as an export writes it.
    pub(crate) fn raw_slots(&self) -> impl Iterator<Item = (A, u32)> + '_ {
        self.slots.iter().map(|s| (s.key, s.hop))
    }

    /// A table holding `slots` as they are (an export read back). `None` unless their number
    /// is a power of two in `4..=2^32` and at least one is empty (else a probe for an absent
    /// key never ends). Where each key sits is checked by [`HopTable::first_unreachable`].
    pub(crate) fn from_raw_slots(slots: &[(A, u32)]) -> Option<Self> {
        let n = slots.len();
        if !n.is_power_of_two() || !(4..=1 << 32).contains(&(n as u64)) {
            return None;
        }
        slots.iter().any(|&(_, hop)| hop == 0).then(|| HopTable {
            slots: slots.iter().map(|&(key, hop)| Slot { key, hop }).collect(),
            shift: 32 - n.trailing_zeros(),
            len: slots.iter().filter(|&&(_, hop)| hop != 0).count(),
        })
    }

    /// The first occupied slot that a lookup of its key does not reach (an empty slot lies
    /// between its home slot, under `hash`, and it); `None` when every key is reachable. This
    /// is the linear-probing invariant that lookups and backward-shift removal rely on. Linear
    /// time: a key is reachable when its home lies in its own run, from the run's first slot.
    pub(crate) fn first_unreachable(&self, hash: impl Fn(A) -> u32) -> Option<usize> {
        let mask = self.mask();
        // A full table has no run boundary to start from (and `from_raw_slots` refuses it).
        let Some(empty) = self.slots.iter().position(|s| s.hop == 0) else { return Some(0) };
        let mut start = (empty + 1) & mask;
        for step in 1..=self.slots.len() {
            let i = (empty + step) & mask;
            let s = &self.slots[i];
            if s.hop == 0 {
                start = (i + 1) & mask;
                continue;
            }
            let home = self.home(hash(s.key));
            if home.wrapping_sub(start) & mask > i.wrapping_sub(start) & mask {
                return Some(i);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::bloom::hash::h2;

    #[test]
    fn insert_get_remove_with_collisions() {
        // A hash that sends everything home to slot 0 makes every key collide.
        let same = |_: u32| 0u32;
        let mut t: HopTable<u32> = HopTable::with_capacity(4);
        for k in 0..50u32 {
            assert!(t.insert(k, same(k), NextHop::from_index(k), same));
        }
        for k in (0..50u32).step_by(3) {
            assert!(t.remove(k, same(k), same));
        }
        for k in 0..50u32 {
            let want = (k % 3 != 0).then(|| NextHop::from_index(k));
            assert_eq!(t.get(k, same(k)), want, "key {k}");
        }
        assert_eq!(t.len(), 33);
    }

    #[test]
    fn removal_keeps_wrapped_runs_reachable() {
        let mut t: HopTable<u32> = HopTable::with_capacity(1000);
        let keys: Vec<u32> = (0..1000).map(|i| i * 7919).collect();
        for &k in &keys {
            t.insert(k, h2(k), NextHop::from_index(1), h2);
        }
        for &k in keys.iter().step_by(2) {
            assert!(t.remove(k, h2(k), h2));
            assert!(!t.remove(k, h2(k), h2));
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(t.get(k, h2(k)).is_some(), i % 2 == 1);
        }
    }
}
