//! `fibforge replay TABLE UPDATES [--algo NAME] [--readers N] [--rounds R] [--json FILE]`:
//! applies a real update stream (MRT BGP4MP or the text stream; R times in a row) to a
//! concurrent table while N reader threads look up random addresses; prints (and writes as
//! JSON) the update cost, the lookup rate idle and during updates, the lookup rate and memory
//! of the updated structure against a fresh compile of the final RIB, and the final
//! comparison with a fresh compile and with the RIB.
//!
//! The family with more updates in the stream is replayed unless `--family` names one (the
//! other family's updates are counted in `skipped_updates`). Exit status 1 when the final structure differs.

use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::algo::{bplus, poptrie};
use fibforge::registry::AlgoSpec;
use fibforge_bench::BenchAddress;
use fibforge_bench::replay::{ReplayReport, ReplaySettings, Update, load_updates, replay};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Update stream: MRT BGP4MP updates or text (`time a|w prefix [nexthop]`), any compression.
    updates: PathBuf,
    /// Algorithm (an updatable concurrent one: `poptrie`, `poptrie16`, `poptrie:s=N,...`,
    /// `bplus`, `bplus:delta=N,...`).
    #[arg(long, default_value = crate::load::DEFAULT_ALGO)]
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
    let spec: AlgoSpec = args.algo.parse()?;
    crate::load::check_algo(&spec)?;
    if spec.name != "bplus" && poptrie::Config::from_spec::<u32>(&spec).is_none() {
        bail!(
            "replay needs an updatable concurrent algorithm: poptrie or bplus (got '{}')",
            spec.name
        );
    }
    std::fs::File::open(&args.updates)
        .with_context(|| format!("cannot open the updates {}", args.updates.display()))?;
    if let Some(path) = &args.json {
        crate::load::check_writable_file(path, "--json")?;
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
    let replayed = if v4 { ups.v4.len() } else { ups.v6.len() } as u64 * u64::from(args.rounds);
    let (report, skipped) = crate::progress::follow(replayed, "replay: updates", &counter, |_| {
        anyhow::Ok(if v4 {
            let rib = std::mem::take(&mut table.v4);
            (run_family(&spec, rib, &ups.v4, &ups.v4_time_us, &settings)?, ups.v6.len())
        } else {
            let rib = std::mem::take(&mut table.v6);
            (run_family(&spec, rib, &ups.v6, &ups.v6_time_us, &settings)?, ups.v4.len())
        })
    })?;
    print(&report);
    let ok = report.final_mismatches == 0 && report.final_mismatches_rib == 0;
    let out = Output {
        table: args.table.path.display().to_string(),
        updates_file: args.updates.display().to_string(),
        skipped_updates: skipped,
        report,
    };
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&out)?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_family<A: poptrie::Key + bplus::Key + BenchAddress>(
    spec: &AlgoSpec,
    rib: fibforge::Rib<A>,
    ups: &[Update<A>],
    times_us: &[u64],
    settings: &ReplaySettings,
) -> anyhow::Result<ReplayReport> {
    if spec.name == "bplus" {
        let cfg = bplus::Config::from_spec(spec)?;
        let name = spec.to_string();
        return Ok(replay::<A, bplus::BPlus<A>>(rib, ups, times_us, &cfg, name, settings)?);
    }
    let Some(cfg) = poptrie::Config::from_spec::<A>(spec) else {
        bail!(
            "replay needs an updatable concurrent algorithm: poptrie or bplus (got '{}')",
            spec.name
        );
    };
    let cfg = cfg?;
    let on_off = |b: bool| if b { "on" } else { "off" };
    let name = format!(
        "poptrie:s={},aggregate={},dir16={},fanout={}",
        cfg.s,
        on_off(cfg.aggregate),
        on_off(cfg.narrow_dir),
        on_off(cfg.fanout)
    );
    Ok(replay::<A, poptrie::Poptrie<A>>(rib, ups, times_us, &cfg, name, settings)?)
}

fn parse_pace(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (1e-6..=1e9).contains(&x) => Ok(x),
        _ => Err(format!("'{s}': the speed-up must be a number from 0.000001 to 1e9")),
    }
}

fn print(r: &ReplayReport) {
    println!("{} {}: {} routes -> {}", r.family, r.algo, r.routes_before, r.routes_after);
    println!(
        "updates {}  {:.0}/s  per update ns: p50 {:.0}  p99 {:.0}  max {:.0}  mean {:.0}",
        r.updates,
        r.updates_per_sec,
        r.update_ns_p50,
        r.update_ns_p99,
        r.update_ns_max,
        r.update_ns_mean
    );
    let mlps = |m: Option<f64>| m.map_or("-".to_string(), |m| format!("{m:.1}"));
    let pace = r.pace.map_or("back to back".to_string(), |x| format!("recorded pace x{x}"));
    let rounds = if r.rounds > 1 { format!(", {} rounds", r.rounds) } else { String::new() };
    println!("updates applied {pace}{rounds}, in {:.3} s", r.seconds);
    for p in &r.update_paths {
        println!(
            "  {:<10} {:>8} updates  ns: p50 {:.0}  p99 {:.0}  max {:.0}",
            p.path, p.updates, p.ns_p50, p.ns_p99, p.ns_max
        );
    }
    println!(
        "lookups ({} readers): idle {:.1} Mlps, during updates {} Mlps (wall clock)",
        r.readers,
        r.lookup_mlps_idle,
        mlps(r.lookup_mlps_during)
    );
    println!(
        "lookups per reader CPU second: idle {} Mlps, during updates {} Mlps",
        mlps(r.lookup_mlps_idle_cpu),
        mlps(r.lookup_mlps_during_cpu)
    );
    if let (Some(after), Some(fresh)) = (r.lookup_mlps_after, r.lookup_mlps_fresh) {
        let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
        println!(
            "after the replay: {after:.1} Mlps, fresh compile {fresh:.1} Mlps (one thread); \
             memory {:.2} MiB before, {:.2} after, {:.2} fresh",
            mib(r.memory_bytes_before),
            mib(r.memory_bytes_after),
            mib(r.memory_bytes_fresh)
        );
    }
    println!(
        "final check on {} addresses: {} vs fresh compile, {} vs RIB",
        r.final_checked, r.final_mismatches, r.final_mismatches_rib
    );
}
