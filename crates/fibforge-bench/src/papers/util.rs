//! Small helpers of the studies: timing, a quick random-traffic rate, formatting.

use crate::rng::XorShift64;
use fibforge::{Lookup, NextHop, Prefix, Rib};
use std::time::Instant;

/// Median of `runs` timings of `f` in milliseconds, with the last result.
pub fn median_ms<R>(runs: usize, mut f: impl FnMut() -> R) -> (f64, R) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        last = Some(f());
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], last.expect("at least one run"))
}

/// Million lookups per second of uniformly random IPv4 addresses drawn in the loop (as the
/// Poptrie paper's §4.2), single thread, wall clock over about `seconds`.
pub fn random_rate(fib: &dyn Lookup<u32>, seconds: f64, seed: u64) -> f64 {
    let mut rng = XorShift64::new(seed);
    let (mut n, mut acc) = (0u64, 0u32);
    let t0 = Instant::now();
    loop {
        for _ in 0..65_536 {
            let a = rng.next_u64() as u32;
            acc = acc.wrapping_add(fib.lookup(a).map_or(0, NextHop::raw));
        }
        n += 65_536;
        if t0.elapsed().as_secs_f64() >= seconds {
            break;
        }
    }
    std::hint::black_box(acc);
    n as f64 / t0.elapsed().as_secs_f64() / 1e6
}

/// The routes of `rib` in a random order (Fisher–Yates with `seed`).
pub fn shuffled(rib: &Rib<u32>, seed: u64) -> Vec<(Prefix<u32>, NextHop)> {
    let mut v: Vec<_> = rib.iter().collect();
    let mut rng = XorShift64::new(seed);
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

/// `x` with `d` decimals.
pub fn f(x: f64, d: usize) -> String {
    format!("{x:.d$}")
}

/// Bytes as KiB with no decimals.
pub fn kib(b: u64) -> String {
    format!("{:.0}", b as f64 / 1024.0)
}

/// Bytes as MiB with two decimals.
pub fn mib(b: u64) -> String {
    format!("{:.2}", b as f64 / 1048576.0)
}

/// Percentile `q` (0..=1) of `v` (sorted here).
pub fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}
