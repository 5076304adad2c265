//! LOOP's memory layout and its lookup.
//!
//! Everything readers touch is an array of `AtomicU32` (a relaxed atomic load is a plain load
//! on x86), so the writer can regenerate parts while lookups run without any `unsafe`:
//!
//! - `root`: the layer-1 chunk, `2^s1` lookup entries, uncompressed (paper §IV i);
//! - `chunk_groups`: for each chunk of a lower layer, the arena offsets of its group
//!   structures (`2^s / G` per chunk; the "group pointers");
//! - `arena`: group structures and sparse chunks. A group is `G/16` words of codewords (two
//!   16-bit codewords per word: `bitset << 8 | before`, one per cluster of 8 elements, the
//!   bitset's most significant bit is the cluster's first element) followed by its lookup
//!   entries, one per range head. A sparse chunk is `[count, default, (key, entry) * count]`
//!   with keys `prefix_bits << 8 | shift`, longest prefix (smallest shift) first;
//! - `pmt`: the PortMapTable, `vrfs` next hops (0 = no route) per composite entry, in columns
//!   of one- or two-byte port codes or bitmap-compressed rows (see [`pmt`](super::pmt)).
//!
//! A lookup entry is `t << 30 | p`: `t = 0` → `p` indexes the PortMapTable, `t = 1` → `p` is a
//! chunk id of the next layer, `t = 2` → `p` is the arena offset of a sparse chunk.
//!
//! Publication: the writer fills new group or sparse storage, then stores its offset (or the
//! entry pointing at it) with `Release`; readers load offsets and entries with `Acquire`.

use super::words::{PAYLOAD_BITS, PAYLOAD_MAX};
use crate::addr::Address;
use crate::nexthop::NextHop;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) const TAG_PMT: u32 = 0;
pub(super) const TAG_CHUNK: u32 = 1;
pub(super) const TAG_SPARSE: u32 = 2;

#[inline]
pub(super) fn entry(tag: u32, payload: u32) -> u32 {
    debug_assert!(payload <= PAYLOAD_MAX);
    tag << PAYLOAD_BITS | payload
}

#[inline]
pub(super) fn tag(e: u32) -> u32 {
    e >> PAYLOAD_BITS
}

#[inline]
pub(super) fn payload(e: u32) -> u32 {
    e & PAYLOAD_MAX
}

/// Shape of the structure: layer strides and group size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// Bits consumed by each layer; they sum to the address width.
    pub strides: Vec<u32>,
    /// First address bit of each layer.
    pub starts: Vec<u32>,
    /// Elements per group (32, 64 or 128).
    pub group: u32,
    /// Group pointers per chunk id (the maximum over lower layers), precomputed.
    pub chunk_stride: u32,
}

impl Shape {
    pub(super) fn new(strides: Vec<u32>, group: u32) -> Self {
        let starts =
            strides.iter().scan(0, |acc, &s| Some(std::mem::replace(acc, *acc + s))).collect();
        let chunk_stride =
            strides[1..].iter().map(|&s| ((1u32 << s) / group).max(1)).max().unwrap_or(1);
        Shape { strides, starts, group, chunk_stride }
    }

    /// Codeword words at the start of a group structure.
    #[inline]
    pub(super) fn codeword_words(&self) -> u32 {
        self.group / 16
    }

    /// Groups per chunk, maximum over lower layers (chunk ids index `chunk_groups` with it).
    #[inline]
    pub(super) fn chunk_stride(&self) -> u32 {
        self.chunk_stride
    }
}

/// The arrays readers see. `root`, `chunk_groups` and `arena` are shared with the next
/// structure when a table insertion or deletion patches them in place (only the PortMapTable
/// columns differ between the two).
pub(super) struct Core {
    pub shape: Shape,
    pub vrfs: u32,
    pub root: Arc<[AtomicU32]>,
    pub chunk_groups: Arc<[AtomicU32]>,
    pub arena: Arc<[AtomicU32]>,
    pub pmt: super::pmt::Pmt,
}

/// The 16-bit codeword of `cluster` from the word holding it (two codewords per word).
#[inline]
pub(super) fn codeword(word: u32, cluster: usize) -> u32 {
    (word >> (16 * (cluster & 1))) & 0xffff
}

impl Core {
    /// The next hop of table `vrf` for `addr`.
    #[inline]
    pub(super) fn lookup<A: Address>(&self, vrf: u32, addr: A) -> Option<NextHop> {
        if vrf >= self.vrfs {
            return None;
        }
        let sh = &self.shape;
        let mut e = self.root[addr.bits(0, sh.strides[0]) as usize].load(Ordering::Acquire);
        let mut layer = 1;
        loop {
            match tag(e) {
                TAG_PMT => {
                    return NextHop::from_raw(self.pmt.get(payload(e), vrf));
                }
                TAG_CHUNK => {
                    let elem = addr.bits(sh.starts[layer], sh.strides[layer]) as u32;
                    e = self.group_entry(payload(e), elem);
                }
                _ => {
                    let elem = addr.bits(sh.starts[layer], sh.strides[layer]) as u32;
                    e = self.sparse_entry(payload(e), elem);
                }
            }
            layer += 1;
        }
    }

    /// The lookup entry for element `elem` of grouped chunk `chunk`.
    #[inline]
    pub(super) fn group_entry(&self, chunk: u32, elem: u32) -> u32 {
        let base = self.chunk_groups[self.group_slot(chunk, elem)].load(Ordering::Acquire);
        self.entry_in_group(base as usize, elem % self.shape.group)
    }

    /// The `chunk_groups` slot of the group holding element `elem` of chunk `chunk`.
    #[inline]
    pub(super) fn group_slot(&self, chunk: u32, elem: u32) -> usize {
        chunk as usize * self.shape.chunk_stride() as usize + (elem / self.shape.group) as usize
    }

    /// The arena index of the codeword word for element `i` of the group at `base`.
    #[inline]
    pub(super) fn codeword_at(base: usize, i: u32) -> usize {
        base + (i >> 3) as usize / 2
    }

    /// The lookup entry of element `i` (< group size) of the group structure at `base`.
    #[inline]
    pub(super) fn entry_in_group(&self, base: usize, i: u32) -> u32 {
        let cluster = (i >> 3) as usize;
        let word = self.arena[Self::codeword_at(base, i)].load(Ordering::Relaxed);
        let cw = codeword(word, cluster);
        let before = cw & 0xff;
        let bitset = cw >> 8;
        let ones = (bitset >> (7 - (i & 7))).count_ones();
        let idx = before + ones - 1;
        self.arena[base + self.shape.codeword_words() as usize + idx as usize]
            .load(Ordering::Relaxed)
    }

    /// The lookup entry for element `elem` from the sparse chunk at `offset`.
    #[inline]
    pub(super) fn sparse_entry(&self, offset: u32, elem: u32) -> u32 {
        let base = offset as usize;
        let count = self.arena[base].load(Ordering::Relaxed) as usize;
        for k in 0..count {
            let key = self.arena[base + 2 + 2 * k].load(Ordering::Relaxed);
            if elem >> (key & 0xff) == key >> 8 {
                return self.arena[base + 3 + 2 * k].load(Ordering::Relaxed);
            }
        }
        self.arena[base + 1].load(Ordering::Relaxed)
    }

    pub(super) fn memory_bytes(
        &self,
        arena_used: usize,
        pmt_bytes: usize,
        chunks_used: usize,
    ) -> usize {
        4 * (self.root.len() + chunks_used * self.shape.chunk_stride() as usize + arena_used)
            + pmt_bytes
    }
}
