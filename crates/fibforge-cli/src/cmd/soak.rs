//! `fibforge soak TABLE UPDATES... [--updates N] [--readers R] [--family F] [--json FILE]`:
//! replays real update streams in perturbed rounds (N updates in all) onto a concurrent
//! Poptrie table while R readers check every answer to be an old-or-new answer of its
//! address, sampling the process's memory (method: `fibforge_bench::soak`). Prints updates,
//! checks, violations and the memory curve; exit status 1 on any violation.

use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::Table;
use fibforge_bench::BenchAddress;
use fibforge_bench::replay::{Update, load_updates};
use fibforge_bench::soak::{SoakReport, SoakSettings, soak};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Update streams (MRT BGP4MP or text `time a|w prefix [nexthop]`), replayed in turn.
    #[arg(required = true)]
    updates: Vec<PathBuf>,
    /// Updates to apply in all (the streams are repeated with perturbations).
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    count: u64,
    /// Reader threads checking answers (1 to 1024).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=1024))]
    readers: u64,
    /// Memory samples over the run (1 to 10,000).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    samples: u64,
    /// The family to soak (default: the one with more updates in the streams).
    #[arg(long, value_parser = ["ipv4", "ipv6"])]
    family: Option<String>,
    /// Write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.json {
        crate::files::check_writable_file(path, "--json")?;
    }
    let mut table = load_table(&args.table)?;
    let (mut v4, mut v6) = (Vec::new(), Vec::new());
    for path in &args.updates {
        let ups = load_updates(path, &mut table)
            .with_context(|| format!("reading updates {}", path.display()))?;
        v4.extend(ups.v4);
        v6.extend(ups.v6);
    }
    let settings = SoakSettings {
        updates: args.count,
        readers: args.readers as usize,
        samples: args.samples as usize,
        seed: 1,
        progress: Some(Default::default()),
    };
    let ipv4 = match args.family.as_deref() {
        Some(f) => f == "ipv4",
        None => v4.len() >= v6.len(),
    };
    let counter = settings.progress.clone().expect("set above");
    let report = crate::progress::follow(args.count, "soak: updates", &counter, |_| {
        if ipv4 {
            run_family(std::mem::take(&mut table.v4), v4, &settings)
        } else {
            run_family(std::mem::take(&mut table.v6), v6, &settings)
        }
    })?;
    print(&report, if ipv4 { "IPv4" } else { "IPv6" })?;
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)?;
        crate::files::write_file(path, text.as_bytes())?;
    }
    Ok(if report.violations == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_family<A: BenchAddress + fibforge::algo::poptrie::Key>(
    rib: fibforge::Rib<A>,
    base: Vec<Update<A>>,
    settings: &SoakSettings,
) -> anyhow::Result<SoakReport> {
    if base.is_empty() {
        bail!("the update streams hold no update of this family (see --family)");
    }
    let mut table = Table::new(rib)?;
    Ok(soak(&mut table, base, settings)?)
}

fn print(r: &SoakReport, family: &str) -> io::Result<()> {
    let mut out = crate::out::stdout();
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    writeln!(
        out,
        "{family}: {} updates ({} per round) in {:.1} s ({:.0}/s)",
        r.updates,
        r.base_updates,
        r.seconds,
        r.updates as f64 / r.seconds
    )?;
    writeln!(
        out,
        "reader checks {}  violations {}  bursts overtaken (unchecked) {}",
        r.checks, r.violations, r.overtaken_bursts
    )?;
    for e in &r.examples {
        writeln!(out, "  violation: {e}")?;
    }
    writeln!(out, "memory:   updates     RSS MiB   FIB MiB    routes  pending MiB")?;
    for m in &r.memory {
        writeln!(
            out,
            "  {:>14} {:>10.1} {:>9.1} {:>9} {:>12.1}",
            m.updates,
            mib(m.rss_bytes),
            mib(m.fib_bytes as u64),
            m.routes,
            mib(m.pending_reclaim_bytes as u64)
        )?;
    }
    if let Some(m) = r.memory.iter().find(|m| m.pending_reclaim_over) {
        crate::load::warn(&format!(
            "{:.1} MiB of retired memory waited for readers after {} updates (over max(4 x \
             the structure, 64 MiB)): a reader is online without reporting quiescent states",
            mib(m.pending_reclaim_bytes as u64),
            m.updates
        ));
    }
    Ok(())
}
