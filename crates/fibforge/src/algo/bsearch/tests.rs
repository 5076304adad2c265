//! Binary search on prefixes against the RIB: edge-case tables, the two answers of an
//! endpoint, batch widths, bad options, property tests; IPv4 and IPv6.

use super::*;
use crate::algo::testkit::{self, assert_same, boundaries, edge_tables, probes};
use proptest::prelude::*;

fn compile<A: Address>(rib: &Rib<A>, lanes: usize) -> Bsearch<A> {
    Bsearch::compile(rib, &Config { lanes }).unwrap()
}

/// Every edge-case table, probed at route boundaries and every /12 boundary, with single
/// lookups, lock-step batches of several widths (including an uneven last group).
fn check_edges<A: Address>() {
    let grid = boundaries::<A>(&[12]);
    for (name, rib) in edge_tables::<A>() {
        let mut addrs = probes(&rib, 2000, 11);
        addrs.extend_from_slice(&grid);
        for lanes in [1, 7, 16, MAX_LANES] {
            assert_same(&format!("{name} lanes={lanes}"), &compile(&rib, lanes), &rib, &addrs);
        }
    }
}

#[test]
fn ipv4_edge_case_tables() {
    check_edges::<u32>();
}

#[test]
fn ipv6_edge_case_tables() {
    check_edges::<u128>();
}

#[test]
fn an_endpoint_and_the_addresses_after_it_have_their_own_answers() {
    // 10.0.0.0/8 -> 1 inside 0/0 -> 2: the high endpoint 10.255.255.255 answers 1 (`=`),
    // the addresses after it answer 2 (`>`).
    let rib = testkit::table(&[(0u32, 0, 2), (0x0A00_0000, 8, 1)]);
    let fib = compile(&rib, 16);
    assert_eq!(fib.endpoints(), 4, "0, 10.0.0.0, 10.255.255.255 and the last address");
    assert_eq!(fib.lookup(0x0AFF_FFFF), Some(testkit::hop(1)));
    assert_eq!(fib.lookup(0x0B00_0000), Some(testkit::hop(2)));
    assert_eq!(fib.lookup(0x09FF_FFFF), Some(testkit::hop(2)));
    assert_eq!(fib.lookup(u32::MAX), Some(testkit::hop(2)));
}

#[test]
fn options_parse_and_bad_ones_are_named() {
    let spec: AlgoSpec = "bsearch:lanes=4".parse().unwrap();
    assert_eq!(Config::from_spec(&spec).unwrap().lanes, 4);
    assert_eq!(Config::from_spec(&AlgoSpec::named("bsearch")).unwrap(), Default::default());
    for bad in ["bsearch:lanes=0", "bsearch:lanes=65", "bsearch:lanes=x", "bsearch:width=3"] {
        let e = Config::from_spec(&bad.parse().unwrap()).unwrap_err().to_string();
        assert!(e.contains("bsearch"), "{bad}: {e}");
    }
    let rib: Rib<u32> = Rib::new();
    assert!(Bsearch::compile(&rib, &Config { lanes: 0 }).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]

    #[test]
    fn random_ipv4_tables_match_the_rib(routes in testkit::arb_routes::<u32>(80, 100_000), seed in any::<u64>(), lanes in 1..=MAX_LANES) {
        let rib: Rib<u32> = routes.into_iter().collect();
        assert_same("random v4", &compile(&rib, lanes), &rib, &probes(&rib, 300, seed));
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(80, 100_000), seed in any::<u64>(), lanes in 1..=MAX_LANES) {
        let rib: Rib<u128> = routes.into_iter().collect();
        assert_same("random v6", &compile(&rib, lanes), &rib, &probes(&rib, 300, seed));
    }
}
