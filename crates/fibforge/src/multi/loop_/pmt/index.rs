//! The writer's index of PortMapTable composites: a 64-bit hash of each composite → the index
//! of the entry holding it.
//!
//! Keys are hashes, not copies of the composites (a copy would double the PortMapTable's
//! memory on the writer's side and cost an allocation per entry). A hit is confirmed against
//! the table itself; on the (vanishingly rare) collision of two different composites the
//! second is stored again without being indexed, which costs one entry and never a wrong
//! answer.
//!
//! The hash is additive over the columns: `hash(c) = Σ term(v, c[v])` (wrapping), with
//! `term(v, 0) = 0` and otherwise a splitmix64 mix of `(v, value)`. So setting or clearing one
//! column of a stored composite updates its hash in O(1) — `h - term(v, old) + term(v, new)` —
//! which is what lets a table be added or removed without rehashing every composite over all
//! tables (see [`columns`](super::columns)); and trailing "no route" columns do not
//! change it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for keys that are already hashes: passes the `u64` through.
#[derive(Default)]
pub(in crate::multi::loop_) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(K);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

const K: u64 = 0x517c_c1b7_2722_0a95;

/// A map keyed by precomputed or small integer hashes.
pub(in crate::multi::loop_) type FastMap<Key, V> = HashMap<Key, V, BuildHasherDefault<PassThrough>>;

/// The hash of a composite: the wrapping sum of its columns' terms.
#[inline]
pub(in crate::multi::loop_) fn hash(composite: &[u32]) -> u64 {
    composite.iter().enumerate().fold(0u64, |h, (v, &x)| h.wrapping_add(term(v, x)))
}

/// The contribution of value `x` in column `v` to a composite's hash (0 for "no route").
#[inline]
pub(in crate::multi::loop_) fn term(v: usize, x: u32) -> u64 {
    if x == 0 { 0 } else { mix((v as u64) << 32 | x as u64) }
}

/// The splitmix64 finalizer: a bijection whose every output bit depends on every input bit
/// (hash tables index by the low bits).
#[inline]
pub(in crate::multi::loop_) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Composite hash → PortMapTable index.
#[derive(Default)]
pub(in crate::multi::loop_) struct PmtIndex {
    map: FastMap<u64, u32>,
}

impl PmtIndex {
    /// The index holding `composite`, if indexed; `stored(i)` compares entry `i` with it.
    #[inline]
    pub(in crate::multi::loop_) fn find(
        &self,
        h: u64,
        stored: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        self.map.get(&h).copied().filter(|&i| stored(i))
    }

    /// Records that entry `i` holds the composite with hash `h` (first one wins).
    #[inline]
    pub(in crate::multi::loop_) fn note(&mut self, h: u64, i: u32) {
        self.map.entry(h).or_insert(i);
    }

    /// Removes hash `h` if it names entry `i`.
    pub(in crate::multi::loop_) fn forget(&mut self, h: u64, i: u32) {
        if self.map.get(&h) == Some(&i) {
            self.map.remove(&h);
        }
    }

    #[cfg(test)]
    pub(in crate::multi::loop_) fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_only_confirmed_entries() {
        let table = [vec![1u32, 2], vec![2, 1], vec![0, 0]];
        let mut ix = PmtIndex::default();
        for (i, c) in table.iter().enumerate() {
            ix.note(hash(c), i as u32);
        }
        assert_eq!(ix.len(), 3);
        for (i, c) in table.iter().enumerate() {
            assert_eq!(ix.find(hash(c), |j| table[j as usize] == *c), Some(i as u32));
        }
        assert_eq!(ix.find(hash(&[1, 2]), |_| false), None, "unconfirmed hit");
        assert_ne!(hash(&[1, 2]), hash(&[2, 1]));
        assert_eq!(hash(&[1, 0]), hash(&[1]), "trailing empty columns do not count");
        assert_eq!(hash(&[1, 2]).wrapping_sub(term(1, 2)).wrapping_add(term(1, 7)), hash(&[1, 7]));
    }
}
