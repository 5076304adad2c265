//! `fibforge stats FILE [--peer-as N | --peer-ip IP] [--json]`: what a table holds, or for
//! an export file (`fibforge export`) its header: algorithm, family, parameters, array sizes
//! and route count, after checking the structure it holds. The distinct values are counted
//! as next hops or, with `--value origin_as`, as origin ASes.

use crate::load::{TableArgs, load_table};
use fibforge::{Address, Rib};
use fibforge_io::ValueColumn;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if super::lookup::is_export(&args.table.path) {
        return export_stats(&args);
    }
    let started = Instant::now();
    let t = load_table(&args.table)?;
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let prefixes = t.v4.len() + t.v6.len();
    let rib_bytes = t.v4.memory_bytes() + t.v6.memory_bytes();
    let report = json!({
        "table": args.table.path.display().to_string(),
        "ipv4_prefixes": t.v4.len(),
        "ipv6_prefixes": t.v6.len(),
        "next_hops": t.hops.len(),
        // What `next_hops` counts: the routes' values are next hops or origin ASes (`--value`).
        "value": match args.table.read_config().value {
            ValueColumn::NextHop => "next_hop",
            ValueColumn::OriginAs => "origin_as",
        },
        "duplicates_dropped": t.duplicates,
        "load_ms": load_ms,
        "rib_bytes": rib_bytes,
        "rib_bytes_per_prefix": rib_bytes as f64 / prefixes.max(1) as f64,
        "ipv4": family_stats(&t.v4),
        "ipv6": family_stats(&t.v6),
    });
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_text(&report, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn family_stats<A: Address>(rib: &Rib<A>) -> Value {
    let lengths = rib.length_histogram().0;
    let depth = rib.depth_histogram();
    let distinct: std::collections::HashSet<_> = rib.iter().map(|(_, h)| h).collect();
    json!({
        "prefixes": rib.len(),
        "next_hops": distinct.len(),
        "prefix_lengths": lengths,
        "depth_share": depth.by_depth,
        "matched_length_share": depth.by_matched_len,
        "unmatched_share": depth.unmatched,
    })
}

fn print_text(r: &Value, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "table               {}", r["table"].as_str().unwrap_or(""))?;
    writeln!(out, "IPv4 prefixes       {}", r["ipv4_prefixes"])?;
    writeln!(out, "IPv6 prefixes       {}", r["ipv6_prefixes"])?;
    let values = if r["value"] == "origin_as" { "origin ASes" } else { "next hops" };
    writeln!(out, "{:<19} {}", format!("distinct {values}"), r["next_hops"])?;
    writeln!(out, "duplicates dropped  {}", r["duplicates_dropped"])?;
    writeln!(
        out,
        "load (read + RIB)   {:.0} ms, RIB {:.1} MiB ({:.1} bytes per prefix)",
        r["load_ms"].as_f64().unwrap_or(0.0),
        r["rib_bytes"].as_f64().unwrap_or(0.0) / (1 << 20) as f64,
        r["rib_bytes_per_prefix"].as_f64().unwrap_or(0.0)
    )?;
    for fam in ["ipv4", "ipv6"] {
        let f = &r[fam];
        if f["prefixes"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        writeln!(out, "\n{fam}: length  prefixes   matched share   radix-depth share")?;
        let lens = f["prefix_lengths"].as_array().cloned().unwrap_or_default();
        for (len, count) in lens.iter().enumerate() {
            let count = count.as_u64().unwrap_or(0);
            let matched = f["matched_length_share"][len].as_f64().unwrap_or(0.0);
            let depth = f["depth_share"][len].as_f64().unwrap_or(0.0);
            if count > 0 || matched > 0.0 || depth > 0.0 {
                writeln!(
                    out,
                    "      /{len:<4} {count:>10}   {:>12.6}%   {:>12.6}%",
                    matched * 100.0,
                    depth * 100.0
                )?;
            }
        }
        writeln!(
            out,
            "      no route: {:.6}% of the address space",
            f["unmatched_share"].as_f64().unwrap_or(0.0) * 100.0
        )?;
    }
    Ok(())
}

/// The header of an export file, once its structure has been imported (and so checked).
fn export_stats(args: &Args) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    use fibforge::export::{ROUTES_PARAM, import};
    let path = &args.table.path;
    let file = super::lookup::read_export(path)?;
    let checked = if file.family == 4 {
        import::<u32>(&file).map(|f| f.memory_bytes())
    } else {
        import::<u128>(&file).map(|f| f.memory_bytes())
    };
    let memory = checked.with_context(|| path.display().to_string())?;
    let arrays: Vec<Value> =
        file.arrays.iter().map(|a| json!({"elem_bytes": a.elem_bytes, "len": a.len()})).collect();
    let report = json!({
        "export": path.display().to_string(),
        "algorithm": file.algorithm.name(),
        "family": file.family,
        "params": &file.params[..ROUTES_PARAM],
        "routes": file.params[ROUTES_PARAM],
        "arrays": arrays,
        "next_hop_values": file.hops.len(),
        "memory_bytes": memory,
    });
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "export              {}", path.display())?;
    writeln!(out, "algorithm           {} (IPv{})", file.algorithm.name(), file.family)?;
    writeln!(out, "routes              {}", file.params[ROUTES_PARAM])?;
    writeln!(out, "parameters          {:?}", &file.params[..ROUTES_PARAM])?;
    for (i, a) in file.arrays.iter().enumerate() {
        writeln!(out, "array {i:<13} {} x {} bytes", a.len(), a.elem_bytes)?;
    }
    writeln!(out, "next-hop values     {}", file.hops.len())?;
    writeln!(out, "imported            {memory} bytes in memory (every index checked)")?;
    Ok(ExitCode::SUCCESS)
}
