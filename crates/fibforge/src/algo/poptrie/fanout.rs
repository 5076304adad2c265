//! Root fan-out: each root's 64 slots copied out as node records, so that a lookup goes from
//! its direct-pointing entry straight to the node below the root — one dependent load fewer,
//! as `s + 6` direct-pointing bits would give, but for the `/s` regions that have a root only
//! (tier1-v6: 190 roots, 285 KiB of fan-out, where `s = 24` takes a 32 MiB `dir`).
//!
//! # Layout
//!
//! Only with a narrow `dir` (`dir.rs`), whose roots lie in `[0, r)` of the node arena: the
//! fan-out arena holds 64 records per root slot, and record `64·d + v` stands for slot `v` of
//! root `d`:
//! - an internal slot: a copy of the child's record (the same children and leaf blocks);
//! - a leaf slot: a *filler* `{vector: 0, leafvec: 1, base0: the slot's leaf}`, in which a
//!   walk ends at once (any chunk ranks leaf 1).
//!
//! A lookup reads `fanout[64·d + chunk(s)]` and walks on at offset `s + 6` in the node arena.
//!
//! # Invariants
//!
//! - The block of root `d` is written when root `d` is (compile, or an update's new root),
//!   before the direct-pointing entry naming `d` is published, while no reader can reach it:
//!   root slot `d` was free (never used, or retired past a grace period), and so was its block.
//! - The copies share the root's blocks and subtrees, which live exactly as long as the root
//!   (an update that changes anything below a root writes a new root, hence a new block).
//! - Making `dir` wide drops the fan-out (roots then come from anywhere in the arena).
//! - Only the `leafvec` layout has a fan-out: a basic record (`leafvec=off`) ranks a leaf
//!   slot by its position, so no record can end every walk at one leaf (a filler).

use super::layout::{Arena, Record, upto};

/// Records per root.
pub(crate) const FANOUT: u32 = 64;

/// The 64 records of `root`'s slots; `child(i)` reads node `i` (`root`'s children block).
pub(crate) fn block<N: Record>(root: &N, child: impl Fn(u32) -> N) -> [N; FANOUT as usize] {
    debug_assert!(N::LEAFVEC, "fillers need leafvec");
    std::array::from_fn(|v| {
        let at = upto(v as u32);
        if root.vector() & (1 << v) != 0 {
            child(root.base1() + (root.vector() & at).count_ones() - 1)
        } else {
            let leaf = root.base0() + (root.leaf_starts() & at).count_ones() - 1;
            N::new(0, 1, leaf, 0)
        }
    })
}

/// Writes root `d`'s block (its record and children already in `nodes`).
///
/// # Safety
/// Only the writer calls this, for a root slot `d` no reader can reach yet (see the module's
/// invariants); `fanout` holds at least `64·(d + 1)` records.
pub(crate) unsafe fn write<N: Record>(fanout: &Arena<N>, nodes: &Arena<N>, d: u32) {
    let records = block(&nodes.get(d), |i| nodes.get(i));
    for (v, r) in records.into_iter().enumerate() {
        // SAFETY: the caller's contract: nothing reads block `d` until it is published.
        unsafe { fanout.set(d * FANOUT + v as u32, r) };
    }
}

/// The fan-out of a freshly compiled node arena whose first `roots` nodes are the roots, with
/// room for `region` root slots.
pub(crate) fn compile<N: Record>(nodes: &[N], roots: u32, region: u32) -> Arena<N> {
    let mut out = vec![N::default(); (region * FANOUT) as usize];
    for d in 0..roots {
        let records = block(&nodes[d as usize], |i| nodes[i as usize]);
        out[(d * FANOUT) as usize..][..FANOUT as usize].copy_from_slice(&records);
    }
    Arena::from_vec(out)
}

#[cfg(test)]
mod tests {
    use super::super::layout::Node;
    use super::*;

    #[test]
    fn children_are_copied_and_leaf_slots_get_fillers() {
        // Slots 0..=3 leaves (two runs: 0-1 and 2-3), slot 4 a child, slots 5.. leaves
        // continuing the run of 2-3 (holes do not break runs) except a new run from 10.
        let root = Node { vector: 1 << 4, leafvec: 1 | 1 << 2 | 1 << 10, base0: 100, base1: 7 };
        let child = Node { vector: 0, leafvec: 1 | 1 << 33, base0: 55, base1: 0 };
        let b = block(&root, |i| {
            assert_eq!(i, 7);
            child
        });
        assert_eq!(b[4], child);
        let filler = |leaf| Node { vector: 0, leafvec: 1, base0: leaf, base1: 0 };
        assert_eq!(b[0], filler(100));
        assert_eq!(b[1], filler(100));
        assert_eq!(b[2], filler(101));
        assert_eq!(b[5], filler(101));
        assert_eq!(b[9], filler(101));
        assert_eq!(b[10], filler(102));
        assert_eq!(b[63], filler(102));
    }
}
