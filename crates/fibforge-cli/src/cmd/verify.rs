//! `fibforge verify TABLE [--algo NAME|all] [--exhaustive] [--json]`: every algorithm against
//! the RIB oracle.
//!
//! Checked addresses: the first and last address of every route and their outside neighbours,
//! random addresses, and random addresses inside random routes (uniform IPv6 addresses mostly
//! miss). With `--exhaustive`, IPv4 checks all 2^32 addresses, walking the RIB's range
//! partition (an independent form of the oracle) on all cores, through both `lookup` and
//! `lookup_batch`. Exit status 1 on any mismatch.

use crate::load::{TableArgs, load_table};
use fibforge::registry::{ALGORITHMS, AlgoSpec, RegistryFamily, build};
use fibforge::rib::Range;
use fibforge::{Address, Family, Lookup, NextHop, Rib};
use rayon::prelude::*;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub(crate) table: TableArgs,
    /// Algorithms to check: `all`, or a comma-separated list (`name:key=value` for options).
    #[arg(long, default_value = "all")]
    pub(crate) algo: String,
    /// IPv4: check all 2^32 addresses. IPv6: ten times more random samples.
    #[arg(long)]
    pub(crate) exhaustive: bool,
    /// Random addresses to check besides the route boundaries.
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) samples: usize,
    /// Seed of the random addresses.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Print the JSON report instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) struct Outcome {
    pub(crate) algo: String,
    pub(crate) family: Family,
    pub(crate) checked: u64,
    pub(crate) mismatches: u64,
    pub(crate) examples: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.table.path.is_dir() {
        return super::verify_multi::run(&args);
    }
    let table = load_table(&args.table)?;
    let specs = parse_specs(&args.algo)?;
    let mut outcomes = Vec::new();
    outcomes.extend(verify_family(&table.v4, &specs, &args)?);
    outcomes.extend(verify_family(&table.v6, &specs, &args)?);
    let has_routes = !(table.v4.is_empty() && table.v6.is_empty());
    if let Some(s) = specs.iter().find(|s| !outcomes.iter().any(|o| o.algo == s.to_string()))
        && args.algo != "all"
        && has_routes
    {
        anyhow::bail!("'{s}' is not available for the address families of this table");
    }
    let failed = outcomes.iter().any(|o| o.mismatches > 0);
    if args.json {
        let results: Vec<_> = outcomes
            .iter()
            .map(|o| json!({"algo": o.algo, "family": o.family.name(), "checked": o.checked, "mismatches": o.mismatches}))
            .collect();
        let report = json!({"table": args.table.path.display().to_string(), "results": results});
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    for o in outcomes.iter().filter(|o| o.mismatches > 0) {
        eprintln!(
            "{} {}: {} mismatches of {} checked; first ones:",
            o.algo, o.family, o.mismatches, o.checked
        );
        for e in &o.examples {
            eprintln!("  {e}");
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn parse_specs(list: &str) -> anyhow::Result<Vec<AlgoSpec>> {
    if list == "all" {
        return Ok(ALGORITHMS.iter().map(|a| AlgoSpec::named(a.name)).collect());
    }
    super::bench::parse_algos(list)
}

fn verify_family<A: RegistryFamily>(
    rib: &Rib<A>,
    specs: &[AlgoSpec],
    args: &Args,
) -> anyhow::Result<Vec<Outcome>> {
    if rib.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let probes = probe_addresses(rib, args);
    for spec in specs {
        // Known algorithms skip the families they lack (a mixed table checks the other one);
        // unknown names reach the registry, which names them in its error.
        if fibforge::registry::info(&spec.name).is_some_and(|i| !i.supports(A::FAMILY)) {
            continue;
        }
        let t0 = Instant::now();
        let fib = build(spec, rib)?;
        let built = t0.elapsed();
        let mut o = Outcome {
            algo: spec.to_string(),
            family: A::FAMILY,
            checked: 0,
            mismatches: 0,
            examples: vec![],
        };
        check_probes(rib, &*fib, &probes, &mut o);
        if args.exhaustive && A::BITS == 32 {
            check_all_ranges(&rib.ranges(), &*fib, &mut o);
        }
        if !args.json {
            let status = if o.mismatches == 0 { "ok" } else { "MISMATCH" };
            println!(
                "{:<22} {}  built in {:>8.1} ms  {:>12} lookups checked  {} mismatches  {status}",
                o.algo,
                o.family,
                built.as_secs_f64() * 1e3,
                o.checked,
                o.mismatches
            );
        }
        out.push(o);
    }
    Ok(out)
}

/// Route boundaries and their neighbours, uniform random addresses, random in-route addresses.
pub(crate) fn probe_addresses<A: Address>(rib: &Rib<A>, args: &Args) -> Vec<A> {
    let mut v = Vec::with_capacity(rib.len() * 4 + args.samples * 2);
    for (p, _) in rib.iter() {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        v.push(p.addr());
        v.push(p.last());
        v.push(A::from_u128(first.wrapping_sub(1)));
        v.push(A::from_u128(last.wrapping_add(1)));
    }
    let routes: Vec<_> = rib.iter().map(|(p, _)| p).collect();
    let n = if args.exhaustive && A::BITS > 32 { args.samples * 10 } else { args.samples };
    let mut rng = args.seed | 1;
    for _ in 0..n {
        let r = next_u128(&mut rng);
        v.push(A::from_u128(r));
        let p = routes[(r as u64 % routes.len() as u64) as usize];
        let host = next_u128(&mut rng) & !A::netmask(p.len()).to_u128();
        v.push(A::from_u128(p.addr().to_u128() | host));
    }
    v
}

fn next_u128(state: &mut u64) -> u128 {
    let mut step = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    };
    ((step() as u128) << 64) | step() as u128
}

fn record<A: Address>(
    o: &mut Outcome,
    addr: A,
    want: Option<NextHop>,
    got: Option<NextHop>,
    how: &str,
) {
    o.mismatches += 1;
    if o.examples.len() < 10 {
        o.examples.push(format!("{} ({how}): expected {want:?}, got {got:?}", addr.to_std()));
    }
}

pub(crate) fn check_probes<A: Address>(
    rib: &Rib<A>,
    fib: &dyn Lookup<A>,
    probes: &[A],
    o: &mut Outcome,
) {
    let found: Vec<(usize, Option<NextHop>, Option<NextHop>, &str)> = probes
        .par_chunks(4096)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            let mut batch = vec![None; chunk.len()];
            fib.lookup_batch(chunk, &mut batch);
            let mut bad = Vec::new();
            for (i, &a) in chunk.iter().enumerate() {
                let want = rib.lookup(a);
                let single = fib.lookup(a);
                if single != want {
                    bad.push((c * 4096 + i, want, single, "lookup"));
                }
                if batch[i] != want {
                    bad.push((c * 4096 + i, want, batch[i], "lookup_batch"));
                }
            }
            bad
        })
        .collect();
    o.checked += probes.len() as u64 * 2;
    for (i, want, got, how) in found {
        record(o, probes[i], want, got, how);
    }
}

/// All 2^32 IPv4 addresses, range by range, split over the cores in blocks of 2^20 addresses.
pub(crate) fn check_all_ranges<A: Address>(
    ranges: &[Range<A>],
    fib: &dyn Lookup<A>,
    o: &mut Outcome,
) {
    const BLOCK: u64 = 1 << 20;
    let blocks = (1u64 << 32) / BLOCK;
    let results: Vec<BlockResult> =
        (0..blocks).into_par_iter().map(|b| check_block(ranges, fib, b * BLOCK, BLOCK)).collect();
    o.checked += 2 << 32;
    for r in results {
        for &(a, want, got, how) in &r.examples {
            record(o, A::from_u128(a as u128), want, got, how);
        }
        o.mismatches += r.mismatches - r.examples.len() as u64;
    }
}

/// Mismatches in one block: their number and the first few.
struct BlockResult {
    mismatches: u64,
    examples: Vec<(u64, Option<NextHop>, Option<NextHop>, &'static str)>,
}

fn check_block<A: Address>(
    ranges: &[Range<A>],
    fib: &dyn Lookup<A>,
    start: u64,
    len: u64,
) -> BlockResult {
    let mut res = BlockResult { mismatches: 0, examples: Vec::new() };
    let mut note = |a: u64, want, got, how| {
        res.mismatches += 1;
        if res.examples.len() < 4 {
            res.examples.push((a, want, got, how));
        }
    };
    let mut r = ranges.partition_point(|x| x.start.to_u128() as u64 <= start) - 1;
    let addrs: Vec<A> = (start..start + len).map(|a| A::from_u128(a as u128)).collect();
    let mut batch = vec![None; addrs.len()];
    fib.lookup_batch(&addrs, &mut batch);
    for (i, &addr) in addrs.iter().enumerate() {
        let a = start + i as u64;
        while r + 1 < ranges.len() && ranges[r + 1].start.to_u128() as u64 <= a {
            r += 1;
        }
        let want = ranges[r].hop;
        let got = fib.lookup(addr);
        if got != want {
            note(a, want, got, "lookup");
        }
        if batch[i] != want {
            note(a, want, batch[i], "lookup_batch");
        }
    }
    res
}
