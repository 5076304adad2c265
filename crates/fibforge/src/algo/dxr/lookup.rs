//! Lookups: one direct-table access, then for descriptors a binary search in the chunk's
//! ranges.

use super::{DESCRIPTOR, Dxr, FIELDS, SHORT};
use crate::addr::Address;
use crate::algo::prefetch;
use crate::nexthop::NextHop;

/// Addresses resolved together by `lookup_many`: their direct entries are loaded back to back
/// and the first probe of each binary search is prefetched before any search starts.
const GROUP: usize = 8;

/// The index of the last element of `s` that is at most `key`; `s` is sorted and `s[0] <=
/// key`. Branch-free: the loop runs ⌈log2 len⌉ times whatever the data.
///
/// Example: `s = [0, 10, 20, 30]`, `key = 25`: probes 20 (≤ 25: move to 2), then 30 (> 25:
/// stay): answer 2.
#[inline(always)]
fn last_at_most<T: Copy + Ord>(s: &[T], key: T) -> usize {
    let mut lo = 0;
    let mut len = s.len();
    while len > 1 {
        let half = len / 2;
        if s[lo + half] <= key {
            lo += half;
        }
        len -= half;
    }
    lo
}

impl<A: Address> Dxr<A> {
    /// The direct-table index of `addr`: its top `k` bits.
    #[inline(always)]
    fn chunk_of(&self, addr: A) -> usize {
        addr.bits(0, self.k) as usize
    }

    /// `(base, size)` of a descriptor, through `wide` when its size field is all ones.
    #[inline(always)]
    pub(super) fn span(&self, entry: u32) -> (usize, usize) {
        let fields = entry & FIELDS;
        let base = fields & self.base_mask;
        let size = fields >> self.base_bits;
        if size == self.size_max {
            let (b, s) = self.wide[base as usize];
            (b as usize, s as usize)
        } else {
            (base as usize, size as usize)
        }
    }

    /// The raw next hop of `addr` in the ranges of a descriptor.
    #[inline(always)]
    fn search(&self, entry: u32, addr: A) -> u32 {
        let (base, size) = self.span(entry);
        if entry & SHORT != 0 {
            let key = ((addr.to_u128() as u32) << 16) | 0xFFFF;
            let ranges = &self.short[base..base + size];
            ranges[last_at_most(ranges, key)] & 0xFFFF
        } else {
            let starts = &self.long_starts[base..base + size];
            self.long_hops[base + last_at_most(starts, addr)]
        }
    }

    #[inline(always)]
    fn resolve(&self, entry: u32, addr: A) -> Option<NextHop> {
        let raw = if entry & DESCRIPTOR == 0 { entry } else { self.search(entry, addr) };
        NextHop::from_raw(raw)
    }

    #[inline(always)]
    pub(super) fn lookup_one(&self, addr: A) -> Option<NextHop> {
        self.resolve(self.direct[self.chunk_of(addr)], addr)
    }

    /// Prefetches the first probe of the binary search a descriptor leads to.
    #[inline(always)]
    fn prefetch_probe(&self, entry: u32) {
        let (base, size) = self.span(entry);
        let mid = base + size / 2;
        if entry & SHORT != 0 {
            prefetch::read(&self.short, mid);
        } else {
            prefetch::read(&self.long_starts, mid);
        }
    }

    /// Batch lookup in groups of [`GROUP`]: direct entries, prefetch of the first search
    /// probes, then the answers.
    pub(super) fn lookup_many(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut groups = addrs.chunks_exact(GROUP);
        let mut outs = out.chunks_exact_mut(GROUP);
        for (group, results) in (&mut groups).zip(&mut outs) {
            let mut entries = [0u32; GROUP];
            for (e, &a) in entries.iter_mut().zip(group) {
                *e = self.direct[self.chunk_of(a)];
            }
            for &e in &entries {
                if e & DESCRIPTOR != 0 {
                    self.prefetch_probe(e);
                }
            }
            for ((o, &e), &a) in results.iter_mut().zip(&entries).zip(group) {
                *o = self.resolve(e, a);
            }
        }
        let rest = groups.remainder();
        for (o, &a) in out[addrs.len() - rest.len()..].iter_mut().zip(rest) {
            *o = self.lookup_one(a);
        }
    }
}

#[cfg(test)]
mod search_tests {
    use super::last_at_most;

    #[test]
    fn last_at_most_finds_the_covering_range() {
        let s = [0u32, 10, 20, 30];
        for (key, want) in [(0, 0), (9, 0), (10, 1), (25, 2), (30, 3), (99, 3)] {
            assert_eq!(last_at_most(&s, key), want, "key {key}");
        }
        assert_eq!(last_at_most(&[5u32], 7), 0);
        for n in 1..40u32 {
            let s: Vec<u32> = (0..n).map(|i| i * 2).collect();
            for key in 0..2 * n + 2 {
                assert_eq!(last_at_most(&s, key), ((key / 2).min(n - 1)) as usize);
            }
        }
    }
}
