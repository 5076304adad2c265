//! The published arrays of an IPv4 [`Fib`] as raw pointers, for walkers written outside Rust:
//! the C ABI's inline lookup (`fibforge_view4_lookup` in `fibforge.h`) walks them exactly as
//! [`Core::lookup_inline`](super::layout::Core) does, with no call into the library per lookup.
//!
//! # Layout (what a foreign walk relies on; `RAW_LAYOUT_VERSION` changes if any of it does)
//!
//! - `dir`: `2^s` entries. 16 bits wide: `e < root_limit` is node index `e`, else raw next
//!   hop `e - root_limit`. 32 bits wide: `0x8000_0000 | raw` is a next hop, else a node
//!   index. Entries are updated in place by atomic stores (Release): load them atomically
//!   (Acquire) before following a node index.
//! - `nodes`: 24-byte records `{vector: u64, leafvec: u64, base0: u32, base1: u32}` (native
//!   endianness, 8-byte aligned); never written while reachable.
//! - `leaves`: raw next hops (`index + 1`, 0 = no route) of `leaf_bits` bits.
//!
//! # Validity
//!
//! The pointers borrow `self`: they stay valid exactly as long as the `&Fib` they came from
//! (for a [`Reader`](crate::sync::Reader)'s view: while it stays online and reports no
//! quiescent state), which the foreign caller must keep to by contract.

use super::dir::DirTable;
use super::layout::{Arena, Leaf, Node};
use super::{Cores, Fib};
use super::{with_core, with_leafvec_core};

/// The version of the layout above; a foreign walk built for another version must not run.
#[doc(hidden)]
pub const RAW_LAYOUT_VERSION: u32 = 1;

// The 24-byte record a foreign walk indexes.
const _: () = assert!(std::mem::size_of::<Node>() == 24 && std::mem::align_of::<Node>() == 8);

/// Pointers to the arrays of an IPv4 [`Fib`] and what a walk needs to read them (see the
/// module documentation of `raw.rs` for the layout).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct RawArrays {
    /// Direct-pointing bits, `0..=24` (`dir` has `2^s` entries).
    pub s: u32,
    /// Width of a `dir` entry: 16 or 32.
    pub dir_bits: u32,
    /// With 16-bit entries, the first entry value that is a next hop (0 with 32-bit ones).
    pub root_limit: u32,
    /// Width of a leaf: 8, 16 or 32.
    pub leaf_bits: u32,
    /// The first `dir` entry.
    pub dir: *const u8,
    /// The first node record.
    pub nodes: *const u8,
    /// The first leaf.
    pub leaves: *const u8,
}

impl Fib<u32> {
    /// The arrays of this view, for a walk outside Rust; valid while `self` is borrowed.
    /// `None` for the basic layout (`leafvec=off`), whose 16-byte records are not the layout
    /// above.
    pub fn raw_arrays(&self) -> Option<RawArrays> {
        let (s, leaf_bits, nodes, leaves) =
            with_leafvec_core!(&self.cores, c => core_parts(c), basic => return None);
        let (dir, dir_bits, root_limit) = with_core!(&self.cores, c => dir_parts(&c.dir));
        Some(RawArrays { s, dir_bits, root_limit, leaf_bits, dir, nodes, leaves })
    }
}

fn core_parts<L: Leaf>(c: &super::layout::Core<u32, L>) -> (u32, u32, *const u8, *const u8) {
    debug_assert!(c.fanout.is_none(), "IPv4 has no fan-out");
    (c.s, L::BITS, arena_ptr(&c.nodes), arena_ptr(&c.leaves))
}

fn arena_ptr<T: Copy + Default>(a: &Arena<T>) -> *const u8 {
    a.as_ptr() as *const u8
}

fn dir_parts(dir: &DirTable) -> (*const u8, u32, u32) {
    match dir {
        DirTable::Wide(e) => (e.as_ptr() as *const u8, 32, 0),
        DirTable::Narrow { e, roots } => (e.as_ptr() as *const u8, 16, *roots),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fib::{Compile, Lookup};
    use crate::nexthop::NextHop;
    use crate::prefix::Prefix;
    use crate::rib::Rib;

    /// A walk over the raw arrays written as a foreign caller would (the C header's walk).
    fn walk(r: &RawArrays, a: u32) -> u32 {
        let i = ((a as u64) >> (32 - r.s)) as usize;
        // SAFETY: the arrays are borrowed from a live `Fib` for the whole test; indices come
        // from its published entries, as in the Rust walk.
        unsafe {
            let d = if r.dir_bits == 16 {
                let e = *(r.dir as *const u16).add(i) as u32;
                if e >= r.root_limit {
                    return e - r.root_limit;
                }
                e
            } else {
                let e = *(r.dir as *const u32).add(i);
                if e & 0x8000_0000 != 0 {
                    return e & 0x7fff_ffff;
                }
                e
            };
            let nodes = r.nodes as *const Node;
            let mut n = *nodes.add(d as usize);
            let mut k = (a as u64) << (32 + r.s);
            let inv = loop {
                let inv = (!k >> 58) as u32;
                let t = n.vector << inv;
                if (t as i64) >= 0 {
                    break inv;
                }
                n = *nodes.add((n.base1 + t.count_ones() - 1) as usize);
                k <<= 6;
            };
            let at = (n.base0 + (n.leafvec << inv).count_ones() - 1) as usize;
            match r.leaf_bits {
                8 => *r.leaves.add(at) as u32,
                16 => *(r.leaves as *const u16).add(at) as u32,
                _ => *(r.leaves as *const u32).add(at),
            }
        }
    }

    #[test]
    fn a_foreign_walk_of_the_raw_arrays_answers_as_the_lookup() {
        let routes =
            [("10.0.0.0/8", 1), ("10.1.0.0/16", 2), ("10.1.2.0/24", 3), ("10.1.2.3/32", 4)];
        for (extra_hop, dir16, s) in [(5, true, 18), (300, true, 16), (70_000, false, 0)] {
            let mut rib = Rib::new();
            for (p, h) in routes {
                rib.insert(p.parse::<Prefix<u32>>().unwrap(), NextHop::from_index(h));
            }
            rib.insert("192.168.0.0/23".parse().unwrap(), NextHop::from_index(extra_hop));
            let cfg = super::super::Config { s, narrow_dir: dir16, ..Default::default() };
            let p = super::super::Poptrie::<u32>::compile(&rib, &cfg).unwrap();
            let r = p.view().raw_arrays().expect("the leafvec layout has raw arrays");
            let want_leaf = if extra_hop < 255 {
                8
            } else if extra_hop < 65535 {
                16
            } else {
                32
            };
            assert_eq!((r.leaf_bits, r.dir_bits, r.s), (want_leaf, if dir16 { 16 } else { 32 }, s));
            let mut rng = crate::verify::rng::XorShift64::new(0x9e37_79b9);
            let probes = [0x0a01_0203, 0x0a01_0204, 0x0a01_0300, 0x0a02_0000, 0xc0a8_01ff, 0];
            for a in probes.into_iter().chain((0..20_000).map(|_| rng.next_u64() as u32)) {
                let want = p.lookup(a).map_or(0, NextHop::raw);
                assert_eq!(walk(&r, a), want, "{a:#x} with s={s}, dir16={dir16}");
            }
        }
    }
}
