//! Shared helpers of the integration tests: real tables (the repository's `data/` and, when
//! present, the workplace's `../shared/data`), probe addresses and the update-stream parser.
#![allow(dead_code)] // each test binary uses a different subset

use fibforge::{Address, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{ReadConfig, Table};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// A file of the repository's `data/` folder.
pub fn repo_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name)
}

/// A file of the workplace's shared data, if it exists here.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data").join(rel);
    p.exists().then_some(p)
}

/// Reads a table with the default configuration.
pub fn load(path: &Path) -> Table {
    fibforge_io::read_table(path, &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.error))
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// First and last address (and outside neighbours) of every `step`-th route, `random`
/// uniform addresses and `random` addresses inside random routes.
pub fn probes<A: Address>(rib: &Rib<A>, step: usize, random: usize, seed: u64) -> Vec<A> {
    let routes: Vec<Prefix<A>> = rib.iter().map(|(p, _)| p).collect();
    let mut v = Vec::new();
    for p in routes.iter().step_by(step.max(1)) {
        let (a, l) = (p.addr().to_u128(), p.last().to_u128());
        v.extend([p.addr(), p.last()]);
        v.extend([A::from_u128(a.wrapping_sub(1)), A::from_u128(l.wrapping_add(1))]);
    }
    let mut s = seed | 1;
    for _ in 0..random {
        let r = ((xorshift(&mut s) as u128) << 64) | xorshift(&mut s) as u128;
        v.push(A::from_u128(r));
        if !routes.is_empty() {
            let p = routes[(r as u64 % routes.len() as u64) as usize];
            let host = (((xorshift(&mut s) as u128) << 64) | xorshift(&mut s) as u128)
                & !A::netmask(p.len()).to_u128();
            v.push(A::from_u128(p.addr().to_u128() | host));
        }
    }
    v
}

/// The RIB's answers for `addrs`.
pub fn expected<A: Address>(rib: &Rib<A>, addrs: &[A]) -> Vec<Option<NextHop>> {
    addrs.iter().map(|&a| rib.lookup(a)).collect()
}

/// Panics with the first differences when `f` (single or batch) disagrees with `want`.
pub fn check<A: Address>(what: &str, f: &dyn Lookup<A>, addrs: &[A], want: &[Option<NextHop>]) {
    let mut batch = vec![None; addrs.len()];
    f.lookup_batch(addrs, &mut batch);
    let mut bad = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        let single = f.lookup(a);
        if single != want[i] || batch[i] != want[i] {
            bad.push(format!("{:?}: want {:?} single {single:?} batch {:?}", a, want[i], batch[i]));
        }
    }
    assert!(
        bad.is_empty(),
        "{what}: {} mismatches, first: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

/// One line of an update stream (`unixtime a|w prefix nexthop`).
pub enum Update<A: Address> {
    Announce(Prefix<A>, NextHop),
    Withdraw(Prefix<A>),
}

/// Reads the IPv4 updates of a stream file, interning next hops into `table`.
pub fn read_updates(path: &Path, table: &mut Table) -> Vec<Update<u32>> {
    let input = fibforge_io::open(path).expect("update stream opens");
    let mut out = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.expect("update stream reads");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0].starts_with('#') {
            continue;
        }
        assert_eq!(f.len(), 4, "line {}: {line}", n + 1);
        let p: Prefix<u32> = f[2].parse().unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        out.push(match f[1] {
            "a" => Update::Announce(p, table.hops.intern(f[3].to_string()).expect("hop ids")),
            "w" => Update::Withdraw(p),
            other => panic!("line {}: unknown kind {other}", n + 1),
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
