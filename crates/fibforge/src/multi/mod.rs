//! Many tables at once (virtual routers, VRFs): one structure answering `lookup(vrf, addr)`.
//!
//! - [`loop_`]: LOOP (Mi, Yang et al.), the layered overlay-bitmap structure that merges all
//!   tables into one, with a shared PortMapTable of composite next hops;
//! - [`sail_m`]: SAIL_M (Yang et al. 2014), the merged, leaf-pushed trie of all tables in
//!   SAIL_L's levels 16/24/32 with per-leaf vectors of every table's next hop (LOOP's comparator);
//! - the merged-trie comparators of LOOP's evaluation (by name: `registry::MANY_TABLES`): [`merged`] (Merged
//!   Trie, with and without leaf pushing), [`overlap`] (Trie Overlap), [`braiding`] (Trie
//!   Braiding) and [`bitmap_trie`] (Bitmap-assisted Trie);
//! - [`PerTable`]: the naive baseline, one independent structure per table (any registry
//!   algorithm, Poptrie by default).
//!
//! VRF ids are dense indices `0..n` (for table directories: the sorted file order).

#[doc(hidden)]
pub mod bitmap_trie;
mod braid_choice;
mod braid_exact;
#[doc(hidden)]
pub mod braiding;
#[doc(hidden)]
pub mod generate;
mod lanes;
pub mod loop_;
#[doc(hidden)]
pub mod merged;
#[doc(hidden)]
pub mod overlap;
mod per_table;
#[doc(hidden)]
pub mod sail_m;
#[cfg(test)]
mod tests_baselines;
#[cfg(test)]
mod tests_braiding;
mod trie_build;
mod trie_shape;
mod walk_plain;
mod writer;

pub use per_table::PerTable;
pub use writer::MultiWriter;

use crate::addr::Address;
use crate::nexthop::NextHop;

/// A virtual routing table's id.
pub type VrfId = u32;

/// Longest-prefix-match lookups in one of several tables.
pub trait MultiLookup<A: Address>: Send + Sync {
    /// Number of table slots (valid VRF ids are `0..vrfs()`).
    fn vrfs(&self) -> usize;

    /// The next hop of the longest route of table `vrf` matching `addr`; `None` when no route
    /// matches or the table does not exist.
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop>;

    /// Looks up every `(vrf, addr)` pair into the same position of `out`.
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= keys.len(), "output shorter than input");
        for (o, &(v, a)) in out.iter_mut().zip(keys) {
            *o = self.lookup(v, a);
        }
    }

    /// Bytes of every array the structure owns.
    fn memory_bytes(&self) -> usize;
}
