//! `fibforge export --algo SPEC TABLE FILE`: a compiled structure written to a file
//! (`docs/reference/export-format.md`), with the table's next-hop values as text, so that `fibforge
//! lookup`, `fibforge stats` and the CUDA code in `gpu/` can use it without compiling.
//!
//! One family per file: `--family`, or the only family the table has. `--probes N
//! --probe-file P` also writes N addresses with the RIB oracle's raw answers, for checking a
//! structure loaded elsewhere.
//!
//! Both files are written whole or not at all (`crate::files`): a failed export leaves the
//! file it would have replaced as it was, and creates nothing where there was no file.

use crate::files::{check_writable_file, write_file};
use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::export::{ExportFile, ExportKey};
use fibforge::registry::{self, AlgoSpec};
use fibforge::verify::{XorShift64, in_prefix, uniform};
use fibforge::{Family, Rib};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Structure to export: sail_l, poptrie or bloomfwd (`name:key=value` sets options).
    #[arg(long)]
    algo: String,
    /// Address family to export, 4 or 6 (default: the only family the table has).
    #[arg(long, value_parser = ["4", "6"])]
    family: Option<String>,
    #[command(flatten)]
    table: TableArgs,
    /// The export file to write.
    file: PathBuf,
    /// Also write this many probe addresses with the RIB oracle's answers (needs --probe-file).
    #[arg(long, requires = "probe_file")]
    probes: Option<usize>,
    /// Where the probe file goes.
    #[arg(long, requires = "probes", value_name = "FILE")]
    probe_file: Option<PathBuf>,
    /// Probe addresses: `random` (uniform over the address space; the IPv4 default) or
    /// `in-prefix` (inside the table's routes; the IPv6 default, where uniform ones miss).
    #[arg(long, value_enum)]
    probe_kind: Option<ProbeKind>,
    /// Seed of the probe addresses.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `--probe-kind`.
#[derive(clap::ValueEnum, Copy, Clone, Debug, PartialEq, Eq)]
enum ProbeKind {
    Random,
    InPrefix,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec: AlgoSpec = args.algo.parse()?;
    let algorithm = registry::export_format(&spec.name).with_context(|| {
        format!("--algo {spec}: no export for this algorithm ({} have one)", registry::exporters())
    })?;
    crate::load::check_algo(&spec)?;
    let wanted = args.family.as_deref().map(|f| if f == "4" { Family::Ipv4 } else { Family::Ipv6 });
    if let Some(family) = wanted {
        supported(&spec, family)?;
    }
    check_writable_file(&args.file, "export file")?;
    if let Some(p) = &args.probe_file {
        check_writable_file(p, "--probe-file")?;
    }
    let table = load_table(&crate::load::TableArgs { family: wanted, ..args.table.clone() })?;
    let family = match (wanted, table.v4.is_empty(), table.v6.is_empty()) {
        (Some(f), _, _) => f,
        (None, false, true) => Family::Ipv4,
        (None, true, false) => Family::Ipv6,
        (None, true, true) => bail!("{}: the table has no routes", args.table.path.display()),
        (None, false, false) => bail!(
            "{}: the table has IPv4 and IPv6 routes; choose one with --family 4 or --family 6",
            args.table.path.display()
        ),
    };
    supported(&spec, family)?;
    let routes = if family == Family::Ipv4 { table.v4.len() } else { table.v6.len() };
    if routes == 0 {
        bail!("{}: the table has no {} routes", args.table.path.display(), label(family));
    }
    let hops = hop_values(&table)?;
    let summary = match family {
        Family::Ipv4 => write(&args, &spec, &table.v4, hops)?,
        Family::Ipv6 => write(&args, &spec, &table.v6, hops)?,
    };
    writeln!(crate::out::stdout(), "{} {}: {summary}", algorithm.name(), label(family))?;
    Ok(ExitCode::SUCCESS)
}

/// `IPv4` or `IPv6`, for messages.
fn label(family: Family) -> &'static str {
    if family == Family::Ipv4 { "IPv4" } else { "IPv6" }
}

/// An error when the algorithm does not handle `family`.
fn supported(spec: &AlgoSpec, family: Family) -> anyhow::Result<()> {
    match registry::info(&spec.name) {
        Some(info) if !info.supports(family) => {
            bail!("--algo {spec}: {} does not handle {}", info.name, label(family))
        }
        _ => Ok(()),
    }
}

/// The table's next-hop values in id order (`hops[i]` for raw id `i + 1`).
fn hop_values(table: &fibforge_io::LoadedTable) -> anyhow::Result<Vec<String>> {
    let values = table.hops.values();
    if let Some(bad) = values.iter().find(|v| v.contains('\n')) {
        bail!("next-hop value {bad:?} holds a line break, which an export cannot carry");
    }
    Ok(values.to_vec())
}

/// Compiles, writes the export (and the probe file) and returns the summary.
fn write<A: ExportKey>(
    args: &Args,
    spec: &AlgoSpec,
    rib: &Rib<A>,
    hops: Vec<String>,
) -> anyhow::Result<String> {
    let mut file: ExportFile =
        fibforge::export::export(spec, rib).with_context(|| format!("--algo {spec}"))?;
    file.hops = hops;
    let bytes = file.to_bytes();
    write_file(&args.file, &bytes)?;
    let mut summary = format!(
        "{} routes, {} bytes, {} arrays ({}) -> {}",
        rib.len(),
        bytes.len(),
        file.arrays.len() + 1,
        file.arrays.iter().map(|a| a.len().to_string()).collect::<Vec<_>>().join(" "),
        args.file.display()
    );
    if let (Some(n), Some(path)) = (args.probes, &args.probe_file) {
        let in_prefix_default = A::BITS == 128;
        let kind = args.probe_kind.unwrap_or(if in_prefix_default {
            ProbeKind::InPrefix
        } else {
            ProbeKind::Random
        });
        let mut rng = XorShift64::new(args.seed);
        let addrs = match kind {
            ProbeKind::Random => uniform::<A>(&mut rng, n),
            ProbeKind::InPrefix => in_prefix(rib, &mut rng, n),
        };
        write_file(path, &fibforge::export::write_probes(rib, &addrs))?;
        summary += &format!("; {} probes -> {}", addrs.len(), path.display());
    }
    Ok(summary)
}
