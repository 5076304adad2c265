//! How a batch's addresses reach `lookup_batch`, and what that costs a fast structure: the
//! addresses read in place from the trace, copied into a batch buffer (the bench's earlier
//! feed), or copied with the next batch's lines prefetched (the bench's feed now,
//! `ArrayGen::fill`). Traffic as the bench's `in-prefix`: 4 MiB of IPv6 addresses, each in a
//! random table prefix, cycled, so the trace streams from beyond L2.
//!
//! ```sh
//! cargo run --release -p fibforge --example batch_feed -- TABLE [ALGO] [ROUNDS]
//! ```
//!
//! The three feeds alternate in short slices (40 ms each, `ROUNDS` rounds, default 60), so a
//! noisy neighbour slows all three alike; each feed's rate is printed with the median of its
//! per-round ratio to the in-place feed.

mod common;

use common::cpu_now;
use fibforge::registry::{AlgoSpec, build};
use fibforge::{Lookup, NextHop};
use fibforge_io::ReadConfig;
use std::hint::black_box;

/// Batch size of `fibforge bench`.
const BATCH: usize = 64;
/// CPU seconds per feed and round.
const SLICE: f64 = 0.04;

type Feed = fn(&dyn Lookup<u128>, &[u128], &mut [Option<NextHop>; BATCH]) -> u32;

/// Batches read in place from the trace.
#[inline(never)]
fn in_place(f: &dyn Lookup<u128>, trace: &[u128], out: &mut [Option<NextHop>; BATCH]) -> u32 {
    let mut acc = 0u32;
    for batch in trace.chunks_exact(BATCH) {
        f.lookup_batch(batch, out);
        acc = acc.wrapping_add(out[0].map_or(0, |h| h.raw()));
    }
    acc
}

/// Batches copied into a buffer first.
#[inline(never)]
fn copied(f: &dyn Lookup<u128>, trace: &[u128], out: &mut [Option<NextHop>; BATCH]) -> u32 {
    let (mut buf, mut acc) = ([0u128; BATCH], 0u32);
    for batch in trace.chunks_exact(BATCH) {
        buf.copy_from_slice(batch);
        f.lookup_batch(&buf, out);
        acc = acc.wrapping_add(out[0].map_or(0, |h| h.raw()));
    }
    acc
}

/// Batches copied into a buffer, the next batch's lines prefetched after each copy.
#[inline(never)]
fn copied_prefetched(
    f: &dyn Lookup<u128>,
    trace: &[u128],
    out: &mut [Option<NextHop>; BATCH],
) -> u32 {
    let (mut buf, mut acc) = ([0u128; BATCH], 0u32);
    let batches = trace.chunks_exact(BATCH);
    let next = trace.chunks_exact(BATCH).skip(1).map(Some).chain([None]);
    for (batch, next) in batches.zip(next) {
        buf.copy_from_slice(batch);
        if let Some(next) = next {
            prefetch_lines(next);
        }
        f.lookup_batch(&buf, out);
        acc = acc.wrapping_add(out[0].map_or(0, |h| h.raw()));
    }
    acc
}

/// Hints that every cache line of `items` will be read soon.
fn prefetch_lines(items: &[u128]) {
    for line in items.chunks(64 / size_of::<u128>()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE is part of the x86_64 baseline; a prefetch is only a hint (and this
        // address lies inside `items`).
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }
}

/// Lookups per CPU second of `feed` over `trace` for about [`SLICE`].
fn rate(feed: Feed, f: &dyn Lookup<u128>, trace: &[u128]) -> f64 {
    let mut out = [None; BATCH];
    let (c0, mut n) = (cpu_now(), 0u64);
    while cpu_now() - c0 < SLICE {
        black_box(feed(f, trace, &mut out));
        n += trace.len() as u64;
    }
    n as f64 / (cpu_now() - c0) / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let table = args.next().expect("usage: batch_feed TABLE [ALGO] [ROUNDS]");
    let algo: AlgoSpec = args.next().as_deref().unwrap_or("bplus").parse().expect("algorithm");
    let rounds: usize = args.next().map_or(60, |r| r.parse().expect("rounds")).max(1);
    let rib = fibforge_io::read_table(table.as_ref(), &ReadConfig::default()).expect("table").v6;
    if rib.is_empty() {
        eprintln!("{table}: no IPv6 routes, so no in-prefix traffic");
        std::process::exit(1);
    }
    let fib = build(&algo, &rib).expect("build");
    let mut rng = fibforge::verify::XorShift64::new(7);
    let trace = fibforge::verify::in_prefix(&rib, &mut rng, (4 << 20) / size_of::<u128>());
    let feeds: [(&str, Feed); 3] =
        [("in place", in_place), ("copied", copied), ("copied + prefetch", copied_prefetched)];
    let rates: Vec<Vec<f64>> = (0..rounds)
        .map(|_| feeds.iter().map(|&(_, feed)| rate(feed, &*fib, &trace)).collect())
        .collect();
    println!("{algo} on {table}, in-prefix batches of {BATCH}, {rounds} rounds (Mlps per CPU s)");
    for (i, (name, _)) in feeds.iter().enumerate() {
        let own = median(rates.iter().map(|r| r[i]).collect());
        let ratio = median(rates.iter().map(|r| r[i] / r[0]).collect());
        println!("  {name:<18} {own:>7.1}   {ratio:.3}× in place");
    }
}
