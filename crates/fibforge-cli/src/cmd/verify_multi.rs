//! `fibforge verify DIR --algo loop|sail_m|per_table|merged_trie|trie_overlap|trie_braiding|bitmap_trie`:
//! many tables at once (the registry's `MANY_TABLES`; the last four: LOOP's merged-trie
//! comparators). Each table file in DIR
//! is one table (VRF id = sorted file order); every table is checked against its own RIB on
//! the route boundaries of all tables plus random and in-route addresses, and with
//! `--exhaustive` (IPv4) on all 2^32 addresses for the first three tables.
//!
//! `--algo loop:build=incremental` builds LOOP by table insertions instead (§III-D): from no
//! table, every table added in order, then the middle table removed and added back (it gets
//! its VRF id again, the lowest free slot), so the checks cover insertion and deletion.

use super::verify::Args;
use crate::load::{load_table, remap, table_files};
use fibforge::multi::{MultiLookup, VrfId};
use fibforge::registry::{self, AlgoSpec, RegistryFamily};
use fibforge::verify::{Report, multi::check_tables};
use fibforge::{BuildError, Family, Interner, Rib};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Exhaustive IPv4 checks cover this many tables of a set.
const EXHAUSTIVE_TABLES: usize = 3;

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = table_files(&args.table.path)?;
    let mut hops = Interner::<String>::new();
    let (mut v4, mut v6) = (Vec::new(), Vec::new());
    for f in &files {
        let mut targs = args.table.clone();
        targs.path = f.clone();
        let t = load_table(&targs)?;
        v4.push(remap(&t.v4, &t, &mut hops)?);
        v6.push(remap(&t.v6, &t, &mut hops)?);
    }
    anyhow::ensure!(
        v4.iter().any(|r| !r.is_empty()) || v6.iter().any(|r| !r.is_empty()),
        "{}: the tables hold no routes: nothing to verify",
        args.table.path.display()
    );
    let algos: Vec<String> = if args.algo == "all" {
        registry::many_specs().map(String::from).collect()
    } else {
        fibforge::registry::split_list(&args.algo)
    };
    let mut out = crate::out::stdout();
    let mut outcomes = Vec::new();
    for algo in &algos {
        outcomes.extend(verify_family(&v4, algo, args, &mut out)?);
        outcomes.extend(verify_family(&v6, algo, args, &mut out)?);
    }
    let failed = outcomes.iter().any(|(_, o)| !o.report.is_ok());
    if args.json {
        let results: Vec<_> = outcomes
            .iter()
            .map(|(vrf, o)| json!({"algo": o.algo, "family": o.family.name(), "vrf": vrf, "table": files[*vrf as usize].display().to_string(), "checked": o.report.checked, "mismatches": o.report.mismatches}))
            .collect();
        let report = json!({"table": args.table.path.display().to_string(), "results": results});
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    }
    for (vrf, o) in outcomes.iter().filter(|(_, o)| !o.report.is_ok()) {
        crate::out::diag!(
            "{} {} vrf {vrf}: {} mismatches; first ones:",
            o.algo,
            o.family,
            o.report.mismatches
        );
        for e in &o.report.examples {
            crate::out::diag!("  {e}");
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// One table's verdict.
struct Outcome {
    algo: String,
    family: Family,
    report: Report,
}

fn verify_family<A: RegistryFamily>(
    ribs: &[Rib<A>],
    algo: &str,
    args: &Args,
    out: &mut impl Write,
) -> anyhow::Result<Vec<(VrfId, Outcome)>> {
    if ribs.iter().all(|r| r.is_empty()) {
        return Ok(Vec::new());
    }
    let spec: AlgoSpec = algo.parse()?;
    let t0 = Instant::now();
    let multi: Box<dyn MultiLookup<A>> = match registry::build_many(&spec, ribs) {
        Some(Ok(m)) => m,
        Some(Err(e @ BuildError::Unsupported { .. })) if args.algo == "all" => {
            writeln!(out, "{:<22} {}  not applicable: {e}", spec.to_string(), A::FAMILY)?;
            return Ok(Vec::new());
        }
        Some(Err(e)) => return Err(e.into()),
        None => {
            let names: Vec<_> = registry::MANY_TABLES.iter().map(|m| m.name).collect();
            anyhow::bail!("'{}' is not a multi-table algorithm ({})", spec.name, names.join(", "))
        }
    };
    let built = t0.elapsed();
    let exhaustive_tables = if args.exhaustive { EXHAUSTIVE_TABLES } else { 0 };
    let reports = check_tables(ribs, &*multi, args.samples::<A>(), args.seed, exhaustive_tables);
    let outcomes: Vec<(VrfId, Outcome)> = reports
        .into_iter()
        .enumerate()
        .map(|(vrf, report)| {
            (vrf as VrfId, Outcome { algo: spec.to_string(), family: A::FAMILY, report })
        })
        .collect();
    if !args.json {
        let checked: u64 = outcomes.iter().map(|(_, o)| o.report.checked).sum();
        let bad: u64 = outcomes.iter().map(|(_, o)| o.report.mismatches).sum();
        let status = if bad == 0 { "ok" } else { "MISMATCH" };
        writeln!(
            out,
            "{:<22} {}  {} tables  built in {:>8.1} ms  {:>8.2} MiB  {checked:>12} lookups checked  {bad} mismatches  {status}",
            spec.to_string(),
            A::FAMILY,
            ribs.len(),
            built.as_secs_f64() * 1e3,
            multi.memory_bytes() as f64 / (1 << 20) as f64
        )?;
    }
    Ok(outcomes)
}
