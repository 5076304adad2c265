//! The lookup algorithms, one module each. Every module doc names its paper and section, its
//! memory layout, its invariants and its structural limits.

pub mod bloom;
pub mod poptrie;
pub mod dir24_8;
pub(crate) mod prefetch;
pub mod cpe;
pub mod multibit;
pub mod radix;
#[cfg(test)]
pub(crate) mod testkit;
pub mod sail;
