//! The benchmarks' random numbers: the library's [`fibforge::verify::XorShift64`], so the
//! timed loops, the probes checked before timing and the tests draw from one generator.
//!
//! Single-lookup loops draw one address right before each call, as the Poptrie paper (§4.2)
//! does; batch loops fill whole arrays at once (`fill_random`). Drawing four addresses at once
//! in single-lookup loops was tried and not adopted: it changes the peers' figures as well as
//! ours, so the comparison, not only our figure, would move (figures:
//! `docs/lab/bench.md`).

pub use fibforge::verify::rng::{STREAMS, XorShift64};
