//! Shared helpers of the integration tests: real tables (the repository's `data/` and, when
//! present, the workplace's shared data: [`fibforge_io::data`]), probe addresses and checks
//! ([`fibforge::verify`]) and update streams ([`fibforge_io::updates`]).
#![allow(dead_code)] // each test binary uses a different subset

use fibforge::verify::{self, Probes};
use fibforge::{Address, AnyPrefix, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{LoadedTable, ReadConfig, UpdateKind};
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of the repository's `data/` folder.
pub fn repo_data(name: &str) -> PathBuf {
    workspace().join("data").join(name)
}

/// A file or folder of the workplace's shared data (`$FIBFORGE_SHARED_DATA`, else
/// `../shared/data` beside the workspace), if it exists here.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let found = fibforge_io::data::shared_data(&workspace(), rel);
    if found.is_none() {
        eprintln!("shared data {rel} not found: skipped");
    }
    found
}

/// Reads a table with the default configuration.
pub fn load(path: &Path) -> LoadedTable {
    fibforge_io::read_table(path, &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.error))
}

/// First and last address (and outside neighbours) of every `step`-th route, `random`
/// uniform addresses and `random` addresses inside random routes.
pub fn probes<A: Address>(rib: &Rib<A>, step: usize, random: usize, seed: u64) -> Vec<A> {
    verify::probes(rib, step, random, seed)
}

/// The RIB's answers for `addrs`.
pub fn expected<A: Address>(rib: &Rib<A>, addrs: &[A]) -> Vec<Option<NextHop>> {
    Probes::new(rib, addrs.to_vec()).expected
}

/// Panics with the first differences when `f` (single or batch) disagrees with `want`.
pub fn check<A: Address>(what: &str, f: &dyn Lookup<A>, addrs: &[A], want: &[Option<NextHop>]) {
    let probes = Probes { addrs: addrs.to_vec(), expected: want.to_vec() };
    verify::check(f, &probes, true, true).assert_ok(what);
}

/// One line of an update stream (`unixtime a|w prefix nexthop`).
pub enum Update<A: Address> {
    Announce(Prefix<A>, NextHop),
    Withdraw(Prefix<A>),
}

/// Reads the IPv4 updates of a stream file (through [`fibforge_io::read_updates`]),
/// interning next hops into `table`.
pub fn read_updates(path: &Path, table: &mut LoadedTable) -> Vec<Update<u32>> {
    let reader = fibforge_io::read_updates(path, &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for u in reader {
        let u = u.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let AnyPrefix::V4(p) = u.prefix else { continue };
        out.push(match (u.kind, u.next_hop) {
            (UpdateKind::Announce, Some(h)) => {
                Update::Announce(p, table.hops.intern(h).expect("hop ids"))
            }
            (UpdateKind::Announce, None) => {
                panic!("{}: {p} announced without a next hop", path.display())
            }
            (UpdateKind::Withdraw, _) => Update::Withdraw(p),
        });
    }
    out
}

/// Applies `updates` one by one to `rib` and then to `fib` (one `apply_changes` each);
/// returns every prefix whose route changed, in order.
pub fn replay<F: fibforge::Incremental<u32>>(
    updates: &[Update<u32>],
    rib: &mut Rib<u32>,
    fib: &mut F,
) -> Vec<Prefix<u32>> {
    let mut touched = Vec::new();
    for u in updates {
        let mark = rib.change_mark();
        match *u {
            Update::Announce(p, h) => rib.insert(p, h),
            Update::Withdraw(p) => rib.remove(&p),
        };
        let changed = rib.changes_since(mark).to_vec();
        fib.apply_changes(rib, &changed).unwrap();
        rib.trim_changes(rib.change_mark());
        touched.extend(changed);
    }
    touched
}
