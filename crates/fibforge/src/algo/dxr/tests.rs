//! DXR against the RIB: edge cases, chunk boundaries, both formats, wide chunks, property
//! tests, IPv4 and IPv6.

use super::*;
use crate::algo::testkit::{
    self, assert_same, boundaries, boundaries_near_routes, edge_tables, probes,
};
use crate::prefix::Prefix;
use proptest::prelude::*;

fn compile<A: Address>(rib: &Rib<A>, k: u32, short: bool) -> Dxr<A> {
    Dxr::compile(rib, &Config { k, short }).unwrap()
}

/// Every edge-case table with D16R, D18R and D16R without the short format, probed at route
/// boundaries, every /12 boundary and, for small tables, the /16, /18 and /24 boundaries
/// near the routes.
fn check_edges<A: Address>() {
    let grid = boundaries::<A>(&[12]);
    for (name, rib) in edge_tables::<A>() {
        let mut addrs = probes(&rib, 2000, 11);
        addrs.extend_from_slice(&grid);
        // Near-route grids of the big tables would be tens of millions of addresses.
        for k in [16, 18, 24].into_iter().filter(|_| rib.len() <= 1000) {
            addrs.extend(boundaries_near_routes(&rib, k));
        }
        for (k, short) in [(16, true), (18, true), (16, false)] {
            let fib = compile(&rib, k, short);
            assert_same(&format!("{name} k={k} short={short}"), &fib, &rib, &addrs);
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
fn every_chunk_boundary_of_a_nested_table() {
    let rib = testkit::table(&[
        (0u32, 0, 1),
        (0x8000_0000, 1, 2),
        (0x0A00_0000, 15, 3),
        (0x0A01_8000, 17, 4),
    ]);
    for k in [16, 18] {
        assert_same(&format!("k={k}"), &compile(&rib, k, true), &rib, &boundaries(&[k]));
    }
}

#[test]
fn short_format_only_where_hops_fit() {
    let rib = testkit::table(&[(0x0A00_0000u32, 8, 1), (0x0A00_0100, 24, 2)]);
    let s = compile(&rib, 16, true).stats();
    assert_eq!((s.short_ranges, s.long_ranges), (3, 0));
    assert_eq!(compile(&rib, 16, false).stats().long_ranges, 3);
    let rib = testkit::table(&[(0x0A00_0000u32, 8, 1), (0x0A00_0100, 24, 70_000)]);
    let s = compile(&rib, 16, true).stats();
    assert_eq!((s.short_ranges, s.long_ranges), (0, 3));
    let rib6 = testkit::table(&[(1u128 << 127, 8, 1), (1u128 << 127, 24, 2)]);
    assert_eq!(compile(&rib6, 16, true).stats().short_ranges, 0, "IPv6 is long only");
}

#[test]
fn huge_chunks_go_through_wide_descriptors() {
    let rib = testkit::many_hops::<u32>(70_000);
    let fib = compile(&rib, 16, true);
    assert!(fib.stats().wide_chunks > 0, "{:?}", fib.stats());
    assert_same("many hops", &fib, &rib, &probes(&rib, 1000, 3));
}

#[test]
fn next_hops_beyond_31_bits_fall_back_to_descriptors() {
    let big = NextHop::from_raw(u32::MAX).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 8).unwrap(), big)].into_iter().collect();
    let fib = compile(&rib, 16, true);
    assert_eq!(fib.lookup(0x0A12_3456), Some(big));
    assert_eq!(fib.lookup(0x0B00_0000), None);
    assert_eq!(fib.stats().long_ranges, 256);
}

#[test]
fn bad_k_is_an_error() {
    let rib: Rib<u32> = Rib::new();
    for k in [0, 7, 25, 32] {
        assert!(matches!(
            Dxr::compile(&rib, &Config { k, short: true }),
            Err(BuildError::BadOption { .. })
        ));
    }
}

#[test]
fn other_k_values_work() {
    let rib = testkit::table(&[(0x0A00_0000u32, 8, 1), (0x0A01_0200, 23, 2), (0x0A01_0203, 32, 3)]);
    for k in [8, 12, 20, 24] {
        assert_same(&format!("k={k}"), &compile(&rib, k, true), &rib, &probes(&rib, 200, 5));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]

    #[test]
    fn random_ipv4_tables_match_the_rib(routes in testkit::arb_routes::<u32>(80, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        for k in [16, 18] {
            assert_same("random v4", &compile(&rib, k, true), &rib, &probes(&rib, 300, seed));
        }
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(80, 100_000), seed in any::<u64>()) {
        let rib: Rib<u128> = routes.into_iter().collect();
        for k in [16, 18] {
            assert_same("random v6", &compile(&rib, k, true), &rib, &probes(&rib, 300, seed));
        }
    }
}
