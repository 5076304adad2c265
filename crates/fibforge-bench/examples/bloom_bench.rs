//! Measures the Bloom-filter LPM family (Lucchesi et al. §6) on the tables at hand.
//!
//! `cargo run --release -p fibforge-bench --example bloom_bench -- [EXPERIMENT...] [--repeats N]`
//! with experiments `fpr` (FPR × hash sweep, Fig. 1 / Table 5), `match` (matching ratio,
//! Fig. 3), `v4` (IPv4 tables, Fig. 6), `v6` (IPv6 with and without DPCPE levels, Fig. 7),
//! `threads` (1 and 2 threads, Fig. 2), `dpcpe` (Table 4); default: all.
//!
//! Traffic: `random` = uniform addresses from an xorshift generator run inside the timed loop
//! (nothing but the structure in cache); `inpfx` = a random route, then random host bits (the
//! route list is read in the loop); `match=R` mixes pools of addresses that do / do not match a
//! non-default route. Rates are millions of lookups per second (Mlps), the median of the
//! repeats; `single` calls `lookup` per address, `batch` calls `lookup_batch` on 256 addresses
//! generated just before. The machine is shared: compare rows of one run, not across runs.
//! Tables: the repository's `data/`, then `../shared/data/tables` or `$FIBFORGE_SHARED_DATA`.

use fibforge::algo::bloom;
use fibforge::algo::bloom::dpcpe::{choose_levels_greedy, dpcpe_table, estimate, length_counts};
use fibforge::algo::bloom::{BloomFib, BloomKey, HashFn, lookup_parallel};
use fibforge::registry::{AlgoSpec, RegistryFamily, build};
use fibforge::{Address, Compile, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{ReadConfig, read_table};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

const LOOKUPS: u64 = 4_000_000;
const BATCH: usize = 256;

struct Xorshift(u64);
impl Xorshift {
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.0 = fibforge::verify::xorshift64_step(self.0);
        self.0
    }
    #[inline(always)]
    fn addr<A: Address>(&mut self) -> A {
        A::from_u128(((self.next() as u128) << 64) | self.next() as u128)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Traffic: how the next address is made.
#[derive(Clone, Copy)]
enum Traffic<'a, A: Address> {
    Random,
    InPrefix(&'a [Prefix<A>]),
    Pools(&'a [A], &'a [A], u64),
}

impl<A: Address> Traffic<'_, A> {
    #[inline(always)]
    fn next(&self, x: &mut Xorshift) -> A {
        match *self {
            Traffic::Random => x.addr(),
            Traffic::InPrefix(routes) => {
                let p = routes[(x.next() % routes.len() as u64) as usize];
                let host = x.addr::<A>().to_u128() & !A::netmask(p.len()).to_u128();
                A::from_u128(p.addr().to_u128() | host)
            }
            Traffic::Pools(hit, miss, permille) => {
                let r = x.next();
                let pool = if r % 1000 < permille { hit } else { miss };
                pool[((r >> 20) % pool.len() as u64) as usize]
            }
        }
    }
}

fn rate_single<A: Address>(fib: &dyn Lookup<A>, t: Traffic<A>, repeats: usize) -> f64 {
    let runs = (0..repeats).map(|r| {
        let mut x = Xorshift(0x9e37_79b9_7f4a_7c15 + r as u64);
        let mut sum = 0u64;
        let start = Instant::now();
        for _ in 0..LOOKUPS {
            sum = sum.wrapping_add(fib.lookup(t.next(&mut x)).map_or(0, |h| h.raw()) as u64);
        }
        black_box(sum);
        LOOKUPS as f64 / start.elapsed().as_secs_f64() / 1e6
    });
    median(runs.collect())
}

fn rate_batch<A: Address>(fib: &dyn Lookup<A>, t: Traffic<A>, repeats: usize) -> f64 {
    let runs = (0..repeats).map(|r| {
        let mut x = Xorshift(0x9e37_79b9_7f4a_7c15 + r as u64);
        let mut addrs = vec![A::ZERO; BATCH];
        let mut out = vec![None; BATCH];
        let mut sum = 0u64;
        let start = Instant::now();
        for _ in 0..LOOKUPS / BATCH as u64 {
            addrs.iter_mut().for_each(|a| *a = t.next(&mut x));
            fib.lookup_batch(&addrs, &mut out);
            sum = sum.wrapping_add(out[BATCH - 1].map_or(0, |h| h.raw()) as u64);
        }
        black_box(sum);
        LOOKUPS as f64 / start.elapsed().as_secs_f64() / 1e6
    });
    median(runs.collect())
}

fn data(rel: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    [root.join("data").join(rel), root.join("../shared/data/tables").join(rel)]
        .into_iter()
        .find(|p| p.exists())
}

fn load(rel: &str) -> Option<fibforge_io::LoadedTable> {
    let path = data(rel)?;
    Some(read_table(&path, &ReadConfig::default()).expect("table"))
}

fn spec_row<A: RegistryFamily>(
    rib: &Rib<A>,
    spec: &str,
    t: Traffic<A>,
    repeats: usize,
    table: &str,
    traffic: &str,
) {
    let start = Instant::now();
    let fib = match build(&spec.parse::<AlgoSpec>().unwrap(), rib) {
        Ok(f) => f,
        Err(e) => return println!("{table}\t{spec}\t{traffic}\tbuild failed: {e}"),
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let (s, b) = (rate_single(&*fib, t, repeats), rate_batch(&*fib, t, repeats));
    let mib = fib.memory_bytes() as f64 / (1 << 20) as f64;
    println!(
        "{table}\t{spec}\t{traffic}\tsingle {s:.2}\tbatch {b:.2}\tmem {mib:.1} MiB\tbuild {ms:.0} ms"
    );
}

fn fpr_sweep(repeats: usize) {
    let Some(t) = load("ris2015-as3856.tsv.gz") else { return };
    println!(
        "# FPR x hash sweep (Fig. 1, LoadedTable 5): ris2015-as3856, bloomfwd, random traffic, Mlps"
    );
    for fpr in [0.01, 0.1, 0.3, 0.6, 0.9] {
        for hash in [HashFn::H2, HashFn::Murmur, HashFn::Knuth] {
            let cfg = bloom::Config { fpr, hash: Some(hash), ..Default::default() };
            let fib = BloomFib::compile(&t.v4, &cfg).unwrap();
            let shape: Vec<String> = fib
                .levels()
                .iter()
                .map(|l| format!("/{}: n={} m={} k={}", l.len, l.keys, l.m, l.k))
                .collect();
            let (s, b) = (
                rate_single(&fib, Traffic::Random, repeats),
                rate_batch(&fib, Traffic::Random, repeats),
            );
            println!(
                "fpr={fpr}\thash={}\tsingle {s:.2}\tbatch {b:.2}\t{}",
                hash.name(),
                shape.join("; ")
            );
        }
    }
}

fn matching_ratio(repeats: usize) {
    let Some(t) = load("ris2015-as3856.tsv.gz") else { return };
    let mut rib = t.v4.clone();
    rib.remove(&Prefix::from_parts_unchecked(0, 0));
    let (mut hit, mut miss) = (Vec::new(), Vec::new());
    let mut x = Xorshift(77);
    while hit.len() < 1 << 16 || miss.len() < 1 << 16 {
        let a: u32 = x.addr();
        let pool = if rib.lookup(a).is_some() { &mut hit } else { &mut miss };
        if pool.len() < 1 << 16 {
            pool.push(a);
        }
    }
    println!("# Matching ratio (Fig. 3): ris2015-as3856 without its default route, Mlps");
    let fib = BloomFib::compile(&rib, &bloom::Config::default()).unwrap();
    for permille in [0, 200, 400, 600, 800, 1000] {
        let tr = Traffic::Pools(&hit, &miss, permille);
        let (s, b) = (rate_single(&fib, tr, repeats), rate_batch(&fib, tr, repeats));
        println!("match={:.1}\tbloomfwd\tsingle {s:.2}\tbatch {b:.2}", permille as f64 / 1000.0);
    }
}

fn ipv4_tables(repeats: usize) {
    println!("# IPv4 tables (Fig. 6), Mlps");
    for name in [
        "ris2015-as3856.tsv.gz",
        "v4/ris2010-as4777.tsv.gz",
        "v4/ris2002-as1853.tsv.gz",
        "mixed/tier1-2024.txt.gz",
    ] {
        let Some(t) = load(name) else { continue };
        for spec in ["radix", "bloom_naive", "bloom_base", "bloomfwd", "miht"] {
            spec_row(&t.v4, spec, Traffic::Random, repeats, name, "random");
        }
    }
}

fn ipv6_tables(repeats: usize) {
    println!("# IPv6 with and without DPCPE (Fig. 7), in-prefix random traffic, Mlps");
    for name in ["tier1-2024-v6.txt.gz", "v6/linx2014-p69.txt.gz", "v6/rrc00-v6.txt.gz"] {
        let Some(t) = load(name) else { continue };
        let routes: Vec<Prefix<u128>> = t.v6.iter().map(|(p, _)| p).collect();
        let tr = Traffic::InPrefix(&routes);
        for spec in ["radix", "bloom_naive", "bloom_base", "bloomfwd:levels=0", "miht"] {
            spec_row(&t.v6, spec, tr, repeats, name, "inpfx");
        }
        for n in 3..=8 {
            spec_row(&t.v6, &format!("bloomfwd:levels={n}"), tr, repeats, name, "inpfx");
        }
    }
}

fn threads_for<A: BloomKey + RegistryFamily>(
    rib: &Rib<A>,
    spec: &str,
    addrs: &[A],
    table: &str,
    repeats: usize,
) {
    let Ok(fib) = build(&spec.parse::<AlgoSpec>().unwrap(), rib) else { return };
    let mut out: Vec<Option<NextHop>> = vec![None; addrs.len()];
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let runs = (0..repeats).map(|_| {
            let start = Instant::now();
            pool.install(|| lookup_parallel(&*fib, addrs, &mut out));
            addrs.len() as f64 / start.elapsed().as_secs_f64() / 1e6
        });
        println!("{table}\t{spec}\tthreads={threads}\t{:.2} Mlps", median(runs.collect()));
    }
}

fn thread_scaling(repeats: usize) {
    println!("# Thread scaling (Fig. 2): lookup_parallel, 2^24 pre-generated addresses, Mlps");
    let mut x = Xorshift(5);
    if let Some(t) = load("ris2015-as3856.tsv.gz") {
        let addrs: Vec<u32> = (0..1 << 24).map(|_| x.addr()).collect();
        for spec in ["radix", "bloom_base", "bloomfwd", "miht"] {
            threads_for(&t.v4, spec, &addrs, "ris2015-as3856 random", repeats);
        }
    }
    if let Some(t) = load("tier1-2024-v6.txt.gz") {
        let routes: Vec<Prefix<u128>> = t.v6.iter().map(|(p, _)| p).collect();
        let addrs: Vec<u128> =
            (0..1 << 22).map(|_| Traffic::InPrefix(&routes).next(&mut x)).collect();
        for spec in ["radix", "bloom_base", "bloomfwd", "miht"] {
            threads_for(&t.v6, spec, &addrs, "tier1-2024-v6 inpfx", repeats);
        }
    }
}

fn dpcpe_report() {
    println!(
        "# DPCPE (LoadedTable 4): levels chosen (exact DP), estimated and actual keys (thousands)"
    );
    for name in [
        "tier1-2024-v6.txt.gz",
        "v6/linx2014-p69.txt.gz",
        "v6/rrc00-v6.txt.gz",
        "mixed/global2026-origin.tsv.gz",
    ] {
        let Some(t) = load(name) else { continue };
        let counts = length_counts(&t.v6);
        println!(
            "{name}: {} prefixes, {} lengths",
            t.v6.len(),
            counts.iter().filter(|&&c| c > 0).count()
        );
        for row in dpcpe_table(&t.v6, 3..=10) {
            let greedy = choose_levels_greedy(&counts, row.n);
            let k =
                |v: u128| if v > 1 << 100 { ">2^100".to_string() } else { format!("{}", v / 1000) };
            println!(
                "  CPE{}\t{:?}\test {}\tactual {}\tpaper's greedy {:?} est {}",
                row.n,
                row.levels,
                k(row.estimated),
                k(row.actual),
                greedy,
                k(estimate(&counts, &greedy))
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repeats = args
        .iter()
        .position(|a| a == "--repeats")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(5);
    let wanted: Vec<&str> = args
        .iter()
        .map(|s| s.as_str())
        .filter(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
        .collect();
    let run = |name: &str| wanted.is_empty() || wanted.contains(&name);
    println!(
        "# bloom_bench: {LOOKUPS} lookups per measurement, median of {repeats}; shared 2-core machine"
    );
    if run("dpcpe") {
        dpcpe_report();
    }
    if run("fpr") {
        fpr_sweep(repeats);
    }
    if run("match") {
        matching_ratio(repeats);
    }
    if run("v4") {
        ipv4_tables(repeats);
    }
    if run("v6") {
        ipv6_tables(repeats);
    }
    if run("threads") {
        thread_scaling(repeats);
    }
}
