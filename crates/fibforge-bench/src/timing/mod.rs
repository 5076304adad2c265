//! Timing: lookup rates over a fixed duration, per-lookup TSC cycles (timed in groups), thread
//! scaling.
//!
//! Every loop is compiled once per traffic generator ([`GenUser`](crate::traffic::GenUser)) and
//! calls the structure through `&dyn Lookup` — one indirect call per lookup (per batch in batch
//! mode), the same for every row, ours and the in-process peers. Lookups are independent (no data
//! dependency from one answer to the next address), as in the Poptrie benchmark, so out-of-order
//! execution may overlap them: rates are throughput. Answers are folded into a checksum that is
//! passed to [`std::hint::black_box`], and the structure reference itself goes through `black_box`
//! before each chunk, so the compiler can neither drop nor hoist lookups.

pub mod cycles;
pub mod rate;
pub mod stats;

pub use cycles::{CycleSamples, DEFAULT_GROUP, TimerInfo, Tsc};
pub use rate::{BATCH, POLL_BURST, Probe, Run, measure_probe, measure_rate, measure_threads};
pub use stats::{Percentiles, Spread, cdf};

/// How the structure is called.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One `lookup` call per address.
    Single,
    /// `lookup_batch` on [`BATCH`] addresses at a time.
    Batch,
}

impl Mode {
    /// `"single"` or `"batch"`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Single => "single",
            Mode::Batch => "batch",
        }
    }
}

/// The raw next-hop value folded into checksums (0 = no route).
#[inline(always)]
pub(crate) fn raw(h: Option<fibforge::NextHop>) -> u64 {
    h.map_or(0, |h| h.raw() as u64)
}
