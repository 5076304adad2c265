//! `fibforge verify DIR --algo loop|sail_m|per_table|merged_trie|trie_overlap|trie_braiding|bitmap_trie`:
//! many tables at once (the last four: LOOP's merged-trie comparators, `fibforge::multi::baselines`). Each table file in DIR
//! is one table (VRF id = sorted file order); every table is checked against its own RIB on
//! the route boundaries of all tables plus random and in-route addresses, and with
//! `--exhaustive` (IPv4) on all 2^32 addresses for the first three tables.
//!
//! `--algo loop:build=incremental` builds LOOP by table insertions instead (§III-D): from no
//! table, every table added in order, then the middle table removed and added back (it gets
//! its VRF id again, the lowest free slot), so the checks cover insertion and deletion.

use super::verify::Args;
use crate::load::{DEFAULT_ALGO, load_table, remap, table_files};
use fibforge::algo::sail::SailConfig;
use fibforge::multi::loop_::{Loop, LoopConfig};
use fibforge::multi::sail_m::SailM;
use fibforge::multi::{MultiLookup, PerTable, VrfId};
use fibforge::registry::{AlgoSpec, RegistryFamily};
use fibforge::verify::{Report, multi::check_tables};
use fibforge::{BuildError, Family, Interner, Rib};
use serde_json::json;
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
        let mut all: Vec<String> = vec!["loop".into(), "sail_m".into(), "per_table".into()];
        all.extend(fibforge::multi::baselines::BENCH_SPECS.iter().map(|s| s.to_string()));
        all
    } else {
        fibforge::registry::split_list(&args.algo)
    };
    let mut outcomes = Vec::new();
    for algo in &algos {
        outcomes.extend(verify_family(&v4, algo, args)?);
        outcomes.extend(verify_family(&v6, algo, args)?);
    }
    let failed = outcomes.iter().any(|(_, o)| !o.report.is_ok());
    if args.json {
        let results: Vec<_> = outcomes
            .iter()
            .map(|(vrf, o)| json!({"algo": o.algo, "family": o.family.name(), "vrf": vrf, "table": files[*vrf as usize].display().to_string(), "checked": o.report.checked, "mismatches": o.report.mismatches}))
            .collect();
        let report = json!({"table": args.table.path.display().to_string(), "results": results});
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    for (vrf, o) in outcomes.iter().filter(|(_, o)| !o.report.is_ok()) {
        eprintln!(
            "{} {} vrf {vrf}: {} mismatches; first ones:",
            o.algo, o.family, o.report.mismatches
        );
        for e in &o.report.examples {
            eprintln!("  {e}");
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

/// LOOP over `ribs` (VRF id = position), built at once or (`build=incremental`) by table
/// insertions and a deletion.
fn build_loop<A: RegistryFamily>(ribs: &[Rib<A>], spec: &AlgoSpec) -> anyhow::Result<Loop<A>> {
    let mut spec = spec.clone();
    let incremental = match spec.options.remove("build").as_deref() {
        None | Some("full") => false,
        Some("incremental") => true,
        Some(other) => anyhow::bail!("loop: build={other}: expected 'full' or 'incremental'"),
    };
    let cfg = LoopConfig::from_spec(&spec)?;
    if !incremental {
        return Ok(Loop::build(ribs.to_vec(), &cfg)?);
    }
    let mut l = Loop::build(Vec::new(), &cfg)?;
    for rib in ribs {
        l.add_table(rib.clone())?;
    }
    if ribs.len() > 2 {
        let middle = (ribs.len() / 2) as VrfId;
        let rib = l.remove_table(middle)?;
        let again = l.add_table(rib)?;
        anyhow::ensure!(again == middle, "loop: re-added table got VRF {again}, not {middle}");
    }
    Ok(l)
}

fn verify_family<A: RegistryFamily>(
    ribs: &[Rib<A>],
    algo: &str,
    args: &Args,
) -> anyhow::Result<Vec<(VrfId, Outcome)>> {
    if ribs.iter().all(|r| r.is_empty()) {
        return Ok(Vec::new());
    }
    let spec: AlgoSpec = algo.parse()?;
    let t0 = Instant::now();
    let multi: Box<dyn MultiLookup<A>> = match spec.name.as_str() {
        "loop" => Box::new(build_loop(ribs, &spec)?),
        "sail_m" => match SailM::build(ribs, &SailConfig::from_spec(&spec)?) {
            Ok(m) => Box::new(m),
            Err(e @ BuildError::Unsupported { .. }) if args.algo == "all" => {
                println!("{:<22} {}  not applicable: {e}", spec.to_string(), A::FAMILY);
                return Ok(Vec::new());
            }
            Err(e) => return Err(e.into()),
        },
        "per_table" => {
            let inner = spec.options.get("algo").map_or(DEFAULT_ALGO, |s| s.as_str());
            Box::new(PerTable::build(ribs, &AlgoSpec::named(inner))?)
        }
        other => match fibforge::multi::baselines::build(&spec, ribs) {
            Some(built) => built?,
            None => anyhow::bail!(
                "'{other}' is not a multi-table algorithm (loop, sail_m, per_table[:algo=NAME], {})",
                fibforge::multi::baselines::NAMES
                    .iter()
                    .map(|n| n.0)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    let built = t0.elapsed();
    let exhaustive_tables = if args.exhaustive { EXHAUSTIVE_TABLES } else { 0 };
    let reports = check_tables(ribs, &*multi, args.samples::<A>(), args.seed, exhaustive_tables);
    let out: Vec<(VrfId, Outcome)> = reports
        .into_iter()
        .enumerate()
        .map(|(vrf, report)| {
            (vrf as VrfId, Outcome { algo: spec.to_string(), family: A::FAMILY, report })
        })
        .collect();
    if !args.json {
        let checked: u64 = out.iter().map(|(_, o)| o.report.checked).sum();
        let bad: u64 = out.iter().map(|(_, o)| o.report.mismatches).sum();
        let status = if bad == 0 { "ok" } else { "MISMATCH" };
        println!(
            "{:<22} {}  {} tables  built in {:>8.1} ms  {:>8.2} MiB  {checked:>12} lookups checked  {bad} mismatches  {status}",
            spec.to_string(),
            A::FAMILY,
            ribs.len(),
            built.as_secs_f64() * 1e3,
            multi.memory_bytes() as f64 / (1 << 20) as f64
        );
    }
    Ok(out)
}
