//! The lookup algorithms, one module each. Every module doc names its paper and section, its
//! memory layout, its invariants and its structural limits.

pub mod cpe;
pub mod multibit;
pub mod radix;
