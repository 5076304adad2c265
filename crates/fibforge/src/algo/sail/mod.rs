//! SAIL: splitting lookup and prefix lengths, with pivot pushing (`sail_b`, `sail_u`, `sail_l`).
//!
//! Paper: T. Yang, G. Xie, Y. Li, Q. Fu, A. X. Liu, Q. Li, L. Mathy, "Guarantee IP Lookup
//! Performance with FIB Explosion", SIGCOMM 2014 (and its talk
//! slides), and its description and evaluation in the
//! Poptrie paper (Asai, Ohara, SIGCOMM 2015, §2 and §4.3–§4.10).
//!
//! SAIL splits the lookup in two — *find the prefix length* with small bitmaps (on chip in the
//! paper), then *fetch the next hop* from arrays indexed by address bits (off chip) — and
//! splits prefix lengths at the pivot level 24: almost all traffic matches routes of at most
//! /24, so routes longer than /24 are handled by 256-entry chunks below their /24 slot. Pivot
//! pushing (see `push.rs`) pushes the answer of each /24 slot that holds longer routes
//! into its chunk, so a lookup never has to search both sides.
//!
//! | variant | module | levels | lookup probes | update (on-chip) |
//! |---|---|---|---|---|
//! | SAIL_B | [`SailB`] | bitmaps B0–B24, chunks at 32 | ≤ 25 bitmaps + 2 arrays | 1 bit |
//! | SAIL_U | [`SailU`] | pushed to 6, 12, 18, 24, chunks at 32 | ≤ 4 bitmaps + 2 arrays | 1 word |
//! | SAIL_L | [`SailL`] | pushed to 16, 24, 32 (IPv6: to 64) | ≤ 3 arrays (IPv6 ≤ 7) | unbounded |
//!
//! Each type documents its exact layout and invariants. SAIL_B and SAIL_U follow RIB changes
//! incrementally ([`crate::Incremental`]), and so does SAIL_L (`sail_l_update.rs`: the words
//! of the changed route's slots and the chunks below them, unbounded for short routes as the
//! paper says).
//!
//! # Words and structural limits
//!
//! Next-hop arrays and chunk arrays hold *words*: a next-hop raw value, or with the top bit
//! set, a chunk id (see [`Width`]). The original code uses 16-bit words, so it holds at most
//! 2^15 chunks per level and 2^15 - 1 next hops: Poptrie's SYN2 tables need more than 2^15
//! level-16 chunks (C16 ids) and cannot be compiled by it. fibforge **lifts the limit by
//! widening**: with `width=auto` (the default) a table that fits uses the original 16-bit
//! words, any other uses 32-bit words (31-bit payloads: up to 2^31 chunks per level and
//! next-hop ids below 2^31 - 1). `width=16` forces the original format and fails with
//! [`crate::BuildError::LimitExceeded`] naming the limit; `width=32` forces wide words. No
//! next hop is ever truncated. After an incremental update overflows 16-bit words, SAIL_B,
//! SAIL_U and SAIL_L rebuild themselves with 32-bit words (whatever the configured width).
//!
//! # IPv6
//!
//! SAIL (and so SAIL_L here) supports IPv6 prefixes up to /64: `top` resolves 16 bits, then
//! one chunk level per 8 bits, pushing to levels 16, 24, 32, 40, 48, 56 and 64 (at most seven
//! memory accesses). A table with a longer prefix is refused with
//! [`crate::BuildError::Unsupported`] naming the first such prefix (in address order): real
//! IPv6 tables hold /128 host routes and other long prefixes, and silently dropping them
//! would give wrong answers. SAIL_B and SAIL_U are IPv4 only, as in the paper.
//!
//! # Memory
//!
//! SAIL_B's arrays have 2^25 words (64 MiB at 16 bits) plus its 4 MiB of bitmaps; SAIL_U's
//! 2^6 + 2^12 + 2^18 + 2^24 words (32.5 MiB at 16 bits) plus about 2 MiB of bitmaps; SAIL_L
//! has 2^16 top words plus 256 words per chunk. `memory_bytes` counts every array.

pub(crate) mod entry;
mod export;
pub(crate) mod push;
mod sail_b;
mod sail_l;
mod sail_l_update;
mod sail_u;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_update_l;
mod widths;

pub use entry::{Config, Width};
pub use sail_b::SailB;
pub(crate) use sail_l::{STRIDE, TOP, final_word};
pub use sail_l::{SailL, max_len};
pub use sail_u::SailU;

/// Runs `$body` with `$t` bound to the 16-bit or the 32-bit tables.
macro_rules! dispatch {
    ($tables:expr, $t:ident => $body:expr) => {
        match $tables {
            Tables::Narrow($t) => $body,
            Tables::Wide($t) => $body,
        }
    };
}
use dispatch;

/// The positions of the set bits of a bitmap, in increasing order (for test comparisons).
#[cfg(test)]
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(i, &w)| {
        let mut rest = w;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                i * 64 + b
            })
        })
    })
}
