//! The word-level pieces every part of LOOP's structure shares: the payload limit of a lookup
//! entry (30 bits, see [`layout`](super::layout)) with the error for exceeding it, and arrays
//! of atomic words.
//!
//! A leaf: it uses nothing else of `loop_`, so the PortMapTable (`pmt/`), which the layout
//! holds, can use these beside the layout and the builders without an import circle.

use crate::fib::BuildError;
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) const PAYLOAD_BITS: u32 = 30;
pub(super) const PAYLOAD_MAX: u32 = (1 << PAYLOAD_BITS) - 1;

/// A payload (PortMapTable entry, chunk id or arena offset) beyond [`PAYLOAD_MAX`].
pub(super) fn limit_error(what: &'static str) -> BuildError {
    BuildError::LimitExceeded {
        algo: "loop",
        what,
        limit: PAYLOAD_MAX as u64,
        found: PAYLOAD_MAX as u64 + 1,
    }
}

pub(super) fn atomic_vec(len: usize) -> Box<[AtomicU32]> {
    (0..len).map(|_| AtomicU32::new(0)).collect()
}

/// Atomic words holding `values`, with room for `capacity`.
pub(super) fn filled(values: &[u32], capacity: usize) -> Box<[AtomicU32]> {
    let v = atomic_vec(capacity.max(values.len()));
    for (slot, &x) in v.iter().zip(values) {
        slot.store(x, Ordering::Relaxed);
    }
    v
}
