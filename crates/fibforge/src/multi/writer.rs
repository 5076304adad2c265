//! Many tables with per-table route updates: what `fibforge replay --tables` drives.

use super::MultiLookup;
use super::VrfId;
use super::loop_;
use super::loop_::Loop;
use super::sail_m::SailMWriter;
use crate::addr::Address;
use crate::algo::sail;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// A many-table structure with per-table route updates (LOOP, SAIL_M's writer).
#[doc(hidden)]
pub trait MultiWriter<A: Address>: MultiLookup<A> + Sized + 'static {
    /// Build parameters.
    type Config: Default + Clone + Send + Sync + 'static;
    /// Builds the structure over `tables` (VRF id = position).
    fn build(tables: Vec<Rib<A>>, cfg: &Self::Config) -> Result<Self, BuildError>;
    /// Sets (`Some`) or withdraws (`None`) route `p` of table `vrf`.
    fn set(&mut self, vrf: VrfId, p: Prefix<A>, hop: Option<NextHop>) -> Result<(), BuildError>;
    /// The path the last update took, for reports (`None`: one path).
    fn path(&self) -> Option<&'static str> {
        None
    }
}

impl<A: Address> MultiWriter<A> for Loop<A> {
    type Config = loop_::Config;
    fn build(tables: Vec<Rib<A>>, cfg: &loop_::Config) -> Result<Self, BuildError> {
        Loop::build(tables, cfg)
    }
    fn set(&mut self, vrf: VrfId, p: Prefix<A>, hop: Option<NextHop>) -> Result<(), BuildError> {
        match hop {
            Some(h) => self.insert(vrf, p, h).map(drop),
            None => self.remove(vrf, &p).map(drop),
        }
    }
}

impl<A: Address> MultiWriter<A> for SailMWriter<A> {
    type Config = sail::Config;
    fn build(tables: Vec<Rib<A>>, cfg: &sail::Config) -> Result<Self, BuildError> {
        SailMWriter::build(tables, cfg)
    }
    fn set(&mut self, vrf: VrfId, p: Prefix<A>, hop: Option<NextHop>) -> Result<(), BuildError> {
        match hop {
            Some(h) => self.insert(vrf, p, h).map(drop),
            None => self.remove(vrf, &p).map(drop),
        }
    }
    fn path(&self) -> Option<&'static str> {
        Some(self.last_update_path())
    }
}
