//! `fibforge bench [--table FILE]... [--algo LIST] [--traffic LIST] [--peers LIST] [--threads N]
//! [--duration SECS] [--json FILE] [--out DIR] [--preset NAME] [--synth syn1|syn2]`
//!
//! With no arguments: every registered algorithm on the shipped IPv4 and IPv6 tables of
//! `data/` (found from the current directory or the executable's location), verified, then
//! timed on random and repeated traffic (IPv6: random in 2000::/3 and in-prefix) with the
//! available peers; prints the table and writes `bench-report/bench.json` and the plots.
//! With `--multi DIR` (or `FILE#N`): many tables at once instead (see `bench_multi`).

use anyhow::{Context, bail};
use fibforge::registry::AlgoSpec;
use fibforge_bench::multi::MultiSettings;
use fibforge_bench::papers::locate::{DEFAULT_TABLES, locate};
use fibforge_bench::papers::{presets, studies};
use fibforge_bench::report::{Machine, Report, Row, TableInfo, table};
use fibforge_bench::runner::{self, NamedTable, Settings};
use fibforge_bench::synth::Synth;
use fibforge_bench::timing::Mode;
use fibforge_bench::traffic;
use fibforge_io::ReadConfig;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Table files (repeatable). Default: the IPv4 and IPv6 tables in data/.
    #[arg(long = "table")]
    tables: Vec<PathBuf>,
    /// Algorithms, comma-separated (`name:key=value` for options); default: all registered.
    #[arg(long)]
    algo: Option<String>,
    /// Traffic patterns, comma-separated: random, sequential, repeated, in-prefix,
    /// trace:FILE, zipf[:s=1][:flows=64][:burst=8][:match=1]. Default: random,repeated
    /// (IPv4) and random,in-prefix (IPv6).
    #[arg(long)]
    traffic: Option<String>,
    /// Peers: all, none, or a list of dpdk, bart, prefix-trie, ip_network_table, poptrie,
    /// treebitmap.
    #[arg(long, default_value = "all")]
    peers: String,
    /// Thread scaling up to N threads sharing one structure (1: no scaling rows; at most
    /// 1024).
    #[arg(long, value_parser = crate::args::threads)]
    threads: Option<usize>,
    /// Seconds per timed repeat, 0.001 to 3600 (default: derived from --budget).
    #[arg(long, value_parser = crate::args::repeat_seconds)]
    duration: Option<f64>,
    /// Seconds of rate measurement to aim for in total when --duration is not given.
    #[arg(long, default_value_t = 80.0, value_parser = crate::args::budget_seconds)]
    budget: f64,
    /// Timed repeats per row (the median is reported), 1 to 1000.
    #[arg(long, default_value_t = 3, value_parser = crate::args::repeats)]
    repeats: usize,
    /// Call modes: single, batch, or both (= single,batch), comma-separated.
    #[arg(long, default_value = "single,batch")]
    modes: String,
    /// Lookups in each cycles-per-lookup distribution.
    #[arg(long, default_value_t = 1 << 18, value_parser = crate::args::cycle_samples)]
    cycle_samples: usize,
    /// Dependent lookups timed together per cycles sample in single mode (1 to 1024): the
    /// timer's resolution is divided by it (batch mode times one batch per sample).
    #[arg(long, default_value_t = fibforge_bench::timing::DEFAULT_GROUP, value_parser = crate::args::cycle_group)]
    cycle_group: usize,
    /// Seed of every traffic generator.
    #[arg(long)]
    seed: Option<u64>,
    /// Replace each table by its growth table (Poptrie §4.1): syn1 or syn2.
    #[arg(long)]
    synth: Option<Synth>,
    /// Give every route of every table the next hop of the longest route of FILE covering
    /// its prefix (realistic next hops for prefix-only tables; see `stats --hops-from`).
    #[arg(long, value_name = "FILE")]
    hops_from: Option<PathBuf>,
    /// A paper experiment (an unknown name prints the list), e.g.
    /// poptrie-table2, poptrie-table3, sail-memory, cpe-tables, bloomfwd, loop-fig9; `papers`
    /// runs every one.
    #[arg(long)]
    preset: Option<String>,
    /// Many tables: a directory (one table per file, VRF id = sorted file order) or FILE#N
    /// (N tables perturbed from FILE; N from 1 to 1024, as many files at most); repeatable. Measures LOOP, SAIL_M, one Poptrie per
    /// table, LOOP's comparators (merged_trie with leafpush off and on, trie_overlap,
    /// trie_braiding, bitmap_trie) and one DPDK rte_fib per table (when built in) instead of
    /// the single-table rows.
    #[arg(long = "multi")]
    multi: Vec<PathBuf>,
    /// Update stream (text or MRT) for the update studies (poptrie-updates, sail-memory,
    /// loop-fig13); default: shared/data/updates/linx2014-p52-v4.txt.gz when found.
    #[arg(long, value_name = "FILE")]
    updates: Option<PathBuf>,
    /// Also write the JSON report to FILE.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Directory for bench.json and the plots (`none` to write nothing).
    #[arg(long, default_value = "bench-report")]
    out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let mut run_info = fibforge_bench::report::RunInfo::start();
    let base = settings_from(&args)?;
    check_before_work(&args)?;
    let multi = studies::multi_sets(&args.multi, args.preset.as_deref())?;
    let measured =
        if multi.is_empty() { run_single(&args, &base)? } else { run_multi(&multi, &base)? };
    run_info.finish();
    let report = Report {
        machine: Machine::describe(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        run: run_info,
        tables: measured.tables,
        peers: base.peers.iter().map(|p| p.status()).collect(),
        settings: measured.settings,
        results: measured.results,
        replays: Vec::new(),
        studies: measured.studies,
        elapsed_s: started.elapsed().as_secs_f64(),
    };
    let mut out = crate::out::stdout();
    if !report.results.is_empty() || report.studies.is_empty() {
        writeln!(out, "{}", table::render(&report.results))?;
    }
    for st in &report.studies {
        writeln!(out, "{}", st.markdown())?;
    }
    writeln!(
        out,
        "\nCPU: {} ({} logical CPUs); {:.0} s; machine possibly shared: medians of {} repeats",
        report.machine.cpu_model, report.machine.logical_cpus, report.elapsed_s, base.repeats
    )?;
    write_outputs(&report, &args)?;
    let mismatched = report.results.iter().any(|r| r.mismatches.is_some_and(|m| m > 0));
    Ok(if mismatched { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What one bench run measured.
struct Measured {
    tables: Vec<TableInfo>,
    settings: serde_json::Value,
    results: Vec<Row>,
    studies: Vec<fibforge_bench::papers::Study>,
}

/// Single tables: each part of the preset (or the settings as given) on its tables.
fn run_single(args: &Args, base: &Settings) -> anyhow::Result<Measured> {
    let parts = match &args.preset {
        Some(p) => presets::parts(p)?,
        None => vec![""],
    };
    let mut m = Measured {
        tables: Vec::new(),
        settings: serde_json::Value::Null,
        results: Vec::new(),
        studies: Vec::new(),
    };
    let mut settings_json = Vec::new();
    let hop_source = args.hops_from.as_deref().map(crate::load::load_hop_source).transpose()?;
    for part in parts {
        let (mut settings, mut paths) = (base.clone(), args.tables.clone());
        if !part.is_empty() {
            crate::out::diag!("preset {part}");
            presets::apply(part, &mut settings, &mut paths)?;
        }
        if paths.is_empty() {
            paths = DEFAULT_TABLES.iter().map(|t| locate(t)).collect::<anyhow::Result<_>>()?;
        }
        let loaded = load_tables(&paths, args.synth, hop_source.as_ref())?;
        if fibforge_bench::papers::is_study(part) {
            let updates = args.updates.clone();
            m.studies.extend(studies::study(part, &settings, &loaded, updates, &args.out)?);
            m.tables.extend(loaded.into_iter().map(|t| t.info));
            continue;
        }
        let duration = settings.repeat_duration(&loaded);
        m.results.extend(run_with_progress(&mut settings, &loaded));
        settings_json.push(runner::settings_json(&settings, duration));
        m.tables.extend(loaded.into_iter().map(|t| t.info));
    }
    m.settings = match settings_json.len() {
        1 => settings_json.remove(0),
        _ => serde_json::Value::Array(settings_json),
    };
    Ok(m)
}

/// [`runner::run`] with a bar over its contenders on a terminal (log lines printed above it).
fn run_with_progress(settings: &mut Settings, loaded: &[NamedTable]) -> Vec<Row> {
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    settings.progress = Some(counter.clone());
    let steps = settings.steps(loaded);
    crate::progress::follow(steps, "bench", &counter, |bar| {
        let mut log = |msg: &str| bar.suspend(|| crate::out::diag!("{msg}"));
        runner::run(settings, loaded, &mut log)
    })
}

/// Many tables (`--multi`): LOOP, SAIL_M and the per-table baselines.
fn run_multi(multi: &[PathBuf], base: &Settings) -> anyhow::Result<Measured> {
    let duration = Duration::from_secs_f64(base.duration_s.unwrap_or(0.5));
    let ms = MultiSettings {
        duration,
        repeats: base.repeats,
        modes: base.modes.clone(),
        seed: base.seed,
        peers: base.peers.clone(),
        cycle_samples: base.cycle_samples,
        cycle_group: base.cycle_group,
    };
    let results = super::bench_multi::run(multi, &ms)?;
    let settings = runner::settings_json(base, duration);
    Ok(Measured { tables: Vec::new(), settings, results, studies: Vec::new() })
}

fn write_outputs(report: &Report, args: &Args) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report)?;
    if let Some(f) = &args.json {
        crate::files::write_file(f, json.as_bytes())?;
        crate::out::diag!("wrote {}", f.display());
    }
    if args.out.as_os_str() != "none" {
        std::fs::create_dir_all(&args.out)
            .with_context(|| format!("cannot create {}", args.out.display()))?;
        let f = args.out.join("bench.json");
        crate::files::write_file(&f, json.as_bytes())?;
        crate::out::diag!("wrote {}", f.display());
        let plots = fibforge_bench::report::plots::write_all(&report.results, &args.out)
            .map_err(anyhow::Error::msg)?;
        crate::out::diag!(
            "wrote {} plots (PNG and SVG) to {}",
            plots.len() / 2,
            args.out.display()
        );
    }
    Ok(())
}

fn settings_from(args: &Args) -> anyhow::Result<Settings> {
    let mut s = Settings::default();
    if let Some(list) = &args.algo {
        let algos = AlgoSpec::parse_list(list)?;
        if algos.is_empty() {
            bail!("--algo '{list}' names no algorithm (see `fibforge algos`)");
        }
        for spec in &algos {
            crate::load::check_algo(spec)?;
        }
        s.algos = Some(algos);
    }
    if let Some(list) = &args.traffic {
        let t = traffic::parse_list(list)?;
        check_traces(&t)?;
        s.traffic_v4 = t.clone();
        s.traffic_v6 = t;
    }
    s.peers = fibforge_bench::peers::parse_list(&args.peers).map_err(anyhow::Error::msg)?;
    if let Some(n) = args.threads {
        s.threads = n;
    }
    s.duration_s = args.duration;
    s.budget_s = args.budget;
    s.repeats = args.repeats;
    s.cycle_samples = args.cycle_samples;
    s.cycle_group = args.cycle_group;
    if let Some(seed) = args.seed {
        s.seed = seed;
    }
    s.modes = parse_modes(&args.modes)?;
    Ok(s)
}

/// `--modes`: single, batch, both (= single,batch), comma-separated; each mode once.
fn parse_modes(list: &str) -> anyhow::Result<Vec<Mode>> {
    let mut modes = Vec::new();
    for m in list.split(',') {
        let add: &[Mode] = match m.trim() {
            "single" => &[Mode::Single],
            "batch" => &[Mode::Batch],
            "both" => &[Mode::Single, Mode::Batch],
            other => bail!("unknown mode '{other}' in --modes (known: single, batch, both)"),
        };
        for &mode in add {
            if !modes.contains(&mode) {
                modes.push(mode);
            }
        }
    }
    Ok(modes)
}

/// Every `trace:FILE` traffic names a readable file (read later, per table).
fn check_traces(list: &[traffic::Traffic]) -> anyhow::Result<()> {
    for t in list {
        if let traffic::Traffic::Trace(path) = t {
            std::fs::File::open(path)
                .with_context(|| format!("--traffic trace:{}: cannot open", path.display()))?;
        }
    }
    Ok(())
}

/// What can be checked before any table is loaded or anything measured: the `--multi` sets,
/// the table files, and that the report can be written where asked.
fn check_before_work(args: &Args) -> anyhow::Result<()> {
    for set in &args.multi {
        super::bench_multi::check_set(set)?;
    }
    for t in &args.tables {
        let text = t.display().to_string();
        let file = match text.rsplit_once('#') {
            Some((f, s)) if s.starts_with("syn") || s.starts_with("sub") => PathBuf::from(f),
            _ => t.clone(),
        };
        std::fs::File::open(&file).with_context(|| format!("--table {text}: cannot open"))?;
    }
    if let Some(h) = &args.hops_from {
        std::fs::File::open(h)
            .with_context(|| format!("--hops-from {}: cannot open", h.display()))?;
    }
    if let Some(f) = &args.json {
        crate::files::check_writable_file(f, "--json")?;
    }
    if args.out.as_os_str() != "none" {
        crate::files::check_writable_dir(&args.out, "--out")?;
    }
    Ok(())
}

/// Reads each table; `FILE#syn1` / `FILE#syn2` (or `--synth`) makes its growth table.
fn load_tables(
    paths: &[PathBuf],
    synth: Option<Synth>,
    hop_source: Option<&fibforge_io::LoadedTable>,
) -> anyhow::Result<Vec<NamedTable>> {
    let mut out = Vec::new();
    for p in paths {
        let text = p.display().to_string();
        let (file, suffix_synth, sub) = match text.rsplit_once('#') {
            Some((f, s)) if s.starts_with("syn") => {
                (PathBuf::from(f), Some(s.parse::<Synth>().map_err(anyhow::Error::msg)?), None)
            }
            Some((f, s)) if s.starts_with("sub") => {
                let k = fibforge_bench::subsample::parse(s).map_err(anyhow::Error::msg)?;
                (PathBuf::from(f), None, Some(k))
            }
            _ => (p.clone(), None, None),
        };
        let synth = suffix_synth.or(synth);
        let t0 = Instant::now();
        let mut table =
            fibforge_io::read_table(&file, &ReadConfig::default()).map_err(|e| e.error)?;
        let load_s = t0.elapsed().as_secs_f64();
        let mut name = file_name(&file);
        if let Some(source) = hop_source {
            table = table.with_hops_from(source);
            name = format!("{name}+hops");
        }
        let (mut v4, mut v6) = (table.v4, table.v6);
        if let Some(s) = synth {
            v4 = s.apply(&v4);
            v6 = s.apply(&v6);
            name = format!("{name}+{s}");
        }
        if let Some(k) = sub {
            v4 = fibforge_bench::subsample::subsample(&v4, k, 1);
            v6 = fibforge_bench::subsample::subsample(&v6, k, 1);
            name = format!("{name}+1/{k}");
        }
        let hops: std::collections::HashSet<_> =
            v4.iter().map(|(_, h)| h).chain(v6.iter().map(|(_, h)| h)).collect();
        crate::out::diag!(
            "loaded {name}: {} IPv4 + {} IPv6 routes in {load_s:.2} s",
            v4.len(),
            v6.len()
        );
        let info = TableInfo {
            name,
            path: file.display().to_string(),
            ipv4_prefixes: v4.len(),
            ipv6_prefixes: v6.len(),
            next_hops: hops.len(),
            load_s,
        };
        out.push(NamedTable { info, v4, v6 });
    }
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algo_lists_keep_options_together() {
        let v = AlgoSpec::parse_list("poptrie:s=18,aggregate=off,dxr16, radix").unwrap();
        let names: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        assert_eq!(names, vec!["poptrie:aggregate=off,s=18", "dxr16", "radix"]);
    }
}
