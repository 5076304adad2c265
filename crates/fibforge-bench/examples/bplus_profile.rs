//! Where the time of a `bplus` IPv6 lookup goes: rates, core cycles and the lines each lookup
//! reads, for the traffic of `fibforge bench` (uniform random in 2000::/3, or a random address
//! in a random table prefix, 4 MiB of addresses cycled, batches of 64).
//!
//! ```sh
//! cargo run --release -p fibforge-bench --example bplus_profile -- TABLE [options]
//!   --algo SPECS       bplus specs, `;`-separated (default `bplus`; e.g. `bplus:leaf=plain`);
//!                      a `poptrie` spec is timed too, over the same addresses, for ratios
//!   --traffic LIST     random | inprefix | hot:K (in-prefix addresses of K routes only, so
//!                      that every line they read stays in L1) (default random,inprefix)
//!   --mode LIST        batch | single (default batch,single)
//!   --secs F           CPU seconds per measurement (default 0.5)
//!   --repeat N         repeats, median reported (default 3)
//!   --passes N         instead of --secs: N passes over the addresses (for cachegrind:
//!                      `valgrind --tool=cachegrind --toggle-collect='*lookup_batch*'`)
//!   --paths            print the lines the lookups of each traffic read (levels, side tables)
//! ```
//!
//! Core cycles per lookup are CPU time times the core clock, which is measured first with a
//! chain of dependent multiplies (3 cycles each): the VMs here expose no hardware counters.

mod common;

use common::cpu_now;
use fibforge::algo::bplus::{BPlus, Config, LANES};
use fibforge::algo::poptrie::{Config as PoptrieConfig, Poptrie};
use fibforge::registry::AlgoSpec;
use fibforge::{Compile, Lookup, Rib};
use fibforge_io::ReadConfig;
use std::collections::HashSet;
use std::hint::black_box;

/// Addresses drawn per traffic, as `fibforge bench` (4 MiB of IPv6 addresses).
const ADDRS: usize = (4 << 20) / 16;
/// Batch size of `fibforge bench`.
const BATCH: usize = 64;

struct Opts {
    table: String,
    algos: Vec<String>,
    traffic: Vec<String>,
    modes: Vec<String>,
    secs: f64,
    repeat: usize,
    passes: Option<usize>,
    paths: bool,
}

fn parse_args() -> Opts {
    let mut o = Opts {
        table: String::new(),
        algos: vec!["bplus".into()],
        traffic: vec!["random".into(), "inprefix".into()],
        modes: vec!["batch".into(), "single".into()],
        secs: 0.5,
        repeat: 3,
        passes: None,
        paths: false,
    };
    let list = |v: String, sep: char| v.split(sep).map(str::to_string).collect::<Vec<_>>();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().expect("option value");
        match a.as_str() {
            "--algo" => o.algos = list(val(), ';'),
            "--traffic" => o.traffic = list(val(), ','),
            "--mode" => o.modes = list(val(), ','),
            "--secs" => o.secs = val().parse().expect("secs"),
            "--repeat" => o.repeat = val().parse().expect("repeat"),
            "--passes" => o.passes = Some(val().parse().expect("passes")),
            "--paths" => o.paths = true,
            _ => o.table = a,
        }
    }
    assert!(!o.table.is_empty(), "usage: bplus_profile TABLE [options]");
    o
}

/// The core clock in GHz: a chain of dependent multiplies retires one per 3 cycles (adds of
/// immediates are not timed: some cores fold them at rename).
fn core_ghz() -> f64 {
    let rounds = 10_000_000u64;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let c0 = cpu_now();
        let mut x = 3u64;
        for _ in 0..rounds {
            // SAFETY: register-only arithmetic.
            unsafe {
                std::arch::asm!(
                    "imul {x}, {x}", "imul {x}, {x}", "imul {x}, {x}", "imul {x}, {x}",
                    "imul {x}, {x}", "imul {x}, {x}", "imul {x}, {x}", "imul {x}, {x}",
                    x = inout(reg) x, options(nomem, nostack)
                )
            };
        }
        black_box(x);
        best = best.min(cpu_now() - c0);
    }
    (rounds * 8 * 3) as f64 / best / 1e9
}

/// `n` addresses of the traffic `name`.
fn addresses(rib: &Rib<u128>, name: &str) -> Vec<u128> {
    let mut rng = fibforge::verify::XorShift64::new(0x5eed);
    match name.strip_prefix("hot:") {
        Some(k) => {
            let k: usize = k.parse().expect("hot:K");
            let mut few = Rib::<u128>::new();
            for (p, h) in rib.iter().step_by((rib.len() / k).max(1)).take(k) {
                few.insert(p, h);
            }
            fibforge::verify::in_prefix(&few, &mut rng, ADDRS)
        }
        None if name == "inprefix" => fibforge::verify::in_prefix(rib, &mut rng, ADDRS),
        None => {
            let u: Vec<u128> = fibforge::verify::uniform(&mut rng, ADDRS);
            u.into_iter().map(|a| (a >> 3) | (1u128 << 125)).collect()
        }
    }
}

/// Lookups per CPU second over `addrs` (cycled), in batches or one by one.
fn rate<L: Lookup<u128>>(f: &L, addrs: &[u128], batch: bool, o: &Opts) -> f64 {
    let mut out = vec![None; BATCH];
    let (c0, mut n, mut acc, mut passes) = (cpu_now(), 0u64, 0u32, 0);
    loop {
        if batch {
            for chunk in addrs.chunks_exact(BATCH) {
                f.lookup_batch(chunk, &mut out);
                acc = acc.wrapping_add(out[0].map_or(0, |h| h.raw()));
            }
        } else {
            for &a in addrs {
                acc = acc.wrapping_add(f.lookup(a).map_or(0, |h| h.raw()));
            }
        }
        n += addrs.len() as u64;
        passes += 1;
        let done = match o.passes {
            Some(p) => passes >= p,
            None => cpu_now() - c0 >= o.secs,
        };
        if done {
            break;
        }
    }
    black_box(acc);
    n as f64 / (cpu_now() - c0)
}

/// The lines the lookups of one traffic read: levels, nodes touched per level, side tables.
fn print_paths(f: &BPlus<u128>, name: &str, addrs: &[u128]) {
    let fib = f.view();
    let lines = fib.level_lines();
    let mut touched: Vec<HashSet<usize>> = vec![HashSet::new(); lines.len()];
    let (mut direct, mut side) = (0usize, 0usize);
    // The start level of every descent (addresses the directory does not answer).
    let mut starts = Vec::new();
    for &a in addrs {
        let p = fib.path(a);
        if p.direct {
            direct += 1;
            continue;
        }
        starts.push(p.start_level);
        side += p.side as usize;
        for (set, &node) in touched.iter_mut().zip(&p.nodes) {
            set.insert(node);
        }
    }
    let descend = starts.len().max(1) as f64;
    let start = starts.iter().sum::<usize>() as f64 / descend;
    println!(
        "  paths of {name}: {} addresses; {:.1} % answered by the directory; the others read {} \
         tree lines from the root or {:.2} from the directory's level {:.2} (single lookups, and \
         batches with bgroup); {:.2} % of them need a side table",
        addrs.len(),
        100.0 * direct as f64 / addrs.len() as f64,
        lines.len(),
        lines.len() as f64 - start,
        start,
        100.0 * side as f64 / descend
    );
    let per_level: Vec<String> =
        touched.iter().zip(&lines).map(|(t, l)| format!("{}/{}", t.len(), l)).collect();
    println!("  lines touched / lines per level: {}", per_level.join("  "));
    print_start_levels(&starts, lines.len());
}

/// How many descents start at each level, and how many groups of `LANES` consecutive
/// descents (a batch's lock step) have each level as their shallowest start: the levels a
/// lock step from that shallowest level would skip.
fn print_start_levels(starts: &[usize], levels: usize) {
    let mut each = vec![0usize; levels];
    let mut shallowest = vec![0usize; levels];
    for &level in starts {
        each[level] += 1;
    }
    for group in starts.chunks_exact(LANES) {
        shallowest[group.iter().copied().min().unwrap_or(0)] += 1;
    }
    println!(
        "  descents per start level: {each:?}; groups of {LANES} per shallowest start: \
         {shallowest:?}"
    );
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let o = parse_args();
    let t = fibforge_io::read_table(o.table.as_ref(), &ReadConfig::default()).expect("table");
    let ghz = if o.passes.is_some() { 0.0 } else { core_ghz() };
    println!("table {}: {} IPv6 routes; core clock {ghz:.2} GHz", o.table, t.v6.len());
    let traffic: Vec<(String, Vec<u128>)> =
        o.traffic.iter().map(|n| (n.clone(), addresses(&t.v6, n))).collect();
    for spec in &o.algos {
        let parsed = spec.parse::<AlgoSpec>().expect("spec");
        if parsed.name.starts_with("poptrie") {
            let (_, resolved) = fibforge::registry::resolve(&parsed).expect("a poptrie spec");
            let cfg = PoptrieConfig::from_spec::<u128>(&resolved).expect("config");
            let f = Poptrie::<u128>::compile(&t.v6, &cfg).expect("compile");
            let mib = f.memory_bytes() as f64 / (1 << 20) as f64;
            println!("{spec}: ({mib:.2} MiB)");
            measure(&f, &traffic, &o, ghz);
            continue;
        }
        let cfg = Config::from_spec(&parsed).expect("config");
        let f = BPlus::<u128>::compile(&t.v6, &cfg).expect("compile");
        let mib = f.memory_bytes() as f64 / (1 << 20) as f64;
        println!("{spec}: {} ({mib:.2} MiB)", f.describe().unwrap_or_default());
        if o.paths {
            for (name, addrs) in &traffic {
                print_paths(&f, name, addrs);
            }
        }
        measure(&f, &traffic, &o, ghz);
    }
}

/// Prints the median rate of every traffic and mode.
fn measure<L: Lookup<u128>>(f: &L, traffic: &[(String, Vec<u128>)], o: &Opts, ghz: f64) {
    for (name, addrs) in traffic {
        for mode in &o.modes {
            let mut r: Vec<f64> =
                (0..o.repeat).map(|_| rate(f, addrs, mode == "batch", o)).collect();
            let m = median(&mut r);
            println!(
                "  {name:>10} {mode:>6}: {:7.1} Mlps  {:6.2} ns  {:6.1} cycles/lookup",
                m / 1e6,
                1e9 / m,
                ghz * 1e9 / m
            );
        }
    }
}
