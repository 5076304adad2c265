//! Poptrie measurements: compile time, sizes (the paper's Table 2), lookup rates.
//!
//! ```sh
//! cargo run --release -p fibforge-bench --example poptrie_bench -- TABLE [options]
//!   --s 0,16,18        direct-pointing bits to measure (list)
//!   --aggregate on|off route aggregation (default on); other options as
//!                      `Config::for_family` (IPv6: root fan-out)
//!   --secs F           seconds per lookup measurement (default 1)
//!   --repeat N         repeats of every measurement; medians are reported (default 5)
//!   --traffic T        random (uniform; IPv6: 2000::/3) | inprefix (random address in a random
//!                      table prefix) | inprefix-array (2^20 in-prefix addresses drawn first,
//!                      then read in order) (default random)
//!   --hops N|distinct  next hops for prefix-only files (default 16, as the CLI)
//!   --hops-from FILE   next hops projected from FILE's routes (as `fibforge --hops-from`)
//! ```
//!
//! Random addresses are generated in the loop by xorshift (as the paper), so no address array
//! pollutes the cache. Rates are lookups per second of thread CPU time (the machine is shared;
//! wall-clock rates are printed too).

mod common;

use common::cpu_now;
use fibforge::algo::poptrie::{Config, Key, Poptrie};
use fibforge::{Compile, Lookup, Prefix, Rib};
use fibforge_io::{PrefixOnlyHops, ReadConfig};
use std::hint::black_box;
use std::time::Instant;

struct Opts {
    table: String,
    s: Vec<u32>,
    aggregate: bool,
    secs: f64,
    repeat: usize,
    traffic: String,
    hops: PrefixOnlyHops,
    hops_from: Option<String>,
}

fn parse_args() -> Opts {
    let mut o = Opts {
        table: String::new(),
        s: vec![0, 16, 18],
        aggregate: true,
        secs: 1.0,
        repeat: 5,
        traffic: "random".into(),
        hops: PrefixOnlyHops::Synthetic(16),
        hops_from: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().expect("option value");
        match a.as_str() {
            "--s" => o.s = val().split(',').map(|x| x.parse().expect("s")).collect(),
            "--aggregate" => o.aggregate = val() == "on",
            "--secs" => o.secs = val().parse().expect("secs"),
            "--repeat" => o.repeat = val().parse().expect("repeat"),
            "--traffic" => o.traffic = val(),
            "--hops-from" => o.hops_from = Some(val()),
            "--hops" => {
                let v = val();
                o.hops = if v == "distinct" {
                    PrefixOnlyHops::Distinct
                } else {
                    PrefixOnlyHops::Synthetic(v.parse().expect("hops"))
                }
            }
            _ => o.table = a,
        }
    }
    assert!(!o.table.is_empty(), "usage: poptrie_bench TABLE [options]");
    o
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Address generators: xorshift state in registers, addresses made in the loop.
trait Gen<A>: Copy {
    fn next(&mut self) -> A;
}

#[derive(Copy, Clone)]
struct Uniform4(u32);
impl Gen<u32> for Uniform4 {
    #[inline(always)]
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
}

#[derive(Copy, Clone)]
struct Uniform6(u64);
impl Gen<u128> for Uniform6 {
    /// Uniform in 2000::/3.
    #[inline(always)]
    fn next(&mut self) -> u128 {
        let hi = xorshift64(&mut self.0);
        let lo = xorshift64(&mut self.0);
        let a = ((hi as u128) << 64) | lo as u128;
        (a >> 3) | (1u128 << 125)
    }
}

#[inline(always)]
fn xorshift64(x: &mut u64) -> u64 {
    *x = fibforge::verify::xorshift64_step(*x);
    *x
}

/// A random address inside a random table prefix.
#[derive(Copy, Clone)]
struct InPrefix<'a, A: Key> {
    x: u64,
    prefixes: &'a [Prefix<A>],
}
impl<A: Key> Gen<A> for InPrefix<'_, A> {
    #[inline(always)]
    fn next(&mut self) -> A {
        let r = xorshift64(&mut self.x);
        let p = self.prefixes[(r % self.prefixes.len() as u64) as usize];
        let host = ((xorshift64(&mut self.x) as u128) << 64) | xorshift64(&mut self.x) as u128;
        let host = host & !A::netmask(p.len()).to_u128();
        A::from_u128(p.addr().to_u128() | host)
    }
}

/// A pre-generated address array read in order and cycled: separates the lookup's cost from
/// the generator's (an in-prefix draw itself reads a random route from a multi-MiB array).
#[derive(Copy, Clone)]
struct Cycle<'a, A> {
    addrs: &'a [A],
    pos: usize,
}
impl<A: Copy> Gen<A> for Cycle<'_, A> {
    #[inline(always)]
    fn next(&mut self) -> A {
        let a = self.addrs[self.pos];
        self.pos = if self.pos + 1 == self.addrs.len() { 0 } else { self.pos + 1 };
        a
    }
}

/// `2^20` addresses drawn from `g`.
fn pregenerate<A: Key, G: Gen<A>>(mut g: G) -> Vec<A> {
    (0..1 << 20).map(|_| g.next()).collect()
}

/// Measures `rib` under the traffic named in `o`.
fn measure_traffic<A: Key, G: Gen<A>>(rib: &Rib<A>, o: &Opts, uniform: G) {
    let prefixes: Vec<_> = rib.iter().map(|(p, _)| p).collect();
    let inprefix = InPrefix { x: 88172645463325252, prefixes: &prefixes };
    match o.traffic.as_str() {
        "inprefix" => measure(rib, o, inprefix),
        "inprefix-array" => measure(rib, o, Cycle { addrs: &pregenerate(inprefix), pos: 0 }),
        _ => measure(rib, o, uniform),
    }
}

/// Lookups per CPU second (and per wall second) of `f.lookup` on generated addresses.
fn single_rate<A: Key, G: Gen<A>>(f: &Poptrie<A>, source: G, secs: f64) -> (f64, f64) {
    let chunk = 1 << 20;
    let (c0, w0) = (cpu_now(), Instant::now());
    let mut g = source;
    let mut acc = 0u32;
    let mut n = 0u64;
    while cpu_now() - c0 < secs {
        for _ in 0..chunk {
            acc = acc.wrapping_add(f.lookup(g.next()).map_or(0, |h| h.raw()));
        }
        n += chunk;
    }
    black_box(acc);
    (n as f64 / (cpu_now() - c0), n as f64 / w0.elapsed().as_secs_f64())
}

/// Lookups per CPU second of `lookup_batch` over batches of `batch` generated addresses.
fn batch_rate<A: Key, G: Gen<A>>(f: &Poptrie<A>, source: G, secs: f64, batch: usize) -> f64 {
    let mut g = source;
    let mut addrs = vec![A::ZERO; batch];
    let mut out = vec![None; batch];
    let c0 = cpu_now();
    let mut n = 0u64;
    let mut acc = 0u32;
    while cpu_now() - c0 < secs {
        for _ in 0..(1 << 20) / batch {
            for a in addrs.iter_mut() {
                *a = g.next();
            }
            f.lookup_batch(&addrs, &mut out);
            acc = acc.wrapping_add(out[0].map_or(0, |h| h.raw()));
        }
        n += ((1 << 20) / batch * batch) as u64;
    }
    black_box(acc);
    n as f64 / (cpu_now() - c0)
}

/// Median and best of a series.
fn med_best(v: &mut [f64]) -> (f64, f64) {
    let m = median(v);
    (m, v.iter().cloned().fold(0.0, f64::max))
}

fn measure<A: Key, G: Gen<A>>(rib: &Rib<A>, o: &Opts, source: G) {
    println!(
        "{:>4} {:>4} {:>8} {:>9} {:>6} {:>7} {:>10} {:>8} {:>14} {:>14}",
        "s",
        "leaf",
        "inodes",
        "leaves",
        "dleaf%",
        "MiB",
        "compile_ms",
        "",
        "single med/max",
        "batch med/max"
    );
    for &s in &o.s {
        let cfg = Config { s, aggregate: o.aggregate, ..Config::for_family::<A>() };
        let mut compile = Vec::new();
        let mut fib = None;
        for _ in 0..o.repeat.min(5) {
            let c0 = cpu_now();
            fib = Some(Poptrie::compile(rib, &cfg).expect("compile"));
            compile.push((cpu_now() - c0) * 1e3);
        }
        let fib = fib.unwrap();
        let st = fib.stats();
        let (mut single, mut batch) = (Vec::new(), Vec::new());
        for _ in 0..o.repeat {
            single.push(single_rate(&fib, source, o.secs).0 / 1e6);
            batch.push(batch_rate(&fib, source, o.secs, 64) / 1e6);
        }
        let (sm, sb) = med_best(&mut single);
        let (bm, bb) = med_best(&mut batch);
        println!(
            "{:>4} {:>4} {:>8} {:>9} {:>6.1} {:>7.3} {:>10.1} {:>8} {:>6.1}/{:>6.1} {:>6.1}/{:>6.1}",
            s,
            st.leaf_bits,
            st.inodes,
            st.leaves,
            100.0 * st.direct_leaves as f64 / (1u64 << s) as f64,
            st.memory_bytes as f64 / (1 << 20) as f64,
            median(&mut compile),
            "Mlps",
            sm,
            sb,
            bm,
            bb
        );
    }
}

fn main() {
    let o = parse_args();
    let cfg = ReadConfig { prefix_only: o.hops, ..Default::default() };
    let mut t = fibforge_io::read_table(o.table.as_ref(), &cfg).expect("table");
    if let Some(source) = &o.hops_from {
        let source = fibforge_io::read_table(source.as_ref(), &ReadConfig::default());
        t = t.with_hops_from(&source.expect("--hops-from table"));
    }
    println!(
        "table {}: {} IPv4, {} IPv6 routes, {} next hops; traffic {}; aggregate {}",
        o.table,
        t.v4.len(),
        t.v6.len(),
        t.hops.len(),
        o.traffic,
        o.aggregate
    );
    if !t.v4.is_empty() {
        println!("IPv4");
        measure_traffic(&t.v4, &o, Uniform4(2463534242));
    }
    if !t.v6.is_empty() {
        println!("IPv6");
        measure_traffic(&t.v6, &o, Uniform6(88172645463325252));
    }
}
