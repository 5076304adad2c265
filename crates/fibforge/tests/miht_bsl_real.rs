//! MIHT and binary search on lengths (plain, expanded, and the IPv6 hybrid of Srinivasan &
//! Varghese §7) on real tables: against the RIB on sampled addresses, and MIHT after a real
//! BGP update stream against a fresh compile.

mod common;

use common::*;
use fibforge::algo::bsl;
use fibforge::algo::bsl::hybrid;
use fibforge::algo::bsl::hybrid::BslHybrid;
use fibforge::algo::bsl::{Bsl, FirstLevel};
use fibforge::algo::miht;
use fibforge::algo::miht::Miht;
use fibforge::{Address, Compile, Rib};

fn check_miht<A: Address>(name: &str, rib: &Rib<A>, step: usize) {
    let addrs = probes(rib, step, 100_000, 7);
    let want = expected(rib, &addrs);
    let fib = Miht::compile(rib, &miht::Config::default()).unwrap();
    check(&format!("{name} miht"), &fib, &addrs, &want);
}

/// Binary search on lengths, plain and expanded to each of `levels`; for IPv4 also the first
/// of `levels` with the full-array first level (§6.3).
fn check_bsl<A: Address>(name: &str, rib: &Rib<A>, step: usize, levels: &[u32]) {
    let addrs = probes(rib, step, 100_000, 5);
    let want = expected(rib, &addrs);
    let mut cfgs: Vec<bsl::Config> = std::iter::once(None)
        .chain(levels.iter().map(|&k| Some(k)))
        .map(|levels| bsl::Config { levels, ..bsl::Config::default() })
        .collect();
    if A::BITS == 32 {
        let levels = levels.first().copied();
        cfgs.push(bsl::Config { levels, first: FirstLevel::Array, ..bsl::Config::default() });
    }
    for cfg in cfgs {
        let fib = Bsl::compile(rib, &cfg).unwrap();
        check(&format!("{name} bsl {cfg:?}"), &fib, &addrs, &want);
    }
}

#[test]
fn bsl_ris2015_ipv4() {
    let t = load(&repo_data("ris2015-as3856.tsv.gz"));
    check_bsl("ris2015", &t.v4, 3, &[3, 4]);
}

#[test]
fn bsl_tier1_ipv6() {
    let t = load(&repo_data("tier1-2024-v6.txt.gz"));
    check_bsl("tier1-v6", &t.v6, 1, &[5]);
}

/// The §7 hybrid in its default layout and with unpacked 4-bit strides.
fn check_hybrid(name: &str, rib: &Rib<u128>, step: usize) {
    let addrs = probes(rib, step, 100_000, 9);
    let want = expected(rib, &addrs);
    for cfg in [hybrid::Config::default(), hybrid::Config { stride: 4, packed: false }] {
        let fib = BslHybrid::compile(rib, &cfg).unwrap();
        check(&format!("{name} bsl_hybrid {cfg:?}"), &fib, &addrs, &want);
    }
}

#[test]
fn bsl_hybrid_tier1_ipv6() {
    let t = load(&repo_data("tier1-2024-v6.txt.gz"));
    check_hybrid("tier1-v6", &t.v6, 1);
    // Keys counted from the file independently: /32 keys with routes of 33-64 bits, /64 keys
    // with longer routes (none of 65-96 bits here, so all are markers), /96 keys.
    let s = BslHybrid::compile(&t.v6, &hybrid::Config::default()).unwrap().stats().clone();
    assert_eq!((s.keys, s.markers), ([10_902, 82, 83], [0, 82, 0]));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn bsl_hybrid_shared_ipv6_tables_when_present() {
    for rel in ["mixed/tier1-2024.txt.gz", "v6/linx2014-p69.txt.gz", "v6/rrc00-v6.txt.gz"] {
        let Some(path) = shared_data(rel) else { continue };
        let t = load(&path);
        assert!(!t.v6.is_empty(), "{rel} has IPv6 routes");
        check_hybrid(rel, &t.v6, 1);
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn bsl_shared_tables_when_present() {
    for rel in ["mixed/tier1-2024.txt.gz", "v4/ris2010-as4777.tsv.gz", "v6/linx2014-p69.txt.gz"] {
        let Some(path) = shared_data(rel) else { continue };
        let t = load(&path);
        if !t.v4.is_empty() {
            check_bsl(rel, &t.v4, 7, &[]);
        }
        if !t.v6.is_empty() {
            check_bsl(rel, &t.v6, 3, &[]);
        }
    }
}

#[test]
fn miht_ris2015_ipv4() {
    let t = load(&repo_data("ris2015-as3856.tsv.gz"));
    check_miht("ris2015", &t.v4, 3);
}

#[test]
fn miht_tier1_ipv6() {
    let t = load(&repo_data("tier1-2024-v6.txt.gz"));
    check_miht("tier1-v6", &t.v6, 1);
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn miht_shared_tables_when_present() {
    for rel in ["mixed/tier1-2024.txt.gz", "v4/ris2010-as4777.tsv.gz", "v6/linx2014-p69.txt.gz"] {
        let Some(path) = shared_data(rel) else { continue };
        let t = load(&path);
        if !t.v4.is_empty() {
            check_miht(rel, &t.v4, 7);
        }
        if !t.v6.is_empty() {
            check_miht(rel, &t.v6, 3);
        }
    }
}

/// Replays the LINX update stream onto ris2015 and compares with a fresh compile.
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn miht_follows_real_updates() {
    let mut t = load(&repo_data("ris2015-as3856.tsv.gz"));
    let Some(path) = shared_data("updates/linx2014-p52-v4.txt.gz") else { return };
    let updates = read_updates(&path, &mut t);
    let mut rib = t.v4;
    let mut fib = Miht::compile(&rib, &miht::Config::default()).unwrap();
    let touched = common::replay(&updates, &mut rib, &mut fib);
    let fresh = Miht::compile(&rib, &miht::Config::default()).unwrap();
    let mut addrs = probes(&rib, 2, 200_000, 11);
    for p in &touched {
        let (a, l) = (p.addr(), p.last());
        addrs.extend([a, l, a.wrapping_sub(1), l.wrapping_add(1)]);
    }
    let want = expected(&rib, &addrs);
    check("replayed miht", &fib, &addrs, &want);
    check("fresh miht", &fresh, &addrs, &want);
    let (s, f) = (fib.stats(), fresh.stats());
    assert_eq!((s.keys, s.trie_nodes), (f.keys, f.trie_nodes), "{s:?} vs {f:?}");
}
