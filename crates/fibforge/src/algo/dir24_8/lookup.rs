//! Lookups: one `tbl24` access, a second one into `tbl_long` for blocks with a chunk.

use super::{CHUNK_FLAG, Dir24_8};
use crate::nexthop::NextHop;

/// Addresses resolved together by `lookup_many`: their `tbl24` loads are issued back to back
/// and the chunk entries of the second level are prefetched before any is read.
const GROUP: usize = 16;

impl Dir24_8 {
    /// The `tbl_long` position of `addr` in the chunk named by a flagged `tbl24` entry.
    #[inline(always)]
    fn long_index(entry: u32, addr: u32) -> usize {
        (((entry & !CHUNK_FLAG) as usize) << 8) | (addr & 0xff) as usize
    }

    #[inline(always)]
    fn resolve(&self, entry: u32, addr: u32) -> Option<NextHop> {
        let raw = if entry & CHUNK_FLAG == 0 {
            entry
        } else {
            self.tbl_long[Self::long_index(entry, addr)]
        };
        NextHop::from_raw(raw)
    }

    #[inline(always)]
    pub(super) fn lookup_one(&self, addr: u32) -> Option<NextHop> {
        self.resolve(self.tbl24[(addr >> 8) as usize], addr)
    }

    /// Batch lookup in groups of [`GROUP`]: first-level loads, prefetch of the second level,
    /// then the answers.
    pub(super) fn lookup_many(&self, addrs: &[u32], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut groups = addrs.chunks_exact(GROUP);
        let mut outs = out.chunks_exact_mut(GROUP);
        for (group, results) in (&mut groups).zip(&mut outs) {
            let mut entries = [0u32; GROUP];
            for (e, &a) in entries.iter_mut().zip(group) {
                *e = self.tbl24[(a >> 8) as usize];
            }
            for (&e, &a) in entries.iter().zip(group) {
                if e & CHUNK_FLAG != 0 {
                    crate::algo::prefetch::read(&self.tbl_long, Self::long_index(e, a));
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
