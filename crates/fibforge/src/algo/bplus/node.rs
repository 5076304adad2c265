//! One tree node: a 64-byte line of sorted keys, and its rank (how many keys are `<=` a
//! probe) in three instruction sets chosen once at build time.
//!
//! IPv4 nodes hold 16 `u32` keys, IPv6 nodes 8 `u64` keys (the top 64 address bits), the
//! latter stored with their sign bit flipped (`TreeKey::line_form`) so that signed compares,
//! all AVX2 has for 64-bit lanes, order them as unsigned without flipping the line on every
//! step. The rank of a node is the child to descend into (inner levels) or one past the
//! predecessor (the leaf level). AVX-512 compares the line against the probe into a k-mask;
//! AVX2 compares two 32-byte halves and packs the masks; the portable twin counts in a loop.
//! All three give the same rank, and the tests check that on every table.

/// Header words of a relative leaf line (`leaf.rs`: base low and high, first position,
/// shift); the rank of such a line counts only the words after them.
pub(super) const HEAD: usize = 4;
/// Bit mask of the offset lanes of a relative leaf line.
pub(super) const OFFSET_LANES: u32 = 0xFFFF & !((1 << HEAD) - 1);
/// The sign bit of a 64-bit key, flipped in its line form.
const SIGN: u64 = 1 << 63;

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
    /// A node of padding keys (in line form).
    const PADDING: Self::Line;
    /// The form of a key inside a line (`u64`: sign bit flipped; `u32`: unchanged); its own
    /// inverse.
    fn line_form(self) -> Self;
    /// A probe prepared by `I` for the ranks of one descent.
    type Probe<I: Isa>: Copy;
    /// The probe of key `x`, below `MAX` (every descent clamps its key).
    fn probe<I: Isa>(self) -> Self::Probe<I>;
    /// Keys of `line` that are `<=` the probe's key, counted with the instruction set `I`.
    fn rank<I: Isa>(line: &Self::Line, probe: Self::Probe<I>) -> usize;
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
    fn line_form(self) -> u32 {
        self
    }
    type Probe<I: Isa> = I::Probe32;
    #[inline(always)]
    fn probe<I: Isa>(self) -> I::Probe32 {
        I::probe32(self)
    }
    #[inline(always)]
    fn rank<I: Isa>(line: &Line32, probe: I::Probe32) -> usize {
        I::rank32(line, probe)
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
    const PADDING: Line64 = Line64([u64::MAX ^ SIGN; 8]);
    #[inline(always)]
    fn line_form(self) -> u64 {
        self ^ SIGN
    }
    type Probe<I: Isa> = I::Probe64;
    #[inline(always)]
    fn probe<I: Isa>(self) -> I::Probe64 {
        I::probe64(self)
    }
    #[inline(always)]
    fn rank<I: Isa>(line: &Line64, probe: I::Probe64) -> usize {
        I::rank64(line, probe)
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
/// enabling that set). A descent prepares its probe once, in the form the compares want,
/// and ranks every level's line against it. AVX2 probes are broadcast vectors; AVX-512
/// probes stay scalars that each compare broadcasts, because a batch keeps its lanes'
/// probes in memory, where a broadcast reads 8 bytes and a stored vector 64 (a 64-byte load
/// takes both of Zen 4's load pipes; `docs/lab/bplus.md`).
pub trait Isa: Copy + Send + Sync + 'static {
    /// A prepared 32-bit probe.
    type Probe32: Copy;
    /// A prepared 64-bit probe.
    type Probe64: Copy;
    /// The probe of `x` (below `u32::MAX`).
    fn probe32(x: u32) -> Self::Probe32;
    /// The probe of `x` (below `u64::MAX`).
    fn probe64(x: u64) -> Self::Probe64;
    /// Keys of `line` `<=` the probe's key.
    fn rank32(line: &Line32, probe: Self::Probe32) -> usize;
    /// Keys of `line` (in line form) `<=` the probe's key.
    fn rank64(line: &Line64, probe: Self::Probe64) -> usize;
    /// Offset lanes of a relative leaf line (`leaf.rs`: words `HEAD..16`) `<= d`.
    fn rank_rel(line: &Line32, d: u32) -> usize;
    /// Offsets of a hop leaf (`hopleaf.rs`, a 32-byte aligned half line) `<= d`.
    fn rank_offsets(offsets: &[u32; 8], d: u32) -> usize;
}

/// Plain Rust: a count over the line (the compiler vectorises it with the baseline SSE2).
#[derive(Copy, Clone, Debug)]
pub(super) struct Portable;

impl Isa for Portable {
    /// The key itself.
    type Probe32 = u32;
    /// The key in line form, as a signed number.
    type Probe64 = i64;
    #[inline(always)]
    fn probe32(x: u32) -> u32 {
        x
    }
    #[inline(always)]
    fn probe64(x: u64) -> i64 {
        x.line_form() as i64
    }
    #[inline(always)]
    fn rank32(line: &Line32, x: u32) -> usize {
        line.0.iter().map(|&k| (k <= x) as usize).sum()
    }
    #[inline(always)]
    fn rank64(line: &Line64, x: i64) -> usize {
        line.0.iter().map(|&k| (k as i64 <= x) as usize).sum()
    }
    #[inline(always)]
    fn rank_rel(line: &Line32, d: u32) -> usize {
        line.0[HEAD..].iter().map(|&k| (k <= d) as usize).sum()
    }
    #[inline(always)]
    fn rank_offsets(offsets: &[u32; 8], d: u32) -> usize {
        offsets.iter().map(|&k| (k <= d) as usize).sum()
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{HEAD, Isa, Line32, Line64, OFFSET_LANES, TreeKey};
    use std::arch::x86_64::*;

    /// AVX2, two 32-byte halves per line. 32-bit lanes: unsigned `key <= x` as
    /// `max(key, x) == x`; 64-bit lanes (no unsigned compare, no 64-bit max): signed
    /// compares of the line form.
    #[derive(Copy, Clone, Debug)]
    pub(crate) struct Avx2;

    impl Avx2 {
        /// Sign bits of the 32-bit lanes of `line` that are `<=` the broadcast `probe`: two
        /// bits per key in the order of `_mm256_packs_epi32` (words 0–3, then 8–11, of the
        /// line in the first 16 bits; see `rank_rel`).
        #[inline(always)]
        fn le_mask32(line: &Line32, probe: __m256i) -> u32 {
            // SAFETY: only instantiated inside functions that enable `avx2` and `popcnt`,
            // which callers enter after runtime detection (`crate::cpu::Isa`); the line is
            // 64-byte aligned, so both aligned 32-byte loads are in bounds.
            unsafe {
                let p = line.0.as_ptr() as *const __m256i;
                let le_a = _mm256_cmpeq_epi32(_mm256_max_epu32(_mm256_load_si256(p), probe), probe);
                let le_b =
                    _mm256_cmpeq_epi32(_mm256_max_epu32(_mm256_load_si256(p.add(1)), probe), probe);
                // Saturating packs keep all-ones and zero; the count does not care about order.
                _mm256_movemask_epi8(_mm256_packs_epi32(le_a, le_b)) as u32
            }
        }
    }

    impl Isa for Avx2 {
        /// The key in every lane.
        type Probe32 = __m256i;
        /// The line form of `x + 1` in every lane: `key <= x` is `x + 1 > key`.
        type Probe64 = __m256i;
        #[inline(always)]
        fn probe32(x: u32) -> __m256i {
            // SAFETY: as in `le_mask32` (a broadcast).
            unsafe { _mm256_set1_epi32(x as i32) }
        }
        #[inline(always)]
        fn probe64(x: u64) -> __m256i {
            // `x` is below `u64::MAX`, so `x + 1` does not wrap.
            // SAFETY: as in `le_mask32` (a broadcast).
            unsafe { _mm256_set1_epi64x((x + 1).line_form() as i64) }
        }
        #[inline(always)]
        fn rank32(line: &Line32, probe: __m256i) -> usize {
            (Self::le_mask32(line, probe).count_ones() / 2) as usize
        }
        #[inline(always)]
        fn rank64(line: &Line64, above: __m256i) -> usize {
            // SAFETY: as in `le_mask32`.
            unsafe {
                let p = line.0.as_ptr() as *const __m256i;
                let le_a = _mm256_cmpgt_epi64(above, _mm256_load_si256(p));
                let le_b = _mm256_cmpgt_epi64(above, _mm256_load_si256(p.add(1)));
                // Low halves of the first four keys, high halves of the last four: one sign
                // bit per key.
                let le = _mm256_blend_epi32::<0b1010_1010>(le_a, le_b);
                _mm256_movemask_ps(_mm256_castsi256_ps(le)).count_ones() as usize
            }
        }
        #[inline(always)]
        fn rank_rel(line: &Line32, d: u32) -> usize {
            // The header words 0..HEAD are the first 2 * HEAD bits of the packed mask.
            const HEADER_BITS: u32 = (1 << (2 * HEAD)) - 1;
            ((Self::le_mask32(line, Self::probe32(d)) & !HEADER_BITS).count_ones() / 2) as usize
        }
        #[inline(always)]
        fn rank_offsets(offsets: &[u32; 8], d: u32) -> usize {
            half_rank(offsets, d)
        }
    }

    /// Keys of a 32-byte aligned half line `<= d` (unsigned): `max(key, d) == d` per lane,
    /// one sign bit per lane. AVX-512 uses it too (its features include AVX2's), so that the
    /// load stays 32 bytes wide: a hop leaf's other half holds words the writer changes.
    #[inline(always)]
    fn half_rank(offsets: &[u32; 8], d: u32) -> usize {
        // SAFETY: only instantiated inside functions that enable `avx2` (or `avx512f`, which
        // implies it) and `popcnt`, entered after runtime detection; the load reads the 32
        // bytes of `offsets` (unaligned form; a `HopLine`'s offsets are aligned anyway).
        unsafe {
            let probe = _mm256_set1_epi32(d as i32);
            let keys = _mm256_loadu_si256(offsets.as_ptr() as *const __m256i);
            let le = _mm256_cmpeq_epi32(_mm256_max_epu32(keys, probe), probe);
            _mm256_movemask_ps(_mm256_castsi256_ps(le)).count_ones() as usize
        }
    }

    /// AVX-512 compares of the whole line into a k-mask (signed for the 64-bit line form).
    #[derive(Copy, Clone, Debug)]
    pub(crate) struct Avx512;

    impl Isa for Avx512 {
        /// The key (broadcast by each compare, from memory in a batch's lanes).
        type Probe32 = u32;
        /// The key's line form (broadcast by each compare, from memory in a batch's lanes).
        type Probe64 = i64;
        #[inline(always)]
        fn probe32(x: u32) -> u32 {
            x
        }
        #[inline(always)]
        fn probe64(x: u64) -> i64 {
            x.line_form() as i64
        }
        #[inline(always)]
        fn rank32(line: &Line32, probe: u32) -> usize {
            // SAFETY: only instantiated inside functions that enable `avx512f` and `popcnt`,
            // entered after runtime detection; the line is one aligned 64-byte vector.
            unsafe {
                let keys = _mm512_load_si512(line.0.as_ptr() as *const _);
                _mm512_cmple_epu32_mask(keys, _mm512_set1_epi32(probe as i32)).count_ones() as usize
            }
        }
        #[inline(always)]
        fn rank64(line: &Line64, probe: i64) -> usize {
            // SAFETY: as in `rank32`.
            unsafe {
                let keys = _mm512_load_si512(line.0.as_ptr() as *const _);
                _mm512_cmple_epi64_mask(keys, _mm512_set1_epi64(probe)).count_ones() as usize
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
        #[inline(always)]
        fn rank_offsets(offsets: &[u32; 8], d: u32) -> usize {
            half_rank(offsets, d)
        }
    }
}
