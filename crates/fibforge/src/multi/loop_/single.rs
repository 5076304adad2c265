//! LOOP over one table, as an ordinary single-table structure (registry name `loop`).

use super::{Config, Loop};
use crate::addr::Address;
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::multi::MultiLookup;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// A one-table LOOP (VRF 0).
#[doc(hidden)]
pub struct LoopFib<A: Address>(Loop<A>);

impl<A: Address> Lookup<A> for LoopFib<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.0.lookup(0, addr)
    }
    /// Interleaved (see `batch.rs`), 64 keys at a time.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut keys = [(0, A::from_u128(0)); 64];
        let v = self.0.view();
        for (a, o) in addrs.chunks(64).zip(out.chunks_mut(64)) {
            for (k, &x) in keys.iter_mut().zip(a) {
                k.1 = x;
            }
            v.lookup_batch(&keys[..a.len()], o);
        }
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
}

impl<A: Address> Compile<A> for LoopFib<A> {
    type Config = Config;
    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        Loop::build(vec![rib.clone()], cfg).map(LoopFib)
    }
}

impl<A: Address> Incremental<A> for LoopFib<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        for p in changed {
            match rib.get(p) {
                Some(h) => self.0.insert(0, *p, h)?,
                None => self.0.remove(0, p)?,
            };
        }
        Ok(())
    }
}

impl Config {
    /// Reads `group=`, `sparse=`, `strides=16-8-8` and `pmt=columns|packed` options.
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        spec.check_options("loop", &["group", "sparse", "strides", "pmt"])?;
        let compress_pmt = match spec.options.get("pmt").map(String::as_str) {
            None | Some("columns") => false,
            Some("packed") => true,
            Some(other) => {
                return Err(BuildError::BadOption {
                    algo: "loop",
                    option: format!("pmt={other}"),
                    reason: "expected 'columns' or 'packed' (the bitmap-compressed S_pmt2)".into(),
                });
            }
        };
        let mut cfg = Config {
            group: spec.get_u32("loop", "group", 64)?,
            sparse_limit: spec.get_u32("loop", "sparse", 3)? as usize,
            compress_pmt,
            ..Default::default()
        };
        if let Some(s) = spec.options.get("strides") {
            let strides: Result<Vec<u32>, _> = s.split('-').map(str::parse).collect();
            cfg.strides = Some(strides.map_err(|_| BuildError::BadOption {
                algo: "loop",
                option: format!("strides={s}"),
                reason: "expected bit counts joined by '-', e.g. 16-8-8".into(),
            })?);
        }
        Ok(cfg)
    }
}
