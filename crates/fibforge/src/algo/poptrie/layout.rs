//! Memory layout: the node record, the leaf widths, the direct-pointing encoding and the
//! arrays readers walk ([`Core`]).
//!
//! Every array is allocated once with a fixed capacity and never moves while readers may use
//! it; the writer only writes into slots that no reader can reach yet (blocks it has just
//! allocated) and publishes them with one atomic store of a direct-pointing entry (see
//! `update.rs`). Growing an array means copying the whole [`Core`] (same indices) and
//! publishing the copy.

use super::dir::DirTable;
use crate::addr::Address;
use crate::mapped::{Plain, Region, Slab};
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

/// Bits per trie level (the paper's `k`): 64-ary nodes, one `u64` bit vector each.
pub(crate) const STRIDE: u32 = 6;

pub(crate) use super::dir::DIRECT_LEAF;

/// The largest raw next hop (index + 1) a direct-pointing entry can hold.
pub(crate) const MAX_DIRECT_RAW: u32 = DIRECT_LEAF - 1;

/// The largest node index a direct-pointing entry or a `base1` can hold.
pub(crate) const MAX_NODES: u32 = DIRECT_LEAF - 1;

/// Address bit extraction for the lookup: chunks are zero-padded past the last address bit,
/// so a node at offset 30 of an IPv4 address uses slots `0, 16, 32, 48` (2 real bits, 4
/// padding bits) and needs no special case.
#[doc(hidden)]
pub trait Key: Address {
    /// The address with consumed bits shifted out, unconsumed bits at the top of a register.
    type Cursor: Copy;
    /// The first `s` bits (`s <= 24`), right-aligned.
    fn top(self, s: u32) -> usize;
    /// The 6 bits starting `off` bits from the top (`off < BITS`), zero-padded on the right.
    fn chunk(self, off: u32) -> u32;
    /// The cursor after the first `s` bits.
    fn cursor(self, s: u32) -> Self::Cursor;
    /// `63 - chunk` for the cursor's current chunk.
    fn inv_chunk(k: Self::Cursor) -> u32;
    /// The cursor one level deeper.
    fn advance(k: Self::Cursor) -> Self::Cursor;
    /// Root fan-out is supported (`fanout.rs`): IPv6 only, so IPv4 lookups carry no test
    /// for it (IPv4 tables have thousands of roots and walks of one or two levels, so fan-out
    /// costs them memory and rate; figures in `docs/lab/poptrie.md`).
    const FANOUT: bool;
    /// The address's first 64 bits (zero-padded), left-aligned.
    fn window(self) -> u64;
    /// Batches walk below `dir` in lock step (one level per round for all lanes) rather than
    /// lane after lane: worth it for deep walks only (see `lookup.rs`).
    const LOCKSTEP_WALK: bool;
    /// With AVX-512F: the direct-pointing entries of 16 addresses into `d` (next hops or node
    /// indices) and the mask of lanes that continue in a node; `None` for a family without a
    /// SIMD path.
    ///
    /// # Safety
    /// The CPU supports AVX-512F; `dir` holds `2^s` entries.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn gather_direct16(
        _dir: &DirTable,
        _s: u32,
        _addrs: &[Self; 16],
        _d: &mut [u32; 16],
    ) -> Option<u16> {
        None
    }
}

impl Key for u32 {
    #[inline(always)]
    fn top(self, s: u32) -> usize {
        ((self as u64) >> (32 - s)) as usize
    }
    #[inline(always)]
    fn chunk(self, off: u32) -> u32 {
        (((self as u64) << (32 + off)) >> 58) as u32
    }
    type Cursor = u64;
    #[inline(always)]
    fn cursor(self, s: u32) -> u64 {
        (self as u64) << (32 + s)
    }
    #[inline(always)]
    fn inv_chunk(k: u64) -> u32 {
        (!k >> 58) as u32
    }
    #[inline(always)]
    fn advance(k: u64) -> u64 {
        k << STRIDE
    }
    #[inline(always)]
    fn window(self) -> u64 {
        (self as u64) << 32
    }
    const LOCKSTEP_WALK: bool = false;
    const FANOUT: bool = false;
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn gather_direct16(
        dir: &DirTable,
        s: u32,
        addrs: &[u32; 16],
        d: &mut [u32; 16],
    ) -> Option<u16> {
        // SAFETY: the caller's contract is `simd::gather_dir16_v4`'s.
        Some(unsafe { super::simd::gather_dir16_v4(dir, s, addrs, d) })
    }
}

impl Key for u128 {
    #[inline(always)]
    fn top(self, s: u32) -> usize {
        (((self >> 64) as u64 >> 1) >> (63 - s)) as usize
    }
    #[inline(always)]
    fn chunk(self, off: u32) -> u32 {
        ((self << off) >> 122) as u32
    }
    type Cursor = u128;
    #[inline(always)]
    fn cursor(self, s: u32) -> u128 {
        self << s
    }
    #[inline(always)]
    fn inv_chunk(k: u128) -> u32 {
        (!k >> 122) as u32
    }
    #[inline(always)]
    fn advance(k: u128) -> u128 {
        k << STRIDE
    }
    #[inline(always)]
    fn window(self) -> u64 {
        (self >> 64) as u64
    }
    const LOCKSTEP_WALK: bool = true;
    const FANOUT: bool = true;
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn gather_direct16(
        dir: &DirTable,
        s: u32,
        addrs: &[u128; 16],
        d: &mut [u32; 16],
    ) -> Option<u16> {
        // SAFETY: the caller's contract is `simd::gather_dir16_v6`'s.
        Some(unsafe { super::simd::gather_dir16_v6(dir, s, addrs, d) })
    }
}

/// A leaf: a raw next hop (`NextHop::raw`, 0 = no route) in 8, 16 or 32 bits.
#[doc(hidden)]
pub trait Leaf: Copy + Default + Eq + Send + Sync + std::fmt::Debug + 'static {
    /// Width in bits (8, 16 or 32).
    const BITS: u32;
    /// The largest raw value this width holds.
    const MAX_RAW: u32;
    /// Narrows a raw value (`raw <= MAX_RAW`).
    fn from_raw(raw: u32) -> Self;
    /// Widens to a raw value.
    fn raw(self) -> u32;
}

impl Leaf for u8 {
    const BITS: u32 = 8;
    const MAX_RAW: u32 = u8::MAX as u32;
    #[inline(always)]
    fn from_raw(raw: u32) -> Self {
        debug_assert!(raw <= Self::MAX_RAW);
        raw as u8
    }
    #[inline(always)]
    fn raw(self) -> u32 {
        self as u32
    }
}

impl Leaf for u16 {
    const BITS: u32 = 16;
    const MAX_RAW: u32 = u16::MAX as u32;
    #[inline(always)]
    fn from_raw(raw: u32) -> Self {
        debug_assert!(raw <= Self::MAX_RAW);
        raw as u16
    }
    #[inline(always)]
    fn raw(self) -> u32 {
        self as u32
    }
}

impl Leaf for u32 {
    const BITS: u32 = 32;
    const MAX_RAW: u32 = MAX_DIRECT_RAW;
    #[inline(always)]
    fn from_raw(raw: u32) -> Self {
        raw
    }
    #[inline(always)]
    fn raw(self) -> u32 {
        self
    }
}

/// A node record layout: what the build, the walk and updates read from a record. Two
/// layouts implement it: [`Node`] (§3.3, `leafvec`: runs of equal leaves stored once, the
/// default) and [`Basic`] (§3.1, `leafvec=off`: every leaf slot has a leaf of its own).
///
/// The leaf of leaf slot `n` is `leaves[base0 + popcount(leaf_starts() & mask(n)) - 1]`, with
/// `mask(n)` keeping bits `0..=n`, in both layouts.
pub(crate) trait Record:
    Copy + Default + Eq + Send + Sync + std::fmt::Debug + 'static
{
    /// Runs of equal leaves are stored once (`leafvec`); when false every leaf slot has its
    /// own leaf.
    const LEAFVEC: bool;
    /// The record of a node with these vectors and bases; `leafvec` (the slots that start a
    /// run) is only read by the `leafvec` layout, whose build sets it.
    fn new(vector: u64, leafvec: u64, base0: u32, base1: u32) -> Self;
    /// Bit `n`: slot `n` continues in an internal child.
    fn vector(&self) -> u64;
    /// Bit `n`: leaf slot `n` takes the next leaf of the node's leaf block.
    fn leaf_starts(&self) -> u64;
    /// The first leaf of the node's leaf block.
    fn base0(&self) -> u32;
    /// The first record of the node's children block.
    fn base1(&self) -> u32;
    /// The same record with its children block at `base1`.
    fn with_base1(self, base1: u32) -> Self;
    /// Number of internal children.
    #[inline]
    fn children(&self) -> u32 {
        self.vector().count_ones()
    }
    /// Number of stored leaves.
    #[inline]
    fn leaf_count(&self) -> u32 {
        self.leaf_starts().count_ones()
    }
}

/// An internal node (§3.1–3.3): 24 bytes.
///
/// - `vector` bit `n`: slot `n` (chunk value `n`) continues in an internal child;
/// - `leafvec` bit `n`: slot `n` is a leaf slot that starts a new run of equal leaves (slots
///   with an internal child are holes and never set a bit, so runs continue across them);
/// - children are `nodes[base1 ..]` in slot order, `popcount(vector)` of them;
/// - leaves are `leaves[base0 ..]`, `popcount(leafvec)` of them.
///
/// The child of slot `n` is `nodes[base1 + popcount(vector & mask(n)) - 1]` and the leaf of a
/// leaf slot is `leaves[base0 + popcount(leafvec & mask(n)) - 1]`, `mask(n)` keeping bits
/// `0..=n`.
///
/// Two or three records in every eight straddle a cache line (by the arena's alignment);
/// neither padding them to 32 bytes nor prefetching a record's last byte as well helped
/// (`docs/lab/poptrie.md`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    pub vector: u64,
    pub leafvec: u64,
    pub base0: u32,
    pub base1: u32,
}

impl Record for Node {
    const LEAFVEC: bool = true;
    #[inline(always)]
    fn new(vector: u64, leafvec: u64, base0: u32, base1: u32) -> Self {
        Node { vector, leafvec, base0, base1 }
    }
    #[inline(always)]
    fn vector(&self) -> u64 {
        self.vector
    }
    #[inline(always)]
    fn leaf_starts(&self) -> u64 {
        self.leafvec
    }
    #[inline(always)]
    fn base0(&self) -> u32 {
        self.base0
    }
    #[inline(always)]
    fn base1(&self) -> u32 {
        self.base1
    }
    #[inline(always)]
    fn with_base1(self, base1: u32) -> Self {
        Node { base1, ..self }
    }
}

/// The basic internal node (§3.1–3.2, `leafvec=off`): 16 bytes, no `leafvec`.
///
/// - `vector` as in [`Node`]; children are `nodes[base1 ..]` in slot order;
/// - every slot whose `vector` bit is clear has a leaf of its own (no run compression):
///   leaves are `leaves[base0 ..]`, `64 - popcount(vector)` of them, in slot order.
///
/// The leaf of leaf slot `n` is `leaves[base0 + popcount(!vector & mask(n)) - 1]`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Basic {
    pub vector: u64,
    pub base0: u32,
    pub base1: u32,
}

impl Record for Basic {
    const LEAFVEC: bool = false;
    #[inline(always)]
    fn new(vector: u64, _leafvec: u64, base0: u32, base1: u32) -> Self {
        Basic { vector, base0, base1 }
    }
    #[inline(always)]
    fn vector(&self) -> u64 {
        self.vector
    }
    #[inline(always)]
    fn leaf_starts(&self) -> u64 {
        !self.vector
    }
    #[inline(always)]
    fn base0(&self) -> u32 {
        self.base0
    }
    #[inline(always)]
    fn base1(&self) -> u32 {
        self.base1
    }
    #[inline(always)]
    fn with_base1(self, base1: u32) -> Self {
        Basic { base1, ..self }
    }
}

const _: () = assert!(std::mem::size_of::<Basic>() == 16 && std::mem::size_of::<Node>() == 24);

// SAFETY: `repr(C)` of two `u64` and two `u32`: 24 bytes without padding, any bits a value,
// no destructor; on a little-endian target its bytes are the export record's (`record.rs`).
unsafe impl Plain for Node {}

/// Bits `0..=n` set.
#[inline(always)]
pub(crate) fn upto(n: u32) -> u64 {
    u64::MAX >> (63 - n)
}

/// A fixed-capacity array that the single writer fills while readers read other slots; or,
/// read-only, a slice of a mapped snapshot ([`Slab`]).
pub(crate) struct Arena<T> {
    slots: Slab<UnsafeCell<T>>,
}

// SAFETY: readers only read slots that were completely written before they were published
// (a Release store they observe with an Acquire load); the one writer only writes slots no
// reader can reach (fresh blocks, or blocks retired past a grace period). So no slot is ever
// read and written concurrently.
unsafe impl<T: Send + Sync> Sync for Arena<T> {}

impl<T: Copy + Default> Arena<T> {
    /// An arena of `cap` default slots.
    pub(crate) fn new(cap: usize) -> Self {
        Arena { slots: (0..cap).map(|_| UnsafeCell::new(T::default())).collect() }
    }

    /// An arena holding exactly `v`.
    pub(crate) fn from_vec(v: Vec<T>) -> Self {
        Arena { slots: v.into_iter().map(UnsafeCell::new).collect() }
    }

    /// A copy with a larger capacity (same indices).
    pub(crate) fn grown(&self, cap: usize) -> Self {
        debug_assert!(cap >= self.slots.len());
        let mut v: Vec<UnsafeCell<T>> = Vec::with_capacity(cap);
        // SAFETY: the caller is the writer; reading every slot races with no write.
        v.extend(self.slots.iter().map(|c| UnsafeCell::new(unsafe { *c.get() })));
        v.resize_with(cap, || UnsafeCell::new(T::default()));
        Arena { slots: v.into_boxed_slice().into() }
    }

    /// The elements of `region` at byte range `bytes`, read-only (see [`Slab::in_region`]).
    pub(crate) fn in_region(region: &Arc<Region>, bytes: Range<usize>) -> Option<Self>
    where
        T: Plain,
    {
        Some(Arena { slots: Slab::in_region(region, bytes)? })
    }

    /// A copy of the same capacity.
    pub(crate) fn copy(&self) -> Self {
        self.grown(self.capacity())
    }

    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Reads slot `i` (bounds-checked).
    #[inline]
    pub(crate) fn get(&self, i: u32) -> T {
        // SAFETY: see the `Sync` impl: a readable slot is never being written.
        unsafe { *self.slots[i as usize].get() }
    }

    /// Reads slot `i` without a bounds check.
    ///
    /// # Safety
    /// `i < capacity()`.
    #[inline(always)]
    pub(crate) unsafe fn get_unchecked(&self, i: u32) -> T {
        debug_assert!((i as usize) < self.slots.len());
        // SAFETY: in bounds by the caller's contract; never written concurrently (`Sync`).
        unsafe { *self.slots.get_unchecked(i as usize).get() }
    }

    /// Base pointer for prefetching and SIMD gathers.
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> *const T {
        self.slots.as_ptr() as *const T
    }

    /// Writes slot `i`.
    ///
    /// # Safety
    /// Only the writer calls this, and only for slots no reader can reach (not yet published,
    /// or retired past a grace period); never on a mapped arena (it has no writer).
    #[inline]
    pub(crate) unsafe fn set(&self, i: u32, value: T) {
        debug_assert!(!self.slots.is_mapped(), "a write into a mapped snapshot");
        // SAFETY: exclusive by the caller's contract.
        unsafe { *self.slots[i as usize].get() = value }
    }
}

/// The arrays a lookup reads: direct-pointing entries, nodes (records of layout `N`), leaves.
pub(crate) struct Core<A: Key, L: Leaf, N: Record = Node> {
    /// `2^s` entries: a raw next hop or the index of the node for that `/s` (`dir.rs`).
    pub(crate) dir: DirTable,
    pub(crate) nodes: Arena<N>,
    pub(crate) leaves: Arena<L>,
    /// Root fan-out (`fanout.rs`): 64 records per root slot, only with a narrow `dir` and
    /// the `leafvec` layout.
    pub(crate) fanout: Option<Arena<N>>,
    /// Direct-pointing bits.
    pub(crate) s: u32,
    _addr: PhantomData<A>,
}

impl<A: Key, L: Leaf, N: Record> Core<A, L, N> {
    pub(crate) fn new(
        s: u32,
        dir: DirTable,
        nodes: Arena<N>,
        leaves: Arena<L>,
        fanout: Option<Arena<N>>,
    ) -> Self {
        debug_assert_eq!(dir.len(), 1 << s);
        debug_assert!(fanout.is_none() || (dir.bits() == 16 && N::LEAFVEC));
        Core { dir, nodes, leaves, fanout, s, _addr: PhantomData }
    }

    /// A copy with larger arenas and the same contents (writer only).
    pub(crate) fn grown(&self, node_cap: usize, leaf_cap: usize) -> Self {
        let fanout = self.fanout.as_ref().map(Arena::copy);
        self.copy_with(self.dir.copy(), node_cap, leaf_cap, fanout)
    }

    /// A copy whose direct-pointing entries are 32 bits wide, without fan-out (writer only).
    pub(crate) fn with_wide_dir(&self) -> Self {
        let (nodes, leaves) = (self.nodes.capacity(), self.leaves.capacity());
        self.copy_with(self.dir.widened(), nodes, leaves, None)
    }

    /// A copy of the arenas (grown to these capacities) with `dir` and `fanout`.
    fn copy_with(
        &self,
        dir: DirTable,
        node_cap: usize,
        leaf_cap: usize,
        fanout: Option<Arena<N>>,
    ) -> Self {
        let (nodes, leaves) = (self.nodes.grown(node_cap), self.leaves.grown(leaf_cap));
        Core { dir, nodes, leaves, fanout, s: self.s, _addr: PhantomData }
    }

    /// The same structure with another leaf width (writer only; values must fit).
    pub(crate) fn rewidened<M: Leaf>(&self) -> Core<A, M, N> {
        let leaves = Arena::new(self.leaves.capacity());
        for i in 0..self.leaves.capacity() as u32 {
            // SAFETY: the new arena is private to the writer until published.
            unsafe { leaves.set(i, M::from_raw(self.leaves.get(i).raw().min(M::MAX_RAW))) };
        }
        Core {
            dir: self.dir.copy(),
            nodes: self.nodes.copy(),
            leaves,
            fanout: self.fanout.as_ref().map(Arena::copy),
            s: self.s,
            _addr: PhantomData,
        }
    }

    /// Bytes of every array.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.dir.memory_bytes()
            + self.nodes.capacity() * std::mem::size_of::<N>()
            + self.fanout.as_ref().map_or(0, |f| f.capacity() * std::mem::size_of::<N>())
            + self.leaves.capacity() * std::mem::size_of::<L>()
            + std::mem::size_of::<Self>()
    }

    /// The direct-pointing entry `i`, as readers see it.
    #[inline(always)]
    pub(crate) fn direct(&self, i: usize) -> u32 {
        self.dir.entry(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_zero_padded() {
        let a: u32 = 0xC0A8_0103;
        assert_eq!(a.chunk(0), 0xC0 >> 2);
        assert_eq!(a.chunk(26), 0x03);
        assert_eq!(a.chunk(30), 0b11 << 4);
        assert_eq!(a.top(0), 0);
        assert_eq!(a.top(8), 0xC0);
        assert_eq!(a.top(18), (a >> 14) as usize);
        let b: u128 = (0x2001u128 << 112) | 0b10;
        assert_eq!(b.top(0), 0);
        assert_eq!(b.top(16), 0x2001);
        assert_eq!(b.chunk(0), 0x2001 >> 10);
        assert_eq!(b.chunk(126), 0b10 << 4);
        assert_eq!(b.chunk(122), 0b10);
        assert_eq!(u32::inv_chunk(a.cursor(26)), 63 - 0x03);
        assert_eq!(u32::inv_chunk(u32::advance(a.cursor(24))), 63 - (0b11 << 4));
        assert_eq!(u128::inv_chunk(u128::advance(b.cursor(120))), 63 - (0b10 << 4));
    }

    #[test]
    fn masks() {
        assert_eq!(upto(0), 1);
        assert_eq!(upto(5), 0x3f);
        assert_eq!(upto(63), u64::MAX);
    }
}
