//! Per-lookup cost in time-stamp-counter ticks (Poptrie §4.6, Table 4, Figs. 10 and 11).
//!
//! A TSC read costs tens of ticks and, on some virtual machines, the counter moves in steps of
//! about 25 ticks, so bracketing each lookup on its own measures the timer, not the lookup.
//! Instead, in single mode, each sample times a *group* of [`CycleSamples::group`] dependent
//! lookups: the address of each lookup is XORed with the previous answer masked by a zero the
//! compiler cannot see, so the lookups run one after another (latency, as a bracketed lookup
//! would) while the timer is read once per group. The sample is the group's ticks, less the
//! cost of an empty bracket, divided by the group size; its resolution is the timer's
//! resolution divided by the group size. In batch mode one sample is one `lookup_batch` of
//! [`BATCH`] independent addresses, divided by [`BATCH`]. Addresses are drawn before the
//! bracket opens, so the generator is never timed. A percentile is an average over one group:
//! tails are narrower than those of single lookups, which the group size in the report states.
//!
//! Brackets are `lfence; rdtsc; lfence` and `rdtscp; lfence`: the first fence keeps earlier
//! work out of the window, the second keeps the lookups from starting before the read,
//! `rdtscp` waits for them to finish. Modern x86 TSCs tick at a constant rate (the nominal
//! frequency), not the current core clock: with turbo or power saving the figures are
//! "reference cycles"; the machine description records the TSC rate and resolution. On other
//! architectures no cycles are measured.

use super::{BATCH, Mode};
use crate::traffic::{AddrGen, GenUser, TrafficSource};
use fibforge::{Address, Lookup};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Reads of the time-stamp counter.
pub struct Tsc;

impl Tsc {
    /// True when this machine has a usable TSC (x86-64).
    pub fn available() -> bool {
        cfg!(target_arch = "x86_64")
    }

    /// The counter, ordered after everything before it.
    #[inline(always)]
    pub fn start() -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_lfence, _rdtsc};
            // SAFETY: lfence and rdtsc exist on every x86-64 CPU and touch no memory.
            unsafe {
                _mm_lfence();
                let t = _rdtsc();
                _mm_lfence();
                t
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        0
    }

    /// The counter, after everything before it has completed.
    #[inline(always)]
    pub fn stop() -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__rdtscp, _mm_lfence};
            let mut aux = 0u32;
            // SAFETY: rdtscp exists on every x86-64 CPU this project targets (AMD since K8,
            // Intel since Nehalem); it writes only `aux`.
            unsafe {
                let t = __rdtscp(&mut aux);
                _mm_lfence();
                t
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        0
    }

    /// Ticks per second, measured against the system clock over about 50 ms.
    pub fn hz() -> Option<f64> {
        if !Self::available() {
            return None;
        }
        let (i0, t0) = (Instant::now(), Self::start());
        std::thread::sleep(Duration::from_millis(50));
        let (t1, i1) = (Self::stop(), Instant::now());
        Some(t1.wrapping_sub(t0) as f64 / (i1 - i0).as_secs_f64())
    }
}

/// Lookups per timed group in single mode unless the command line says otherwise: with a timer
/// that moves in steps of 25 ticks, per-lookup figures resolve to under one tick.
pub const DEFAULT_GROUP: usize = 32;

/// The timer's resolution and the cost of reading it, measured once per process.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TimerInfo {
    /// The smallest step between two values an empty bracket commonly reads, in ticks: no
    /// single bracket measures a difference finer than this.
    pub resolution_ticks: f64,
    /// Median ticks of an empty bracket (subtracted from every sample).
    pub overhead_ticks: f64,
    /// 5th and 95th percentiles of the empty bracket.
    pub overhead_p5_p95: (f64, f64),
}

impl Tsc {
    /// The timer's resolution and overhead (measured on the first call, then cached); `None`
    /// without a TSC.
    pub fn info() -> Option<TimerInfo> {
        static INFO: std::sync::OnceLock<Option<TimerInfo>> = std::sync::OnceLock::new();
        *INFO.get_or_init(|| {
            if !Self::available() {
                return None;
            }
            let mut v: Vec<u64> = (0..100_001)
                .map(|_| {
                    let t0 = Self::start();
                    Self::stop().wrapping_sub(t0)
                })
                .collect();
            v.sort_unstable();
            let at = |p: usize| v[(v.len() - 1) * p / 100] as f64;
            let raw_step = || {
                // The bracket always read one value: the step of the bare counter instead.
                let mut prev = Self::start();
                (0..100_000)
                    .filter_map(|_| {
                        let t = Self::start();
                        let d = t.wrapping_sub(prev);
                        prev = t;
                        (d > 0).then_some(d)
                    })
                    .min()
                    .unwrap_or(1)
            };
            let resolution = common_step(&v).unwrap_or_else(raw_step).max(1);
            Some(TimerInfo {
                resolution_ticks: resolution as f64,
                overhead_ticks: at(50),
                overhead_p5_p95: (at(5), at(95)),
            })
        })
    }
}

/// The smallest gap between adjacent distinct values of `sorted` that each make up at least
/// 0.1 % of it (rarer values are interrupts and migrations, not the timer); `None` when fewer
/// than two values are that common.
pub fn common_step(sorted: &[u64]) -> Option<u64> {
    let floor = (sorted.len() / 1000).max(1);
    let mut common = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let j = sorted[i..].iter().position(|&x| x != sorted[i]).map_or(sorted.len(), |k| i + k);
        if j - i >= floor {
            common.push(sorted[i]);
        }
        i = j;
    }
    common.windows(2).map(|w| w[1] - w[0]).min()
}

/// Per-lookup ticks of one measurement, timer overhead already subtracted.
#[derive(Clone, Debug, Default)]
pub struct CycleSamples {
    /// One value per timed group (single mode) or batch (batch mode), divided by the lookups
    /// it holds, in generator order.
    pub ticks: Vec<f64>,
    /// The subtracted cost of the empty bracket.
    pub overhead: f64,
    /// Lookups per sample: the group size in single mode, [`BATCH`] in batch mode.
    pub group: usize,
    /// The resolution of each sample in ticks per lookup: the timer's resolution divided by
    /// `group`.
    pub resolution: f64,
}

impl CycleSamples {
    /// Measures about `lookups` lookups of `traffic` seeded with `seed`, `group` dependent ones
    /// per sample in single mode, stopping early after `max_time`. Empty when the machine has
    /// no TSC.
    pub fn measure<A: crate::family::BenchAddress>(
        fib: &dyn Lookup<A>,
        traffic: &TrafficSource<A>,
        mode: Mode,
        lookups: usize,
        group: usize,
        max_time: Duration,
        seed: u64,
    ) -> CycleSamples {
        let Some(info) = Tsc::info() else { return CycleSamples::default() };
        let group = match mode {
            Mode::Single => group.clamp(1, MAX_GROUP),
            Mode::Batch => BATCH,
        };
        let samples = lookups.div_ceil(group);
        if samples == 0 {
            return CycleSamples::default();
        }
        let raw = traffic.with_gen(seed, CycleLoop { fib, mode, group, samples, max_time });
        let overhead = info.overhead_ticks;
        let ticks =
            raw.into_iter().map(|t| (t as f64 - overhead).max(0.0) / group as f64).collect();
        CycleSamples { ticks, overhead, group, resolution: info.resolution_ticks / group as f64 }
    }

    /// Per-lookup ticks of `addrs` looked up in groups of `group` dependent lookups (the last
    /// one shorter), one sample per lookup: every lookup of a group gets the group's mean.
    /// Empty without a TSC. Used per binary-radix depth, where each list holds one depth.
    pub fn per_lookup<A: Address>(fib: &dyn Lookup<A>, addrs: &[A], group: usize) -> Vec<f64> {
        let Some(info) = Tsc::info() else { return Vec::new() };
        let mut out = Vec::with_capacity(addrs.len());
        for chunk in addrs.chunks(group.clamp(1, MAX_GROUP)) {
            let t = time_chain(black_box(fib), chunk) as f64;
            let per = (t - info.overhead_ticks).max(0.0) / chunk.len() as f64;
            out.extend(std::iter::repeat_n(per, chunk.len()));
        }
        out
    }
}

/// The largest group (the address buffer is on the stack).
pub const MAX_GROUP: usize = 1024;

/// Ticks of looking up `addrs` one after another, each address depending on the previous
/// answer.
#[inline(always)]
fn time_chain<A: Address>(fib: &dyn Lookup<A>, addrs: &[A]) -> u64 {
    // Zero at run time, unknown to the compiler: `prev & mask` makes each address wait for
    // the previous answer without changing it.
    let mask = black_box(0u128);
    let mut prev = 0u128;
    let t0 = Tsc::start();
    for &a in addrs {
        let a = A::from_u128(a.to_u128() ^ (prev & mask));
        prev = super::raw(fib.lookup(a)) as u128;
    }
    let t1 = Tsc::stop();
    black_box(prev);
    t1.wrapping_sub(t0)
}

struct CycleLoop<'a, A> {
    fib: &'a dyn Lookup<A>,
    mode: Mode,
    group: usize,
    samples: usize,
    max_time: Duration,
}

impl<A: Address> GenUser<A> for CycleLoop<'_, A> {
    type Out = Vec<u64>;
    fn run<G: AddrGen<A>>(self, mut addr_gen: G) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.samples);
        let start = Instant::now();
        let mut addrs = [A::ZERO; MAX_GROUP];
        let mut hops = [None; BATCH];
        while out.len() < self.samples {
            let fib = black_box(self.fib);
            let n = (self.samples - out.len()).min(1024);
            for _ in 0..n {
                let ticks = match self.mode {
                    Mode::Single => {
                        let group = &mut addrs[..self.group];
                        addr_gen.fill(group);
                        time_chain(fib, group)
                    }
                    Mode::Batch => {
                        let batch = &mut addrs[..BATCH];
                        addr_gen.fill(batch);
                        let t0 = Tsc::start();
                        fib.lookup_batch(batch, &mut hops);
                        black_box(&hops);
                        Tsc::stop().wrapping_sub(t0)
                    }
                };
                out.push(ticks);
            }
            if start.elapsed() >= self.max_time {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{Compile, NextHop, Rib, algo::radix::Radix};

    #[test]
    fn common_step_ignores_rare_values() {
        // a counter moving in steps of 25, with a rare outlier one tick away
        let mut v = vec![0u64; 6000];
        v.extend([25; 3000]);
        v.extend([50; 990]);
        v.push(51);
        assert_eq!(common_step(&v), Some(25));
        assert_eq!(common_step(&[40, 40, 42, 42, 44]), Some(2));
        assert_eq!(common_step(&[7; 100]), None);
        assert_eq!(common_step(&[]), None);
    }

    #[test]
    fn samples_are_counted_and_non_negative() {
        let rib: Rib<u32> =
            [("10.0.0.0/8".parse().unwrap(), NextHop::from_index(0))].into_iter().collect();
        let fib = Radix::compile(&rib, &()).unwrap();
        let secs = Duration::from_secs(5);
        let s = CycleSamples::measure(&fib, &TrafficSource::Random, Mode::Single, 1000, 8, secs, 1);
        let Some(info) = Tsc::info() else {
            assert!(s.ticks.is_empty());
            return;
        };
        assert!(info.resolution_ticks >= 1.0 && info.overhead_p5_p95.0 <= info.overhead_ticks);
        assert_eq!((s.ticks.len(), s.group), (125, 8));
        assert_eq!(s.resolution, info.resolution_ticks / 8.0);
        assert!(s.ticks.iter().all(|&t| t >= 0.0));
        let b = CycleSamples::measure(&fib, &TrafficSource::Random, Mode::Batch, 640, 8, secs, 1);
        assert_eq!((b.ticks.len(), b.group), (10, BATCH));
        let addrs: Vec<u32> = (0..10).map(|i| i << 24).collect();
        let per = CycleSamples::per_lookup(&fib, &addrs, 4);
        assert_eq!(per.len(), 10);
        assert_eq!(per[0], per[3], "one group, one figure");
    }
}
