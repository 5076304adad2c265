//! A steady lookup loop to run under `perf record` (build it with `--profile profiling`, which
//! keeps line tables; release has no debug info), and a quick A/B on a shared machine: builds
//! the given algorithms on one table and looks up random (IPv4) or in-prefix (IPv6) addresses
//! (2^20 pre-generated), round-robin over the algorithms for 3 rounds.
//!
//! `cargo run --release -p fibforge-bench --example bloom_profile -- TABLE single|batch SECS SPEC...`
//! Prints, per algorithm, the median rate over the rounds in lookups per second of *thread
//! CPU time* (so that time the scheduler gives to other processes does not count).

mod common;

use common::cpu_now;
use fibforge::Compile;
use fibforge::algo::bloom;
use fibforge::algo::bloom::{BloomFib, BloomKey};
use fibforge::registry::{AlgoSpec, RegistryFamily, build};
use fibforge::{Address, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{ReadConfig, read_table};
use std::hint::black_box;
use std::time::{Duration, Instant};

const BATCH: usize = 256;

struct Xorshift(u64);
impl Xorshift {
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.0 = fibforge::verify::xorshift64_step(self.0);
        self.0
    }
}

/// Random addresses for IPv4; a random route with random host bits for IPv6.
fn make_addr<A: Address>(x: &mut Xorshift, routes: &[Prefix<A>]) -> A {
    let r = A::from_u128(((x.next() as u128) << 64) | x.next() as u128);
    if A::BITS == 32 || routes.is_empty() {
        return r;
    }
    let p = routes[(x.next() % routes.len() as u64) as usize];
    let host = r.to_u128() & !A::netmask(p.len()).to_u128();
    A::from_u128(p.addr().to_u128() | host)
}

fn run<A: RegistryFamily + BloomKey>(rib: &Rib<A>, specs: &[String], batch: bool, secs: f64) {
    let fibs: Vec<_> = specs
        .iter()
        .map(|spec| {
            let start = Instant::now();
            let fib = build(&spec.parse::<AlgoSpec>().expect("spec"), rib).expect("build");
            let ms = start.elapsed().as_secs_f64() * 1e3;
            eprintln!("built {spec} in {ms:.0} ms, {} bytes", fib.memory_bytes());
            fib
        })
        .collect();
    let routes: Vec<Prefix<A>> = rib.iter().map(|(p, _)| p).collect();
    let mut x = Xorshift(0x9e37_79b9_7f4a_7c15);
    let addrs: Vec<A> = (0..1 << 20).map(|_| make_addr(&mut x, &routes)).collect();
    if std::env::var_os("BLOOM_STATS").is_some() {
        probe_report(rib, specs, &addrs);
    }
    let mut rates = vec![Vec::new(); fibs.len()];
    for _round in 0..3 {
        for (fib, r) in fibs.iter().zip(&mut rates) {
            r.push(rate(&**fib, &addrs, batch, secs));
        }
    }
    for (spec, mut r) in specs.iter().zip(rates) {
        r.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("{spec}\t{}\t{:.2} Mlps (CPU time; rounds {r:.2?})", A::BITS, r[1]);
    }
}

/// With `BLOOM_STATS` set: per level of each Bloom structure, the measured probe counts.
fn probe_report<A: RegistryFamily + BloomKey>(rib: &Rib<A>, specs: &[String], addrs: &[A]) {
    for spec in specs.iter().filter(|s| s.starts_with("bloom")) {
        let spec: AlgoSpec = spec.parse().expect("spec");
        let Ok(cfg) = bloom::Config::from_spec(&spec) else { continue };
        let fib = BloomFib::compile(rib, &cfg).expect("build");
        for (s, l) in fib.probe_stats(addrs).iter().zip(fib.levels()) {
            let per = |x: u64| x as f64 / addrs.len() as f64;
            println!(
                "{spec}\t/{}: keys {} m {} k {}\treached {:.3} pass {:.3} hit {:.3} fpr {:.3} slots/lookup {:.3}",
                s.len,
                l.keys,
                l.m,
                l.k,
                per(s.reached),
                per(s.filter_pass),
                per(s.table_hits),
                s.false_positive_rate(),
                per(s.slots_read)
            );
        }
    }
}

fn rate<A: RegistryFamily>(fib: &dyn Lookup<A>, addrs: &[A], batch: bool, secs: f64) -> f64 {
    let mut out: Vec<Option<NextHop>> = vec![None; BATCH];
    let (mut done, mut sum) = (0u64, 0u64);
    let until = Duration::from_secs_f64(secs);
    let (start, cpu) = (Instant::now(), cpu_now());
    while start.elapsed() < until {
        for chunk in addrs.chunks(BATCH) {
            if batch {
                fib.lookup_batch(chunk, &mut out);
            } else {
                for (o, &a) in out.iter_mut().zip(chunk) {
                    *o = fib.lookup(a);
                }
            }
            sum = sum.wrapping_add(out.iter().map(|h| h.map_or(0, |h| h.raw()) as u64).sum());
        }
        done += addrs.len() as u64;
    }
    black_box(sum);
    done as f64 / (cpu_now() - cpu) / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bloom_profile TABLE single|batch SECS SPEC...";
    assert!(args.len() >= 4, "{usage}");
    let batch = args[1] != "single";
    let secs = args[2].parse().expect(usage);
    let t = read_table(std::path::Path::new(&args[0]), &ReadConfig::default()).expect("table");
    if !t.v4.is_empty() {
        run(&t.v4, &args[3..], batch, secs);
    }
    if !t.v6.is_empty() {
        run(&t.v6, &args[3..], batch, secs);
    }
}
