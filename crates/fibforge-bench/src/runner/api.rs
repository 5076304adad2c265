//! The rows a user gets (issue 17): beside the bare Poptrie's rows, the same structure
//! through [`fibforge::Table`] readers and through the C ABI, single and batch, on the first
//! traffic pattern, so that a gap between the structure and its API shows in every run.
//!
//! Implementations (the report's `impl` column):
//! - `reader-qsbr`: an online [`Reader`], a quiescent state every [`POLL_BURST`] single
//!   lookups or after each batch;
//! - `reader-pinned`: [`Reader::pin`] per burst of [`POLL_BURST`] lookups or per batch
//!   (online and offline around it);
//! - `reader-offline`: an offline reader, each call synchronised (the default of a new one);
//! - `c-qsbr`, `c-offline`: the same through `fibforge.h`, from loops written in C
//!   (`csrc/capi_harness.c`, IPv4 only; rows marked "not available" without a C compiler);
//! - `iptable`: [`fibforge::IpTable`]'s lookups, value and matched network (`iptable.rs`);
//! - `c-view`: the header's inline walk (`fibforge_view4_lookup`) over a view taken once per
//!   burst or group of 64, as the header's typical loop (CPUs with popcount).
//!
//! A reader reports once per burst, where a poll loop would (the timing loop's
//! [`Probe::rest`]), not through a counter in every lookup.

use super::iptable::{IpTableFamily, iptable_rows};
use super::measure::Ctx;
use crate::family::BenchAddress;
use crate::report::{Row, Status};
use crate::timing::{Mode, POLL_BURST, Probe, Run, Spread, measure_probe};
use fibforge::algo::poptrie::{Fib, Key};
use fibforge::{NextHop, Reader, Table};
use std::time::{Duration, Instant};

type PoptrieReader<A> = Reader<A, Fib<A>>;

/// The API rows of one family: Rust readers for both families, the C ABI for IPv4 (the
/// impls live in `capi`, so that this file does not import the C side that builds on it).
pub trait ApiFamily: BenchAddress + Key + IpTableFamily {
    /// The C ABI rows (or why there are none).
    fn c_rows(ctx: &Ctx<'_, Self>) -> Vec<Row>;
}

/// Every API row of `ctx`'s first traffic pattern (none when the table does not compile).
pub fn api_rows<A: ApiFamily>(ctx: &Ctx<'_, A>) -> Vec<Row> {
    let Ok(table) = Table::new(ctx.rib.clone()) else { return Vec::new() };
    let mut rows = Vec::new();
    let mut qsbr = Qsbr { reader: table.reader() };
    qsbr.reader.online();
    rows.extend(rust_rows(ctx, "reader-qsbr", &mut qsbr));
    let mut pinned = Pinned { reader: table.reader() };
    pinned.reader.online();
    rows.extend(rust_rows(ctx, "reader-pinned", &mut pinned));
    pinned.reader.offline();
    let mut offline = Offline(table.reader());
    rows.extend(rust_rows(ctx, "reader-offline", &mut offline));
    rows.extend(A::c_rows(ctx));
    rows.extend(iptable_rows(ctx));
    rows
}

pub(super) fn rust_rows<A: BenchAddress>(
    ctx: &Ctx<'_, A>,
    name: &str,
    probe: &mut dyn Probe<A>,
) -> Vec<Row> {
    let Some((traffic, src)) = ctx.sources.first() else { return Vec::new() };
    ctx.s
        .modes
        .iter()
        .map(|&mode| {
            let runs = (0..ctx.s.repeats.max(1))
                .map(|i| measure_probe(probe, src, mode, ctx.duration, ctx.s.seed + i as u64))
                .collect::<Vec<_>>();
            row(ctx, name, mode, traffic, &runs)
        })
        .collect()
}

/// A row from timed runs.
pub(crate) fn row<A: BenchAddress>(
    ctx: &Ctx<'_, A>,
    imp: &str,
    mode: Mode,
    traffic: &str,
    runs: &[Run],
) -> Row {
    let mut r = ctx.row(fibforge::registry::DEFAULT, imp, mode, traffic, Status::Ok);
    let rates: Vec<f64> = runs.iter().map(Run::mlps).collect();
    if let Some(s) = Spread::of(&rates) {
        (r.mlps, r.mlps_min, r.mlps_max) = (Some(s.median), Some(s.min), Some(s.max));
    }
    r.repeats = rates.len();
    r.duration_s = Some(ctx.duration.as_secs_f64());
    r.note =
        Some(format!("API path; quiescent/pin every {POLL_BURST} single lookups or per batch"));
    r
}

/// Calls `chunk` (16,384 lookups, returns a checksum) until `duration` has passed.
pub(crate) fn time_chunks(duration: Duration, mut chunk: impl FnMut() -> u64) -> Run {
    let (start, mut run) = (Instant::now(), Run::default());
    loop {
        run.checksum = run.checksum.wrapping_add(chunk());
        run.lookups += 1 << 14;
        let elapsed = start.elapsed();
        if elapsed >= duration {
            run.seconds = elapsed.as_secs_f64();
            return run;
        }
    }
}

/// An online reader reporting a quiescent state after every burst (the timing loop's
/// [`Probe::rest`]) and after each batch.
struct Qsbr<A: Key> {
    reader: PoptrieReader<A>,
}

impl<A: Key> Probe<A> for Qsbr<A> {
    #[inline]
    fn one(&mut self, addr: A) -> Option<NextHop> {
        self.reader.lookup(addr)
    }
    fn many(&mut self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.reader.lookup_batch(addrs, out);
        self.reader.quiescent();
    }
    fn rest(&mut self) {
        self.reader.quiescent();
    }
}

/// A reader online only for bursts: single lookups between `offline`/`online` pairs at each
/// burst's end (what [`Reader::pin`] does around one), batches each in a [`Reader::pin`].
struct Pinned<A: Key> {
    reader: PoptrieReader<A>,
}

impl<A: Key> Probe<A> for Pinned<A> {
    #[inline]
    fn one(&mut self, addr: A) -> Option<NextHop> {
        self.reader.lookup(addr)
    }
    fn many(&mut self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.reader.pin().lookup_batch(addrs, out);
    }
    fn rest(&mut self) {
        // The end of one pinned burst and the start of the next.
        self.reader.offline();
        self.reader.online();
    }
}

/// An offline reader: each call synchronises.
struct Offline<A: Key>(PoptrieReader<A>);

impl<A: Key> Probe<A> for Offline<A> {
    #[inline]
    fn one(&mut self, addr: A) -> Option<NextHop> {
        self.0.lookup(addr)
    }
    fn many(&mut self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.0.lookup_batch(addrs, out)
    }
}
