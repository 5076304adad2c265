//! Transparent huge pages for the large arrays that lookups read at random (tables, filters,
//! the direct array): with 4 KiB pages nearly every table probe also misses the TLB.
//!
//! [`zeroed`] allocates a `Vec` of default values (and [`zero_words`] one of zero words) and, on
//! Linux, asks the kernel (`madvise(MADV_HUGEPAGE)`) to back the 2 MiB-aligned part of it with
//! huge pages before it is first touched. It is only advice: where the kernel refuses (THP
//! disabled, other systems) the vector is the same, only with small pages.

/// Arrays smaller than this are left alone.
const MIN_BYTES: usize = 4 << 20;
const HUGE: usize = 2 << 20;

/// `n` copies of `T::default()` (all-zero bytes for the callers' types), huge-page advised.
pub(crate) fn zeroed<T: Copy + Default>(n: usize) -> Vec<T> {
    // Reserve first (fresh, untouched pages for a large allocation), advise, then write.
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise(v.as_ptr().cast(), n * std::mem::size_of::<T>());
    v.resize(n, T::default());
    v
}

/// `n` zero words, huge-page advised, none of them written: the allocator's zeroed memory
/// (fresh pages for a large allocation), so pages nothing writes are never faulted in.
pub(crate) fn zero_words(n: usize) -> Vec<u32> {
    let v = vec![0u32; n];
    advise(v.as_ptr().cast(), n * std::mem::size_of::<u32>());
    v
}

#[cfg(target_os = "linux")]
fn advise(ptr: *const u8, bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: [start, end) lies inside the live allocation of `bytes` bytes at `ptr`;
        // MADV_HUGEPAGE changes only how the kernel backs those pages, never their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_ptr: *const u8, _bytes: usize) {}
