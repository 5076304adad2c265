//! `fibforge snapshot TABLE FILE`: the table, both families, written as an `IpTable`
//! snapshot (`docs/reference/snapshot-format.md`) whose values are the next hops' text, so
//! that a Rust program (`IpTable::<String>::open`) maps it and looks up at once, with the
//! matched prefix, without reading or compiling the table.
//!
//! The file is written whole or not at all (a temporary file renamed over it).

use crate::files::check_writable_file;
use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::{IpTable, Prefix};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// The snapshot file to write.
    file: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    check_writable_file(&args.file, "snapshot file")?;
    let loaded = load_table(&args.table)?;
    if loaded.v4.is_empty() && loaded.v6.is_empty() {
        bail!("{}: the table has no routes", args.table.path.display());
    }
    let name = |h| loaded.hops.value(h).cloned().unwrap_or_default();
    let net4 = |p: Prefix<u32>| IpNet::V4(Ipv4Net::new_assert(p.addr().into(), p.len() as u8));
    let net6 = |p: Prefix<u128>| IpNet::V6(Ipv6Net::new_assert(p.addr().into(), p.len() as u8));
    let routes4 = loaded.v4.iter().map(|(p, h)| (net4(p), name(h)));
    let routes6 = loaded.v6.iter().map(|(p, h)| (net6(p), name(h)));
    let mut table: IpTable<String> = IpTable::new();
    table.try_extend(routes4.chain(routes6)).context("building the table")?;
    table.save(&args.file)?;
    let bytes = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
    writeln!(
        crate::out::stdout(),
        "snapshot: {} routes (IPv4 {}, IPv6 {}), {} distinct values, {bytes} bytes -> {}",
        table.len(),
        loaded.v4.len(),
        loaded.v6.len(),
        loaded.hops.len(),
        args.file.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
