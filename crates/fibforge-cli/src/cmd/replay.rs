//! `fibforge replay TABLE UPDATES [--algo NAME] [--readers N] [--json FILE]`: applies a real
//! update stream (MRT BGP4MP or the text stream) to a concurrent table while N reader threads
//! look up random addresses; prints (and writes as JSON) the update cost, the lookup rate idle
//! and during updates, and the final comparison with a fresh compile and with the RIB.
//!
//! The family with more updates in the stream is replayed (the other family's updates are
//! counted in `skipped_updates`). Exit status 1 when the final structure differs.

use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::algo::poptrie::Key;
use fibforge::registry::{AlgoSpec, poptrie_config};
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
    /// Algorithm (an updatable concurrent one: `poptrie`, `poptrie16`, `poptrie:s=N,...`).
    #[arg(long, default_value = crate::load::DEFAULT_ALGO)]
    algo: String,
    /// Reader threads looking up random addresses during the replay.
    #[arg(long, default_value_t = 1)]
    readers: usize,
    /// Seconds of idle lookups measured before the replay.
    #[arg(long, default_value_t = 0.5)]
    idle: f64,
    /// Write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
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
    let mut table = load_table(&args.table)?;
    let ups = load_updates(&args.updates, &mut table)
        .with_context(|| format!("reading updates {}", args.updates.display()))?;
    let spec: AlgoSpec = args.algo.parse()?;
    let settings = ReplaySettings {
        readers: args.readers,
        idle: Duration::from_secs_f64(args.idle.max(0.0)),
        ..Default::default()
    };
    let (report, skipped) = if ups.v4.len() >= ups.v6.len() {
        (run_family(&spec, std::mem::take(&mut table.v4), &ups.v4, &settings)?, ups.v6.len())
    } else {
        (run_family(&spec, std::mem::take(&mut table.v6), &ups.v6, &settings)?, ups.v4.len())
    };
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

fn run_family<A: Key + BenchAddress>(
    spec: &AlgoSpec,
    rib: fibforge::Rib<A>,
    ups: &[Update<A>],
    settings: &ReplaySettings,
) -> anyhow::Result<ReplayReport> {
    let Some(cfg) = poptrie_config::<A>(spec) else {
        bail!("replay needs an updatable concurrent algorithm: poptrie (got '{}')", spec.name);
    };
    Ok(replay(rib, ups, &cfg?, settings)?)
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
    let during = r.lookup_mlps_during.map_or("-".to_string(), |m| format!("{m:.1}"));
    println!(
        "lookups ({} readers): idle {:.1} Mlps, during updates {during} Mlps",
        r.readers, r.lookup_mlps_idle
    );
    println!(
        "final check on {} addresses: {} vs fresh compile, {} vs RIB",
        r.final_checked, r.final_mismatches, r.final_mismatches_rib
    );
}
