//! Binary search on lengths against the RIB: edge cases, expansion, property tests, the
//! one-line hash tables.

use super::hash::{Bucket, Bucket32, Bucket128, OneLineTable};
use super::*;
use crate::algo::testkit::{self, assert_same, edge_tables, probes};
use crate::prefix::Prefix;
use proptest::prelude::*;
use std::collections::HashMap;

fn configs() -> Vec<BslConfig> {
    [None, Some(1), Some(2), Some(3), Some(5)]
        .into_iter()
        .map(|levels| BslConfig { levels })
        .collect()
}

fn check_all<A: Address>(name: &str, rib: &Rib<A>, seed: u64) {
    let addrs = probes(rib, 1000, seed);
    let rest: Rib<A> = rib.iter().filter(|(p, _)| p.len() > 0).collect();
    let costs = crate::algo::cpe::ExpansionCosts::of(&rest);
    for cfg in configs() {
        // Keep the tests fast: skip expansions of more than 2^20 prefixes.
        let count = cfg.levels.and_then(|k| crate::algo::cpe::min_expansion_levels(&costs, k));
        if count.is_some_and(|(n, _)| n > 1 << 20) {
            continue;
        }
        // Expansions beyond the entry cap must be a clear error.
        match Bsl::compile(rib, &cfg) {
            Ok(fib) => assert_same(&format!("{name} {cfg:?}"), &fib, rib, &addrs),
            Err(BuildError::LimitExceeded { what: "expanded prefixes", .. }) => {}
            Err(e) => panic!("{name} {cfg:?}: {e}"),
        }
    }
}

#[test]
fn edge_case_tables_ipv4() {
    for (name, rib) in edge_tables::<u32>() {
        check_all(name, &rib, 7);
    }
}

#[test]
fn edge_case_tables_ipv6() {
    for (name, rib) in edge_tables::<u128>() {
        let fib = Bsl::compile(&rib, &BslConfig::default()).unwrap();
        assert_same(name, &fib, &rib, &probes(&rib, 1000, 9));
    }
}

#[test]
fn expansion_bounds_the_probes() {
    let rib = testkit::table::<u32>(&[
        (0, 0, 1),
        (0x0A00_0000, 8, 2),
        (0x0A01_0000, 16, 3),
        (0x0A01_0200, 23, 4),
        (0x0A01_0200, 24, 5),
        (0x0A01_0203, 32, 6),
        (0x0B00_0000, 9, 7),
    ]);
    let plain = Bsl::compile(&rib, &BslConfig::default()).unwrap();
    assert_eq!(plain.stats().lengths, vec![8, 9, 16, 23, 24, 32]);
    assert_eq!(plain.max_probes(), 3);
    let two = Bsl::compile(&rib, &BslConfig { levels: Some(2) }).unwrap();
    assert_eq!(two.stats().lengths.len(), 2);
    assert_eq!(two.max_probes(), 2);
    assert_same("two levels", &two, &rib, &probes(&rib, 500, 3));
}

#[test]
fn bad_options_and_limits() {
    let rib = testkit::table::<u32>(&[(0x0A00_0000, 8, 2)]);
    assert!(Bsl::compile(&rib, &BslConfig { levels: Some(0) }).is_err());
    assert!(Bsl::compile(&rib, &BslConfig { levels: Some(33) }).is_err());
    let big = NextHop::from_raw(MARKER).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 8).unwrap(), big)].into_iter().collect();
    assert!(matches!(
        Bsl::compile(&rib, &BslConfig::default()),
        Err(BuildError::LimitExceeded { .. })
    ));
    // /0 expanded to /32 would be 2^32 prefixes; the default route is never expanded, but a
    // /1 with a /32 and levels=1 is 2^31 and must be refused.
    let rib = testkit::table::<u32>(&[(0, 1, 1), (5, 32, 2)]);
    assert!(Bsl::compile(&rib, &BslConfig { levels: Some(1) }).is_err());
}

#[test]
fn one_line_tables_find_every_key() {
    fn run<B: Bucket>(make: impl Fn(u64) -> B::Key, n: u64) {
        let entries: HashMap<B::Key, u32> =
            (0..n).map(|i| (make(i), (i as u32 % 1000) + 1)).collect();
        let t = OneLineTable::<B>::build(&entries);
        for (&k, &v) in &entries {
            assert_eq!(t.find(k), v);
        }
        assert_eq!(t.find(make(n + 1)), 0);
        assert!(t.buckets() * B::SLOTS >= entries.len());
    }
    for n in [0, 1, 7, 100, 50_000] {
        run::<Bucket32>(|i| (i as u32).wrapping_mul(2_654_435_761), n);
        run::<Bucket128>(|i| (i as u128) << 70 | 5, n);
    }
    assert_eq!(size_of::<Bucket32>(), 64);
    assert_eq!(size_of::<Bucket128>(), 64);
    assert_eq!(size_of::<super::hash::Bucket64>(), 64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(32)))]

    #[test]
    fn random_tables_match_the_rib(routes in testkit::arb_routes::<u32>(150, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        check_all("random", &rib, seed);
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(150, 100_000), seed in any::<u64>()) {
        let rib: Rib<u128> = routes.into_iter().collect();
        let fib = Bsl::compile(&rib, &BslConfig::default()).unwrap();
        assert_same("random v6", &fib, &rib, &probes(&rib, 500, seed));
    }
}
