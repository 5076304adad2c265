//! Batch hashing of 32-bit keys with AVX-512 (16 lanes) and AVX2 (8 lanes) — the paper's
//! instruction-level parallelism (§4.3.2), which vectorises exactly this stage.
//!
//! [`hash_pairs_with`] computes the double-hashing pair `(a, b)` ([`HashFn::pair32`]) of every
//! key with the structure's instruction set ([`crate::cpu::Isa`], chosen when it is built)
//! and finishes the tail with the scalar twin [`pairs_scalar`]. Tests compare every available
//! path with the scalar twin on random and edge keys.

use super::hash::{HashFn, PAIR_SALT};
use crate::cpu::Isa;

/// The scalar twin: `(a[i], b[i]) = f.pair32(keys[i])`.
pub(crate) fn pairs_scalar(f: HashFn, keys: &[u32], a: &mut [u32], b: &mut [u32]) {
    for ((k, a), b) in keys.iter().zip(a).zip(b) {
        (*a, *b) = f.pair32(*k);
    }
}

/// Hash pairs with a chosen instruction set (falls back to scalar when it is unavailable).
///
/// # Panics
/// When `a` or `b` is shorter than `keys`.
pub(crate) fn hash_pairs_with(isa: Isa, f: HashFn, keys: &[u32], a: &mut [u32], b: &mut [u32]) {
    assert!(a.len() >= keys.len() && b.len() >= keys.len(), "outputs shorter than keys");
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if isa.available() => {
            // SAFETY: the CPU has the AVX-512 level, so AVX-512F (checked above); lengths checked by the assert.
            unsafe { x86::pairs_avx512(f, keys, a, b) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 if isa.available() => {
            // SAFETY: the CPU has the AVX2 level, so AVX2 (checked above); lengths checked by the assert.
            unsafe { x86::pairs_avx2(f, keys, a, b) }
        }
        _ => 0,
    };
    pairs_scalar(f, &keys[done..], &mut a[done..], &mut b[done..]);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{HashFn, PAIR_SALT};
    use std::arch::x86_64::*;

    const H2_MUL: i32 = 0x045d_9f3b;
    const KNUTH_MUL: i32 = 2_654_435_761u32 as i32;
    const M_C1: i32 = 0xcc9e_2d51u32 as i32;
    const M_C2: i32 = 0x1b87_3593;
    const M_ADD: i32 = 0xe654_6b64u32 as i32;
    const F_C1: i32 = 0x85eb_ca6bu32 as i32;
    const F_C2: i32 = 0xc2b2_ae35u32 as i32;

    #[target_feature(enable = "avx512f")]
    fn hash16(f: HashFn, x: __m512i) -> __m512i {
        let mul = |v, c: i32| _mm512_mullo_epi32(v, _mm512_set1_epi32(c));
        let xs16 = |v| _mm512_xor_si512(_mm512_srli_epi32::<16>(v), v);
        match f {
            HashFn::H2 => xs16(mul(xs16(mul(xs16(x), H2_MUL)), H2_MUL)),
            HashFn::Knuth => mul(x, KNUTH_MUL),
            HashFn::Murmur => {
                let k = mul(_mm512_rol_epi32::<15>(mul(x, M_C1)), M_C2);
                let h =
                    _mm512_add_epi32(mul(_mm512_rol_epi32::<13>(k), 5), _mm512_set1_epi32(M_ADD));
                let h = _mm512_xor_si512(h, _mm512_set1_epi32(4));
                let h = mul(xs16(h), F_C1);
                let h = mul(_mm512_xor_si512(_mm512_srli_epi32::<13>(h), h), F_C2);
                xs16(h)
            }
        }
    }

    /// Pairs for the longest multiple of 16 keys; returns how many were done.
    ///
    /// # Safety
    /// AVX-512F must be available; `a` and `b` at least as long as `keys`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pairs_avx512(
        f: HashFn,
        keys: &[u32],
        a: &mut [u32],
        b: &mut [u32],
    ) -> usize {
        let n = keys.len() / 16 * 16;
        let salt = _mm512_set1_epi32(PAIR_SALT as i32);
        for i in (0..n).step_by(16) {
            // SAFETY: i + 16 <= n <= keys.len() <= a.len(), b.len(); unaligned loads and stores.
            unsafe {
                let x = _mm512_loadu_si512(keys.as_ptr().add(i).cast());
                let ha = hash16(f, x);
                let hb = hash16(f, _mm512_xor_si512(ha, salt));
                _mm512_storeu_si512(a.as_mut_ptr().add(i).cast(), ha);
                _mm512_storeu_si512(b.as_mut_ptr().add(i).cast(), hb);
            }
        }
        n
    }

    #[target_feature(enable = "avx2")]
    fn hash8(f: HashFn, x: __m256i) -> __m256i {
        let mul = |v, c: i32| _mm256_mullo_epi32(v, _mm256_set1_epi32(c));
        let xs16 = |v| _mm256_xor_si256(_mm256_srli_epi32::<16>(v), v);
        match f {
            HashFn::H2 => xs16(mul(xs16(mul(xs16(x), H2_MUL)), H2_MUL)),
            HashFn::Knuth => mul(x, KNUTH_MUL),
            HashFn::Murmur => {
                let k = mul(x, M_C1);
                let k = _mm256_or_si256(_mm256_slli_epi32::<15>(k), _mm256_srli_epi32::<17>(k));
                let k = mul(k, M_C2);
                let h = _mm256_or_si256(_mm256_slli_epi32::<13>(k), _mm256_srli_epi32::<19>(k));
                let h = _mm256_add_epi32(mul(h, 5), _mm256_set1_epi32(M_ADD));
                let h = _mm256_xor_si256(h, _mm256_set1_epi32(4));
                let h = mul(xs16(h), F_C1);
                let h = mul(_mm256_xor_si256(_mm256_srli_epi32::<13>(h), h), F_C2);
                xs16(h)
            }
        }
    }

    /// Pairs for the longest multiple of 8 keys; returns how many were done.
    ///
    /// # Safety
    /// AVX2 must be available; `a` and `b` at least as long as `keys`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pairs_avx2(
        f: HashFn,
        keys: &[u32],
        a: &mut [u32],
        b: &mut [u32],
    ) -> usize {
        let n = keys.len() / 8 * 8;
        let salt = _mm256_set1_epi32(PAIR_SALT as i32);
        for i in (0..n).step_by(8) {
            // SAFETY: i + 8 <= n <= keys.len() <= a.len(), b.len(); unaligned loads and stores.
            unsafe {
                let x = _mm256_loadu_si256(keys.as_ptr().add(i).cast());
                let ha = hash8(f, x);
                let hb = hash8(f, _mm256_xor_si256(ha, salt));
                _mm256_storeu_si256(a.as_mut_ptr().add(i).cast(), ha);
                _mm256_storeu_si256(b.as_mut_ptr().add(i).cast(), hb);
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<u32> {
        let mut rng = crate::verify::XorShift64::new(0x2545_f491);
        let mut v: Vec<u32> = (0..1003).map(|_| rng.next_u64() as u32).collect();
        v.extend([0, 1, u32::MAX, 0x8000_0000, 0xC0A8_0100, 0xFFFF_FF00]);
        v
    }

    #[test]
    fn every_isa_equals_the_scalar_twin() {
        let keys = keys();
        for f in [HashFn::H2, HashFn::Murmur, HashFn::Knuth] {
            let (mut a0, mut b0) = (vec![0; keys.len()], vec![0; keys.len()]);
            pairs_scalar(f, &keys, &mut a0, &mut b0);
            for isa in [Isa::Avx2, Isa::Avx512] {
                if !isa.available() {
                    eprintln!("{isa:?} not available on this CPU: skipped");
                    continue;
                }
                let (mut a, mut b) = (vec![0; keys.len()], vec![0; keys.len()]);
                hash_pairs_with(isa, f, &keys, &mut a, &mut b);
                assert_eq!(a, a0, "{isa:?} {f:?} first hash");
                assert_eq!(b, b0, "{isa:?} {f:?} second hash");
            }
        }
    }
}
