//! Which structures `fibforge replay` runs, and how: Poptrie and the interval B+-tree are
//! concurrent themselves; every other structure with incremental updates runs behind
//! [`LeftRight`] (two copies: readers look up in one while the writer updates the other),
//! so reader lookups during updates are measured for all of them.

use super::replay_vrf::{InVrf, MultiWriter, Placement, VrfConfig};
use anyhow::bail;
use fibforge::algo::bloom::{BloomFib, BloomKey};
use fibforge::algo::{bplus, dir24_8, miht, multibit, poptrie, radix, sail, treebitmap};
use fibforge::multi::loop_::{Loop, LoopConfig, LoopFib};
use fibforge::multi::sail_m::{SailMFib, SailMWriter};
use fibforge::registry::AlgoSpec;
use fibforge::sync::{Concurrent, LeftRight};
use fibforge::{Incremental, Rib};
use fibforge_bench::BenchAddress;
use fibforge_bench::replay::{ReplayReport, ReplaySettings, Update, replay};

/// The structures `--algo all` replays, in the order of its table (IPv4 adds the IPv4-only
/// ones at the end).
pub const COMMON: &[&str] = &[
    "poptrie",
    "bplus",
    "radix",
    "loop",
    "bloom_naive",
    "bloom_base",
    "bloomfwd",
    "miht",
    "treebitmap4",
    "treebitmap6",
    "cpe_fixed:leafpush=off",
    "cpe_var:leafpush=off",
    "dxr16",
    "dxr18",
];

/// The structures with updates `--algo all` runs for IPv4 only (SAIL_L and SAIL_M have IPv6
/// updates, `--algo sail_l` / `sail_m`, but real IPv6 tables hold routes past their /64).
pub const IPV4_ONLY: &[&str] = &["dir24_8", "sail_b", "sail_u", "sail_l", "sail_m"];

/// The many-table structures `--tables` / `--vrf` apply to (the others ignore them under
/// `--algo all`).
pub const MULTI: &[&str] = &["loop", "sail_m"];

/// How a structure runs under `replay`, for the report.
pub fn concurrency(name: &str) -> &'static str {
    let native =
        name == "bplus" || poptrie::Config::from_spec::<u32>(&AlgoSpec::named(name)).is_some();
    if native { "native" } else { "left-right" }
}

/// One family's replayable structures.
pub trait ReplayFamily: BenchAddress + poptrie::Key + bplus::Key + BloomKey {
    /// The names `--algo all` runs for this family.
    fn all() -> Vec<&'static str>;
    /// Replays the structure `spec` names, `None` when it has no updates in this family.
    fn replay_named(job: Job<'_, Self>) -> Option<anyhow::Result<ReplayReport>>;
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

impl<A: BenchAddress> Job<'_, A> {
    fn run<F: Concurrent<A>>(self, cfg: &F::Config) -> anyhow::Result<ReplayReport> {
        let name = self.spec.to_string();
        Ok(replay::<A, F>(self.rib, self.ups, self.times_us, cfg, name, self.settings)?)
    }

    fn doubled<F: Incremental<A> + 'static>(self, cfg: &F::Config) -> anyhow::Result<ReplayReport>
    where
        F::Config: Send + Sync,
    {
        self.run::<LeftRight<A, F>>(cfg)
    }

    /// The many-table structure `W` with the stream into one of its tables when `--tables`
    /// asks for several, else `single` (its one-table form).
    fn multi<W, S>(self, inner: W::Config) -> anyhow::Result<ReplayReport>
    where
        W: MultiWriter<A>,
        S: Incremental<A, Config = W::Config> + 'static,
    {
        let Some(at) = self.placement else { return self.doubled::<S>(&inner) };
        let cfg = VrfConfig::new(inner, &self.rib, at);
        let name = format!("{} (vrf {} of {})", self.spec, at.vrf, at.tables);
        let (rib, ups, times, settings) = (self.rib, self.ups, self.times_us, self.settings);
        Ok(replay::<A, LeftRight<A, InVrf<A, W>>>(rib, ups, times, &cfg, name, settings)?)
    }
}

/// Replays `job` with the structure its spec names; an error names the updatable ones.
pub fn replay_any<A: ReplayFamily>(job: Job<'_, A>) -> anyhow::Result<ReplayReport> {
    let name = job.spec.name.clone();
    match A::replay_named(job) {
        Some(r) => r,
        None => bail!(
            "replay needs an updatable algorithm for {}: {} (got '{name}')",
            A::FAMILY,
            A::all().join(", ")
        ),
    }
}

/// The structures every family has.
fn common<A: ReplayFamily>(job: Job<'_, A>) -> Option<anyhow::Result<ReplayReport>> {
    let spec = job.spec;
    let r = match spec.name.as_str() {
        "bplus" => bplus::Config::from_spec(spec)
            .map_err(Into::into)
            .and_then(|cfg| job.run::<bplus::BPlus<A>>(&cfg)),
        "radix" => spec
            .check_options("radix", &[])
            .map_err(Into::into)
            .and_then(|_| job.doubled::<radix::Radix<A>>(&())),
        "loop" => LoopConfig::from_spec(spec)
            .map_err(Into::into)
            .and_then(|cfg| job.multi::<Loop<A>, LoopFib<A>>(cfg)),
        "bloom_naive" | "bloom_base" | "bloomfwd" => {
            fibforge::algo::bloom::BloomConfig::from_spec(spec)
                .map_err(Into::into)
                .and_then(|cfg| job.doubled::<BloomFib<A>>(&cfg))
        }
        "miht" => fibforge::algo::miht::MihtConfig::from_spec(spec)
            .map_err(Into::into)
            .and_then(|cfg| job.doubled::<miht::Miht<A>>(&cfg)),
        "treebitmap4" => spec
            .check_options("treebitmap4", &[])
            .map_err(Into::into)
            .and_then(|_| job.doubled::<treebitmap::TreeBitmap4<A>>(&())),
        "treebitmap6" => spec
            .check_options("treebitmap6", &[])
            .map_err(Into::into)
            .and_then(|_| job.doubled::<treebitmap::TreeBitmap6<A>>(&())),
        "cpe_fixed" | "cpe_var" => cpe(job),
        "dxr16" | "dxr18" => fibforge::algo::dxr::DxrConfig::from_spec(spec)
            .map_err(Into::into)
            .and_then(|cfg| job.doubled::<fibforge::algo::dxr::Dxr<A>>(&cfg)),
        "sail_l" => sail::SailConfig::from_spec(spec)
            .map_err(Into::into)
            .and_then(|cfg| job.doubled::<sail::SailL<A>>(&cfg)),
        "sail_m" => sail::SailConfig::from_spec(spec)
            .map_err(Into::into)
            .and_then(|cfg| job.multi::<SailMWriter<A>, SailMFib<A>>(cfg)),
        _ => {
            let cfg = poptrie::Config::from_spec::<A>(spec)?;
            cfg.map_err(Into::into).and_then(|cfg| job.run::<poptrie::Poptrie<A>>(&cfg))
        }
    };
    Some(r)
}

/// The CPE tries: only the updatable (not leaf-pushed) one has updates.
fn cpe<A: ReplayFamily>(job: Job<'_, A>) -> anyhow::Result<ReplayReport> {
    let name = job.spec.name.clone();
    let (cfg, leafpush) = multibit::TrieConfig::from_spec(job.spec)?;
    if leafpush {
        bail!("{name}: the leaf-pushed trie has no updates; replay it with leafpush=off");
    }
    job.doubled::<multibit::UpdatableTrie<A>>(&cfg)
}

impl ReplayFamily for u32 {
    fn all() -> Vec<&'static str> {
        COMMON.iter().chain(IPV4_ONLY).copied().collect()
    }

    fn replay_named(job: Job<'_, u32>) -> Option<anyhow::Result<ReplayReport>> {
        let spec = job.spec;
        let r = match spec.name.as_str() {
            "dir24_8" => spec
                .check_options("dir24_8", &[])
                .map_err(Into::into)
                .and_then(|_| job.doubled::<dir24_8::Dir24_8>(&())),
            "sail_b" => fibforge::algo::sail::SailConfig::from_spec(spec)
                .map_err(Into::into)
                .and_then(|cfg| job.doubled::<sail::SailB>(&cfg)),
            "sail_u" => fibforge::algo::sail::SailConfig::from_spec(spec)
                .map_err(Into::into)
                .and_then(|cfg| job.doubled::<sail::SailU>(&cfg)),
            _ => return common(job),
        };
        Some(r)
    }
}

impl ReplayFamily for u128 {
    fn all() -> Vec<&'static str> {
        COMMON.to_vec()
    }

    fn replay_named(job: Job<'_, u128>) -> Option<anyhow::Result<ReplayReport>> {
        common(job)
    }
}
