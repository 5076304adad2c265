//! `fibforge replay TABLE UPDATES [--algo NAME] [--readers N] [--rounds R] [--json FILE]`:
//! applies a real update stream (MRT BGP4MP or the text stream; R times in a row) to a
//! concurrent table (every updatable structure in turn by default, `--algo all`) while N
//! reader threads look up random addresses; prints (and writes as JSON) the update cost, the
//! lookup rate idle and during updates, the lookup rate and memory of the updated structure
//! against a fresh compile of the final RIB, and the final comparison with a fresh compile
//! and with the RIB.
//!
//! `--tables T --vrf N` (LOOP and SAIL_M): the stream into table N of T (`replay_vrf.rs`).
//!
//! The family with more updates in the stream is replayed unless `--family` names one (the
//! other family's updates are counted in `skipped_updates`). `--algo all` (the default)
//! replays every structure with updates (see `replay_algos.rs`) and ends with one table of
//! all of them.
//! Exit status 1 when a final structure differs.

use super::replay_algos::{Job, ReplayFamily, common, concurrency, ipv4_only, multi, replay_any};
use super::replay_vrf::Placement;
use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::registry::{self, AlgoSpec};
use fibforge_bench::replay::{ReplayReport, ReplaySettings, Update, load_updates};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Update stream: MRT BGP4MP updates or text (`time a|w prefix [nexthop]`), any compression.
    updates: PathBuf,
    /// `all` (the default): every algorithm with incremental updates in turn, then one
    /// table side by side; or one of them (`poptrie`, `bplus`, `radix`, `loop`, the Bloom
    /// family, `miht`, `treebitmap4`/`6`, `cpe_fixed`/`cpe_var` with `leafpush=off`; IPv4
    /// also `dir24_8`, `sail_b`, `sail_u`; `sail_l`, `sail_m` up to /64), with options.
    /// Poptrie and bplus are concurrent themselves; the others run behind two copies
    /// (left-right), so lookups during updates are measured for every one.
    #[arg(long, default_value = "all")]
    algo: String,
    /// Reader threads looking up random addresses during the replay (0 to 1024).
    #[arg(long, default_value_t = 1, value_parser = crate::args::readers)]
    readers: usize,
    /// Seconds of idle lookups measured before the replay (0 to 3600).
    #[arg(long, default_value_t = 0.5, value_parser = crate::args::measure_seconds)]
    idle: f64,
    /// Apply the updates at their recorded times, sped up this many times (default: back to
    /// back, the writer never rests).
    #[arg(long, value_name = "SPEEDUP", value_parser = parse_pace)]
    pace: Option<f64>,
    /// Apply the stream this many times, one round after the other (a long update run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    /// Seconds of each lookup measurement comparing the updated structure with a fresh
    /// compile of the final RIB after the replay (3 alternating repeats; 0: skip; at most
    /// 3600).
    #[arg(long, default_value_t = 0.3, value_parser = crate::args::measure_seconds)]
    compare: f64,
    /// Write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// `loop` and `sail_m`: hold this many tables (the loaded one and perturbed copies of it,
    /// as `fibforge bench --preset loop-fig13`) and replay the stream into table `--vrf`
    /// (1 to 4096; default 1: the loaded table alone).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    tables: u32,
    /// With `--tables`: the table (VRF id) the stream goes into; the final checks are on it.
    #[arg(long, default_value_t = 0)]
    vrf: u32,
    /// The family to replay (default: the one with more updates in the stream).
    #[arg(long, value_parser = ["ipv4", "ipv6"])]
    family: Option<String>,
}

#[derive(serde::Serialize)]
struct Output {
    table: String,
    updates_file: String,
    skipped_updates: usize,
    #[serde(flatten)]
    report: ReplayReport,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let all = args.algo == "all";
    let spec: AlgoSpec = if all { AlgoSpec::named("all") } else { args.algo.parse()? };
    if !all {
        crate::load::check_algo(&spec)?;
        if registry::info(&spec.name).is_some_and(|i| !i.caps.incremental()) {
            bail!(
                "replay needs an updatable algorithm: {} (IPv4 also {}), or all (got '{}')",
                common().join(", "),
                ipv4_only().join(", "),
                spec.name
            );
        }
    }
    let placement = Placement::from_args(args.tables as usize, args.vrf as usize)?;
    if placement.is_some() && !all && !multi().contains(&spec.name.as_str()) {
        bail!(
            "--tables applies to the many-table structures {} (got '{}')",
            multi().join(", "),
            spec.name
        );
    }
    std::fs::File::open(&args.updates)
        .with_context(|| format!("cannot open the updates {}", args.updates.display()))?;
    if let Some(path) = &args.json {
        crate::files::check_writable_file(path, "--json")?;
    }
    let mut table = load_table(&args.table)?;
    let ups = load_updates(&args.updates, &mut table)
        .with_context(|| format!("reading updates {}", args.updates.display()))?;
    let settings = ReplaySettings {
        readers: args.readers,
        idle: Duration::from_secs_f64(args.idle),
        pace: args.pace,
        rounds: args.rounds as usize,
        compare: Duration::from_secs_f64(args.compare),
        progress: Some(Default::default()),
        ..Default::default()
    };
    let v4 = match args.family.as_deref() {
        Some(f) => f == "ipv4",
        None => ups.v4.len() >= ups.v6.len(),
    };
    let counter = settings.progress.clone().expect("set above");
    let structures = match (all, v4) {
        (false, _) => 1,
        (true, true) => <u32 as ReplayFamily>::all().len(),
        (true, false) => <u128 as ReplayFamily>::all().len(),
    } as u64;
    let per_run = if v4 { ups.v4.len() } else { ups.v6.len() } as u64 * u64::from(args.rounds);
    let (runs, skipped) =
        crate::progress::follow(per_run * structures, "replay: updates", &counter, |_| {
            anyhow::Ok(if v4 {
                let rib = std::mem::take(&mut table.v4);
                (
                    run_family(&spec, all, rib, &ups.v4, &ups.v4_time_us, &settings, placement)?,
                    ups.v6.len(),
                )
            } else {
                let rib = std::mem::take(&mut table.v6);
                (
                    run_family(&spec, all, rib, &ups.v6, &ups.v6_time_us, &settings, placement)?,
                    ups.v4.len(),
                )
            })
        })?;
    if all {
        print_table(&runs)?;
    }
    let ok = runs.iter().all(|r| {
        r.report.as_ref().is_ok_and(|r| r.final_mismatches == 0 && r.final_mismatches_rib == 0)
    });
    if let Some(path) = &args.json {
        let (table, updates_file) =
            (args.table.path.display().to_string(), args.updates.display().to_string());
        let text = if all {
            let runs: Vec<_> = runs.iter().map(Run::json).collect();
            let out = AllOutput { table, updates_file, skipped_updates: skipped, runs };
            serde_json::to_string_pretty(&out)?
        } else {
            let report = runs.into_iter().next().expect("one run").report?;
            let out = Output { table, updates_file, skipped_updates: skipped, report };
            serde_json::to_string_pretty(&out)?
        };
        crate::files::write_file(path, text.as_bytes())?;
    } else if !all {
        runs.into_iter().next().expect("one run").report?;
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// One structure's replay, or why it could not run.
struct Run {
    algo: String,
    report: anyhow::Result<ReplayReport>,
}

impl Run {
    fn json(&self) -> serde_json::Value {
        match &self.report {
            Ok(r) => {
                let mut v = serde_json::to_value(r).expect("a report serialises");
                v["readers_via"] = concurrency(&r.algo).into();
                v
            }
            Err(e) => serde_json::json!({ "algo": self.algo, "error": format!("{e:#}") }),
        }
    }
}

#[derive(serde::Serialize)]
struct AllOutput {
    table: String,
    updates_file: String,
    skipped_updates: usize,
    runs: Vec<serde_json::Value>,
}

/// Replays one structure, or every updatable one of the family (`all`), printing each.
fn run_family<A: ReplayFamily>(
    spec: &AlgoSpec,
    all: bool,
    rib: fibforge::Rib<A>,
    ups: &[Update<A>],
    times_us: &[u64],
    settings: &ReplaySettings,
    placement: Option<Placement>,
) -> anyhow::Result<Vec<Run>> {
    if !all {
        let job = Job { spec, rib, ups, times_us, settings, placement };
        let report = replay_any(job)?;
        print(&report)?;
        return Ok(vec![Run { algo: spec.to_string(), report: Ok(report) }]);
    }
    let mut runs = Vec::new();
    for name in A::all() {
        let spec: AlgoSpec = name.parse()?;
        let job = Job { spec: &spec, rib: rib.clone(), ups, times_us, settings, placement };
        let report = replay_any(job);
        match &report {
            Ok(r) => print(r)?,
            Err(e) => crate::out::diag!("{name}: {e:#}"),
        }
        writeln!(crate::out::stdout())?;
        runs.push(Run { algo: name.to_string(), report });
    }
    Ok(runs)
}

/// The side-by-side table of `--algo all`.
fn print_table(runs: &[Run]) -> io::Result<()> {
    let mut out = crate::out::stdout();
    writeln!(
        out,
        "{:<24} {:<10} {:>10} {:>9} {:>9} {:>10} {:>8} {:>8} {:>9} {:>11}",
        "algo",
        "readers",
        "updates/s",
        "p50 ns",
        "p99 ns",
        "max ns",
        "idle",
        "during",
        "MiB",
        "mismatches"
    )?;
    let mlps = |m: Option<f64>| m.map_or("-".to_string(), |m| format!("{m:.1}"));
    for run in runs {
        let r = match &run.report {
            Ok(r) => r,
            Err(e) => {
                writeln!(out, "{:<24} error: {e:#}", run.algo)?;
                continue;
            }
        };
        writeln!(
            out,
            "{:<24} {:<10} {:>10.0} {:>9.0} {:>9.0} {:>10.0} {:>8.1} {:>8} {:>9.2} {:>11}",
            run.algo,
            concurrency(&r.algo),
            r.updates_per_sec,
            r.update_ns_p50,
            r.update_ns_p99,
            r.update_ns_max,
            r.lookup_mlps_idle,
            mlps(r.lookup_mlps_during),
            r.memory_bytes_after as f64 / (1u64 << 20) as f64,
            format!("{}/{}", r.final_mismatches, r.final_mismatches_rib)
        )?;
    }
    writeln!(
        out,
        "(lookups in Mlps over all readers, wall clock; MiB after the replay, both copies for \
         left-right; mismatches vs a fresh compile / vs the RIB)"
    )
}

fn parse_pace(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (1e-6..=1e9).contains(&x) => Ok(x),
        _ => Err(format!("'{s}': the speed-up must be a number from 0.000001 to 1e9")),
    }
}

fn print(r: &ReplayReport) -> io::Result<()> {
    let mut out = crate::out::stdout();
    writeln!(out, "{} {}: {} routes -> {}", r.family, r.algo, r.routes_before, r.routes_after)?;
    writeln!(
        out,
        "updates {}  {:.0}/s  per update ns: p50 {:.0}  p99 {:.0}  max {:.0}  mean {:.0}",
        r.updates,
        r.updates_per_sec,
        r.update_ns_p50,
        r.update_ns_p99,
        r.update_ns_max,
        r.update_ns_mean
    )?;
    let mlps = |m: Option<f64>| m.map_or("-".to_string(), |m| format!("{m:.1}"));
    let pace = r.pace.map_or("back to back".to_string(), |x| format!("recorded pace x{x}"));
    let rounds = if r.rounds > 1 { format!(", {} rounds", r.rounds) } else { String::new() };
    writeln!(out, "updates applied {pace}{rounds}, in {:.3} s", r.seconds)?;
    for p in &r.update_paths {
        writeln!(
            out,
            "  {:<10} {:>8} updates  ns: p50 {:.0}  p99 {:.0}  max {:.0}",
            p.path, p.updates, p.ns_p50, p.ns_p99, p.ns_max
        )?;
    }
    writeln!(
        out,
        "lookups ({} readers): idle {:.1} Mlps, during updates {} Mlps (wall clock)",
        r.readers,
        r.lookup_mlps_idle,
        mlps(r.lookup_mlps_during)
    )?;
    writeln!(
        out,
        "lookups per reader CPU second: idle {} Mlps, during updates {} Mlps",
        mlps(r.lookup_mlps_idle_cpu),
        mlps(r.lookup_mlps_during_cpu)
    )?;
    if let (Some(after), Some(fresh)) = (r.lookup_mlps_after, r.lookup_mlps_fresh) {
        let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
        writeln!(
            out,
            "after the replay: {after:.1} Mlps, fresh compile {fresh:.1} Mlps (one thread); \
             memory {:.2} MiB before, {:.2} after, {:.2} fresh; {:.2} retired, not yet freed",
            mib(r.memory_bytes_before),
            mib(r.memory_bytes_after),
            mib(r.memory_bytes_fresh),
            mib(r.pending_reclaim_bytes)
        )?;
    }
    if r.pending_reclaim_over {
        crate::load::warn(&format!(
            "{}: {:.1} MiB of retired memory waits for readers (over max(4 x the structure, \
             64 MiB)): a reader is online without reporting quiescent states",
            r.algo,
            r.pending_reclaim_bytes as f64 / (1u64 << 20) as f64
        ));
    }
    writeln!(
        out,
        "final check on {} addresses: {} vs fresh compile, {} vs RIB",
        r.final_checked, r.final_mismatches, r.final_mismatches_rib
    )
}
