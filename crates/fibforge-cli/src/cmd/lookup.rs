//! `fibforge lookup TABLE [--algo NAME] [ADDR...]`: longest-prefix matches, one line each:
//! `addr<TAB>prefix<TAB>nexthop`, `-<TAB>-` when no route matches.
//!
//! The next hop comes from the chosen algorithm: for `poptrie` (the default) the concurrent
//! [`fibforge::Table`], as applications use it; otherwise the registry's structure. Compiled
//! structures keep next hops, not prefixes, so the prefix column comes from the RIB; if the
//! RIB's next hop for the address differs from the algorithm's, that is reported as an error
//! (a bug), not printed.

use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::algo::poptrie::Key;
use fibforge::registry::{AlgoSpec, RegistryFamily, build, poptrie_config};
use fibforge::{Lookup, NextHop, Rib, addr::parse_addr};
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
    v4: Option<Engine<u32>>,
    v6: Option<Engine<u128>>,
}

/// What answers one family: a concurrent table (owning the RIB) or a compiled structure.
enum Engine<A: Key> {
    Table(Box<fibforge::Table<A>>),
    Compiled(Box<dyn Lookup<A>>),
}

impl<A: Key> Engine<A> {
    fn lookup(&self, a: A) -> Option<NextHop> {
        match self {
            Engine::Table(t) => t.lookup(a),
            Engine::Compiled(c) => c.lookup(a),
        }
    }

    /// The RIB holding the routes (the table's own when it took it over).
    fn rib<'a>(&'a self, fallback: &'a Rib<A>) -> &'a Rib<A> {
        match self {
            Engine::Table(t) => t.rib(),
            Engine::Compiled(_) => fallback,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut table = load_table(&args.table)?;
    let spec: AlgoSpec = args.algo.parse()?;
    let v4 = engine(&spec, &mut table.v4)?;
    let v6 = engine(&spec, &mut table.v6)?;
    let engines = Engines { v4, v6 };
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

/// The engine for one family; a Poptrie table takes the RIB over (no copy).
fn engine<A: RegistryFamily + Key>(
    spec: &AlgoSpec,
    rib: &mut Rib<A>,
) -> anyhow::Result<Option<Engine<A>>> {
    if rib.is_empty() {
        return Ok(None);
    }
    if let Some(cfg) = poptrie_config::<A>(spec) {
        let t = fibforge::Table::with_config(std::mem::take(rib), &cfg?)?;
        return Ok(Some(Engine::Table(Box::new(t))));
    }
    Ok(Some(Engine::Compiled(build(spec, rib)?)))
}

fn answer(text: &str, t: &Table, e: &Engines, out: &mut impl Write) -> anyhow::Result<()> {
    if let Some(a) = parse_addr::<u32>(text) {
        return write_answer(a, &t.v4, e.v4.as_ref(), t, out);
    }
    if let Some(a) = parse_addr::<u128>(text) {
        return write_answer(a, &t.v6, e.v6.as_ref(), t, out);
    }
    bail!("'{text}' is not an IPv4 or IPv6 address")
}

fn write_answer<A: Key>(
    addr: A,
    rib: &Rib<A>,
    engine: Option<&Engine<A>>,
    t: &Table,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let got: Option<NextHop> = engine.and_then(|e| e.lookup(addr));
    let want = engine.map_or(rib, |e| e.rib(rib)).longest_match(addr);
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
