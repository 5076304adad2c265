//! `fibforge replay --algo loop|sail_m --tables T --vrf N`: the stream into table `N` of a
//! many-table structure of `T` tables (LOOP's Fig. 13 setting), as one single-table
//! structure for the replay harness ([`InVrf`]). Table `N` is the loaded table (so the final
//! check against the RIB checks it); the others are perturbed copies of the loaded table
//! (`fibforge::multi::generate`, default perturbation, seed 1), made once, before the
//! replay, so the fresh compile at the end holds the same other tables.

use anyhow::bail;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge::multi::{MultiWriter, VrfId};
use fibforge::{Address, BuildError, Compile, Incremental, Lookup, NextHop, Prefix, Rib};
use std::sync::Arc;

/// Which table of how many the stream goes into (`--tables`, `--vrf`).
#[derive(Copy, Clone, Debug)]
pub struct Placement {
    pub tables: usize,
    pub vrf: usize,
}

impl Placement {
    /// The placement `--tables` / `--vrf` ask for; `None` for the one-table default.
    pub fn from_args(tables: usize, vrf: usize) -> anyhow::Result<Option<Self>> {
        if vrf >= tables {
            bail!("--vrf {vrf}: the tables are numbered 0 to {} (--tables {tables})", tables - 1);
        }
        Ok((tables > 1).then_some(Placement { tables, vrf }))
    }
}

/// The structure's own options, the table the stream goes into and the other tables.
pub struct VrfConfig<A: Address, C> {
    pub inner: C,
    pub vrf: usize,
    /// The other tables, in VRF order (the loaded table goes in at `vrf`).
    pub others: Arc<Vec<Rib<A>>>,
}

impl<A: Address, C: Clone> Clone for VrfConfig<A, C> {
    fn clone(&self) -> Self {
        VrfConfig { inner: self.inner.clone(), vrf: self.vrf, others: self.others.clone() }
    }
}

/// The loaded table alone (table 0 of 1).
impl<A: Address, C: Default> Default for VrfConfig<A, C> {
    fn default() -> Self {
        VrfConfig { inner: C::default(), vrf: 0, others: Arc::default() }
    }
}

impl<A: Address, C> VrfConfig<A, C> {
    /// `inner` with the other tables perturbed from `base` as `at` asks.
    pub fn new(inner: C, base: &Rib<A>, at: Placement) -> Self {
        let others = perturbed_tables(base, at.tables - 1, Perturbation::default(), 1);
        VrfConfig { inner, vrf: at.vrf, others: Arc::new(others) }
    }
}

/// Table `vrf` of the many-table structure `W`, as a single-table structure.
pub struct InVrf<A: Address, W: MultiWriter<A>> {
    w: W,
    vrf: VrfId,
    _family: std::marker::PhantomData<fn() -> A>,
}

impl<A: Address, W: MultiWriter<A>> Lookup<A> for InVrf<A, W> {
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.w.lookup(self.vrf, addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut keys = [(self.vrf, A::ZERO); 64];
        for (a, o) in addrs.chunks(64).zip(out.chunks_mut(64)) {
            for (k, &x) in keys.iter_mut().zip(a) {
                k.1 = x;
            }
            self.w.lookup_batch(&keys[..a.len()], o);
        }
    }
    /// The whole structure (every table).
    fn memory_bytes(&self) -> usize {
        self.w.memory_bytes()
    }
    fn describe(&self) -> Option<String> {
        Some(format!("table {} of {}", self.vrf, self.w.vrfs()))
    }
}

impl<A: Address, W: MultiWriter<A>> Compile<A> for InVrf<A, W> {
    type Config = VrfConfig<A, W::Config>;
    fn compile(rib: &Rib<A>, cfg: &Self::Config) -> Result<Self, BuildError> {
        let mut tables = cfg.others.to_vec();
        tables.insert(cfg.vrf, rib.clone());
        let w = W::build(tables, &cfg.inner)?;
        Ok(InVrf { w, vrf: cfg.vrf as VrfId, _family: std::marker::PhantomData })
    }
}

impl<A: Address, W: MultiWriter<A>> Incremental<A> for InVrf<A, W> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        for p in changed {
            self.w.set(self.vrf, *p, rib.get(p))?;
        }
        Ok(())
    }
    fn last_update_path(&self) -> Option<&'static str> {
        self.w.path()
    }
}
