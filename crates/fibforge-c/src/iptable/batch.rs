//! Batch lookups of the dual-family table over C arrays: addresses copied chunk by chunk
//! into local buffers, looked up with the table's batch path, next hops and lengths copied
//! out. As in [`crate::batch`], only raw-pointer copies touch the caller's arrays, so the
//! IPv4 addresses and the next hops may be one array (an in-place lookup).

use super::handle::Answer;
use crate::error::Error;

/// Addresses per chunk: data planes call with small batches (DPDK's bursts are 32-64) and each
/// call zeroes its chunk buffers, so they are sized for such a call (docs/lab/api-speed.md).
pub const CHUNK: usize = 64;

/// Looks up `n` addresses at `addrs` into `n` next hops at `hops` and, unless `lens` is
/// NULL, `n` prefix lengths at `lens`. `convert` makes the library's address of a C one
/// (`zero` fills the buffer); `lookup` answers one chunk.
///
/// # Safety
/// When `n > 0`: `addrs` is readable for `n` elements, `hops` writable for `n` (it may be
/// the same memory as `addrs`), `lens` NULL or writable for `n`; NULL `addrs` and `hops`
/// are refused here.
pub unsafe fn lookup_into<C: Copy + Default, K: Copy>(
    addrs: *const C,
    hops: *mut u32,
    lens: *mut u8,
    n: usize,
    (zero, convert): (K, fn(C) -> K),
    mut lookup: impl FnMut(&[K], &mut [Answer]),
) -> Result<(), Error> {
    if n == 0 {
        return Ok(());
    }
    if addrs.is_null() {
        return Err(Error::null("addrs"));
    }
    if hops.is_null() {
        return Err(Error::null("next_hops"));
    }
    let mut raw = [C::default(); CHUNK];
    let mut keys = [zero; CHUNK];
    let mut answers = [(0u32, 0u8); CHUNK];
    let mut hop_buf = [0u32; CHUNK];
    let mut len_buf = [0u8; CHUNK];
    let mut done = 0;
    while done < n {
        let m = CHUNK.min(n - done);
        // SAFETY: `done + m <= n` elements are readable at `addrs` (caller's contract); `raw`
        // holds `CHUNK >= m`; `copy` (memmove) tolerates overlap with `hops`.
        unsafe { std::ptr::copy(addrs.add(done), raw.as_mut_ptr(), m) };
        for (k, &c) in keys[..m].iter_mut().zip(&raw[..m]) {
            *k = convert(c);
        }
        lookup(&keys[..m], &mut answers[..m]);
        for ((h, l), &(hop, len)) in hop_buf.iter_mut().zip(len_buf.iter_mut()).zip(&answers[..m]) {
            (*h, *l) = (hop, len);
        }
        // SAFETY: `done + m <= n` elements are writable at `hops` (caller's contract); the
        // source is our own buffer.
        unsafe { std::ptr::copy(hop_buf.as_ptr(), hops.add(done), m) };
        if !lens.is_null() {
            // SAFETY: non-NULL `lens` is writable for `n` elements (caller's contract).
            unsafe { std::ptr::copy(len_buf.as_ptr(), lens.add(done), m) };
        }
        done += m;
    }
    Ok(())
}
