//! Which structures `fibforge replay` runs, and how: the registry says (its descriptors'
//! capabilities and [`registry::run_incremental`]). Structures concurrent themselves (Poptrie,
//! the interval B+-tree) run as they are; every other structure with incremental updates runs
//! behind [`LeftRight`] (two copies: readers look up in one while the writer updates the
//! other), so reader lookups during updates are measured for all of them.

use super::replay_vrf::{InVrf, Placement, VrfConfig};
use anyhow::bail;
use fibforge::multi::MultiWriter;
use fibforge::registry::{self, AlgoSpec, IncrementalFamily, IncrementalJob, Updates};
use fibforge::sync::{Concurrent, LeftRight};
use fibforge::{Incremental, Rib};
use fibforge_bench::BenchAddress;
use fibforge_bench::replay::{ReplayReport, ReplaySettings, Update, replay};

/// The structures `--algo all` replays, in the order of its table.
pub fn common() -> Vec<String> {
    registry::replay_all(false)
}

/// The structures with updates `--algo all` runs for IPv4 only (SAIL_L and SAIL_M have IPv6
/// updates, `--algo sail_l` / `sail_m`, but real IPv6 tables hold routes past their /64).
pub fn ipv4_only() -> Vec<String> {
    registry::replay_all(true)
}

/// The many-table structures `--tables` / `--vrf` apply to (the others ignore them under
/// `--algo all`).
pub fn multi() -> Vec<&'static str> {
    registry::ALGORITHMS.iter().filter(|r| r.caps.many_tables).map(|r| r.name).collect()
}

/// How a structure runs under `replay`, for the report (`algo` as the report names it:
/// a spec, possibly followed by a note).
pub fn concurrency(algo: &str) -> &'static str {
    let name = algo.split([':', ' ']).next().unwrap_or(algo);
    match registry::info(name).map(|r| r.caps.updates) {
        Some(Updates::Native) => "native",
        _ => "left-right",
    }
}

/// One family's replayable structures.
pub trait ReplayFamily: BenchAddress + IncrementalFamily {
    /// The specs `--algo all` runs for this family.
    fn all() -> Vec<String>;
}

impl ReplayFamily for u32 {
    fn all() -> Vec<String> {
        common().into_iter().chain(ipv4_only()).collect()
    }
}

impl ReplayFamily for u128 {
    fn all() -> Vec<String> {
        common()
    }
}

/// What one replay needs besides the structure.
pub struct Job<'a, A: fibforge::Address> {
    pub spec: &'a AlgoSpec,
    pub rib: Rib<A>,
    pub ups: &'a [Update<A>],
    pub times_us: &'a [u64],
    pub settings: &'a ReplaySettings,
    /// `--tables` / `--vrf`: the stream into one table of many (LOOP and SAIL_M only).
    pub placement: Option<Placement>,
}

impl<A: BenchAddress> IncrementalJob<A> for Job<'_, A> {
    type Output = anyhow::Result<ReplayReport>;

    fn concurrent<F: Concurrent<A>>(self, cfg: &F::Config) -> Self::Output {
        let name = self.spec.to_string();
        Ok(replay::<A, F>(self.rib, self.ups, self.times_us, cfg, name, self.settings)?)
    }

    fn left_right<F: Incremental<A> + 'static>(self, cfg: &F::Config) -> Self::Output
    where
        F::Config: Send + Sync,
    {
        self.concurrent::<LeftRight<A, F>>(cfg)
    }

    /// The many-table structure `W` with the stream into one of its tables when `--tables`
    /// asks for several, else `S` (its one-table form).
    fn many_tables<W, S>(self, inner: W::Config) -> Self::Output
    where
        W: MultiWriter<A>,
        S: Incremental<A, Config = W::Config> + 'static,
    {
        let Some(at) = self.placement else { return self.left_right::<S>(&inner) };
        let cfg = VrfConfig::new(inner, &self.rib, at);
        let name = format!("{} (vrf {} of {})", self.spec, at.vrf, at.tables);
        let (rib, ups, times, settings) = (self.rib, self.ups, self.times_us, self.settings);
        Ok(replay::<A, LeftRight<A, InVrf<A, W>>>(rib, ups, times, &cfg, name, settings)?)
    }
}

/// Replays `job` with the structure its spec names; an error names the updatable ones.
pub fn replay_any<A: ReplayFamily>(job: Job<'_, A>) -> anyhow::Result<ReplayReport> {
    let spec = job.spec;
    let name = spec.name.clone();
    match registry::run_incremental(spec, job)? {
        Some(r) => r,
        None => bail!(
            "replay needs an updatable algorithm for {}: {} (got '{name}')",
            A::FAMILY,
            A::all().join(", ")
        ),
    }
}
