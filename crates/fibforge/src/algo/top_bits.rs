//! The top bits of 16 addresses at once (AVX-512): the index vector that the batch lookups of
//! Poptrie (its `dir`) and of the interval B+-tree (its directory) gather table entries with.
//! IPv6 addresses give theirs through a permute of their high halves.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The top `bits` bits (`bits <= 32`) of 16 IPv4 addresses, as the 32-bit lanes of a vector
/// (0 when `bits` is 0).
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn top16_v4(addrs: &[u32; 16], bits: u32) -> __m512i {
    // SAFETY: the caller's contract (AVX-512F); `addrs` is 64 bytes, one unaligned load. A
    // shift count of 32 gives 0 in every lane.
    unsafe {
        let a = _mm512_loadu_si512(addrs.as_ptr() as *const _);
        _mm512_srlv_epi32(a, _mm512_set1_epi32((32 - bits) as i32))
    }
}

/// The top `bits` bits (`bits <= 32`) of 16 IPv6 addresses, as the 32-bit lanes of a vector
/// (0 when `bits` is 0).
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn top16_v6(addrs: &[u128; 16], bits: u32) -> __m512i {
    // SAFETY: the caller's contract (AVX-512F); `addrs` is 256 bytes, read as four unaligned
    // 64-byte vectors of two u64 halves per address (low half first, little endian), so the
    // odd lanes are the high halves. A shift count of 64 gives 0 in every lane.
    unsafe {
        let p = addrs.as_ptr() as *const __m512i;
        let v = [0, 1, 2, 3].map(|i| _mm512_loadu_si512(p.add(i) as *const _));
        let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
        let shift = _mm512_set1_epi64((64 - bits) as i64);
        let high = |a, b| _mm512_srlv_epi64(_mm512_permutex2var_epi64(a, odd, b), shift);
        let (lo, hi) = (high(v[0], v[1]), high(v[2], v[3]));
        _mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm512_cvtepi64_epi32(lo)),
            _mm512_cvtepi64_epi32(hi),
        )
    }
}
