//! Many tables at once: each table of a [`MultiLookup`] against its own RIB.
//!
//! Every table is probed at the route edges of all tables (the union), where a merged structure
//! can confuse one table's boundaries with another's, plus uniform and in-route addresses.

use super::check::{Probes, Report, check};
use super::exhaustive::exhaustive;
use super::probes::probes;
use crate::addr::Address;
use crate::fib::Lookup;
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::rib::Rib;

/// One table of a multi-table structure seen as a single-table [`Lookup`].
pub struct VrfView<'a, A: Address, M: MultiLookup<A> + ?Sized> {
    multi: &'a M,
    vrf: VrfId,
    _family: std::marker::PhantomData<fn() -> A>,
}

impl<'a, A: Address, M: MultiLookup<A> + ?Sized> VrfView<'a, A, M> {
    /// Table `vrf` of `multi`.
    pub fn new(multi: &'a M, vrf: VrfId) -> Self {
        VrfView { multi, vrf, _family: std::marker::PhantomData }
    }
}

impl<A: Address, M: MultiLookup<A> + ?Sized> Lookup<A> for VrfView<'_, A, M> {
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.multi.lookup(self.vrf, addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        let keys: Vec<(VrfId, A)> = addrs.iter().map(|&a| (self.vrf, a)).collect();
        self.multi.lookup_batch(&keys, out)
    }
    fn memory_bytes(&self) -> usize {
        self.multi.memory_bytes()
    }
}

/// Every route of every table (a later table's next hop wins a shared prefix): the probe
/// source of a set.
pub fn union<A: Address>(ribs: &[Rib<A>]) -> Rib<A> {
    let mut all = Rib::new();
    for r in ribs {
        for (p, h) in r.iter() {
            all.insert(p, h);
        }
    }
    all
}

/// Checks table `i` of `multi` against `ribs[i]`, for every table, on the union's probes
/// (`samples` uniform and in-route addresses from `seed`); with `exhaustive_tables > 0`, the
/// first that many tables of an IPv4 set also on every address. One report per table.
pub fn check_tables<A: Address, M: MultiLookup<A> + ?Sized>(
    ribs: &[Rib<A>],
    multi: &M,
    samples: usize,
    seed: u64,
    exhaustive_tables: usize,
) -> Vec<Report> {
    let addrs = probes(&union(ribs), 1, samples, seed);
    ribs.iter()
        .enumerate()
        .map(|(vrf, rib)| {
            let view = VrfView::new(multi, vrf as VrfId);
            let mut r = check(&view, &Probes::new(rib, addrs.clone()), true, true);
            if vrf < exhaustive_tables
                && let Some(all) = exhaustive(rib, &view)
            {
                r.merge(all);
            }
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multi::PerTable;
    use crate::spec::AlgoSpec;

    fn tables() -> Vec<Rib<u32>> {
        let t = |routes: &[&str]| -> Rib<u32> {
            routes
                .iter()
                .enumerate()
                .map(|(i, r)| (r.parse().unwrap(), NextHop::from_index(i as u32)))
                .collect()
        };
        vec![t(&["10.0.0.0/8", "10.1.0.0/16"]), t(&["10.0.0.0/9"]), Rib::new()]
    }

    /// Answers table 0's routes for every table: right for table 0 only.
    struct FirstTableOnly(PerTable<u32>);
    impl MultiLookup<u32> for FirstTableOnly {
        fn vrfs(&self) -> usize {
            self.0.vrfs()
        }
        fn lookup(&self, _vrf: VrfId, addr: u32) -> Option<NextHop> {
            self.0.lookup(0, addr)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }

    #[test]
    fn each_table_is_held_against_its_own_rib() {
        let ribs = tables();
        let multi = PerTable::build(&ribs, &AlgoSpec::named("radix")).unwrap();
        let reports = check_tables(&ribs, &multi, 1000, 1, 0);
        assert_eq!(reports.len(), 3);
        assert!(reports.iter().all(|r| r.is_ok() && r.checked > 4000), "{reports:?}");
        let wrong = check_tables(&ribs, &FirstTableOnly(multi), 1000, 1, 0);
        assert!(wrong[0].is_ok());
        assert!(!wrong[1].is_ok() && !wrong[2].is_ok(), "{wrong:?}");
    }
}
