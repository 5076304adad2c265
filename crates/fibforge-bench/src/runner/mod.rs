//! The benchmark run: for every table and family, build each algorithm and peer, verify it,
//! then time it on every traffic pattern and call mode (rates over repeats, cycles, thread
//! scaling), one structure at a time so that each is measured alone in the caches.

pub(crate) mod api;
mod capi;
mod family;
mod iptable;
pub(crate) mod measure;

pub use crate::log::Log;
pub use family::run_family;

use crate::peers::{Peer, PeerFamily};
use crate::report::{Row, TableInfo};
use crate::timing::Mode;
use crate::traffic::Traffic;
use fibforge::registry::{ALGORITHMS, AlgoSpec};
use fibforge::{Family, Rib};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What to run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Algorithms (`None`: every registered algorithm of each family).
    pub algos: Option<Vec<AlgoSpec>>,
    /// Traffic for IPv4 tables.
    pub traffic_v4: Vec<Traffic>,
    /// Traffic for IPv6 tables.
    pub traffic_v6: Vec<Traffic>,
    /// Peers to run alongside.
    pub peers: Vec<Peer>,
    /// Call modes measured.
    pub modes: Vec<Mode>,
    /// Thread scaling up to this many threads (1: none).
    pub threads: usize,
    /// Traffic of the thread-scaling rows.
    pub scaling_traffic: Traffic,
    /// Seconds per timed repeat (`None`: derived from `budget_s`).
    pub duration_s: Option<f64>,
    /// Total seconds of rate measurement to aim for when `duration_s` is `None`.
    pub budget_s: f64,
    /// Timed repeats per row.
    pub repeats: usize,
    /// Lookups per cycle distribution.
    pub cycle_samples: usize,
    /// Dependent lookups per timed group of the single-mode cycle distributions.
    pub cycle_group: usize,
    /// Seed of every generator (the same for every structure).
    pub seed: u64,
    /// Routes whose boundaries are verified.
    pub verify_routes: usize,
    /// Random and in-route addresses verified (each).
    pub verify_random: usize,
    /// Counts the contenders finished (built, verified and timed, or reported unavailable),
    /// for a progress display; [`Settings::steps`] is the total.
    pub progress: Option<Arc<AtomicU64>>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            algos: None,
            traffic_v4: vec![Traffic::Random, Traffic::Repeated],
            traffic_v6: vec![Traffic::Random, Traffic::InPrefix],
            peers: Peer::ALL.to_vec(),
            modes: vec![Mode::Single, Mode::Batch],
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            scaling_traffic: Traffic::Random,
            duration_s: None,
            budget_s: 80.0,
            repeats: 3,
            cycle_samples: 1 << 18,
            cycle_group: crate::timing::DEFAULT_GROUP,
            seed: 0x5EED_F1B0,
            verify_routes: 100_000,
            verify_random: 100_000,
            progress: None,
        }
    }
}

/// A loaded table to benchmark.
pub struct NamedTable {
    /// Its description in the report.
    pub info: TableInfo,
    /// IPv4 routes.
    pub v4: Rib<u32>,
    /// IPv6 routes.
    pub v6: Rib<u128>,
}

impl Settings {
    /// The algorithms to build for `family`.
    pub fn algos_for(&self, family: Family) -> Vec<AlgoSpec> {
        match &self.algos {
            Some(list) => list
                .iter()
                .filter(|s| fibforge::registry::info(&s.name).is_none_or(|i| i.supports(family)))
                .cloned()
                .collect(),
            None => ALGORITHMS
                .iter()
                .filter(|a| a.supports(family))
                .map(|a| AlgoSpec::named(a.name))
                .collect(),
        }
    }

    /// The traffic for `family`.
    pub fn traffic_for(&self, family: Family) -> &[Traffic] {
        match family {
            Family::Ipv4 => &self.traffic_v4,
            Family::Ipv6 => &self.traffic_v6,
        }
    }

    /// Seconds per repeat: as given, or the budget spread over every timed run.
    pub fn repeat_duration(&self, tables: &[NamedTable]) -> Duration {
        if let Some(d) = self.duration_s {
            return Duration::from_secs_f64(d.max(0.001));
        }
        let mut runs = 0usize;
        for t in tables {
            if !t.v4.is_empty() {
                runs += self.runs_for::<u32>(Family::Ipv4);
            }
            if !t.v6.is_empty() {
                runs += self.runs_for::<u128>(Family::Ipv6);
            }
        }
        let secs = self.budget_s / runs.max(1) as f64;
        Duration::from_secs_f64(secs.clamp(0.02, 1.0))
    }

    /// The contenders [`run`] goes through on `tables` (the total of [`Settings::progress`]):
    /// per table and family, each algorithm, each peer variant (or the unavailable peer),
    /// and BART.
    pub fn steps(&self, tables: &[NamedTable]) -> u64 {
        let mut n = 0;
        for t in tables {
            if !t.v4.is_empty() {
                n += self.steps_for::<u32>(Family::Ipv4);
            }
            if !t.v6.is_empty() {
                n += self.steps_for::<u128>(Family::Ipv6);
            }
        }
        n as u64
    }

    fn steps_for<A: PeerFamily>(&self, family: Family) -> usize {
        let peers: usize = self
            .peers
            .iter()
            .map(|&p| A::variants(p).map_or(1, |v| v.len()) + usize::from(p == Peer::Bart))
            .sum();
        self.algos_for(family).len() + peers
    }

    /// Counts one finished contender in [`Settings::progress`].
    pub(crate) fn step_done(&self) {
        if let Some(p) = &self.progress {
            // Relaxed: a progress figure only, read by a display thread.
            p.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn runs_for<A: PeerFamily>(&self, family: Family) -> usize {
        let peers: usize =
            self.peers.iter().map(|&p| A::variants(p).map_or(0, |v| v.len())).sum::<usize>()
                + usize::from(self.peers.contains(&Peer::Bart));
        let contenders = self.algos_for(family).len() + peers;
        let per =
            self.traffic_for(family).len() * self.modes.len() + self.threads.saturating_sub(1);
        contenders * per * self.repeats.max(1)
    }
}

/// Runs every table; rows in order of table, family, contender, traffic, mode.
pub fn run(settings: &Settings, tables: &[NamedTable], log: Log<'_>) -> Vec<Row> {
    let duration = settings.repeat_duration(tables);
    log(&format!(
        "timing: {} repeats of {:.0} ms per row, {} cycle samples, seed {:#x}",
        settings.repeats,
        duration.as_secs_f64() * 1e3,
        settings.cycle_samples,
        settings.seed
    ));
    let mut rows = Vec::new();
    for t in tables {
        if !t.v4.is_empty() {
            rows.extend(run_family(settings, &t.info.name, &t.v4, duration, log));
        }
        if !t.v6.is_empty() {
            rows.extend(run_family(settings, &t.info.name, &t.v6, duration, log));
        }
    }
    rows
}

/// The report's `settings` object.
pub fn settings_json(s: &Settings, duration: Duration) -> serde_json::Value {
    serde_json::json!({
        "repeats": s.repeats,
        "duration_s": duration.as_secs_f64(),
        "cycle_samples": s.cycle_samples,
        "batch_size": crate::timing::BATCH,
        "seed": s.seed,
        "threads": s.threads,
        "traffic_ipv4": s.traffic_v4.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        "traffic_ipv6": s.traffic_v6.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        "modes": s.modes.iter().map(|m| m.name()).collect::<Vec<_>>(),
        "verify_routes": s.verify_routes,
        "verify_random": s.verify_random,
        "cycle_group": s.cycle_group,
        "timer": crate::timing::Tsc::info(),
        "cycles": "TSC ticks per lookup, empty-bracket overhead subtracted: single mode times groups of cycle_group dependent lookups, batch mode one batch of batch_size; each sample is divided by its lookups, and its resolution is timer.resolution_ticks divided by them (a row's cycles_resolution)",
    })
}
