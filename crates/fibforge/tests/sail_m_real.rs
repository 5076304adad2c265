//! SAIL_M on real table sets: every table's answers equal its own RIB (single and batch
//! lookups) on the Internet2 and Stanford router FIBs (when ../shared/data exists), on a set
//! of perturbed copies of the shipped IPv4 table, on IPv6 tables cut to /64, and on a set
//! mixing tables of very different sizes (empty, default route only, a full table).

mod common;

use common::{load, probes, repo_data, shared_data};
use fibforge::algo::sail;
use fibforge::multi::MultiLookup;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge::multi::sail_m::SailM;
use fibforge::{Address, Interner, NextHop, Prefix, Rib};
use std::path::Path;

/// Each table of `dir` (sorted file order), next hops interned across the set.
fn load_set(dir: &Path) -> Vec<Rib<u32>> {
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut hops = Interner::<String>::new();
    files
        .iter()
        .map(|f| {
            let t = load(f);
            t.v4.iter().map(|(p, h)| (p, hops.intern_ref(t.hop_value(h)).unwrap())).collect()
        })
        .collect()
}

fn check_set<A: Address>(m: &SailM<A>, ribs: &[Rib<A>], step: usize) {
    assert_eq!(m.vrfs(), ribs.len());
    for (vrf, rib) in ribs.iter().enumerate() {
        let addrs = probes(rib, step, 2_000, 0x5A11 + vrf as u64);
        let keys: Vec<(u32, A)> = addrs.iter().map(|&a| (vrf as u32, a)).collect();
        let mut out = vec![None; keys.len()];
        m.lookup_batch(&keys, &mut out);
        for (&a, &b) in addrs.iter().zip(&out) {
            let want = rib.lookup(a);
            assert_eq!(m.lookup(vrf as u32, a), want, "vrf {vrf} addr {}", a.to_std());
            assert_eq!(b, want, "batch: vrf {vrf} addr {}", a.to_std());
        }
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn internet2_and_stanford_router_fibs() {
    for set in ["multi/internet2", "multi/stanford"] {
        let Some(dir) = shared_data(set) else {
            eprintln!("skipped: {set} not present");
            continue;
        };
        let ribs = load_set(&dir);
        let m = SailM::build(&ribs, &sail::Config::default()).unwrap();
        check_set(&m, &ribs, 3);
    }
}

#[test]
fn perturbed_real_table_and_mixed_sizes() {
    let base = load(&repo_data("ris2015-as3856.tsv.gz")).v4;
    let mut ribs = perturbed_tables(&base, 4, Perturbation::default(), 11);
    ribs.push(Rib::new());
    ribs.push([(Prefix::DEFAULT_ROUTE, NextHop::from_index(3))].into_iter().collect());
    ribs.push(ribs[0].iter().take(100).collect());
    let m = SailM::build(&ribs, &sail::Config::default()).unwrap();
    check_set(&m, &ribs, 40);
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn ipv6_tables_cut_to_64() {
    let Some(dir) = shared_data("multi/routeviews2021-v6") else {
        eprintln!("skipped: routeviews2021-v6 not present");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let ribs: Vec<Rib<u128>> = files
        .iter()
        .take(3)
        .map(|f| load(f).v6.iter().filter(|(p, _)| p.len() <= 64).collect())
        .collect();
    let m = SailM::build(&ribs, &sail::Config::default()).unwrap();
    check_set(&m, &ribs, 20);
}
