//! `fibforge lookup TABLE [--algo NAME] [ADDR...]`: longest-prefix matches, one line each:
//! `addr<TAB>prefix<TAB>nexthop`, `-<TAB>-` when no route matches.
//!
//! The next hop comes from the chosen algorithm. Compiled structures keep next hops, not
//! prefixes, so the prefix column comes from the RIB; if the RIB's next hop for the address
//! differs from the algorithm's, that is reported as an error (a bug), not printed.

use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::registry::{AlgoSpec, RegistryFamily, build};
use fibforge::{Address, Lookup, NextHop, Rib, addr::parse_addr};
use fibforge_io::Table;
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Algorithm answering the lookups (see `fibforge algos`); `name:key=value` sets options.
    #[arg(long, default_value = crate::load::DEFAULT_ALGO)]
    algo: String,
    /// Addresses to look up; read from stdin (one per line) when none is given.
    addrs: Vec<String>,
}

struct Engines {
    v4: Option<Box<dyn Lookup<u32>>>,
    v6: Option<Box<dyn Lookup<u128>>>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let table = load_table(&args.table)?;
    let spec: AlgoSpec = args.algo.parse()?;
    let engines = Engines { v4: build_if(&spec, &table.v4)?, v6: build_if(&spec, &table.v6)? };
    let out = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, out);
    if args.addrs.is_empty() {
        for (i, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line.context("reading stdin")?;
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            answer(text, &table, &engines, &mut out)
                .with_context(|| format!("stdin line {}", i + 1))?;
        }
    } else {
        for a in &args.addrs {
            answer(a, &table, &engines, &mut out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn build_if<A: RegistryFamily>(
    spec: &AlgoSpec,
    rib: &Rib<A>,
) -> anyhow::Result<Option<Box<dyn Lookup<A>>>> {
    if rib.is_empty() {
        return Ok(None);
    }
    Ok(Some(build(spec, rib)?))
}

fn answer(text: &str, t: &Table, e: &Engines, out: &mut impl Write) -> anyhow::Result<()> {
    if let Some(a) = parse_addr::<u32>(text) {
        return write_answer(a, &t.v4, e.v4.as_deref(), t, out);
    }
    if let Some(a) = parse_addr::<u128>(text) {
        return write_answer(a, &t.v6, e.v6.as_deref(), t, out);
    }
    bail!("'{text}' is not an IPv4 or IPv6 address")
}

fn write_answer<A: Address>(
    addr: A,
    rib: &Rib<A>,
    engine: Option<&dyn Lookup<A>>,
    t: &Table,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let got: Option<NextHop> = engine.and_then(|e| e.lookup(addr));
    let want = rib.longest_match(addr);
    if got != want.map(|(_, h)| h) {
        bail!("internal error: algorithm answered {got:?} for {addr:?}, the RIB {want:?}");
    }
    let a = addr.to_std();
    match want {
        Some((p, h)) => writeln!(out, "{a}\t{p}\t{}", t.hop_value(h))?,
        None => writeln!(out, "{a}\t-\t-")?,
    }
    Ok(())
}
