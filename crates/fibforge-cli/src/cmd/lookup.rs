//! `fibforge lookup TABLE [OPTIONS] [QUERY...]`: longest-prefix matches for scripts.
//!
//! Queries are addresses (longest matching route) or prefixes (longest covering route), from
//! the command line, from `--file` lists (`-` is stdin; gzip/bzip2 fine) or from stdin when
//! neither is given. List lines use their first column; `#` comments, extra columns and blank
//! lines are ignored ([`input`]). One answer line per query ([`output`]): `query<TAB>prefix
//! <TAB>value` (`-` for no route), `--prefix` for the prefix alone, `--json` for JSON Lines.
//!
//! Exit status: 0; 1 with `--exit-code` when some query has no route (as `grep` when nothing
//! matches); 2 for errors. A bad query is reported with its place (`FILE:LINE`, `stdin:LINE`,
//! `argument N`) and skipped, or ends the run with status 2 under `--strict`. Errors that
//! are not the line's (an algorithm that does not handle the query's family, an unreadable
//! file, a line longer than 4096 bytes, a failed write to stdout) end the run with status 2.
//! A query of a family the table has no route of answers `-` with a warning (once per
//! family), or ends the run with status 2 under `--strict`.
//!
//! The algorithm is checked before the table is read; [`engine`] says where answers come from
//! and how each is checked against the routes. TABLE may be an export file (`fibforge
//! export`, [`exported`]): its structure answers without a compile, and since it holds no
//! prefixes, answers print `-` (JSON `null`) as the prefix.

mod engine;
mod exported;
mod input;
mod output;

use crate::load::{TableArgs, load_table, warn};
use anyhow::bail;
use engine::{Engine, Scratch};
pub use exported::{read as read_export, sniff as is_export};
use fibforge::registry::AlgoSpec;
use fibforge::{Family, NextHop, Prefix};
use fibforge_io::LoadedTable;
use input::Query;
use output::{AddrText, Format};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Algorithm answering the lookups (see `fibforge algos`); `name:key=value` sets options.
    /// Default: poptrie; for an export file (TABLE written by `fibforge export`), the
    /// export's own structure, which answers without a compile but knows no prefixes: the
    /// prefix column prints `-` (JSON null), and prefix queries and --prefix are refused.
    #[arg(long)]
    algo: Option<String>,
    /// Read queries from this file, one per line (first column; `#` comments, further
    /// columns and blank lines ignored; gzip or bzip2 fine); `-` is stdin. Repeatable.
    #[arg(long = "file", short = 'f', value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print only the matching prefix of each query (`-` when none).
    #[arg(long)]
    prefix: bool,
    /// Print one JSON object per query: {"address", "prefix", "value"} (null when no route),
    /// and "origin_as" (a number, null when unknown) with `--value origin_as`.
    #[arg(long, conflicts_with = "prefix")]
    json: bool,
    /// Stop with status 2 at the first bad query, instead of reporting and skipping it.
    #[arg(long)]
    strict: bool,
    /// Exit with status 1 when some query has no route (status 0 when all have one).
    #[arg(long)]
    exit_code: bool,
    /// Addresses (longest matching route) or prefixes (longest covering route); stdin is read
    /// when neither these nor --file are given.
    queries: Vec<String>,
}

/// Each family's engine: `None` when the table has no route of it, `Err` (why) when the
/// algorithm does not handle it.
struct Engines {
    v4: Result<Option<Engine<u32>>, String>,
    v6: Result<Option<Engine<u128>>, String>,
}

/// Queries waiting for their batch lookup, in input order, with the answers' buffers.
#[derive(Default)]
struct Block {
    queries: Vec<Query>,
    v4: Vec<u32>,
    v6: Vec<u128>,
    r4: Vec<Answer<u32>>,
    r6: Vec<Answer<u128>>,
    scratch: Scratch,
}

/// A longest match: the route's prefix (`None` when the structure does not know it, as an
/// export's) and next hop; `None` without a route.
type Answer<A> = Option<(Option<Prefix<A>>, NextHop)>;

/// Queries per batch lookup: enough to overlap many cache misses, few enough to stay in L1.
const BLOCK: usize = 1024;

/// The state of one run: answers are gathered in `out` and written in large blocks.
struct Run<'a, W: Write> {
    values: &'a exported::Values<'a>,
    engines: &'a Engines,
    format: Format,
    strict: bool,
    block: Block,
    out: Vec<u8>,
    sink: W,
    unmatched: u64,
    skipped: u64,
    /// Whether the table's lack of IPv4 / IPv6 routes was reported (once each).
    warned_empty: [bool; 2],
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec: AlgoSpec = args.algo.as_deref().unwrap_or(crate::load::DEFAULT_ALGO).parse()?;
    crate::load::check_algo(&spec)?;
    let mut table: LoadedTable;
    let (engines, values) = if exported::sniff(&args.table.path) {
        anyhow::ensure!(!args.prefix, "--prefix: an export file holds no prefixes");
        let algo = args.algo.as_ref().map(|_| &spec);
        let (engines, hops) = exported::load(&args.table.path, algo)?;
        (engines, exported::Values::Hops(hops))
    } else {
        table = load_table(&args.table)?;
        let v4 = Engine::new(&spec, &mut table.v4, Family::Ipv4)?;
        let v6 = Engine::new(&spec, &mut table.v6, Family::Ipv6)?;
        (Engines { v4, v6 }, exported::Values::Table(&table))
    };
    let format = match (args.json, args.prefix) {
        (true, _) => {
            Format::Json { origin_as: args.table.value == crate::load::ValueArg::OriginAs }
        }
        (false, true) => Format::Prefix,
        (false, false) => Format::Text,
    };
    let mut run = Run {
        values: &values,
        engines: &engines,
        format,
        strict: args.strict,
        block: Block::default(),
        out: Vec::with_capacity(1 << 17),
        sink: crate::out::stdout(),
        unmatched: 0,
        skipped: 0,
        warned_empty: [false; 2],
    };
    let files = if args.files.is_empty() && args.queries.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files
    };
    let result = run.all(&args.queries, &files);
    // The queries before an error are answered too (as a line-by-line tool would have).
    let written = run.process().and_then(|()| run.flush());
    result?;
    written?;
    if run.skipped > 0 {
        warn(&format!("{} bad queries skipped", run.skipped));
    }
    Ok(if args.exit_code && run.unmatched > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

impl<W: Write> Run<'_, W> {
    /// Queues the command line's queries, then each list's.
    fn all(&mut self, queries: &[String], files: &[PathBuf]) -> anyhow::Result<()> {
        for (i, q) in queries.iter().enumerate() {
            self.line(q.as_bytes(), || format!("argument {}", i + 1), input::parse_query)?;
        }
        files.iter().try_for_each(|path| self.file(path))
    }

    /// Answers the queries of one list (`-`: stdin).
    fn file(&mut self, path: &std::path::Path) -> anyhow::Result<()> {
        let (name, mut reader): (String, Box<dyn BufRead>) = if path.as_os_str() == "-" {
            ("stdin".into(), fibforge_io::open::open_reader(std::io::stdin(), "stdin")?)
        } else {
            (path.display().to_string(), fibforge_io::open::open(path)?)
        };
        let mut buf = Vec::with_capacity(256);
        let mut number = 0u64;
        loop {
            number += 1;
            let more = input::next_line(&mut *reader, &mut buf)
                .map_err(|e| anyhow::anyhow!("{name}:{number}: {e}"))?;
            if !more {
                return Ok(());
            }
            self.line(&buf, || format!("{name}:{number}"), input::parse_line)?;
        }
    }

    /// Parses one query and queues it; `place` names it in messages.
    fn line<Q>(
        &mut self,
        text: &[u8],
        place: impl Fn() -> String,
        parse: impl Fn(&[u8]) -> Result<Q, String>,
    ) -> anyhow::Result<()>
    where
        Q: Into<Option<Query>>,
    {
        match parse(text).map(Into::into) {
            Ok(Some(q)) => self.push(q, place),
            Ok(None) => Ok(()),
            Err(e) if self.strict => bail!("{}: {e}", place()),
            Err(e) => {
                self.skipped += 1;
                warn(&format!("{}: {e} (skipped)", place()));
                Ok(())
            }
        }
    }

    /// Queues a query; answers the queue when it is full. A query of a family the algorithm
    /// does not handle ends the run (the queries before it are still answered).
    fn push(&mut self, q: Query, place: impl Fn() -> String) -> anyhow::Result<()> {
        let unsupported = match q {
            Query::Addr4(_) | Query::Prefix4(_) => self.engines.v4.as_ref().err(),
            Query::Addr6(_) | Query::Prefix6(_) => self.engines.v6.as_ref().err(),
        };
        if let Some(why) = unsupported {
            bail!("{}: '{}': {why}", place(), query_text(q));
        }
        self.check_family_has_routes(q, &place)?;
        if matches!(q, Query::Prefix4(_) | Query::Prefix6(_)) && self.values.is_export() {
            bail!("{}: '{}': an export file answers addresses only", place(), query_text(q));
        }
        match q {
            Query::Addr4(a) => self.block.v4.push(a),
            Query::Addr6(a) => self.block.v6.push(a),
            Query::Prefix4(_) | Query::Prefix6(_) => {}
        }
        self.block.queries.push(q);
        if self.block.queries.len() >= BLOCK {
            self.process()?;
        }
        Ok(())
    }

    /// A query of a family the table has no route of answers `-`: an error under `--strict`
    /// (naming the query and its place), else one warning per family.
    fn check_family_has_routes(
        &mut self,
        q: Query,
        place: impl Fn() -> String,
    ) -> anyhow::Result<()> {
        let (family, empty) = match q {
            Query::Addr4(_) | Query::Prefix4(_) => (4, matches!(self.engines.v4, Ok(None))),
            Query::Addr6(_) | Query::Prefix6(_) => (6, matches!(self.engines.v6, Ok(None))),
        };
        let warned = &mut self.warned_empty[usize::from(family == 6)];
        if !empty || (*warned && !self.strict) {
            return Ok(());
        }
        let what = format!("{}: '{}': the table has no IPv{family} routes", place(), query_text(q));
        if self.strict {
            bail!("{what}");
        }
        *warned = true;
        warn(&format!("{what}: every IPv{family} query answers '-'"));
        Ok(())
    }

    /// Answers the queued queries, in order.
    fn process(&mut self) -> anyhow::Result<()> {
        let mut b = std::mem::take(&mut self.block);
        let (v4, v6) = (engine(&self.engines.v4), engine(&self.engines.v6));
        match v4 {
            Some(e) => e.longest_match_batch(&b.v4, &mut b.r4, &mut b.scratch)?,
            None => b.r4 = vec![None; b.v4.len()],
        }
        match v6 {
            Some(e) => e.longest_match_batch(&b.v6, &mut b.r6, &mut b.scratch)?,
            None => b.r6 = vec![None; b.v6.len()],
        }
        let (mut r4, mut r6) = (b.r4.iter(), b.r6.iter());
        for &q in &b.queries {
            match q {
                Query::Addr4(a) => self.emit(|o| u32::push(o, a), *r4.next().expect("an answer")),
                Query::Addr6(a) => self.emit(|o| u128::push(o, a), *r6.next().expect("an answer")),
                Query::Prefix4(p) => {
                    let route = v4.and_then(|e| e.longest_covering(&p));
                    self.emit(|o| output::push_prefix(o, &p), route.map(|(p, h)| (Some(p), h)))
                }
                Query::Prefix6(p) => {
                    let route = v6.and_then(|e| e.longest_covering(&p));
                    self.emit(|o| output::push_prefix(o, &p), route.map(|(p, h)| (Some(p), h)))
                }
            }?;
        }
        b.queries.clear();
        b.v4.clear();
        b.v6.clear();
        self.block = b;
        Ok(())
    }

    /// Appends one answer line; writes the buffer out when it is large.
    fn emit<A: AddrText>(
        &mut self,
        query: impl FnOnce(&mut Vec<u8>),
        route: Answer<A>,
    ) -> anyhow::Result<()> {
        self.unmatched += u64::from(route.is_none());
        let value = route.map(|(_, h)| self.values.text(h)).transpose()?;
        let route = route.as_ref().zip(value.as_deref()).map(|((p, _), v)| (p.as_ref(), v));
        output::push_answer(&mut self.out, self.format, query, route);
        if self.out.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the buffered answers out (a failure names standard output: `crate::out`).
    fn flush(&mut self) -> anyhow::Result<()> {
        self.sink.write_all(&self.out)?;
        self.out.clear();
        Ok(self.sink.flush()?)
    }
}

/// A family's engine; `None` when the table has no route of the family (or the algorithm
/// does not handle it, which [`Run::push`] has refused by then).
fn engine<A: fibforge::algo::poptrie::Key>(
    e: &Result<Option<Engine<A>>, String>,
) -> Option<&Engine<A>> {
    e.as_ref().ok().and_then(Option::as_ref)
}

/// The canonical text of a query, for messages.
fn query_text(q: Query) -> String {
    match q {
        Query::Addr4(a) => u32::push_text(a),
        Query::Addr6(a) => u128::push_text(a),
        Query::Prefix4(p) => p.to_string(),
        Query::Prefix6(p) => p.to_string(),
    }
}
