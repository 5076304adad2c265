//! The naive multi-table baseline: one independent structure per table.

use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;

/// One structure per VRF, built by name from the registry (`PerTable::build`, defined in
/// the registry, a layer above).
pub struct PerTable<A: Address> {
    tables: Vec<Box<dyn Lookup<A>>>,
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
