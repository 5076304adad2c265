//! `fibforge snapshot TABLE FILE`: the table, both families, written as an `IpTable`
//! snapshot (`docs/reference/snapshot-format.md`) whose values are the next hops' text, so
//! that a Rust program (`IpTable::<String>::open`) maps it and looks up at once, with the
//! matched prefix, without reading or compiling the table. `--values index` stores the next
//! hops' numbers instead (0, 1, 2, ... in the order the file first names them), the values
//! of C's `fibforge_iptable_open` and Rust's `IpTable::<u32>::open`.
//!
//! The file is written whole or not at all (a temporary file renamed over it).

use crate::files::check_writable_file;
use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::{IpTable, Prefix};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use serde::Serialize;
use std::hash::Hash;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What the snapshot stores as each route's value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Values {
    /// The next hop's text, as the file wrote it (`IpTable<String>`).
    Text,
    /// The next hop's number, in the order the file first names them (`IpTable<u32>`).
    Index,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// The snapshot file to write.
    file: PathBuf,
    /// The values stored: the next hops' text (for Rust's and Python's `IpTable<String>`)
    /// or their numbers (for C's `fibforge_iptable_open` and `IpTable<u32>`).
    #[arg(long, value_enum, default_value = "text")]
    values: Values,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    check_writable_file(&args.file, "snapshot file")?;
    let loaded = load_table(&args.table)?;
    if loaded.v4.is_empty() && loaded.v6.is_empty() {
        bail!("{}: the table has no routes", args.table.path.display());
    }
    let net4 = |p: Prefix<u32>| IpNet::V4(Ipv4Net::new_assert(p.addr().into(), p.len() as u8));
    let net6 = |p: Prefix<u128>| IpNet::V6(Ipv6Net::new_assert(p.addr().into(), p.len() as u8));
    let v4 = loaded.v4.iter().map(|(p, h)| (net4(p), h));
    let v6 = loaded.v6.iter().map(|(p, h)| (net6(p), h));
    let routes = v4.chain(v6);
    let len = match args.values {
        Values::Text => {
            let name = |h| loaded.hops.value(h).cloned().unwrap_or_default();
            save(routes.map(|(n, h)| (n, name(h))), &args.file)?
        }
        Values::Index => save(routes.map(|(n, h)| (n, h.index())), &args.file)?,
    };
    let bytes = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
    writeln!(
        crate::out::stdout(),
        "snapshot: {} routes (IPv4 {}, IPv6 {}), {} distinct values, {bytes} bytes -> {}",
        len,
        loaded.v4.len(),
        loaded.v6.len(),
        loaded.hops.len(),
        args.file.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Compiles `routes` into an `IpTable` and saves it to `file`; returns its route count.
fn save<V>(routes: impl Iterator<Item = (IpNet, V)>, file: &Path) -> anyhow::Result<usize>
where
    V: Clone + Eq + Hash + Serialize,
{
    let mut table: IpTable<V> = IpTable::new();
    table.try_extend(routes).context("building the table")?;
    table.save(file)?;
    Ok(table.len())
}
