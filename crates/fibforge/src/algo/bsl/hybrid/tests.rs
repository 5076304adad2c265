//! The §7 hybrid against the RIB: edge cases, band boundaries, markers, limits, random tables.

use super::*;
use crate::algo::testkit::{self, assert_same, edge_tables, probes};
use crate::prefix::Prefix;
use proptest::prelude::*;

fn configs() -> Vec<Config> {
    let mut v = Vec::new();
    for stride in [4, 8] {
        for packed in [false, true] {
            v.push(Config { stride, packed });
        }
    }
    v
}

/// Probes plus every route's neighbourhood at the hashed lengths.
fn addrs(rib: &Rib<u128>, seed: u64) -> Vec<u128> {
    let mut v = probes(rib, 1000, seed);
    for k in [32, 64, 96] {
        v.extend(testkit::boundaries_near_routes(rib, k).into_iter().take(20_000));
    }
    v
}

fn check_all(name: &str, rib: &Rib<u128>, seed: u64) {
    let a = addrs(rib, seed);
    for cfg in configs() {
        let fib = BslHybrid::compile(rib, &cfg).unwrap();
        assert_same(&format!("{name} {cfg:?}"), &fib, rib, &a);
    }
}

#[test]
fn edge_case_tables() {
    for (name, rib) in edge_tables::<u128>() {
        check_all(name, &rib, 5);
    }
}

/// Routes one bit around each hashed length along one path, with siblings.
fn band_edges() -> Rib<u128> {
    let base = 0x2001_0db8_5a5a_5a5a_1234_5678_9abc_def0u128;
    let mut routes = vec![(0u128, 0, 0)];
    for (i, len) in [1, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128].into_iter().enumerate() {
        routes.push((base, len, i as u32 + 1));
        routes.push((base ^ (1 << (128 - len)), len, i as u32 + 100));
    }
    testkit::table(&routes)
}

#[test]
fn band_boundaries() {
    check_all("band edges", &band_edges(), 11);
}

#[test]
fn a_deep_route_alone_leaves_a_marker_at_64() {
    // A /100 under a /40: the 64-bit key has no route in (64, 96], only a marker whose
    // precomputed answer is the /40; the 32-bit key has the /40's trie.
    let base = 0x2400_cb00_0000_0000_0000_0000_0000_0000u128;
    let rib = testkit::table(&[(base, 40, 1), (base | 0xabc << 28, 100, 2)]);
    let fib = BslHybrid::compile(&rib, &Config::default()).unwrap();
    let s = fib.stats();
    assert_eq!(s.keys, [1, 1, 1]);
    assert_eq!(s.markers, [0, 1, 0]);
    assert_same("marker", &fib, &rib, &addrs(&rib, 3));
    // Inside the /100: band 96. Same 64-bit key, outside the /100: the marker's answer.
    // Inside the /40, another 64-bit key: band 32.
    assert_eq!(fib.lookup(base | 0xabc << 28 | 5), Some(testkit::hop(2)));
    assert_eq!(fib.lookup(base | 1), Some(testkit::hop(1)));
    assert_eq!(fib.lookup(base | 1 << 70), Some(testkit::hop(1)));
    assert_eq!(fib.lookup(1), None);
}

#[test]
fn stats_count_nodes_and_memory() {
    let rib = band_edges();
    let fib = BslHybrid::compile(&rib, &Config { stride: 8, packed: false }).unwrap();
    assert!(fib.stats().nodes >= 4);
    assert!(fib.stats().node_bytes > 0);
    assert!(fib.memory_bytes() as u64 >= fib.stats().node_bytes);
}

#[test]
fn bad_options_and_limits() {
    let rib = testkit::table::<u128>(&[(1 << 100, 28, 1)]);
    for stride in [0, 3, 16, 32] {
        assert!(BslHybrid::compile(&rib, &Config { stride, packed: false }).is_err());
    }
    let big = NextHop::from_raw(LEAF).unwrap();
    let rib: Rib<u128> = [(Prefix::new(1 << 100, 28).unwrap(), big)].into_iter().collect();
    assert!(matches!(
        BslHybrid::compile(&rib, &Config::default()),
        Err(BuildError::LimitExceeded { what: "next-hop id", .. })
    ));
    let ok = NextHop::from_raw(LEAF - 1).unwrap();
    let rib: Rib<u128> = [(Prefix::new(1 << 100, 28).unwrap(), ok)].into_iter().collect();
    let fib = BslHybrid::compile(&rib, &Config::default()).unwrap();
    assert_eq!(fib.lookup(1 << 100), Some(ok));
}

#[test]
fn more_next_hops_than_16_bits() {
    let rib = testkit::many_hops::<u128>(70_000);
    let fib = BslHybrid::compile(&rib, &Config::default()).unwrap();
    assert_same("many hops", &fib, &rib, &probes(&rib, 2000, 13));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]

    #[test]
    fn random_tables_match_the_rib(
        routes in testkit::arb_routes::<u128>(200, 100_000),
        seed in any::<u64>(),
        stride in prop_oneof![Just(4u32), Just(8)],
        packed in any::<bool>(),
    ) {
        let rib: Rib<u128> = routes.into_iter().collect();
        let fib = BslHybrid::compile(&rib, &Config { stride, packed }).unwrap();
        assert_same("random", &fib, &rib, &addrs(&rib, seed));
    }
}
