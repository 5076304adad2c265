//! Batch hashing of IPv6 keys: the double-hashing pairs of many 128-bit keys at once
//! (the paper's §4.3.2 vectorised hashing, for the IPv6 side).
//!
//! An IPv6 key is first folded to 64 bits ([`fold128`], which is `BloomKey::fold64`; exact for lengths ≤ 64), then
//! hashed by [`HashFn::pair64`]:
//! - **Murmur** (the IPv6 default) is MurmurHash3 x64_128 on the 64-bit key: six 64-bit
//!   multiplies per key. AVX-512 runs 8 keys per step with `vpmullq` (AVX-512DQ); AVX2 runs 4
//!   with each 64-bit multiply made of three `vpmuludq` 32×32→64 products
//!   (`lo·lo + (hi·lo + lo·hi) << 32`).
//! - **H2** and **Knuth** are 32-bit functions that see the key folded once more to 32 bits
//!   ([`fold32`]); the folded keys go through the IPv4 batch hashing ([`simd::hash_pairs_with`],
//!   16 or 8 lanes of 32 bits).
//!
//! The folds are scalar: one pass per chunk of keys into a buffer on the stack (to 64 bits for
//! Murmur, straight to 32 bits for H2 and Knuth). Compiling them with AVX-512 enabled (the
//! compiler then vectorises them) did not make batch lookups faster, since they wait on
//! memory, so the folds stay portable and safe (`docs/lab/bloom.md`).
//! [`pairs64_scalar`] is the scalar twin: tests compare every available instruction set with it
//! on random and edge keys, for every function and every key length.

use super::hash::{HashFn, fold32, fold128};
use super::simd;
use crate::cpu::Isa;

/// Keys folded per round (the size of the stack buffers).
const CHUNK: usize = 64;

/// The scalar twin: `(a[i], b[i]) = f.pair64(keys[i])`.
pub(crate) fn pairs64_scalar(f: HashFn, keys: &[u64], a: &mut [u32], b: &mut [u32]) {
    for ((k, a), b) in keys.iter().zip(a).zip(b) {
        (*a, *b) = f.pair64(*k);
    }
}

/// Pairs of 64-bit keys with a chosen instruction set (scalar where it is unavailable).
///
/// # Panics
/// When `a` or `b` is shorter than `keys`.
pub(crate) fn hash_pairs64_with(isa: Isa, f: HashFn, keys: &[u64], a: &mut [u32], b: &mut [u32]) {
    assert!(a.len() >= keys.len() && b.len() >= keys.len(), "outputs shorter than keys");
    if f != HashFn::Murmur {
        let mut folded = [0u32; CHUNK];
        for (i, chunk) in keys.chunks(CHUNK).enumerate() {
            let s = i * CHUNK..i * CHUNK + chunk.len();
            for (x, &k) in folded.iter_mut().zip(chunk) {
                *x = fold32(k);
            }
            simd::hash_pairs_with(isa, f, &folded[..chunk.len()], &mut a[s.clone()], &mut b[s]);
        }
        return;
    }
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if isa.available() => {
            // SAFETY: the CPU has the AVX-512 level, so AVX-512F and DQ (checked above); lengths checked by the assert.
            unsafe { x86::murmur_avx512(keys, a, b) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 if isa.available() => {
            // SAFETY: the CPU has the AVX2 level, so AVX2 (checked above); lengths checked by the assert.
            unsafe { x86::murmur_avx2(keys, a, b) }
        }
        _ => 0,
    };
    pairs64_scalar(f, &keys[done..], &mut a[done..], &mut b[done..]);
}

/// Pairs of IPv6 keys (`BloomKey::pair` of each) with a chosen instruction set.
///
/// # Panics
/// When `a` or `b` is shorter than `keys`.
pub(crate) fn hash_pairs128_with(isa: Isa, f: HashFn, keys: &[u128], a: &mut [u32], b: &mut [u32]) {
    assert!(a.len() >= keys.len() && b.len() >= keys.len(), "outputs shorter than keys");
    let (mut wide, mut narrow) = ([0u64; CHUNK], [0u32; CHUNK]);
    for (i, chunk) in keys.chunks(CHUNK).enumerate() {
        let (n, s) = (chunk.len(), i * CHUNK..i * CHUNK + chunk.len());
        if f == HashFn::Murmur {
            fold64(chunk, &mut wide);
            hash_pairs64_with(isa, f, &wide[..n], &mut a[s.clone()], &mut b[s]);
        } else {
            fold32_all(chunk, &mut narrow);
            simd::hash_pairs_with(isa, f, &narrow[..n], &mut a[s.clone()], &mut b[s]);
        }
    }
}

/// `out[i] = fold128(keys[i])`.
#[inline(always)]
fn fold64(keys: &[u128], out: &mut [u64]) {
    for (x, &k) in out.iter_mut().zip(keys) {
        *x = fold128(k);
    }
}

/// `out[i] = fold32(fold128(keys[i]))`: H2 and Knuth keys in one pass.
#[inline(always)]
fn fold32_all(keys: &[u128], out: &mut [u32]) {
    for (x, &k) in out.iter_mut().zip(keys) {
        *x = fold32(fold128(k));
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    const F1: u64 = 0xff51_afd7_ed55_8ccd;
    const F2: u64 = 0xc4ce_b9fe_1a85_ec53;

    /// MurmurHash3 x64_128 (seed 0) of 8 one-block keys: the two 64-bit halves.
    #[target_feature(enable = "avx512f,avx512dq")]
    fn murmur8(x: __m512i) -> (__m512i, __m512i) {
        let mul = |v, c: u64| _mm512_mullo_epi64(v, _mm512_set1_epi64(c as i64));
        let xs33 = |v| _mm512_xor_si512(_mm512_srli_epi64::<33>(v), v);
        let fmix = |v| xs33(mul(xs33(mul(xs33(v), F1)), F2));
        let eight = _mm512_set1_epi64(8);
        let k1 = mul(_mm512_rol_epi64::<31>(mul(x, C1)), C2);
        let h1 = _mm512_add_epi64(_mm512_xor_si512(k1, eight), eight);
        let h2 = _mm512_add_epi64(eight, h1);
        let (h1, h2) = (fmix(h1), fmix(h2));
        let h1 = _mm512_add_epi64(h1, h2);
        (h1, _mm512_add_epi64(h2, h1))
    }

    /// The high 32 bits of each 64-bit lane, packed.
    #[target_feature(enable = "avx512f")]
    fn high32x8(v: __m512i) -> __m256i {
        _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(v))
    }

    /// Murmur pairs for the longest multiple of 8 keys; returns how many were done.
    ///
    /// # Safety
    /// AVX-512F and AVX-512DQ must be available; `a` and `b` at least as long as `keys`.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn murmur_avx512(keys: &[u64], a: &mut [u32], b: &mut [u32]) -> usize {
        let n = keys.len() / 8 * 8;
        for i in (0..n).step_by(8) {
            // SAFETY: i + 8 <= n <= keys.len() <= a.len(), b.len(); unaligned loads and stores.
            unsafe {
                let (h1, h2) = murmur8(_mm512_loadu_si512(keys.as_ptr().add(i).cast()));
                _mm256_storeu_si256(a.as_mut_ptr().add(i).cast(), high32x8(h1));
                _mm256_storeu_si256(b.as_mut_ptr().add(i).cast(), high32x8(h2));
            }
        }
        n
    }

    /// `v · c mod 2^64` per 64-bit lane from 32×32→64 products:
    /// `lo(v)·lo(c) + ((hi(v)·lo(c) + lo(v)·hi(c)) << 32)`.
    #[target_feature(enable = "avx2")]
    fn mul64x4(v: __m256i, c: u64) -> __m256i {
        let (lo, hi) = (_mm256_set1_epi64x(c as u32 as i64), _mm256_set1_epi64x((c >> 32) as i64));
        let cross = _mm256_add_epi64(
            _mm256_mul_epu32(_mm256_srli_epi64::<32>(v), lo),
            _mm256_mul_epu32(v, hi),
        );
        _mm256_add_epi64(_mm256_mul_epu32(v, lo), _mm256_slli_epi64::<32>(cross))
    }

    /// MurmurHash3 x64_128 (seed 0) of 4 one-block keys: the two 64-bit halves.
    #[target_feature(enable = "avx2")]
    fn murmur4(x: __m256i) -> (__m256i, __m256i) {
        let xs33 = |v| _mm256_xor_si256(_mm256_srli_epi64::<33>(v), v);
        let fmix = |v| xs33(mul64x4(xs33(mul64x4(xs33(v), F1)), F2));
        let eight = _mm256_set1_epi64x(8);
        let k1 = mul64x4(x, C1);
        let k1 = _mm256_or_si256(_mm256_slli_epi64::<31>(k1), _mm256_srli_epi64::<33>(k1));
        let k1 = mul64x4(k1, C2);
        let h1 = _mm256_add_epi64(_mm256_xor_si256(k1, eight), eight);
        let h2 = _mm256_add_epi64(eight, h1);
        let (h1, h2) = (fmix(h1), fmix(h2));
        let h1 = _mm256_add_epi64(h1, h2);
        (h1, _mm256_add_epi64(h2, h1))
    }

    /// The high 32 bits of each 64-bit lane, packed into the low 128 bits.
    #[target_feature(enable = "avx2")]
    fn high32x4(v: __m256i) -> __m128i {
        let odd = _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7);
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, odd))
    }

    /// Murmur pairs for the longest multiple of 4 keys; returns how many were done.
    ///
    /// # Safety
    /// AVX2 must be available; `a` and `b` at least as long as `keys`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn murmur_avx2(keys: &[u64], a: &mut [u32], b: &mut [u32]) -> usize {
        let n = keys.len() / 4 * 4;
        for i in (0..n).step_by(4) {
            // SAFETY: i + 4 <= n <= keys.len() <= a.len(), b.len(); unaligned loads and stores.
            unsafe {
                let (h1, h2) = murmur4(_mm256_loadu_si256(keys.as_ptr().add(i).cast()));
                _mm_storeu_si128(a.as_mut_ptr().add(i).cast(), high32x4(h1));
                _mm_storeu_si128(b.as_mut_ptr().add(i).cast(), high32x4(h2));
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::super::key::BloomKey;
    use super::*;
    use crate::addr::Address;

    const FUNCTIONS: [HashFn; 3] = [HashFn::H2, HashFn::Murmur, HashFn::Knuth];

    /// Random 128-bit values and edge patterns (all zeros, all ones, single bits, halves).
    fn raw_keys() -> Vec<u128> {
        let mut rng = crate::verify::XorShift64::new(0x2545_f491_4f6c_dd1d);
        let mut v: Vec<u128> = (0..501).map(|_| rng.next_u128()).collect();
        v.extend([0, 1, u128::MAX, 1 << 127, 1 << 64, (1 << 64) - 1, u128::MAX << 64]);
        v.push(0x2001_0db8_0000_0000_0000_0000_0000_0000);
        v
    }

    /// Every key of `raw_keys` truncated to `len` bits, as a level of that length makes them.
    fn keys_at(len: u32) -> Vec<u128> {
        raw_keys().into_iter().map(|k| k & u128::netmask(len)).collect()
    }

    #[test]
    fn every_isa_equals_the_scalar_twin_on_64_bit_keys() {
        let keys: Vec<u64> =
            raw_keys().iter().flat_map(|&k| [k as u64, (k >> 64) as u64]).collect();
        for f in FUNCTIONS {
            let (mut a0, mut b0) = (vec![0; keys.len()], vec![0; keys.len()]);
            pairs64_scalar(f, &keys, &mut a0, &mut b0);
            for isa in [Isa::Avx2, Isa::Avx512] {
                if !isa.available() {
                    eprintln!("{isa:?} not available on this CPU: skipped");
                    continue;
                }
                let (mut a, mut b) = (vec![0; keys.len()], vec![0; keys.len()]);
                hash_pairs64_with(isa, f, &keys, &mut a, &mut b);
                assert_eq!(a, a0, "{isa:?} {f:?} first hash");
                assert_eq!(b, b0, "{isa:?} {f:?} second hash");
            }
        }
    }

    #[test]
    fn every_isa_equals_single_key_pairs_at_every_ipv6_length() {
        for len in 0..=128 {
            let keys = keys_at(len);
            for f in FUNCTIONS {
                let want: Vec<(u32, u32)> = keys.iter().map(|k| k.pair(f)).collect();
                for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512] {
                    if !isa.available() {
                        continue;
                    }
                    let (mut a, mut b) = (vec![0; keys.len()], vec![0; keys.len()]);
                    hash_pairs128_with(isa, f, &keys, &mut a, &mut b);
                    let got: Vec<(u32, u32)> = a.into_iter().zip(b).collect();
                    assert_eq!(got, want, "/{len} {isa:?} {f:?}");
                }
            }
        }
    }
}
