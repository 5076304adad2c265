//! The naive multi-table baseline: one independent structure per table.

use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::{BuildError, Lookup};
use crate::nexthop::NextHop;
use crate::registry::{AlgoSpec, RegistryFamily, build};
use crate::rib::Rib;

/// One structure per VRF, built by name from the registry.
pub struct PerTable<A: Address> {
    tables: Vec<Box<dyn Lookup<A>>>,
}

impl<A: RegistryFamily> PerTable<A> {
    /// Builds `spec` for every table.
    pub fn build(ribs: &[Rib<A>], spec: &AlgoSpec) -> Result<Self, BuildError> {
        let tables = ribs.iter().map(|r| build(spec, r)).collect::<Result<_, _>>()?;
        Ok(PerTable { tables })
    }
}

impl<A: Address> PerTable<A> {
    /// One already-built structure per VRF (VRF id = position), e.g. a peer's.
    pub fn from_lookups(tables: Vec<Box<dyn Lookup<A>>>) -> Self {
        PerTable { tables }
    }
}

impl<A: Address> MultiLookup<A> for PerTable<A> {
    fn vrfs(&self) -> usize {
        self.tables.len()
    }

    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.tables.get(vrf as usize)?.lookup(addr)
    }

    fn memory_bytes(&self) -> usize {
        self.tables.iter().map(|t| t.memory_bytes()).sum()
    }
}
