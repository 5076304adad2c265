//! Update replay (issue 4 item 6, Poptrie §4.7): apply a real BGP update stream to a
//! concurrent [`Table`] while reader threads look up random addresses.
//!
//! Method:
//! 1. The stream is parsed and its next hops interned before timing ([`load_updates`]).
//! 2. Readers (each its own [`XorShift64`], addresses generated in the loop, as the lookup
//!    benchmarks) start; for `idle` seconds the writer does nothing: that is the idle rate.
//! 3. The writer applies every update (RIB insert/withdraw + incremental FIB patch + publish),
//!    timing each with the monotonic clock (one clock read pair, ~20–40 ns, included):
//!    back to back by default (the writer never rests), or at the stream's recorded pace
//!    sped up `pace` times. Reader lookups during that interval give the rate during updates,
//!    per wall-clock second and per second of the readers' own CPU time: on a machine shared
//!    with other work the scheduler, not the table, decides how much wall time a reader gets,
//!    while its CPU-time rate shows what the writer's stores and reclamation cost it.
//! 4. The final structure is compared with a fresh compile of the final RIB and with the RIB
//!    itself, on every prefix boundary (and outside neighbour) plus random addresses.
//!
//! With no reader threads the idle rate is measured on the calling thread and there is no
//! rate during updates.

use crate::BenchAddress;
use crate::rng::XorShift64;
use crate::timing::{Percentiles, Spread};
use fibforge::sync::Concurrent;
use fibforge::{AnyPrefix, BuildError, NextHop, Prefix, Rib, Table};
use fibforge_io::{ReadConfig, ReadError, UpdateKind, read_updates};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One parsed update: the prefix and its new next hop (`None`: withdrawn).
pub type Update<A> = (Prefix<A>, Option<NextHop>);

/// The updates of a file, split by family, next hops interned in `table`, with their
/// recorded times (microseconds since the Unix epoch).
pub struct Updates {
    pub v4: Vec<Update<u32>>,
    pub v6: Vec<Update<u128>>,
    pub v4_time_us: Vec<u64>,
    pub v6_time_us: Vec<u64>,
}

/// Reads an update file (MRT BGP4MP or the text stream); next hops are interned in `table`
/// (announcements without a next hop get the value `"-"`).
pub fn load_updates(
    path: &Path,
    table: &mut fibforge_io::LoadedTable,
) -> Result<Updates, ReadError> {
    let mut ups =
        Updates { v4: Vec::new(), v6: Vec::new(), v4_time_us: Vec::new(), v6_time_us: Vec::new() };
    for u in read_updates(path, &ReadConfig::default())? {
        let u = u?;
        let hop = match u.kind {
            UpdateKind::Withdraw => None,
            UpdateKind::Announce => {
                let value = u.next_hop.as_deref().unwrap_or("-");
                Some(table.hops.intern_ref(value).map_err(|e| ReadError::Content {
                    source_name: path.display().to_string(),
                    reason: e.to_string(),
                })?)
            }
        };
        match u.prefix {
            AnyPrefix::V4(p) => (ups.v4.push((p, hop)), ups.v4_time_us.push(u.time_us)),
            AnyPrefix::V6(p) => (ups.v6.push((p, hop)), ups.v6_time_us.push(u.time_us)),
        };
    }
    Ok(ups)
}

/// Replay settings.
#[derive(Clone, Debug)]
pub struct ReplaySettings {
    /// Reader threads looking up during the replay.
    pub readers: usize,
    /// Seconds of idle lookups before the replay.
    pub idle: Duration,
    /// Random addresses added to the final comparison.
    pub final_random: usize,
    /// Apply updates at their recorded times sped up this many times (`None`: back to back).
    pub pace: Option<f64>,
    /// Times the stream is applied, one round after the other (a long update run).
    pub rounds: usize,
    /// Seconds of each single-thread lookup measurement comparing the updated structure with
    /// a fresh compile of the final RIB (3 alternating repeats, medians; 0: none).
    pub compare: Duration,
    /// Set to the updates applied so far (over all rounds), for a progress display.
    pub progress: Option<Arc<AtomicU64>>,
}

impl Default for ReplaySettings {
    fn default() -> Self {
        ReplaySettings {
            readers: 1,
            idle: Duration::from_millis(500),
            final_random: 1_000_000,
            pace: None,
            rounds: 1,
            compare: Duration::from_millis(300),
            progress: None,
        }
    }
}

/// The figures of one replay (`fibforge replay --json`).
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    pub family: &'static str,
    pub algo: String,
    pub routes_before: usize,
    pub routes_after: usize,
    pub readers: usize,
    pub updates: usize,
    pub seconds: f64,
    pub updates_per_sec: f64,
    pub update_ns_mean: f64,
    pub update_ns_p50: f64,
    pub update_ns_p99: f64,
    pub update_ns_max: f64,
    /// The update times by the path the structure took (`Incremental::last_update_path`),
    /// for structures with several; empty otherwise.
    pub update_paths: Vec<PathStat>,
    /// `None`: back to back; else the speed-up over the recorded pace.
    pub pace: Option<f64>,
    pub lookup_mlps_idle: f64,
    pub lookup_mlps_during: Option<f64>,
    /// Reader lookups per second of reader CPU time, idle and during the updates.
    pub lookup_mlps_idle_cpu: Option<f64>,
    pub lookup_mlps_during_cpu: Option<f64>,
    /// Single-thread lookups per second after the replay, on the updated structure and on a
    /// fresh compile of the final RIB (same addresses; `None` when not measured): updates
    /// must not leave a slower structure behind.
    pub lookup_mlps_after: Option<f64>,
    pub lookup_mlps_fresh: Option<f64>,
    /// Checked addresses where the final table differs from a fresh compile of the final RIB.
    pub final_mismatches: u64,
    /// Checked addresses where the final table differs from the RIB.
    pub final_mismatches_rib: u64,
    pub final_checked: u64,
    pub memory_bytes_before: usize,
    pub memory_bytes_after: usize,
    /// Memory of a fresh compile of the final RIB.
    pub memory_bytes_fresh: usize,
    /// Retired memory still waiting for readers after the replay
    /// ([`fibforge::sync::Table::pending_reclaim`]), and whether it is over the threshold.
    pub pending_reclaim_bytes: usize,
    pub pending_reclaim_over: bool,
    /// Times the stream was applied.
    pub rounds: usize,
}

/// The updates that took one update path, and their times.
#[derive(Clone, Debug, Serialize)]
pub struct PathStat {
    pub path: &'static str,
    pub updates: usize,
    pub ns_p50: f64,
    pub ns_p99: f64,
    pub ns_max: f64,
}

impl PathStat {
    fn of(path: &'static str, ns: &[f64]) -> PathStat {
        let p = Percentiles::of(ns);
        let get = |f: fn(&Percentiles) -> f64| p.as_ref().map_or(0.0, f);
        PathStat {
            path,
            updates: ns.len(),
            ns_p50: get(|p| p.p50),
            ns_p99: get(|p| p.p99),
            ns_max: get(|p| p.max),
        }
    }
}

/// Reader threads and their shared counters.
struct Readers {
    stop: Arc<AtomicBool>,
    counts: Vec<Arc<AtomicU64>>,
    cpu_ns: Vec<Arc<AtomicU64>>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

/// Lookups and reader CPU nanoseconds so far (summed over readers).
#[derive(Copy, Clone)]
struct Progress {
    lookups: u64,
    cpu_ns: u64,
}

impl Progress {
    /// Millions of lookups per wall second and per reader CPU second since `before`.
    fn rates(self, before: Progress, wall: Duration) -> (f64, Option<f64>) {
        let n = (self.lookups - before.lookups) as f64;
        let cpu = (self.cpu_ns - before.cpu_ns) as f64 * 1e-9;
        (n / wall.as_secs_f64() / 1e6, (cpu > 0.0).then(|| n / cpu / 1e6))
    }
}

impl Readers {
    fn start<A: BenchAddress, F: Concurrent<A>>(table: &Table<A, F>, n: usize) -> Readers {
        let stop = Arc::new(AtomicBool::new(false));
        let counts: Vec<_> = (0..n).map(|_| Arc::new(AtomicU64::new(0))).collect();
        let cpu_ns: Vec<_> = (0..n).map(|_| Arc::new(AtomicU64::new(0))).collect();
        let handles = (0..n)
            .map(|t| {
                let (mut reader, stop, count) = (table.reader(), stop.clone(), counts[t].clone());
                let cpu = cpu_ns[t].clone();
                std::thread::spawn(move || {
                    let cpu0 = thread_cpu_ns();
                    let mut rng = XorShift64::new(0x5EED_0000 + t as u64);
                    reader.online(); // QSBR: lookups only walk; a report every 4096
                    let mut sum = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..4096 {
                            sum += reader.lookup(A::random(&mut rng)).map_or(0, |h| h.raw() as u64);
                        }
                        // Both counters advance once per 4096 lookups (relaxed: a rate may pair
                        // them one chunk apart, negligible over a window of milliseconds).
                        cpu.store(thread_cpu_ns() - cpu0, Ordering::Relaxed);
                        count.fetch_add(4096, Ordering::Relaxed);
                        reader.quiescent();
                    }
                    std::hint::black_box(sum);
                })
            })
            .collect();
        Readers { stop, counts, cpu_ns, handles }
    }

    fn progress(&self) -> Progress {
        let sum = |v: &[Arc<AtomicU64>]| v.iter().map(|c| c.load(Ordering::Relaxed)).sum();
        Progress { lookups: sum(&self.counts), cpu_ns: sum(&self.cpu_ns) }
    }

    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.handles.into_iter().for_each(|h| h.join().expect("reader thread"));
    }
}

/// Lookups per second (millions) over `window` by the readers, per wall and CPU second, or
/// on this thread if there are no readers.
fn idle_rate<A: BenchAddress, F: Concurrent<A>>(
    table: &Table<A, F>,
    readers: &Readers,
    window: Duration,
) -> (f64, Option<f64>) {
    if readers.handles.is_empty() {
        let mut reader = table.reader();
        reader.online();
        return (rate_for(window, |a| reader.lookup(a)), None);
    }
    let start = Instant::now();
    let before = readers.progress();
    std::thread::sleep(window);
    readers.progress().rates(before, start.elapsed())
}

/// CPU time of the calling thread in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the thread CPU clock exists on every
    // supported Unix (on failure `ts` stays zero, which only makes the CPU rate absent).
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleeps until update `i` is due at `pace`× its recorded time (no wait when `pace` is None).
fn wait_for(pace: Option<f64>, start: Instant, times_us: &[u64], i: usize) {
    let (Some(speedup), Some(&t0), Some(&t)) = (pace, times_us.first(), times_us.get(i)) else {
        return;
    };
    let due = start + Duration::from_secs_f64(t.saturating_sub(t0) as f64 * 1e-6 / speedup);
    let now = Instant::now();
    if due > now {
        std::thread::sleep(due - now);
    }
}

/// Replays `updates` (recorded at `times_us`, used when `settings.pace` is set) onto a
/// concurrent table of the structure `F` compiled from `rib` with `cfg`; `algo` names the
/// structure and its configuration in the report.
pub fn replay<A: BenchAddress, F: Concurrent<A>>(
    rib: Rib<A>,
    updates: &[Update<A>],
    times_us: &[u64],
    cfg: &F::Config,
    algo: String,
    settings: &ReplaySettings,
) -> Result<ReplayReport, BuildError> {
    let routes_before = rib.len();
    let mut table = Table::<A, F>::with_config(rib, cfg)?;
    let memory_bytes_before = table.fib().memory_bytes();
    let readers = Readers::start(&table, settings.readers);
    let (lookup_mlps_idle, lookup_mlps_idle_cpu) = idle_rate(&table, &readers, settings.idle);
    let rounds = settings.rounds.max(1);
    let mut ns = Vec::with_capacity(updates.len() * rounds);
    let mut by_path: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    let (start, before) = (Instant::now(), readers.progress());
    for _ in 0..rounds {
        let round_start = Instant::now();
        for (i, &(p, hop)) in updates.iter().enumerate() {
            wait_for(settings.pace, round_start, times_us, i);
            let t = Instant::now();
            match hop {
                Some(h) => table.insert(p, h)?,
                None => table.remove(&p)?,
            };
            let took = t.elapsed().as_nanos() as f64;
            ns.push(took);
            if let Some(path) = table.fib().last_update_path() {
                by_path.entry(path).or_default().push(took);
            }
            if let Some(c) = &settings.progress {
                // Relaxed: a progress figure only, read by a display thread.
                c.store(ns.len() as u64, Ordering::Relaxed);
            }
        }
    }
    let elapsed = start.elapsed();
    let seconds = elapsed.as_secs_f64();
    let (during, during_cpu) = readers.progress().rates(before, elapsed);
    readers.stop();
    let pct = Percentiles::of(&ns);
    let fresh = F::compile(table.rib(), cfg)?;
    let (after, fresh_rate) = compare_rates(&table, &fresh, settings.compare);
    let (checked, vs_fresh, vs_rib) = final_check(&table, &fresh, settings.final_random);
    Ok(ReplayReport {
        family: A::FAMILY.name(),
        algo,
        routes_before,
        routes_after: table.rib().len(),
        readers: settings.readers,
        updates: ns.len(),
        seconds,
        updates_per_sec: ns.len() as f64 / seconds,
        update_ns_mean: pct.as_ref().map_or(0.0, |p| p.mean),
        update_ns_p50: pct.as_ref().map_or(0.0, |p| p.p50),
        update_ns_p99: pct.as_ref().map_or(0.0, |p| p.p99),
        update_ns_max: pct.as_ref().map_or(0.0, |p| p.max),
        update_paths: by_path.iter().map(|(&path, ns)| PathStat::of(path, ns)).collect(),
        pace: settings.pace,
        lookup_mlps_idle,
        lookup_mlps_during: (settings.readers > 0).then_some(during),
        lookup_mlps_idle_cpu,
        lookup_mlps_during_cpu: during_cpu,
        lookup_mlps_after: after,
        lookup_mlps_fresh: fresh_rate,
        final_mismatches: vs_fresh,
        final_mismatches_rib: vs_rib,
        final_checked: checked,
        memory_bytes_before,
        memory_bytes_after: table.fib().memory_bytes(),
        memory_bytes_fresh: fresh.memory_bytes(),
        pending_reclaim_bytes: table.pending_reclaim().bytes,
        pending_reclaim_over: table.pending_reclaim().over_threshold,
        rounds,
    })
}

/// Single-thread lookup rates (millions per second) of the updated table and of `fresh` on
/// the same random addresses, alternating, 3 repeats of `window` each; medians. `(None,
/// None)` when `window` is zero.
fn compare_rates<A: BenchAddress, F: Concurrent<A>>(
    table: &Table<A, F>,
    fresh: &F,
    window: Duration,
) -> (Option<f64>, Option<f64>) {
    if window.is_zero() {
        return (None, None);
    }
    // The same call on both (the table's own structure, not through a reader handle).
    let updated = table.fib();
    let (mut after, mut anew) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        after.push(rate_for(window, |a| updated.lookup(a)));
        anew.push(rate_for(window, |a| fresh.lookup(a)));
    }
    let median = |v: &[f64]| Spread::of(v).map(|s| s.median);
    (median(&after), median(&anew))
}

/// Millions of single lookups per second by `lookup` on random addresses during `window`.
fn rate_for<A: BenchAddress>(window: Duration, lookup: impl Fn(A) -> Option<NextHop>) -> f64 {
    let (start, mut rng, mut n, mut sum) = (Instant::now(), XorShift64::new(0xAF7E), 0u64, 0u64);
    while start.elapsed() < window {
        for _ in 0..4096 {
            sum += lookup(A::random(&mut rng)).map_or(0, |h| h.raw() as u64);
        }
        n += 4096;
    }
    std::hint::black_box(sum);
    n as f64 / start.elapsed().as_secs_f64() / 1e6
}

/// Compares the table with a fresh compile and with the RIB: (checked, vs fresh, vs RIB).
fn final_check<A: BenchAddress, F: Concurrent<A>>(
    table: &Table<A, F>,
    fresh: &F,
    random: usize,
) -> (u64, u64, u64) {
    let mut addrs = Vec::with_capacity(table.rib().len() * 4 + random);
    for (p, _) in table.rib().iter() {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        addrs.extend([first, last, first.wrapping_sub(1), last.wrapping_add(1)].map(A::from_u128));
    }
    let mut rng = XorShift64::new(0xF1A1);
    addrs.extend((0..random).map(|_| A::random(&mut rng)));
    let reader = table.reader();
    let (mut got, mut want) = (vec![None; addrs.len()], vec![None; addrs.len()]);
    reader.lookup_batch(&addrs, &mut got);
    fresh.lookup_batch(&addrs, &mut want);
    let vs_fresh = got.iter().zip(&want).filter(|(g, w)| g != w).count() as u64;
    let vs_rib = addrs.iter().zip(&got).filter(|&(&a, g)| table.rib().lookup(a) != *g).count();
    (addrs.len() as u64, vs_fresh, vs_rib as u64)
}
