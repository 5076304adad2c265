//! AVX-512 for the batch lookup's first step: the direct-pointing entries of 16 addresses in
//! one gather, classified (next hop or node) by one mask test, so that lanes answered by
//! `dir` — most of them on uniform traffic — cost no branch each. IPv6 addresses give their
//! top bits through a permute of their high halves (`algo::top_bits`, shared with `bplus`).
//!
//! Only this step is vectorised: the walks below `dir` are data-dependent chains of
//! different lengths (`lookup.rs` walks them).
//! [`crate::cpu::Isa::Avx512`] is chosen at run time; the scalar twin is the
//! `X86Popcnt`/`Portable` path, and the tests compare both on every table.
//!
//! The IPv6 walks in lock step with AVX-512 (gathers of node words, `vpopcntq` ranks) were
//! tried three times and were no faster than the scalar lock step, so the simpler scalar walk
//! stayed (figures for both decisions: `docs/lab/poptrie.md`).
//!
//! A narrow (16-bit) `dir` is gathered as the low halves of 32-bit lanes at 2-byte steps
//! (`gather_narrow`); the wide one as 32-bit entries (`gather_wide`).

#[cfg(target_arch = "x86_64")]
use super::dir::DIRECT_LEAF;
#[cfg(target_arch = "x86_64")]
use super::dir::DirTable;
#[cfg(target_arch = "x86_64")]
use crate::algo::top_bits::{top16_v4, top16_v6};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Gathers `dir[top(s)]` of 16 IPv4 addresses into `d` (next hops, or node indices) and
/// returns the mask of lanes whose entry is a node index (bit `i`: lane `i` continues below
/// `dir`).
///
/// # Safety
/// The CPU supports AVX-512F; `dir` has `2^s` entries (`s <= 24`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn gather_dir16_v4(
    dir: &DirTable,
    s: u32,
    addrs: &[u32; 16],
    d: &mut [u32; 16],
) -> u16 {
    // SAFETY: the caller's contract (AVX-512F); `addr >> (32 - s) < 2^s`; the rest is
    // `gather_dir`'s contract, passed on.
    unsafe { gather_dir(dir, top16_v4(addrs, s), d) }
}

/// [`gather_dir16_v4`] for 16 IPv6 addresses: `top(s)` is the high 64 bits shifted right by
/// `64 - s` (a count of 64 gives 0 when `s = 0`).
///
/// # Safety
/// As [`gather_dir16_v4`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn gather_dir16_v6(
    dir: &DirTable,
    s: u32,
    addrs: &[u128; 16],
    d: &mut [u32; 16],
) -> u16 {
    // SAFETY: as in `gather_dir16_v4`: the indices are below `2^s`.
    unsafe { gather_dir(dir, top16_v6(addrs, s), d) }
}

/// The entries of `dir` at the 16 indices `top` into `d`; the mask of node lanes.
///
/// # Safety
/// The CPU supports AVX-512F; every index is below `dir.len()`; the writer updates `dir`
/// only with aligned atomic stores of its entry width.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather_dir(dir: &DirTable, top: __m512i, d: &mut [u32; 16]) -> u16 {
    // SAFETY: the caller's contract; a narrow table has its padding entry (`dir.rs`).
    unsafe {
        match dir {
            DirTable::Wide(e) => gather_wide(e.as_ptr().cast(), top, d),
            DirTable::Narrow { e, roots } => gather_narrow(e.as_ptr().cast(), *roots, top, d),
        }
    }
}

/// 32-bit entries: flag set for next hops (stored with the flag cleared), clear for nodes.
///
/// # Safety
/// As [`gather_dir`], on a wide table.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather_wide(dir: *const u32, top: __m512i, d: &mut [u32; 16]) -> u16 {
    // SAFETY: each lane is one aligned 32-bit load inside `dir`, single-copy atomic on x86,
    // so it sees an entry either before or after a concurrent store; x86 keeps the later
    // loads of the node it points to ordered after it, and the fence stops the compiler from
    // moving them up (the Acquire of the scalar path). `d` is 16 u32 (unaligned store).
    unsafe {
        let entries = _mm512_i32gather_epi32::<4>(top, dir as *const _);
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        let flag = _mm512_set1_epi32(DIRECT_LEAF as i32);
        // Node indices have the flag clear, so clearing it everywhere leaves them intact and
        // turns leaf entries into raw next hops.
        _mm512_storeu_si512(d.as_mut_ptr() as *mut _, _mm512_andnot_si512(flag, entries));
        _mm512_testn_epi32_mask(entries, flag)
    }
}

/// 16-bit entries (`dir.rs`): node indices below `roots`, next hops `e - roots` above. Each
/// lane gathers the 32 bits at `dir + 2 × index` and keeps the low half.
///
/// # Safety
/// As [`gather_dir`], on a narrow table (`2^s + 1` entries).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather_narrow(dir: *const u16, roots: u32, top: __m512i, d: &mut [u32; 16]) -> u16 {
    // SAFETY: each lane reads bytes `2i .. 2i + 4` of a `2^s + 1`-entry array. The entry a
    // lane uses is 2-byte aligned inside those bytes, so it never straddles a cache line and
    // is read whole (x86 single-copy atomicity), before or after a concurrent 16-bit store;
    // the other half (the next entry) is discarded. Ordering as in `gather_wide`.
    unsafe {
        let pairs = _mm512_i32gather_epi32::<2>(top, dir as *const _);
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        let e = _mm512_and_si512(pairs, _mm512_set1_epi32(0xFFFF));
        let r = _mm512_set1_epi32(roots as i32);
        let nodes = _mm512_cmplt_epu32_mask(e, r);
        let hops = _mm512_sub_epi32(e, r);
        _mm512_storeu_si512(d.as_mut_ptr() as *mut _, _mm512_mask_blend_epi32(nodes, hops, e));
        nodes
    }
}
