//! How a batch's addresses reach `lookup_batch`, and what that costs a fast structure: the
//! addresses read in place from the trace, copied into a batch buffer (the bench's earlier
//! feed), or through the bench's own feed (`TrafficSource::Array`'s `fill`: the copy, then
//! the next batch's lines prefetched). Traffic is the bench's `in-prefix`: 4 MiB of IPv6
//! addresses, each in a random table prefix, cycled, so the trace streams from beyond L2.
//!
//! ```sh
//! cargo run --release -p fibforge-bench --example batch_feed -- TABLE [ALGO] [ROUNDS]
//! ```
//!
//! The three feeds alternate in short slices (40 ms each, `ROUNDS` rounds, default 60), so a
//! noisy neighbour slows all three alike; each feed's rate is printed with the median of its
//! per-round ratio to the in-place feed.

use fibforge::registry::{AlgoSpec, build};
use fibforge::{Lookup, NextHop};
use fibforge_bench::timing::{BATCH, Spread};
use fibforge_bench::traffic::{AddrGen, GenUser, TrafficSource, draw_in_prefix};
use fibforge_io::ReadConfig;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Wall time per feed and round.
const SLICE: Duration = Duration::from_millis(40);
/// Bytes of addresses, as the bench's `in-prefix` traffic.
const TRACE_BYTES: usize = 4 << 20;

/// One pass over the trace in batches, answering the first hop of each (kept alive).
type Feed = fn(&dyn Lookup<u128>, &TrafficSource<u128>, &[u128]) -> u32;

/// Batches read in place from the trace.
#[inline(never)]
fn in_place(f: &dyn Lookup<u128>, _: &TrafficSource<u128>, trace: &[u128]) -> u32 {
    let (mut out, mut acc) = ([None; BATCH], 0u32);
    for batch in trace.chunks_exact(BATCH) {
        f.lookup_batch(batch, &mut out);
        acc = acc.wrapping_add(first_hop(&out));
    }
    acc
}

/// Batches copied into a buffer first, nothing prefetched (the bench's earlier feed).
#[inline(never)]
fn copied(f: &dyn Lookup<u128>, _: &TrafficSource<u128>, trace: &[u128]) -> u32 {
    let (mut buf, mut out, mut acc) = ([0u128; BATCH], [None; BATCH], 0u32);
    for batch in trace.chunks_exact(BATCH) {
        buf.copy_from_slice(batch);
        f.lookup_batch(&buf, &mut out);
        acc = acc.wrapping_add(first_hop(&out));
    }
    acc
}

/// Batches filled by the bench's own generator for the trace.
#[inline(never)]
fn bench_fill(f: &dyn Lookup<u128>, source: &TrafficSource<u128>, trace: &[u128]) -> u32 {
    struct Pass<'a>(&'a dyn Lookup<u128>, usize);
    impl GenUser<u128> for Pass<'_> {
        type Out = u32;
        fn run<G: AddrGen<u128>>(self, mut g: G) -> u32 {
            let (mut buf, mut out, mut acc) = ([0u128; BATCH], [None; BATCH], 0u32);
            for _ in 0..self.1 {
                g.fill(&mut buf);
                self.0.lookup_batch(&buf, &mut out);
                acc = acc.wrapping_add(first_hop(&out));
            }
            acc
        }
    }
    // Seed 0 starts at the trace's first address, as the other feeds do.
    source.with_gen(0, Pass(f, trace.len() / BATCH))
}

fn first_hop(out: &[Option<NextHop>]) -> u32 {
    out[0].map_or(0, |h| h.raw())
}

/// Million lookups per second of `feed` for about [`SLICE`].
fn rate(feed: Feed, f: &dyn Lookup<u128>, source: &TrafficSource<u128>, trace: &[u128]) -> f64 {
    let (start, mut n) = (Instant::now(), 0u64);
    while start.elapsed() < SLICE {
        black_box(feed(f, source, trace));
        n += (trace.len() / BATCH * BATCH) as u64;
    }
    n as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn median(v: Vec<f64>) -> f64 {
    Spread::of(&v).expect("at least one round").median
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
    let trace = draw_in_prefix(&rib, TRACE_BYTES / size_of::<u128>(), 7);
    let source = TrafficSource::Array(trace.clone().into());
    let feeds: [(&str, Feed); 3] =
        [("in place", in_place), ("copied", copied), ("bench's fill", bench_fill)];
    let rates: Vec<Vec<f64>> = (0..rounds)
        .map(|_| feeds.iter().map(|&(_, feed)| rate(feed, &*fib, &source, &trace)).collect())
        .collect();
    println!("{algo} on {table}, in-prefix batches of {BATCH}, {rounds} rounds (Mlps)");
    for (i, (name, _)) in feeds.iter().enumerate() {
        let own = median(rates.iter().map(|r| r[i]).collect());
        let ratio = median(rates.iter().map(|r| r[i] / r[0]).collect());
        println!("  {name:<14} {own:>7.1}   {ratio:.3}× in place");
    }
}
