//! Memory a compiled structure reads: its own heap allocation, or a slice of a snapshot file
//! mapped into memory ([`Region`]), so that processes that open the same file share one copy
//! of the lookup arrays (`IpTable::open`).
//!
//! [`Slab<T>`] is the one array type the structures store: a pointer, a length and what keeps
//! the memory alive (a `Box` it owns, or an `Arc` of the region). Reading it is a plain slice
//! access in both cases, so a mapped structure walks at a compiled one's speed.
//!
//! Invariants:
//! - a slab in a region only ever holds types that are [`Plain`] (every bit pattern a valid
//!   value, no padding, no destructor), at an offset aligned for them, on a little-endian
//!   target (the file's byte order);
//! - a region is never written: mapped files are mapped read-only and the structures built
//!   on them have no writer (a table thaws into owned memory before its first change).

use std::ops::{Deref, Range};
use std::ptr::NonNull;
use std::sync::Arc;

/// Bytes shared by the structures built on them: a read-only file mapping, or an aligned heap
/// copy (for bytes that did not come from a file: tests, fuzzing, small tables).
pub(crate) struct Region {
    bytes: Bytes,
}

enum Bytes {
    Mapped(memmap2::Mmap),
    /// `words` holds `len` bytes, 8-byte aligned.
    Heap {
        words: Box<[u64]>,
        len: usize,
    },
}

impl Region {
    /// Maps `file` read-only. The file must not be changed while the region lives (fibforge
    /// replaces snapshot files by renaming, which leaves a mapped file's bytes as they were).
    pub(crate) fn map(file: &std::fs::File) -> std::io::Result<Arc<Region>> {
        // SAFETY: the mapping is read-only and private to this region; fibforge never writes a
        // mapped file (snapshots are replaced whole by rename), and the contract above says
        // others must not either. Every read of it goes through `bytes()` or a checked `Slab`.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Arc::new(Region { bytes: Bytes::Mapped(map) }))
    }

    /// An 8-byte aligned heap copy of `bytes`.
    pub(crate) fn copy_of(bytes: &[u8]) -> Arc<Region> {
        let mut words = vec![0u64; bytes.len().div_ceil(8)].into_boxed_slice();
        for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *w = u64::from_ne_bytes(b);
        }
        Arc::new(Region { bytes: Bytes::Heap { words, len: bytes.len() } })
    }

    /// The region's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Heap { words, len } => {
                // SAFETY: `words` holds at least `len` initialised bytes (`copy_of`), and `u8`
                // has no alignment or validity requirement.
                unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), *len) }
            }
        }
    }

    /// True when the bytes are a file mapping (shared with other processes).
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self.bytes, Bytes::Mapped(_))
    }
}

/// A type that may be read straight from a file's bytes.
///
/// # Safety
/// Every bit pattern of `size_of::<Self>()` bytes is a valid value, the type has no padding
/// and no destructor, and its in-memory form on a little-endian target is the file's
/// little-endian encoding.
pub(crate) unsafe trait Plain: Sized {}

// SAFETY: integers: any bits are a value, no padding, no destructor.
unsafe impl Plain for u8 {}
// SAFETY: as `u8`.
unsafe impl Plain for u16 {}
// SAFETY: as `u8`.
unsafe impl Plain for u32 {}
// SAFETY: as `u8`.
unsafe impl Plain for u64 {}
// SAFETY: same size and bit validity as `u16` (and a region is only ever loaded from).
unsafe impl Plain for std::sync::atomic::AtomicU16 {}
// SAFETY: same size and bit validity as `u32`.
unsafe impl Plain for std::sync::atomic::AtomicU32 {}
// SAFETY: `UnsafeCell<T>` has `T`'s size, alignment and bit validity.
unsafe impl<T: Plain> Plain for std::cell::UnsafeCell<T> {}

/// An array of `T`: owned, or a slice of a [`Region`] (see the module docs).
pub struct Slab<T> {
    ptr: NonNull<T>,
    len: usize,
    /// `None`: `ptr` and `len` are a `Box<[T]>` this slab owns.
    region: Option<Arc<Region>>,
}

// SAFETY: a slab is a `Box<[T]>` or a shared read-only slice of `T`; either is `Send` and
// `Sync` exactly when `T` is (the region itself is immutable bytes).
unsafe impl<T: Send> Send for Slab<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Slab<T> {}

impl<T> Slab<T> {
    /// A slab owning `values`.
    pub(crate) fn owned(values: Box<[T]>) -> Self {
        let len = values.len();
        let ptr = NonNull::new(Box::into_raw(values).cast::<T>()).expect("a box is non-null");
        Slab { ptr, len, region: None }
    }

    /// The elements of `region` at byte range `bytes`, or `None` when the range is outside
    /// the region, not a whole number of elements, misaligned for `T`, or the target is not
    /// little-endian.
    pub(crate) fn in_region(region: &Arc<Region>, bytes: Range<usize>) -> Option<Self>
    where
        T: Plain,
    {
        let all = region.bytes();
        let slice = all.get(bytes)?;
        let size = size_of::<T>();
        let aligned = (slice.as_ptr() as usize).is_multiple_of(align_of::<T>());
        if cfg!(target_endian = "big") || size == 0 || !slice.len().is_multiple_of(size) || !aligned
        {
            return None;
        }
        let ptr = NonNull::new(slice.as_ptr().cast::<T>().cast_mut()).expect("a slice is non-null");
        Some(Slab { ptr, len: slice.len() / size, region: Some(region.clone()) })
    }

    /// True when the elements lie in a file mapping (shared between processes).
    pub(crate) fn is_mapped(&self) -> bool {
        self.region.as_ref().is_some_and(|r| r.is_mapped())
    }
}

impl<T> Deref for Slab<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` and `len` are a live `Box<[T]>` this slab owns, or a range of the
        // region it keeps alive whose bytes are valid `T`s (`in_region`: in bounds, aligned,
        // `T: Plain`).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> From<Box<[T]>> for Slab<T> {
    fn from(values: Box<[T]>) -> Self {
        Slab::owned(values)
    }
}

impl<T> FromIterator<T> for Slab<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Slab::owned(iter.into_iter().collect())
    }
}

impl<T> Drop for Slab<T> {
    fn drop(&mut self) {
        if self.region.is_none() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len);
            // SAFETY: without a region, `ptr`/`len` came from `Box::into_raw` (`owned`) and
            // are dropped only here, once.
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_read_owned_and_region_memory_alike() {
        let owned: Slab<u32> = (0..5u32).collect();
        assert_eq!(&owned[..], &[0, 1, 2, 3, 4]);
        assert!(!owned.is_mapped());
        let bytes: Vec<u8> = (1..=4u32).flat_map(u32::to_le_bytes).collect();
        let region = Region::copy_of(&bytes);
        let slab = Slab::<u32>::in_region(&region, 4..16).expect("aligned, in range");
        assert_eq!(&slab[..], &[2, 3, 4]);
        assert!(!slab.is_mapped(), "a heap copy is not a mapping");
        assert!(Slab::<u32>::in_region(&region, 2..6).is_none(), "misaligned");
        assert!(Slab::<u32>::in_region(&region, 4..7).is_none(), "not whole elements");
        assert!(Slab::<u32>::in_region(&region, 8..20).is_none(), "past the end");
        drop(region);
        assert_eq!(slab[0], 2, "the slab keeps its region alive");
    }

    #[test]
    fn a_mapped_file_is_shared_memory() {
        let dir = std::env::temp_dir().join(format!("fibforge-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("words");
        std::fs::write(&path, (7..9u64).flat_map(u64::to_le_bytes).collect::<Vec<u8>>()).unwrap();
        let region = Region::map(&std::fs::File::open(&path).unwrap()).unwrap();
        let slab = Slab::<u64>::in_region(&region, 0..16).unwrap();
        assert_eq!((&slab[..], slab.is_mapped()), (&[7u64, 8][..], true));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
