//! `fibforge lookup TABLE [--algo NAME] [ADDR...]`: longest-prefix matches, one line each:
//! `addr<TAB>prefix<TAB>nexthop`, `-<TAB>-` when no route matches.
//!
//! The next hop comes from the chosen algorithm: for `poptrie` (the default) the concurrent
//! [`fibforge::Table`], as applications use it; otherwise the registry's structure. Compiled
//! structures keep next hops, not prefixes, so the prefix column comes from the RIB; if the
//! RIB's next hop for the address differs from the algorithm's, that is reported as an error
//! (a bug), not printed.
//!
//! The algorithm is checked before the table is read. An algorithm of one family answers
//! that family's addresses of a mixed table; an address of the other family is an error
//! naming the algorithm. A failure to write the answers is reported as such (not as a
//! failure of the input).

use crate::load::{TableArgs, load_table};
use anyhow::{Context, bail};
use fibforge::algo::poptrie::Key;
use fibforge::registry::{self, AlgoSpec, RegistryFamily, build, poptrie_config};
use fibforge::{Family, Lookup, NextHop, Rib, addr::parse_addr};
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

/// Each family's engine: `None` when the table has no route of it, `Err` (why) when the
/// algorithm does not handle it.
struct Engines {
    v4: Result<Option<Engine<u32>>, String>,
    v6: Result<Option<Engine<u128>>, String>,
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
    let spec: AlgoSpec = args.algo.parse()?;
    crate::load::check_algo(&spec)?;
    let mut table = load_table(&args.table)?;
    let v4 = engine(&spec, &mut table.v4, Family::Ipv4)?;
    let v6 = engine(&spec, &mut table.v6, Family::Ipv6)?;
    let engines = Engines { v4, v6 };
    let out = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, out);
    let mut line = String::new();
    if args.addrs.is_empty() {
        for (i, input) in std::io::stdin().lock().lines().enumerate() {
            let input = input.context("reading stdin")?;
            let text = input.trim();
            if text.is_empty() {
                continue;
            }
            line.clear();
            answer(text, &table, &engines, &mut line)
                .with_context(|| format!("stdin line {}", i + 1))?;
            emit(&mut out, &line)?;
        }
    } else {
        for a in &args.addrs {
            line.clear();
            answer(a, &table, &engines, &mut line)?;
            emit(&mut out, &line)?;
        }
    }
    out.flush().context("cannot write the answers to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Writes one answer line; a failure is the output's, named as such.
fn emit(out: &mut impl Write, line: &str) -> anyhow::Result<()> {
    out.write_all(line.as_bytes()).context("cannot write the answers to stdout")
}

/// The engine for one family; a Poptrie table takes the RIB over (no copy).
fn engine<A: RegistryFamily + Key>(
    spec: &AlgoSpec,
    rib: &mut Rib<A>,
    family: Family,
) -> anyhow::Result<Result<Option<Engine<A>>, String>> {
    if rib.is_empty() {
        return Ok(Ok(None));
    }
    if registry::info(&spec.name).is_some_and(|i| !i.supports(family)) {
        return Ok(Err(format!(
            "algorithm '{}' does not handle {family} (the table's {family} routes need an \
             algorithm of both families, such as poptrie)",
            spec.name
        )));
    }
    if let Some(cfg) = poptrie_config::<A>(spec) {
        let t = fibforge::Table::with_config(std::mem::take(rib), &cfg?)?;
        return Ok(Ok(Some(Engine::Table(Box::new(t)))));
    }
    Ok(Ok(Some(Engine::Compiled(build(spec, rib)?))))
}

/// The answer line for one address (with its newline) appended to `out`.
fn answer(text: &str, t: &Table, e: &Engines, out: &mut String) -> anyhow::Result<()> {
    if let Some(a) = parse_addr::<u32>(text) {
        let engine = e.v4.as_ref().map_err(|why| anyhow::anyhow!("'{text}': {why}"))?;
        return write_answer(a, &t.v4, engine.as_ref(), t, out);
    }
    if let Some(a) = parse_addr::<u128>(text) {
        let engine = e.v6.as_ref().map_err(|why| anyhow::anyhow!("'{text}': {why}"))?;
        return write_answer(a, &t.v6, engine.as_ref(), t, out);
    }
    let shown = fibforge_io::error::quote(text.as_bytes());
    bail!("{shown} is not an IPv4 or IPv6 address")
}

fn write_answer<A: Key>(
    addr: A,
    rib: &Rib<A>,
    engine: Option<&Engine<A>>,
    t: &Table,
    out: &mut String,
) -> anyhow::Result<()> {
    use std::fmt::Write;
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
