//! AVX-512 for the batch lookup (runtime detection: [`super::lookup::Isa::X86Avx512`] needs
//! AVX-512F and VPOPCNTDQ; the scalar twin is the `X86Popcnt`/`Portable` path, and the tests
//! compare every instruction set the CPU has on IPv4 and IPv6 tables).
//!
//! - [`gather_direct16`]: the direct-pointing entries of 16 IPv4 addresses in one gather,
//!   classified (next hop or node) by one mask test, so that lanes answered by `dir` — most
//!   of them on uniform traffic — cost no branch each. `poptrie_bench` on ris2015 (idle
//!   machine, 3 alternating rounds, batch Mlps): uniform random 215–218 → 246–249, in-prefix
//!   129–139 → 171–173.
//! - [`walk_lanes`]: the walks below `dir` of up to 64 lanes in lock step, 8 lanes per
//!   vector (gathers of the node words, `vpopcntq` ranks, masked moves). Used for IPv6,
//!   whose in-prefix walks are 3–6 levels deep: `poptrie_bench` tier1-v6 in-prefix batches
//!   (loaded machine, 3 alternating rounds) 49–50 → 55–59 Mlps against the scalar lock
//!   step. IPv4 walks (1–2 levels, 13 % of uniform lanes) measured 15–20 % slower with it
//!   than walked lane after lane, so IPv4 keeps that.

#[cfg(target_arch = "x86_64")]
use super::layout::{DIRECT_LEAF, Node};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Gathers `dir[addr >> (32 - s)]` for 16 addresses into `d`, and returns the mask of lanes
/// whose entry is a node index (bit `i` set: lane `i` continues below `dir`).
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
        _mm512_storeu_si512(d.as_mut_ptr() as *mut _, entries);
        _mm512_testn_epi32_mask(entries, _mm512_set1_epi32(DIRECT_LEAF as i32))
    }
}

/// Lanes per vector of the SIMD walk.
#[cfg(target_arch = "x86_64")]
const LANES: usize = 8;

/// Walks up to 64 lanes below `dir` in lock step, 8 lanes per AVX-512 vector: per level, a
/// gather of each lane's node `vector` and `base0|base1` word (and `leafvec` for lanes that
/// stop), the child's rank or the leaf's rank by `vpopcntq`, one masked move per outcome.
/// The vectors are independent chains, so their gathers overlap.
///
/// Lane `j < n` starts at node `node[j]` with `win[j]` = its cursor's top 64 bits (the next
/// chunk in bits 58..64). On return `leaf[j]` is the lane's leaf index, except for lanes
/// still inside a node after `max_levels` levels: those are the returned mask's bits, with
/// `node[j]` their current node (the caller finishes them with the full cursor).
///
/// # Safety
/// The CPU supports AVX-512F and AVX-512 VPOPCNTDQ; `nodes` holds every node reachable from
/// the given ones (each a published node index, see `Core::walk`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
pub(crate) unsafe fn walk_lanes(
    nodes: *const Node,
    node: &mut [u32; 64],
    win: &[u64; 64],
    leaf: &mut [u32; 64],
    n: usize,
    max_levels: u32,
) -> u64 {
    const V: usize = 64 / LANES;
    let nv = n.min(64).div_ceil(LANES);
    // SAFETY: `Node` is `repr(C)` {vector, leafvec, base0, base1}: 24 bytes = three u64
    // words (vector, leafvec, base0 | base1 << 32, little-endian), so a node index `i` is
    // word `3i` and every gathered word lies inside a node the caller vouches for; masked-off
    // lanes load nothing. Lane arrays are read and written with unaligned 8-lane accesses
    // inside their 64 elements (`v < nv <= 8`).
    unsafe {
        let words = nodes as *const i64;
        let zero = _mm512_setzero_si512();
        let one = _mm512_set1_epi64(1);
        let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
        let mut nd = [zero; V];
        let mut cur = [zero; V];
        let mut lf = [zero; V];
        let mut act = [0u8; V];
        for v in 0..nv {
            let lanes = (n - v * LANES).min(LANES);
            act[v] = (((1u16 << lanes) - 1) & 0xFF) as u8;
            nd[v] = _mm512_cvtepu32_epi64(_mm256_loadu_si256(
                node.as_ptr().add(v * LANES) as *const __m256i
            ));
            cur[v] = _mm512_loadu_si512(win.as_ptr().add(v * LANES) as *const _);
        }
        let mut level = 0;
        while level < max_levels && act[..nv].iter().any(|&m| m != 0) {
            for v in 0..nv {
                let m = act[v];
                if m == 0 {
                    continue;
                }
                let w0 = _mm512_add_epi64(_mm512_slli_epi64::<1>(nd[v]), nd[v]);
                let vector = _mm512_mask_i64gather_epi64::<8>(zero, m, w0, words);
                let bases = _mm512_mask_i64gather_epi64::<8>(
                    zero,
                    m,
                    _mm512_add_epi64(w0, _mm512_set1_epi64(2)),
                    words,
                );
                // 63 - chunk: the complement's top 6 bits.
                let inv =
                    _mm512_srli_epi64::<58>(_mm512_andnot_si512(cur[v], _mm512_set1_epi64(-1)));
                let t = _mm512_sllv_epi64(vector, inv);
                let goes = _mm512_mask_cmplt_epi64_mask(m, t, zero);
                let stops = m & !goes;
                let leafvec =
                    _mm512_mask_i64gather_epi64::<8>(zero, stops, _mm512_add_epi64(w0, one), words);
                let leaf_rank = _mm512_popcnt_epi64(_mm512_sllv_epi64(leafvec, inv));
                let leaf_at = _mm512_sub_epi64(
                    _mm512_add_epi64(_mm512_and_si512(bases, low32), leaf_rank),
                    one,
                );
                lf[v] = _mm512_mask_mov_epi64(lf[v], stops, leaf_at);
                let child = _mm512_sub_epi64(
                    _mm512_add_epi64(_mm512_srli_epi64::<32>(bases), _mm512_popcnt_epi64(t)),
                    one,
                );
                nd[v] = _mm512_mask_mov_epi64(nd[v], goes, child);
                cur[v] = _mm512_mask_mov_epi64(cur[v], goes, _mm512_slli_epi64::<6>(cur[v]));
                act[v] = goes;
            }
            level += 1;
        }
        let mut unfinished = 0u64;
        for v in 0..nv {
            _mm256_storeu_si256(
                leaf.as_mut_ptr().add(v * LANES) as *mut __m256i,
                _mm512_cvtepi64_epi32(lf[v]),
            );
            _mm256_storeu_si256(
                node.as_mut_ptr().add(v * LANES) as *mut __m256i,
                _mm512_cvtepi64_epi32(nd[v]),
            );
            unfinished |= (act[v] as u64) << (v * LANES);
        }
        unfinished
    }
}
