//! Software prefetch hints for batch lookups.
//!
//! A prefetch never faults and never changes program state, so asking for any address is
//! sound; on targets without a prefetch instruction these are no-ops.

/// Hints that `slice[index]` will be read soon (into all cache levels).
#[inline(always)]
pub(crate) fn read<T>(slice: &[T], index: usize) {
    debug_assert!(index < slice.len());
    let ptr = slice.as_ptr().wrapping_add(index);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch of any address (even an
        // invalid one) is only a hint: it cannot fault or change memory.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}
