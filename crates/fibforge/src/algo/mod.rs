//! The lookup algorithms, one module each. Every module doc names its paper and section, its
//! memory layout, its invariants and its structural limits.

pub mod bloom;
pub mod bplus;
pub mod bsearch;
pub mod bsl;
#[doc(hidden)]
pub mod cpe;
pub mod dir24_8;
pub mod dxr;
pub(crate) mod huge;
pub mod lctrie;
pub mod lulea;
pub mod miht;
pub mod multibit;
pub mod poptrie;
pub(crate) mod prefetch;
pub mod radix;
pub mod sail;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
pub(crate) mod testkit_updates;
#[cfg(test)]
mod tests_isa;
pub(crate) mod top_bits;
pub mod treebitmap;

/// Makes room for `more` elements in `v`, growing it by at least an eighth rather than the
/// doubling of `Vec`: arrays that updates append to (SAIL_L chunks, DXR ranges) start exactly
/// sized by a compile, and doubling the largest of them on the first append would nearly
/// double the structure's memory.
pub(crate) fn grow_by_eighths<T>(v: &mut Vec<T>, more: usize) {
    if v.capacity() - v.len() < more {
        v.reserve_exact(more.max(v.len() / 8));
    }
}
