//! Batch lookups over C arrays.
//!
//! Addresses are copied chunk by chunk into local buffers, looked up with the structure's
//! batch path, and the results copied out. Only raw-pointer copies touch the caller's
//! arrays (no Rust slice is formed over them), so `addrs` and `out` may be the same memory
//! (an in-place lookup) without breaking Rust's aliasing rules.

use crate::error::Error;
use crate::handle::{Side, hop_out};
use fibforge::NextHop;

/// Addresses per chunk: small enough for the stack, large enough to hide per-chunk costs.
const CHUNK: usize = 512;

/// Looks up `n` addresses at `addrs` into `n` values at `out`. `lookup` is called once per
/// chunk with the converted addresses (the reader pins an epoch there).
///
/// # Safety
/// When `n > 0`: `addrs` is readable for `n` elements and `out` writable for `n` elements
/// (they may be the same array); both are checked for NULL here.
pub unsafe fn lookup_into<A: Side>(
    addrs: *const A::C,
    out: *mut u32,
    n: usize,
    mut lookup: impl FnMut(&[A], &mut [Option<NextHop>]),
) -> Result<(), Error> {
    if n == 0 {
        return Ok(());
    }
    if addrs.is_null() {
        return Err(Error::null("addrs"));
    }
    if out.is_null() {
        return Err(Error::null("out"));
    }
    let mut raw = [A::C::default(); CHUNK];
    let mut keys = [A::ZERO; CHUNK];
    let mut hops = [None; CHUNK];
    let mut values = [0u32; CHUNK];
    let mut done = 0;
    while done < n {
        let m = CHUNK.min(n - done);
        // SAFETY: `done + m <= n` elements are readable at `addrs` (caller's contract);
        // `raw` holds `CHUNK >= m`; `copy` (memmove) tolerates any overlap with `out`.
        unsafe { std::ptr::copy(addrs.add(done), raw.as_mut_ptr(), m) };
        for (k, &c) in keys[..m].iter_mut().zip(&raw[..m]) {
            *k = A::from_c(c);
        }
        lookup(&keys[..m], &mut hops[..m]);
        for (v, &h) in values[..m].iter_mut().zip(&hops[..m]) {
            *v = hop_out(h);
        }
        // SAFETY: `done + m <= n` elements are writable at `out` (caller's contract); the
        // source is our own buffer.
        unsafe { std::ptr::copy(values.as_ptr(), out.add(done), m) };
        done += m;
    }
    Ok(())
}
