//! Measuring one built structure: verification, then rates, cycles and thread scaling.

use super::{Log, Settings};
use crate::contender::Contender;
use crate::depth::{measure_by_depth, sorted_by_depth};
use crate::family::BenchAddress;
use crate::report::{Row, Status};
use crate::timing::{CycleSamples, Mode, Spread, cdf, measure_rate, measure_threads};
use crate::traffic::TrafficSource;
use crate::verify::{Probes, check};
use fibforge::Rib;
use std::sync::OnceLock;
use std::time::Duration;

/// Points kept of each cycles CDF.
const CDF_POINTS: usize = 200;

/// Everything shared by the contenders of one table and family.
pub struct Ctx<'a, A: fibforge::Address> {
    /// Settings of the run.
    pub s: &'a Settings,
    /// Table name.
    pub table: &'a str,
    /// The routes (the oracle).
    pub rib: &'a Rib<A>,
    /// Seconds per repeat.
    pub duration: Duration,
    /// Resolved traffic, by name.
    pub sources: Vec<(String, TrafficSource<A>)>,
    /// Traffic of the thread-scaling rows.
    pub scaling: Option<TrafficSource<A>>,
    /// The verification sample.
    pub probes: Probes<A>,
    depth_sample: OnceLock<(Vec<A>, Vec<u8>)>,
}

impl<'a, A: BenchAddress> Ctx<'a, A> {
    /// Bundles the family's context.
    pub fn new(
        s: &'a Settings,
        table: &'a str,
        rib: &'a Rib<A>,
        duration: Duration,
        sources: Vec<(String, TrafficSource<A>)>,
        scaling: Option<TrafficSource<A>>,
        probes: Probes<A>,
    ) -> Self {
        Ctx { s, table, rib, duration, sources, scaling, probes, depth_sample: OnceLock::new() }
    }

    /// A row of this table and family with identity only.
    pub fn row(&self, algo: &str, imp: &str, mode: Mode, traffic: &str, status: Status) -> Row {
        Row::empty(self.table, A::FAMILY.name(), algo, imp, mode.name(), traffic, status)
    }

    /// Name of the first traffic pattern (for rows without figures).
    pub fn first_traffic(&self) -> &str {
        self.sources.first().map_or("random", |(n, _)| n.as_str())
    }

    /// The `random` cycle sample sorted by binary-radix depth, with the depths (the same
    /// addresses for everyone).
    fn depth_sample(&self) -> &(Vec<A>, Vec<u8>) {
        self.depth_sample.get_or_init(|| {
            let addrs = TrafficSource::<A>::Random.sample(self.s.cycle_samples, self.s.seed);
            sorted_by_depth(self.rib, &addrs)
        })
    }
}

/// Verifies `c` and, when it agrees with the oracle, measures it.
pub fn measure<A: BenchAddress>(ctx: &Ctx<'_, A>, c: &Contender<A>, log: Log<'_>) -> Vec<Row> {
    let checked = check(&*c.fib, &ctx.probes, c.single, c.batch);
    let modes: Vec<Mode> = ctx
        .s
        .modes
        .iter()
        .copied()
        .filter(|m| match m {
            Mode::Single => c.single,
            Mode::Batch => c.batch,
        })
        .collect();
    let base = |traffic: &str, mode: Mode, status: Status| {
        let mut r = ctx.row(&c.algo, &c.implementation, mode, traffic, status);
        r.memory_bytes = c.memory_bytes;
        r.compile_ms = Some(c.compile_ms);
        r.checked = Some(checked.checked);
        r.mismatches = Some(checked.mismatches);
        r.note = c.note.clone();
        r
    };
    if checked.mismatches > 0 {
        eprintln!(
            "MISMATCH: {} ({}) on {} {}: {} of {} lookups differ from the oracle; not timed. First: {}",
            c.algo,
            c.implementation,
            ctx.table,
            A::FAMILY,
            checked.mismatches,
            checked.checked,
            checked.examples.join("; ")
        );
        let mut out = Vec::new();
        for (name, _) in &ctx.sources {
            for &m in &modes {
                let mut r = base(name, m, Status::Mismatch);
                r.note = Some(checked.examples.join("; "));
                out.push(r);
            }
        }
        return out;
    }
    let mut out = Vec::new();
    let mut summary = Vec::new();
    for (name, src) in &ctx.sources {
        for &mode in &modes {
            let mut r = base(name, mode, Status::Ok);
            time_row(ctx, c, src, mode, name == "random" && mode == Mode::Single, &mut r);
            summary.push(format!("{name}/{} {:.1}", mode.name(), r.mlps.unwrap_or(0.0)));
            out.push(r);
        }
    }
    if c.single
        && let Some(src) = &ctx.scaling
    {
        for threads in 2..=ctx.s.threads {
            let mut r = base(&ctx.s.scaling_traffic.to_string(), Mode::Single, Status::Ok);
            r.threads = threads;
            let rates: Vec<f64> = (0..ctx.s.repeats.max(1))
                .map(|i| {
                    measure_threads(
                        &*c.fib,
                        src,
                        Mode::Single,
                        threads,
                        ctx.duration,
                        ctx.s.seed + i as u64,
                    )
                    .mlps()
                })
                .collect();
            fill_rates(&mut r, &rates, ctx.duration);
            summary.push(format!("{threads}t {:.1}", r.mlps.unwrap_or(0.0)));
            out.push(r);
        }
    }
    log(&format!(
        "  {:<20} {:<16} build {:>8.1} ms  {:>8.2} MiB  verified {} lookups  Mlps: {}",
        c.algo,
        c.implementation,
        c.compile_ms,
        c.memory_bytes.unwrap_or(0) as f64 / (1 << 20) as f64,
        checked.checked,
        summary.join(", ")
    ));
    out
}

fn fill_rates(r: &mut Row, rates: &[f64], duration: Duration) {
    if let Some(s) = Spread::of(rates) {
        r.mlps = Some(s.median);
        r.mlps_min = Some(s.min);
        r.mlps_max = Some(s.max);
    }
    r.repeats = rates.len();
    r.duration_s = Some(duration.as_secs_f64());
}

fn time_row<A: BenchAddress>(
    ctx: &Ctx<'_, A>,
    c: &Contender<A>,
    src: &TrafficSource<A>,
    mode: Mode,
    detailed: bool,
    r: &mut Row,
) {
    let rates: Vec<f64> = (0..ctx.s.repeats.max(1))
        .map(|i| measure_rate(&*c.fib, src, mode, ctx.duration, ctx.s.seed + i as u64).mlps())
        .collect();
    fill_rates(r, &rates, ctx.duration);
    let max_time = ctx.duration.max(Duration::from_millis(100));
    let (n, group) = (ctx.s.cycle_samples, ctx.s.cycle_group);
    let cycles = CycleSamples::measure(&*c.fib, src, mode, n, group, max_time, ctx.s.seed);
    r.set_cycles(&cycles);
    if detailed && !cycles.ticks.is_empty() {
        r.cycles_cdf = Some(cdf(&cycles.ticks, CDF_POINTS));
        let (addrs, depths) = ctx.depth_sample();
        r.cycles_by_depth = Some(measure_by_depth(&*c.fib, addrs, depths, group));
    }
}
