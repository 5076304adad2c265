//! Lookup rates: lookups per second over a fixed duration, one thread or several sharing one
//! structure (Poptrie Fig. 8).

use super::{Mode, raw};
use crate::traffic::{AddrGen, GenUser, TrafficSource};
use fibforge::{Address, Lookup, NextHop};
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Addresses per `lookup_batch` call in batch mode.
pub const BATCH: usize = 64;

/// Lookups between two clock reads (a few milliseconds even for the slowest structure).
const CHUNK: u64 = 1 << 14;

/// Single lookups between two calls of [`Probe::rest`]: a poll loop's burst, after which a
/// reader reports a quiescent state (it divides the 16,384 lookups between two clock reads).
pub const POLL_BURST: u64 = 256;

/// One timed run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Run {
    /// Lookups done.
    pub lookups: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Sum of the raw next hops (keeps the lookups alive; equal runs give equal sums).
    pub checksum: u64,
}

impl Run {
    /// Million lookups per second.
    pub fn mlps(&self) -> f64 {
        self.lookups as f64 / self.seconds / 1e6
    }
}

/// What a timed loop calls: a structure behind `dyn Lookup` (shared, `&self`), or a handle a
/// user holds per thread (`&mut self`, e.g. a QSBR reader that reports between chunks).
pub trait Probe<A> {
    /// One lookup.
    fn one(&mut self, addr: A) -> Option<NextHop>;
    /// A batch of lookups.
    fn many(&mut self, addrs: &[A], out: &mut [Option<NextHop>]);
    /// Called after every [`POLL_BURST`] single lookups, as a poll loop ends a burst (a
    /// reader's quiescent state; a batch reports in [`Probe::many`]); nothing for a bare
    /// structure.
    fn rest(&mut self) {}
}

impl<A: Address> Probe<A> for &dyn Lookup<A> {
    #[inline(always)]
    fn one(&mut self, addr: A) -> Option<NextHop> {
        self.lookup(addr)
    }
    #[inline(always)]
    fn many(&mut self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.lookup_batch(addrs, out)
    }
}

/// Runs `fib` on `traffic` (generator seeded with `seed`) for about `duration`.
pub fn measure_rate<A: crate::family::BenchAddress>(
    fib: &dyn Lookup<A>,
    traffic: &TrafficSource<A>,
    mode: Mode,
    duration: Duration,
    seed: u64,
) -> Run {
    traffic.with_gen(seed, RateLoop { fib: &mut { fib }, mode, duration })
}

/// Like [`measure_rate`], through a [`Probe`] (one `dyn` call per lookup, as `dyn Lookup`).
pub fn measure_probe<A: crate::family::BenchAddress>(
    probe: &mut dyn Probe<A>,
    traffic: &TrafficSource<A>,
    mode: Mode,
    duration: Duration,
    seed: u64,
) -> Run {
    traffic.with_gen(seed, RateLoop { fib: probe, mode, duration })
}

/// `threads` threads, each with its own generator, look up in the same structure at once;
/// the result sums their lookups over the longest thread's time.
pub fn measure_threads<A: crate::family::BenchAddress>(
    fib: &dyn Lookup<A>,
    traffic: &TrafficSource<A>,
    mode: Mode,
    threads: usize,
    duration: Duration,
    seed: u64,
) -> Run {
    let start = Barrier::new(threads);
    let runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let start = &start;
                let thread_seed = seed ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                s.spawn(move || {
                    start.wait();
                    measure_rate(fib, traffic, mode, duration, thread_seed)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("benchmark thread panicked")).collect()
    });
    let seconds = runs.iter().map(|r| r.seconds).fold(0.0, f64::max);
    Run {
        lookups: runs.iter().map(|r| r.lookups).sum(),
        seconds,
        checksum: runs.iter().fold(0, |c, r| c.wrapping_add(r.checksum)),
    }
}

struct RateLoop<'a, P: ?Sized> {
    fib: &'a mut P,
    mode: Mode,
    duration: Duration,
}

impl<A: Address, P: Probe<A> + ?Sized> GenUser<A> for RateLoop<'_, P> {
    type Out = Run;
    fn run<G: AddrGen<A>>(self, mut addr_gen: G) -> Run {
        let mut addrs = [A::ZERO; BATCH];
        let mut out = [None; BATCH];
        let mut run = Run::default();
        let start = Instant::now();
        loop {
            let fib = black_box(&mut *self.fib);
            let sum;
            (sum, addr_gen) = match self.mode {
                Mode::Single => single_chunk(fib, addr_gen, CHUNK),
                Mode::Batch => {
                    batch_chunk(fib, addr_gen, CHUNK / BATCH as u64, &mut addrs, &mut out)
                }
            };
            run.checksum = run.checksum.wrapping_add(sum);
            run.lookups += CHUNK;
            let elapsed = start.elapsed();
            if elapsed >= self.duration {
                run.seconds = elapsed.as_secs_f64();
                break;
            }
        }
        black_box(run.checksum);
        run
    }
}

// The chunk loops own the generator (taken and given back by value): a local whose address
// is never taken stays in registers across the lookup calls, where state behind a `&mut`
// would be stored and reloaded around every call and lengthen the generator's chain.

/// `n` single lookups, each on an address generated right before it, in bursts of
/// [`POLL_BURST`] with [`Probe::rest`] after each (so that a reader's probe counts nothing
/// per lookup, as a poll loop reports per burst, not per packet).
#[inline(never)]
fn single_chunk<A: Address, P: Probe<A> + ?Sized, G: AddrGen<A>>(
    fib: &mut P,
    mut g: G,
    n: u64,
) -> (u64, G) {
    let mut sum = 0u64;
    for _ in 0..n / POLL_BURST {
        for _ in 0..POLL_BURST {
            sum = sum.wrapping_add(raw(fib.one(g.next_addr())));
        }
        fib.rest();
    }
    (sum, g)
}

/// `n` batches of [`BATCH`] addresses: the generator's fill and the checksum loop compiled
/// with AVX2 when the CPU has it (the baseline x86-64 build has SSE2 only, and these loops
/// are the harness's share of every batch figure; the lookups are `dyn` calls, untouched).
#[inline(never)]
fn batch_chunk<A: Address, P: Probe<A> + ?Sized, G: AddrGen<A>>(
    fib: &mut P,
    g: G,
    n: u64,
    addrs: &mut [A; BATCH],
    out: &mut [Option<NextHop>; BATCH],
) -> (u64, G) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected on this CPU.
        return unsafe { batch_chunk_avx2(fib, g, n, addrs, out) };
    }
    batch_chunk_body(fib, g, n, addrs, out)
}

/// [`batch_chunk_body`] compiled with AVX2.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn batch_chunk_avx2<A: Address, P: Probe<A> + ?Sized, G: AddrGen<A>>(
    fib: &mut P,
    g: G,
    n: u64,
    addrs: &mut [A; BATCH],
    out: &mut [Option<NextHop>; BATCH],
) -> (u64, G) {
    batch_chunk_body(fib, g, n, addrs, out)
}

#[inline(always)]
fn batch_chunk_body<A: Address, P: Probe<A> + ?Sized, G: AddrGen<A>>(
    fib: &mut P,
    mut g: G,
    n: u64,
    addrs: &mut [A; BATCH],
    out: &mut [Option<NextHop>; BATCH],
) -> (u64, G) {
    let mut sum = 0u64;
    for _ in 0..n {
        g.fill(addrs);
        fib.many(addrs, out);
        for &h in out.iter() {
            sum = sum.wrapping_add(raw(h));
        }
    }
    (sum, g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{Compile, Rib, algo::radix::Radix};

    #[test]
    fn single_and_batch_see_the_same_answers() {
        let rib: Rib<u32> = ["0.0.0.0/1", "10.0.0.0/8", "200.0.0.0/5"]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.parse().unwrap(), NextHop::from_index(i as u32)))
            .collect();
        let fib = Radix::compile(&rib, &()).unwrap();
        let traffic =
            TrafficSource::Array(TrafficSource::<u32>::Random.sample(CHUNK as usize, 1).into());
        let d = Duration::ZERO; // one chunk each
        let a = measure_rate(&fib, &traffic, Mode::Single, d, 0);
        let b = measure_rate(&fib, &traffic, Mode::Batch, d, 0);
        assert_eq!((a.lookups, b.lookups), (CHUNK, CHUNK));
        assert_eq!(a.checksum, b.checksum);
        let want: u64 = traffic.sample(CHUNK as usize, 0).iter().map(|&x| raw(rib.lookup(x))).sum();
        assert_eq!(a.checksum, want);
        let t = measure_threads(&fib, &traffic, Mode::Single, 2, d, 0);
        assert_eq!(t.lookups, 2 * CHUNK);
    }
}
