//! Interleaved batch lookups: [`Core::lookup_batch`].
//!
//! A single lookup is a chain of dependent loads (root entry; per lower layer the group
//! pointer, the codeword, the lookup entry; finally the PortMapTable value), so one lookup at
//! a time leaves the memory system idle between misses. The batch walks [`LANES`] keys in
//! step, layer by layer, in two passes per layer: the first loads every walking lane's group
//! pointer and prefetches its codeword, the second decodes the entry and prefetches what the
//! lane reads next (the next layer's group pointer, or its PortMapTable value). The loads of
//! one pass are independent across lanes, so their misses overlap. Sparse chunks are read in
//! the second pass without a prefetch (a few words, usually cached). Every lane returns what
//! [`Core::lookup`] returns (tested against it and the RIB).

use super::layout::{Core, TAG_CHUNK, TAG_PMT, TAG_SPARSE, payload, tag};
use crate::addr::Address;
use crate::algo::prefetch;
use crate::nexthop::NextHop;
use std::sync::atomic::Ordering;

/// Keys walked in step.
pub(super) const LANES: usize = 16;

impl Core {
    /// Looks up every `(vrf, addr)` key into the same position of `out`.
    pub(super) fn lookup_batch<A: Address>(&self, keys: &[(u32, A)], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= keys.len(), "output shorter than input");
        for (k, o) in keys.chunks(LANES).zip(out.chunks_mut(LANES)) {
            self.lookup_lanes(k, o);
        }
    }

    /// Up to [`LANES`] keys in step.
    #[inline]
    fn lookup_lanes<A: Address>(&self, keys: &[(u32, A)], out: &mut [Option<NextHop>]) {
        let sh = &self.shape;
        let mut e = [0u32; LANES];
        let mut base = [0usize; LANES];
        let root_bits = sh.strides[0];
        for &(_, a) in keys {
            prefetch::read(&self.root, a.bits(0, root_bits) as usize);
        }
        for (x, &(_, a)) in e.iter_mut().zip(keys) {
            *x = self.root[a.bits(0, root_bits) as usize].load(Ordering::Acquire);
        }
        let mut layer = 1;
        while e[..keys.len()].iter().any(|&x| tag(x) != TAG_PMT) {
            let (start, stride) = (sh.starts[layer], sh.strides[layer]);
            for (k, &(_, a)) in keys.iter().enumerate() {
                if tag(e[k]) == TAG_CHUNK {
                    let elem = a.bits(start, stride) as u32;
                    let slot = self.group_slot(payload(e[k]), elem);
                    base[k] = self.chunk_groups[slot].load(Ordering::Acquire) as usize;
                    prefetch::read(&self.arena, Core::codeword_at(base[k], elem % sh.group));
                }
            }
            for (k, &(vrf, a)) in keys.iter().enumerate() {
                let elem = a.bits(start, stride) as u32;
                e[k] = match tag(e[k]) {
                    TAG_PMT => continue,
                    TAG_CHUNK => self.entry_in_group(base[k], elem % sh.group),
                    _ => self.sparse_entry(payload(e[k]), elem),
                };
                self.prefetch_next(e[k], layer + 1, (vrf, a));
            }
            layer += 1;
        }
        for ((o, &x), &(vrf, _)) in out.iter_mut().zip(&e).zip(keys) {
            *o = if vrf < self.vrfs {
                NextHop::from_raw(self.pmt.get(payload(x), vrf))
            } else {
                None
            };
        }
    }

    /// Prefetches what a lane at entry `x` reads next: the group pointer of layer `layer`, or
    /// its PortMapTable value.
    #[inline]
    fn prefetch_next<A: Address>(&self, x: u32, layer: usize, (vrf, a): (u32, A)) {
        match tag(x) {
            TAG_PMT if vrf < self.vrfs => self.pmt.prefetch(payload(x), vrf),
            TAG_CHUNK => {
                let sh = &self.shape;
                let elem = a.bits(sh.starts[layer], sh.strides[layer]) as u32;
                prefetch::read(&self.chunk_groups, self.group_slot(payload(x), elem));
            }
            TAG_SPARSE => prefetch::read(&self.arena, payload(x) as usize),
            _ => {}
        }
    }
}
