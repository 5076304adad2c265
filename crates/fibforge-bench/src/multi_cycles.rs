//! Cycles per lookup of the many-table structures (`bench --multi`, LOOP Fig. 12), by the
//! method of the single-table rows ([`crate::timing::cycles`]): in single mode each sample
//! times a group of dependent `(vrf, address)` lookups (each address XORed with the previous
//! answer masked by a zero the compiler cannot see) and divides by the group size; in batch
//! mode a sample is one `lookup_batch` of [`BATCH`] keys divided by [`BATCH`]. Keys are drawn
//! before the bracket opens; the empty bracket's cost is subtracted; the resolution is the
//! timer's divided by the lookups per sample.

use crate::family::BenchAddress;
use crate::rng::XorShift64;
use crate::timing::cycles::MAX_GROUP;
use crate::timing::{BATCH, CycleSamples, Mode, Tsc};
use fibforge::multi::{MultiLookup, VrfId};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Samples taken per call of `pinned` (LOOP pins one reader view per call).
const PER_PIN: usize = 1024;

/// How to take the samples of one row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CyclePlan {
    pub(crate) vrfs: usize,
    pub(crate) mode: Mode,
    /// Lookups to time in all (0: none).
    pub(crate) lookups: usize,
    /// Dependent lookups per sample in single mode.
    pub(crate) group: usize,
    pub(crate) max_time: Duration,
    pub(crate) seed: u64,
}

/// Measures `plan` on the structure that `pinned` hands to its callback (once per
/// [`PER_PIN`] samples). Empty without a TSC or with no lookups asked for.
pub(crate) fn measure<A: BenchAddress>(
    mut pinned: impl FnMut(&mut dyn FnMut(&dyn MultiLookup<A>)),
    plan: CyclePlan,
) -> CycleSamples {
    let Some(info) = Tsc::info() else { return CycleSamples::default() };
    let group = match plan.mode {
        Mode::Single => plan.group.clamp(1, MAX_GROUP),
        Mode::Batch => BATCH,
    };
    let samples = plan.lookups.div_ceil(group);
    if samples == 0 || plan.vrfs == 0 {
        return CycleSamples::default();
    }
    let mut rng = XorShift64::new(plan.seed);
    let mut raw = Vec::with_capacity(samples);
    let start = Instant::now();
    while raw.len() < samples && start.elapsed() < plan.max_time {
        let n = (samples - raw.len()).min(PER_PIN);
        pinned(&mut |m| {
            for _ in 0..n {
                raw.push(sample(black_box(m), &mut rng, plan.vrfs, plan.mode, group));
            }
        });
    }
    let overhead = info.overhead_ticks;
    let ticks = raw.into_iter().map(|t| (t as f64 - overhead).max(0.0) / group as f64).collect();
    CycleSamples { ticks, overhead, group, resolution: info.resolution_ticks / group as f64 }
}

/// Ticks of one sample: `group` dependent lookups, or one batch.
#[inline(never)]
fn sample<A: BenchAddress>(
    m: &dyn MultiLookup<A>,
    rng: &mut XorShift64,
    vrfs: usize,
    mode: Mode,
    group: usize,
) -> u64 {
    let mut keys = [(0 as VrfId, A::ZERO); MAX_GROUP];
    let n = if mode == Mode::Single { group } else { BATCH };
    for k in &mut keys[..n] {
        *k = (rng.below(vrfs as u64) as VrfId, A::random(rng));
    }
    match mode {
        Mode::Single => {
            // Zero at run time, unknown to the compiler: each address waits for the previous
            // answer without changing.
            let mask = black_box(0u128);
            let mut prev = 0u128;
            let t0 = Tsc::start();
            for &(v, a) in &keys[..n] {
                let a = A::from_u128(a.to_u128() ^ (prev & mask));
                prev = m.lookup(v, a).map_or(0, |h| h.raw() as u128);
            }
            let t1 = Tsc::stop();
            black_box(prev);
            t1.wrapping_sub(t0)
        }
        Mode::Batch => {
            let mut out = [None; BATCH];
            let t0 = Tsc::start();
            m.lookup_batch(&keys[..BATCH], &mut out);
            let t1 = Tsc::stop();
            black_box(&out);
            t1.wrapping_sub(t0)
        }
    }
}
