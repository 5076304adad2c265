//! From addresses to tree keys, and from the RIB to the tree's elementary intervals.
//!
//! IPv4 keys are the whole address. IPv6 keys are the top 64 bits: a /64 block is one key,
//! and a block whose answers change inside it (routes /65–/128 in it) becomes one interval
//! tagged with a second stage, a side table of its exact full-address ranges.

use super::node::TreeKey;
use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::rib::Range;

/// Address families the interval tree handles.
#[doc(hidden)]
pub trait Key: Address {
    /// The tree key: the address (IPv4) or its top 64 bits (IPv6).
    type T: TreeKey;
    /// The key of `self`.
    fn top(self) -> Self::T;
    /// The first address whose key is `t`.
    fn block_first(t: Self::T) -> Self;
    /// The last address whose key is `t`.
    fn block_last(t: Self::T) -> Self;
    /// The top `bits` bits (`bits <= 32`) of the keys of 16 addresses, as the 32-bit lanes
    /// of a vector: the directory indices a batch gathers with (`dir.rs`).
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[cfg(target_arch = "x86_64")]
    unsafe fn top16(addrs: &[Self; 16], bits: u32) -> std::arch::x86_64::__m512i;
}

impl Key for u32 {
    type T = u32;
    #[inline(always)]
    fn top(self) -> u32 {
        self
    }
    fn block_first(t: u32) -> u32 {
        t
    }
    fn block_last(t: u32) -> u32 {
        t
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn top16(addrs: &[u32; 16], bits: u32) -> std::arch::x86_64::__m512i {
        // SAFETY: the caller's contract (AVX-512F).
        unsafe { crate::algo::top_bits::top16_v4(addrs, bits) }
    }
}

impl Key for u128 {
    type T = u64;
    #[inline(always)]
    fn top(self) -> u64 {
        (self >> 64) as u64
    }
    fn block_first(t: u64) -> u128 {
        (t as u128) << 64
    }
    fn block_last(t: u64) -> u128 {
        ((t as u128) << 64) | u64::MAX as u128
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn top16(addrs: &[u128; 16], bits: u32) -> std::arch::x86_64::__m512i {
        // The key is the high half, so its top bits are the address's.
        // SAFETY: the caller's contract (AVX-512F).
        unsafe { crate::algo::top_bits::top16_v6(addrs, bits) }
    }
}

/// What one elementary interval of the tree answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Answer<A: Address> {
    /// The same next hop for every address of the interval.
    Hop(Option<NextHop>),
    /// Exact full-address ranges (an IPv6 block with routes longer than /64), the first
    /// starting at the interval's first address.
    Ranges(Vec<Range<A>>),
}

/// The intervals of `ranges` (the RIB's partition of the address space) in key space:
/// ascending keys, the first 0, each with its answer; adjacent single-hop intervals differ.
pub(super) fn intervals<A: Key>(ranges: &[Range<A>]) -> Vec<(A::T, Answer<A>)> {
    let mut out: Vec<(A::T, Answer<A>)> = Vec::with_capacity(ranges.len());
    let mut push = |key: A::T, answer: Answer<A>| match (out.last(), &answer) {
        (Some((_, Answer::Hop(last))), Answer::Hop(h)) if last == h => {}
        _ => out.push((key, answer)),
    };
    let mut i = 0;
    while i < ranges.len() {
        let key = ranges[i].start.top();
        let first = A::block_first(key);
        let end = i + ranges[i..].iter().take_while(|r| r.start.top() == key).count();
        if end - i == 1 && ranges[i].start == first {
            push(key, Answer::Hop(ranges[i].hop));
        } else {
            // The range covering the block's first address starts here or before it (the
            // partition's first range starts at address 0, so `i > 0` when it is before).
            let mut block = Vec::with_capacity(end - i + 1);
            if ranges[i].start != first {
                block.push(Range { start: first, hop: ranges[i - 1].hop });
            }
            block.extend_from_slice(&ranges[i..end]);
            push(key, Answer::Ranges(block));
            // The last range runs on into the next block unless a range starts in it.
            let next_key_starts = ranges.get(end).is_some_and(|r| Some(r.start.top()) == next(key));
            if let (Some(k), false) = (next(key), next_key_starts) {
                push(k, Answer::Hop(ranges[end - 1].hop));
            }
        }
        i = end;
    }
    out
}

/// `key + 1`, or `None` at the end of the key space.
fn next<K: TreeKey>(key: K) -> Option<K> {
    (key < K::MAX).then(|| K::from_u128_lossy(key.to_u128() + 1))
}
