//! AVX-512 for the batch lookup's first step: the direct-pointing entries of 16 IPv4
//! addresses in one gather, classified (next hop or node) by one mask test, so that lanes
//! answered by `dir` — most of them on uniform traffic — cost no branch each.
//!
//! Only this step is vectorised: the walks below `dir` are data-dependent chains of
//! different lengths (`lookup.rs` walks them). Measured on ris2015 with `poptrie_bench`
//! (idle machine, 3 alternating rounds, batch Mlps): uniform random 215–218 → 246–249,
//! in-prefix addresses 129–139 → 171–173.
//! [`super::lookup::Isa::X86Avx512`] is chosen at run time; the scalar twin is the
//! `X86Popcnt`/`Portable` path, and the tests compare both on every table.
//!
//! Tried and dropped: the IPv6 walks in lock step with AVX-512 (8 lanes per vector, gathers
//! of the node words, `vpopcntq` ranks, masked moves). `poptrie_bench` (a 16 MiB in-prefix
//! address array) gave tier1-v6 batches 48–50 → 57–59 Mlps, but in `fibforge bench` (a
//! 4 MiB array) on the idle machine it was slower than the scalar lock step (medians of 3
//! alternating runs: 60.1 against 64.4 Mlps), so the simpler scalar walk stayed. Measured
//! again after the benchmark's address fill moved to AVX2 (`fibforge bench`, idle machine,
//! 5 alternating runs, in-prefix batch Mlps): scalar 52.6–62.5, SIMD 47.6–59.9.
//!
//! A narrow (16-bit) `dir` is gathered as the low halves of 32-bit lanes at 2-byte steps
//! ([`gather_narrow16`]); the wide one as 32-bit entries ([`gather_direct16`]).

#[cfg(target_arch = "x86_64")]
use super::layout::DIRECT_LEAF;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Gathers `dir[addr >> (32 - s)]` for 16 addresses into `d` (next hops without the
/// direct-leaf flag, or node indices), and returns the mask of lanes whose entry is a node
/// index (bit `i` set: lane `i` continues below `dir`).
///
/// # Safety
/// The CPU supports AVX-512F; `dir` points to `2^s` entries (`s <= 24`) that the writer
/// updates only with aligned 32-bit atomic stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn gather_direct16(
    dir: *const u32,
    s: u32,
    addrs: &[u32; 16],
    d: &mut [u32; 16],
) -> u16 {
    // SAFETY: `addrs` and `d` are 16 u32 each (unaligned load/store); every gathered index
    // is `addr >> (32 - s) < 2^s` (a count of 32 gives 0 when `s = 0`), so each lane reads an
    // aligned entry inside `dir`. Each lane is one aligned 32-bit load, single-copy atomic on
    // x86, so a lane sees an entry either before or after a concurrent store; x86 keeps the
    // later loads of the node it points to ordered after it, and the fence below stops the
    // compiler from moving them up (the Acquire of the scalar path).
    unsafe {
        let a = _mm512_loadu_si512(addrs.as_ptr() as *const _);
        let top = _mm512_srlv_epi32(a, _mm512_set1_epi32((32 - s) as i32));
        let entries = _mm512_i32gather_epi32::<4>(top, dir as *const _);
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        let flag = _mm512_set1_epi32(DIRECT_LEAF as i32);
        // Node indices have the flag clear, so clearing it everywhere leaves them intact and
        // turns leaf entries into raw next hops.
        _mm512_storeu_si512(d.as_mut_ptr() as *mut _, _mm512_andnot_si512(flag, entries));
        _mm512_testn_epi32_mask(entries, flag)
    }
}

/// [`gather_direct16`] on a narrow table (`dir.rs`): 16-bit entries, node indices below
/// `roots`, next hops `e - roots` above. Each lane gathers the 32 bits at `dir + 2 × index`
/// and keeps the low half (the table has a padding entry, so the last lane stays inside).
///
/// # Safety
/// The CPU supports AVX-512F; `dir` points to `2^s + 1` entries (`s <= 24`) that the writer
/// updates only with aligned 16-bit atomic stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn gather_narrow16(
    dir: *const u16,
    s: u32,
    roots: u32,
    addrs: &[u32; 16],
    d: &mut [u32; 16],
) -> u16 {
    // SAFETY: `addrs` and `d` are 16 u32 each; every index is `addr >> (32 - s) < 2^s`, so
    // each lane reads bytes `2i .. 2i + 4` of a `2^s + 1`-entry array. The entry a lane uses
    // is 2-byte aligned inside those bytes, so it never straddles a cache line and is read
    // whole (x86 single-copy atomicity), before or after a concurrent 16-bit store; the other
    // half (the next entry) is discarded. Ordering as in `gather_direct16`.
    unsafe {
        let a = _mm512_loadu_si512(addrs.as_ptr() as *const _);
        let top = _mm512_srlv_epi32(a, _mm512_set1_epi32((32 - s) as i32));
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
