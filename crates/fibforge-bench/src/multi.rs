//! Many tables at once (`fibforge bench --multi`): LOOP (Mi, Yang et al.), SAIL_M (Yang et al.
//! 2014), one Poptrie per table, LOOP's merged-trie comparators
//! (`fibforge::registry::comparator_specs`) and, when the DPDK peer is asked for (`--peers`) and built in,
//! one DPDK `rte_fib` per table, on the same set of tables (VRF id = position).
//!
//! Method (LOOP §V, SAIL §6): every structure is first verified table by table against each
//! table's own RIB (route ends and random addresses), then timed on random `(vrf, address)`
//! pairs drawn with xorshift in the loop (VRF uniform over the tables; address uniform over
//! IPv4, or over 2000::/3 for IPv6), through `&dyn MultiLookup` for everyone, single and batch
//! calls, median of the repeats. Rows report total memory, bytes per prefix (memory divided by
//! the total route count of all tables: the paper's Fig. 9/10 measure) and build time.
//! LOOP is timed through one pinned view per chunk of lookups (as a data-plane thread uses
//! a reader), so its figures exclude the per-call synchronisation of the convenience `lookup`.
//! Rows also carry cycles per lookup (LOOP Fig. 12), by the single-table rows' method:
//! groups of dependent lookups, resolution stated (`multi_cycles`).

use crate::family::BenchAddress;
use crate::log::Log;
use crate::multi_cycles::{self, CyclePlan};
use crate::peers::{Peer, PeerFamily};
use crate::report::{Row, Status};
use crate::rng::XorShift64;
use crate::timing::Mode;
use fibforge::multi::loop_;
use fibforge::multi::loop_::Loop;
use fibforge::multi::sail_m::SailM;
use fibforge::multi::{MultiLookup, PerTable, VrfId};
use fibforge::registry::{self, AlgoSpec};
use fibforge::{BuildError, Lookup, NextHop, Rib};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Lookups between two clock reads (and per LOOP pin).
const CHUNK: usize = 1 << 14;
/// Keys per `lookup_batch` call.
const BATCH: usize = 64;
/// Routes per table whose ends are verified, and random addresses per table.
const VERIFY: usize = 2_000;

/// How to time the multi-table rows.
#[derive(Clone, Debug)]
pub struct MultiSettings {
    /// Seconds per timed repeat.
    pub duration: Duration,
    /// Timed repeats (median reported).
    pub repeats: usize,
    /// Call modes.
    pub modes: Vec<Mode>,
    /// Seed of the key generator.
    pub seed: u64,
    /// Peers asked for: only [`Peer::Dpdk`] has many-table rows (none built without it).
    pub peers: Vec<Peer>,
    /// Lookups timed for the cycle figures of each row (0: none), as `--cycle-samples`.
    pub cycle_samples: usize,
    /// Dependent lookups per cycle sample in single mode, as `--cycle-group`.
    pub cycle_group: usize,
}

/// A built structure: LOOP is kept whole so it can be pinned once per chunk.
enum Structure<A: BenchAddress> {
    Loop(Box<Loop<A>>),
    Other(Box<dyn MultiLookup<A>>),
}

impl<A: BenchAddress> Structure<A> {
    fn with<R>(&self, f: impl FnOnce(&dyn MultiLookup<A>) -> R) -> R {
        match self {
            Structure::Loop(l) => l.reader().with(|v| f(v)),
            Structure::Other(m) => f(&**m),
        }
    }
    fn memory_bytes(&self) -> usize {
        match self {
            Structure::Loop(l) => l.memory_bytes(),
            Structure::Other(m) => m.memory_bytes(),
        }
    }
}

/// Builds one contender over the tables.
type Builder<A> = fn(&[Rib<A>]) -> Result<Structure<A>, BuildError>;

/// Builds, verifies and times every contender on `ribs`; rows named `table`.
pub fn run_multi<A: BenchAddress + PeerFamily>(
    table: &str,
    ribs: &[Rib<A>],
    s: &MultiSettings,
    log: Log<'_>,
) -> Vec<Row> {
    let prefixes: u64 = ribs.iter().map(|r| r.len() as u64).sum();
    let id = RowId { table, vrfs: ribs.len(), prefixes };
    let mut rows = Vec::new();
    let ours: [(&str, Builder<A>); 3] = [
        ("loop", |r| {
            Loop::build(r.to_vec(), &loop_::Config::default()).map(|l| Structure::Loop(Box::new(l)))
        }),
        ("sail_m", |r| SailM::build(r, &Default::default()).map(|m| Structure::Other(Box::new(m)))),
        ("per_table:algo=poptrie", |r| {
            PerTable::build(r, &AlgoSpec::named("poptrie")).map(|m| Structure::Other(Box::new(m)))
        }),
    ];
    for (algo, build) in ours {
        log(&format!("{table} {}: building {algo} over {} tables", A::FAMILY, ribs.len()));
        let t0 = Instant::now();
        let built = build(ribs).map_err(|e| e.to_string());
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        rows.extend(measure_or_fail(&id, algo, "fibforge", built, ms, ribs, s));
    }
    for algo in registry::comparator_specs() {
        log(&format!("{table} {}: building {algo} over {} tables", A::FAMILY, ribs.len()));
        let spec: AlgoSpec = algo.parse().expect("the comparators' specs parse");
        let t0 = Instant::now();
        let built = registry::build_many(&spec, ribs).expect("a comparator's name");
        let built = built.map(Structure::Other).map_err(|e| e.to_string());
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        rows.extend(measure_or_fail(&id, algo, "fibforge", built, ms, ribs, s));
    }
    if s.peers.contains(&Peer::Dpdk) {
        rows.extend(dpdk_rows(&id, ribs, s, log));
    }
    rows
}

/// What every row of one table set shares.
struct RowId<'a> {
    table: &'a str,
    vrfs: usize,
    prefixes: u64,
}

impl RowId<'_> {
    fn row<A: BenchAddress>(&self, algo: &str, imp: &str, mode: Mode, status: Status) -> Row {
        let mut r =
            Row::empty(self.table, A::FAMILY.name(), algo, imp, mode.name(), "random", status);
        r.vrfs = Some(self.vrfs);
        r.prefixes = Some(self.prefixes);
        r
    }
}

fn measure_or_fail<A: BenchAddress>(
    id: &RowId<'_>,
    algo: &str,
    imp: &str,
    built: Result<Structure<A>, String>,
    compile_ms: f64,
    ribs: &[Rib<A>],
    s: &MultiSettings,
) -> Vec<Row> {
    let m = match built {
        Ok(m) => m,
        Err(why) => {
            let mut r = id.row::<A>(algo, imp, Mode::Single, Status::Error);
            r.note = Some(why);
            return vec![r];
        }
    };
    let (checked, mismatches) = m.with(|v| verify(v, ribs));
    let memory = m.memory_bytes() as u64;
    s.modes
        .iter()
        .map(|&mode| {
            let status = if mismatches == 0 { Status::Ok } else { Status::Mismatch };
            let mut r = id.row::<A>(algo, imp, mode, status);
            r.memory_bytes = Some(memory);
            r.bytes_per_prefix = Some(memory as f64 / id.prefixes.max(1) as f64);
            r.compile_ms = Some(compile_ms);
            r.checked = Some(checked);
            r.mismatches = Some(mismatches);
            if mismatches == 0 {
                let mut runs: Vec<f64> = (0..s.repeats.max(1))
                    .map(|i| rate(&m, id.vrfs, mode, s.duration, s.seed.wrapping_add(i as u64)))
                    .collect();
                runs.sort_by(f64::total_cmp);
                r.mlps = Some(runs[runs.len() / 2]);
                r.mlps_min = runs.first().copied();
                r.mlps_max = runs.last().copied();
                r.repeats = runs.len();
                r.duration_s = Some(s.duration.as_secs_f64());
                fill_cycles(&mut r, &m, id.vrfs, mode, s);
            }
            r
        })
        .collect()
}

/// Cycles per lookup, by the single-table rows' method (`multi_cycles`).
fn fill_cycles<A: BenchAddress>(
    r: &mut Row,
    m: &Structure<A>,
    vrfs: usize,
    mode: Mode,
    s: &MultiSettings,
) {
    let plan = CyclePlan {
        vrfs,
        mode,
        lookups: s.cycle_samples,
        group: s.cycle_group,
        max_time: s.duration.max(Duration::from_millis(100)),
        seed: s.seed,
    };
    let cycles = multi_cycles::measure(|f| m.with(|v| f(v)), plan);
    r.set_cycles(&cycles);
}

/// One DPDK `rte_fib` (`rte_fib6`) per table through the peers module, or a `not_available`
/// row saying why.
fn dpdk_rows<A: BenchAddress + PeerFamily>(
    id: &RowId<'_>,
    ribs: &[Rib<A>],
    s: &MultiSettings,
    log: Log<'_>,
) -> Vec<Row> {
    let name = if A::BITS == 32 { "rte_fib" } else { "rte_fib6" };
    let variant = match A::variants(Peer::Dpdk) {
        Ok(v) => v.into_iter().find(|v| v.algo == name),
        Err(why) => {
            let mut r = id.row::<A>(name, Peer::Dpdk.name(), Mode::Single, Status::NotAvailable);
            r.note = Some(why);
            return vec![r];
        }
    };
    let Some(variant) = variant else {
        let mut r = id.row::<A>(name, Peer::Dpdk.name(), Mode::Single, Status::NotAvailable);
        r.note = Some(format!("the dpdk peer offers no {name} for {}", A::FAMILY));
        return vec![r];
    };
    log(&format!("{} {}: building {name} per table", id.table, A::FAMILY));
    let t0 = Instant::now();
    let built: Result<Vec<Box<dyn Lookup<A>>>, String> =
        ribs.iter().map(|r| (variant.build)(r).map(|b| b.fib).map_err(|e| e.to_string())).collect();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let structure = built.map(|t| Structure::Other(Box::new(PerTable::from_lookups(t)) as Box<_>));
    measure_or_fail(id, name, Peer::Dpdk.name(), structure, ms, ribs, s)
}

/// Each table's answers against its own RIB: (lookups checked, mismatches).
fn verify<A: BenchAddress>(m: &dyn MultiLookup<A>, ribs: &[Rib<A>]) -> (u64, u64) {
    let mut rng = XorShift64::new(0xC0FF_EE11);
    let (mut checked, mut bad) = (0u64, 0u64);
    for (vrf, rib) in ribs.iter().enumerate() {
        let step = (rib.len() / VERIFY).max(1);
        let mut addrs: Vec<A> =
            rib.iter().step_by(step).flat_map(|(p, _)| [p.addr(), p.last()]).collect();
        addrs.extend((0..VERIFY).map(|_| A::random(&mut rng)));
        let keys: Vec<(VrfId, A)> = addrs.iter().map(|&a| (vrf as VrfId, a)).collect();
        let mut batch = vec![None; keys.len()];
        m.lookup_batch(&keys, &mut batch);
        for (&a, &b) in addrs.iter().zip(&batch) {
            let want = rib.lookup(a);
            bad += u64::from(m.lookup(vrf as VrfId, a) != want) + u64::from(b != want);
            checked += 2;
        }
    }
    (checked, bad)
}

/// Million lookups per second on random `(vrf, address)` pairs for about `duration`.
fn rate<A: BenchAddress>(
    m: &Structure<A>,
    vrfs: usize,
    mode: Mode,
    duration: Duration,
    seed: u64,
) -> f64 {
    let mut rng = XorShift64::new(seed);
    let (mut lookups, mut sum) = (0u64, 0u64);
    let start = Instant::now();
    loop {
        sum = sum.wrapping_add(m.with(|v| match mode {
            Mode::Single => single_chunk(black_box(v), &mut rng, vrfs),
            Mode::Batch => batch_chunk(black_box(v), &mut rng, vrfs),
        }));
        lookups += CHUNK as u64;
        if start.elapsed() >= duration {
            break;
        }
    }
    black_box(sum);
    lookups as f64 / start.elapsed().as_secs_f64() / 1e6
}

#[inline(always)]
fn key<A: BenchAddress>(rng: &mut XorShift64, vrfs: usize) -> (VrfId, A) {
    (rng.below(vrfs as u64) as VrfId, A::random(rng))
}

fn raw(h: Option<NextHop>) -> u64 {
    h.map_or(0, |h| h.raw() as u64)
}

#[inline(never)]
fn single_chunk<A: BenchAddress>(m: &dyn MultiLookup<A>, rng: &mut XorShift64, vrfs: usize) -> u64 {
    let mut sum = 0u64;
    for _ in 0..CHUNK {
        let (v, a) = key(rng, vrfs);
        sum = sum.wrapping_add(raw(m.lookup(v, a)));
    }
    sum
}

#[inline(never)]
fn batch_chunk<A: BenchAddress>(m: &dyn MultiLookup<A>, rng: &mut XorShift64, vrfs: usize) -> u64 {
    let mut keys = [(0, A::ZERO); BATCH];
    let mut out = [None; BATCH];
    let mut sum = 0u64;
    for _ in 0..CHUNK / BATCH {
        for k in keys.iter_mut() {
            *k = key(rng, vrfs);
        }
        m.lookup_batch(&keys, &mut out);
        sum = out.iter().fold(sum, |s, &h| s.wrapping_add(raw(h)));
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::Tsc;

    #[test]
    fn rows_for_a_small_set() {
        let t: Rib<u32> = [("10.0.0.0/8", 1), ("10.1.2.0/24", 2)]
            .iter()
            .map(|(p, h)| (p.parse().unwrap(), NextHop::from_index(*h)))
            .collect();
        let ribs = vec![t, Rib::new()];
        let s = MultiSettings {
            duration: Duration::ZERO,
            repeats: 1,
            modes: vec![Mode::Single, Mode::Batch],
            seed: 1,
            peers: vec![Peer::Dpdk],
            cycle_samples: 64,
            cycle_group: 8,
        };
        let rows = run_multi("set", &ribs, &s, &mut |_| {});
        let ok: Vec<_> = rows.iter().filter(|r| r.status == Status::Ok).collect();
        let dpdk = if Peer::Dpdk.availability().is_ok() { 2 } else { 0 };
        let n = 2 * (3 + fibforge::registry::comparator_specs().count());
        assert_eq!(
            ok.len(),
            n + dpdk,
            "loop, sail_m, per-table poptrie, comparators (and rte_fib) × 2 modes"
        );
        assert!(ok.iter().all(|r| r.mismatches == Some(0) && r.vrfs == Some(2)));
        assert!(ok.iter().all(|r| r.bytes_per_prefix.is_some_and(|b| b > 0.0)));
        if Tsc::available() {
            let single = ok.iter().filter(|r| r.mode == "single");
            assert!(single.clone().all(|r| r.cycles_group == Some(8)), "cycles in groups of 8");
            assert!(ok.iter().all(|r| r.cycles_samples.is_some_and(|n| n >= 1)));
        }
        assert!(rows.iter().any(|r| r.algo.contains("rte_fib")), "a DPDK row, measured or not");
        let none = MultiSettings { peers: Vec::new(), ..s };
        let rows = run_multi("set", &ribs, &none, &mut |_| {});
        assert_eq!(
            rows.len(),
            n,
            "no peers: loop, sail_m, per-table poptrie, comparators × 2 modes"
        );
        assert!(rows.iter().all(|r| r.implementation == "fibforge"), "no DPDK row");
    }
}
