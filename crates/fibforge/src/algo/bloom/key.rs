//! [`BloomKey`]: what the Bloom structures need of an address type, for IPv4 (`u32`) and
//! IPv6 (`u128`) keys. Its own file, below the levels, key tables and batch hashing that use
//! it and above the hash functions and SIMD kernels it calls, so that none of them imports
//! another in a loop.

use super::hash::{HashFn, fold128};
use super::{simd, simd64};
use crate::addr::Address;
use crate::cpu::Isa;

/// Address types the Bloom structures can key on.
#[doc(hidden)]
pub trait BloomKey: Address {
    /// The key as 64 bits (exact for IPv4 and for IPv6 keys of length ≤ 64).
    fn fold64(self) -> u64;
    /// `self & mask` in the native width.
    fn and(self, mask: Self) -> Self;
    /// The top 64 bits (IPv6) or the whole key (IPv4): exact for keys of length ≤ 64.
    fn high64(self) -> u64;
    /// The inverse of [`BloomKey::high64`] on keys of length ≤ 64.
    fn from_high64(x: u64) -> Self;
    /// The double-hashing pair of this key under `f`.
    fn pair(self, f: HashFn) -> (u32, u32);
    /// Pairs of many keys at once with the instruction set `isa` (scalar where the CPU
    /// lacks it).
    fn pairs(isa: Isa, f: HashFn, keys: &[Self], a: &mut [u32], b: &mut [u32]);
}

impl BloomKey for u32 {
    #[inline(always)]
    fn fold64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn and(self, mask: Self) -> Self {
        self & mask
    }
    #[inline(always)]
    fn high64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_high64(x: u64) -> Self {
        x as u32
    }
    #[inline(always)]
    fn pair(self, f: HashFn) -> (u32, u32) {
        f.pair32(self)
    }
    fn pairs(isa: Isa, f: HashFn, keys: &[u32], a: &mut [u32], b: &mut [u32]) {
        simd::hash_pairs_with(isa, f, keys, a, b);
    }
}

impl BloomKey for u128 {
    #[inline(always)]
    fn fold64(self) -> u64 {
        fold128(self)
    }
    #[inline(always)]
    fn and(self, mask: Self) -> Self {
        self & mask
    }
    #[inline(always)]
    fn high64(self) -> u64 {
        (self >> 64) as u64
    }
    #[inline(always)]
    fn from_high64(x: u64) -> Self {
        (x as u128) << 64
    }
    #[inline(always)]
    fn pair(self, f: HashFn) -> (u32, u32) {
        f.pair64(self.fold64())
    }
    fn pairs(isa: Isa, f: HashFn, keys: &[u128], a: &mut [u32], b: &mut [u32]) {
        simd64::hash_pairs128_with(isa, f, keys, a, b);
    }
}
