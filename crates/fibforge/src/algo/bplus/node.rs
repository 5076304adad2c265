//! One tree node: a 64-byte line of sorted keys, and its rank (how many keys are `<=` a
//! probe) in three instruction sets chosen once at build time.
//!
//! IPv4 nodes hold 16 `u32` keys, IPv6 nodes 8 `u64` keys (the top 64 address bits). The
//! rank of a node is the child to descend into (inner levels) or one past the predecessor
//! (the leaf level). AVX-512 compares the line against the probe into a k-mask; AVX2
//! compares signed lanes after flipping the sign bit of both sides (it has no unsigned
//! 64-bit compare); the portable twin counts in a loop. All three give the same rank, and
//! the tests check that on every table.

/// Header words of a relative leaf line (`leaf.rs`: base low and high, first position,
/// shift); the rank of such a line counts only the words after them.
pub(super) const HEAD: usize = 4;
/// Bit mask of the offset lanes of a relative leaf line.
pub(super) const OFFSET_LANES: u32 = 0xFFFF & !((1 << HEAD) - 1);

/// A key type of the tree: `u32` (IPv4) or `u64` (IPv6 top half).
pub trait TreeKey: Copy + Ord + Default + Send + Sync + std::fmt::Debug + 'static {
    /// Keys per 64-byte node.
    const PER_NODE: usize;
    /// The padding key; real keys are always smaller (see `Tree`).
    const MAX: Self;
    /// `MAX - 1`, the largest probe a descent sees.
    const MAX_BELOW: Self;
    /// One node.
    type Line: Copy + Send + Sync + 'static + AsRef<[Self]> + AsMut<[Self]>;
    /// A node of padding keys.
    const PADDING: Self::Line;
    /// Keys of `line` that are `<= x`, counted with the instruction set `I`.
    fn rank<I: Isa>(line: &Self::Line, x: Self) -> usize;
    /// Widens to `u128` (for the full-address bounds of intervals).
    fn to_u128(self) -> u128;
    /// Narrows from `u128`, keeping the low bits.
    fn from_u128_lossy(v: u128) -> Self;
}

/// A 64-byte line of 16 IPv4 keys.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Line32(pub [u32; 16]);

/// A 64-byte line of 8 IPv6 (top 64-bit) keys.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Line64(pub [u64; 8]);

macro_rules! line_slices {
    ($line:ty, $key:ty) => {
        impl AsRef<[$key]> for $line {
            fn as_ref(&self) -> &[$key] {
                &self.0
            }
        }
        impl AsMut<[$key]> for $line {
            fn as_mut(&mut self) -> &mut [$key] {
                &mut self.0
            }
        }
    };
}
line_slices!(Line32, u32);
line_slices!(Line64, u64);

impl TreeKey for u32 {
    const PER_NODE: usize = 16;
    const MAX: u32 = u32::MAX;
    const MAX_BELOW: u32 = u32::MAX - 1;
    type Line = Line32;
    const PADDING: Line32 = Line32([u32::MAX; 16]);
    #[inline(always)]
    fn rank<I: Isa>(line: &Line32, x: u32) -> usize {
        I::rank32(line, x)
    }
    fn to_u128(self) -> u128 {
        self as u128
    }
    fn from_u128_lossy(v: u128) -> u32 {
        v as u32
    }
}

impl TreeKey for u64 {
    const PER_NODE: usize = 8;
    const MAX: u64 = u64::MAX;
    const MAX_BELOW: u64 = u64::MAX - 1;
    type Line = Line64;
    const PADDING: Line64 = Line64([u64::MAX; 8]);
    #[inline(always)]
    fn rank<I: Isa>(line: &Line64, x: u64) -> usize {
        I::rank64(line, x)
    }
    fn to_u128(self) -> u128 {
        self as u128
    }
    fn from_u128_lossy(v: u128) -> u64 {
        v as u64
    }
}

/// An instruction set for node ranks. Its methods are `#[inline(always)]` so that they
/// compile with the target features of the lookup function they are inlined into (the
/// lookups of `lookup.rs` are instantiated once per instruction set, each inside a function
/// enabling that set).
pub trait Isa: Copy + Send + Sync + 'static {
    /// Keys of `line` `<= x`.
    fn rank32(line: &Line32, x: u32) -> usize;
    /// Keys of `line` `<= x`.
    fn rank64(line: &Line64, x: u64) -> usize;
    /// Offset lanes of a relative leaf line (`leaf.rs`: words `HEAD..16`) `<= d`.
    fn rank_rel(line: &Line32, d: u32) -> usize;
}

/// Plain Rust: a count over the line (the compiler vectorises it with the baseline SSE2).
#[derive(Copy, Clone, Debug)]
pub(super) struct Portable;

impl Isa for Portable {
    #[inline(always)]
    fn rank32(line: &Line32, x: u32) -> usize {
        line.0.iter().map(|&k| (k <= x) as usize).sum()
    }
    #[inline(always)]
    fn rank64(line: &Line64, x: u64) -> usize {
        line.0.iter().map(|&k| (k <= x) as usize).sum()
    }
    #[inline(always)]
    fn rank_rel(line: &Line32, d: u32) -> usize {
        line.0[HEAD..].iter().map(|&k| (k <= d) as usize).sum()
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::OFFSET_LANES;
    use super::{Isa, Line32, Line64};
    use std::arch::x86_64::*;

    /// AVX2 signed compares on sign-flipped lanes, two 32-byte halves per line.
    #[derive(Copy, Clone, Debug)]
    pub(crate) struct Avx2;

    impl Isa for Avx2 {
        #[inline(always)]
        fn rank32(line: &Line32, x: u32) -> usize {
            // SAFETY: only instantiated inside functions that enable `avx2` and `popcnt`,
            // which callers enter after runtime detection (`crate::cpu::Isa`); the line is
            // 64-byte aligned, so both aligned 32-byte loads are in bounds.
            unsafe {
                let flip = _mm256_set1_epi32(i32::MIN);
                let probe = _mm256_xor_si256(_mm256_set1_epi32(x as i32), flip);
                let p = line.0.as_ptr() as *const __m256i;
                let a = _mm256_xor_si256(_mm256_load_si256(p), flip);
                let b = _mm256_xor_si256(_mm256_load_si256(p.add(1)), flip);
                // Lanes with key > x; the rank is the lanes left over.
                let gt_a = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, probe)));
                let gt_b = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(b, probe)));
                16 - (gt_a | (gt_b << 8)).count_ones() as usize
            }
        }
        #[inline(always)]
        fn rank64(line: &Line64, x: u64) -> usize {
            // SAFETY: as in `rank32`.
            unsafe {
                let flip = _mm256_set1_epi64x(i64::MIN);
                let probe = _mm256_xor_si256(_mm256_set1_epi64x(x as i64), flip);
                let p = line.0.as_ptr() as *const __m256i;
                let a = _mm256_xor_si256(_mm256_load_si256(p), flip);
                let b = _mm256_xor_si256(_mm256_load_si256(p.add(1)), flip);
                let gt_a = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, probe)));
                let gt_b = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(b, probe)));
                8 - (gt_a | (gt_b << 4)).count_ones() as usize
            }
        }
        #[inline(always)]
        fn rank_rel(line: &Line32, d: u32) -> usize {
            // SAFETY: as in `rank32`.
            unsafe {
                let flip = _mm256_set1_epi32(i32::MIN);
                let probe = _mm256_xor_si256(_mm256_set1_epi32(d as i32), flip);
                let p = line.0.as_ptr() as *const __m256i;
                let a = _mm256_xor_si256(_mm256_load_si256(p), flip);
                let b = _mm256_xor_si256(_mm256_load_si256(p.add(1)), flip);
                let gt_a = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, probe)));
                let gt_b = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(b, probe)));
                // Offset lanes not above the probe's offset.
                (!(gt_a as u32 | ((gt_b as u32) << 8)) & OFFSET_LANES).count_ones() as usize
            }
        }
    }

    /// AVX-512 unsigned compares of the whole line into a k-mask.
    #[derive(Copy, Clone, Debug)]
    pub(crate) struct Avx512;

    impl Isa for Avx512 {
        #[inline(always)]
        fn rank32(line: &Line32, x: u32) -> usize {
            // SAFETY: only instantiated inside functions that enable `avx512f` and `popcnt`,
            // entered after runtime detection; the line is one aligned 64-byte vector.
            unsafe {
                let keys = _mm512_load_si512(line.0.as_ptr() as *const _);
                _mm512_cmple_epu32_mask(keys, _mm512_set1_epi32(x as i32)).count_ones() as usize
            }
        }
        #[inline(always)]
        fn rank64(line: &Line64, x: u64) -> usize {
            // SAFETY: as in `rank32`.
            unsafe {
                let keys = _mm512_load_si512(line.0.as_ptr() as *const _);
                _mm512_cmple_epu64_mask(keys, _mm512_set1_epi64(x as i64)).count_ones() as usize
            }
        }
        #[inline(always)]
        fn rank_rel(line: &Line32, d: u32) -> usize {
            // SAFETY: as in `rank32`.
            unsafe {
                let keys = _mm512_load_si512(line.0.as_ptr() as *const _);
                let le = _mm512_cmple_epu32_mask(keys, _mm512_set1_epi32(d as i32));
                (le as u32 & OFFSET_LANES).count_ones() as usize
            }
        }
    }
}
