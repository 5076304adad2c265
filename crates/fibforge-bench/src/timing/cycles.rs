//! Per-lookup cost in time-stamp-counter ticks (Poptrie §4.6, Table 4, Figs. 10 and 11).
//!
//! Each lookup (each batch in batch mode) is bracketed by `lfence; rdtsc; lfence` and
//! `rdtscp; lfence`: the first fence keeps earlier work out of the window, the second keeps the
//! lookup from starting before the read, `rdtscp` waits for the lookup to finish. The cost of
//! an empty bracket (the median of many) is subtracted from every sample. Modern x86 TSCs tick
//! at a constant rate (the nominal frequency), not the current core clock: with turbo or power
//! saving the figures are "reference cycles"; the machine description records the TSC rate.
//! On other architectures no cycles are measured.

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

    /// The median cost of an empty start/stop bracket.
    pub fn overhead() -> f64 {
        let mut v: Vec<u64> = (0..10_001)
            .map(|_| {
                let t0 = Self::start();
                let t1 = Self::stop();
                t1.wrapping_sub(t0)
            })
            .collect();
        v.sort_unstable();
        v[v.len() / 2] as f64
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

/// Per-lookup ticks of one measurement, timer overhead already subtracted.
#[derive(Clone, Debug, Default)]
pub struct CycleSamples {
    /// One value per lookup (single mode) or per batch divided by its size (batch mode), in
    /// generator order.
    pub ticks: Vec<f64>,
    /// The subtracted cost of the empty bracket.
    pub overhead: f64,
}

impl CycleSamples {
    /// Measures up to `samples` lookups (or batches) of `traffic` seeded with `seed`, stopping
    /// early after `max_time`. Empty when the machine has no TSC.
    pub fn measure<A: crate::family::BenchAddress>(
        fib: &dyn Lookup<A>,
        traffic: &TrafficSource<A>,
        mode: Mode,
        samples: usize,
        max_time: Duration,
        seed: u64,
    ) -> CycleSamples {
        if !Tsc::available() || samples == 0 {
            return CycleSamples::default();
        }
        let overhead = Tsc::overhead();
        let raw = traffic.with_gen(seed, CycleLoop { fib, mode, samples, max_time });
        let per = match mode {
            Mode::Single => 1.0,
            Mode::Batch => BATCH as f64,
        };
        let ticks = raw.into_iter().map(|t| (t as f64 - overhead).max(0.0) / per).collect();
        CycleSamples { ticks, overhead }
    }
}

struct CycleLoop<'a, A> {
    fib: &'a dyn Lookup<A>,
    mode: Mode,
    samples: usize,
    max_time: Duration,
}

impl<A: Address> GenUser<A> for CycleLoop<'_, A> {
    type Out = Vec<u64>;
    fn run<G: AddrGen<A>>(self, mut addr_gen: G) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.samples);
        let start = Instant::now();
        let mut addrs = [A::ZERO; BATCH];
        let mut hops = [None; BATCH];
        while out.len() < self.samples {
            let fib = black_box(self.fib);
            let n = (self.samples - out.len()).min(4096);
            for _ in 0..n {
                let ticks = match self.mode {
                    Mode::Single => {
                        let a = addr_gen.next_addr();
                        let t0 = Tsc::start();
                        black_box(fib.lookup(a));
                        Tsc::stop().wrapping_sub(t0)
                    }
                    Mode::Batch => {
                        addr_gen.fill(&mut addrs);
                        let t0 = Tsc::start();
                        fib.lookup_batch(&addrs, &mut hops);
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
    fn samples_are_counted_and_non_negative() {
        let rib: Rib<u32> =
            [("10.0.0.0/8".parse().unwrap(), NextHop::from_index(0))].into_iter().collect();
        let fib = Radix::compile(&rib, &()).unwrap();
        let s = CycleSamples::measure(
            &fib,
            &TrafficSource::Random,
            Mode::Single,
            1000,
            Duration::from_secs(5),
            1,
        );
        if Tsc::available() {
            assert_eq!(s.ticks.len(), 1000);
            assert!(s.ticks.iter().all(|&t| t >= 0.0));
            let b = CycleSamples::measure(
                &fib,
                &TrafficSource::Random,
                Mode::Batch,
                10,
                Duration::from_secs(5),
                1,
            );
            assert_eq!(b.ticks.len(), 10);
        } else {
            assert!(s.ticks.is_empty());
        }
    }
}
