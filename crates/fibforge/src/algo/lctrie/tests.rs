//! The LC-trie against the RIB: edge cases, fill factors and root branches, empty slots,
//! option parsing, property tests, IPv4 and IPv6.

use super::*;
use crate::algo::testkit::{self, assert_same, boundaries, edge_tables, probes};
use proptest::prelude::*;

fn compile<A: Address>(rib: &Rib<A>, fill: f64, root: u32) -> LcTrie<A> {
    LcTrie::compile(rib, &Config { fill, root }).unwrap()
}

/// The settings the tests sweep: the original (fill 1, computed root), the journal's
/// (0.5, root 16), and sparse ones that leave many empty slots.
const SETTINGS: [(f64, u32); 4] = [(1.0, 0), (0.5, 16), (0.25, 8), (0.1, 0)];

fn check_edges<A: Address>() {
    let grid = boundaries::<A>(&[12]);
    for (name, rib) in edge_tables::<A>() {
        let mut addrs = probes(&rib, 2000, 17);
        addrs.extend_from_slice(&grid);
        for (fill, root) in SETTINGS {
            let fib = compile(&rib, fill, root);
            assert_same(&format!("{name} fill={fill} root={root}"), &fib, &rib, &addrs);
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
fn vectors_split_leaves_from_internal_routes() {
    let rib = testkit::table(&[
        (0u32, 0, 0),
        (0x0A00_0000, 8, 1),
        (0x0A01_0000, 16, 2),
        (0x0A02_0000, 16, 3),
        (0x0B00_0000, 8, 4),
    ]);
    let fib = compile(&rib, 0.5, 0);
    let s = fib.stats();
    assert_eq!((s.base, s.prefixes), (3, 2), "{s:?}");
    // 10.1/16's chain: 10/8, then the default route.
    let e = fib.base[0];
    assert_eq!((e.len, fib.prefixes[e.pre as usize].len), (16, 8));
    assert_eq!(fib.prefixes[fib.prefixes[e.pre as usize].pre as usize].len, 0);
    assert_same("split", &fib, &rib, &probes(&rib, 500, 1));
}

#[test]
fn path_compression_skips_shared_bits() {
    // Two strings differing only at bit 30: the root skips 30 bits and branches on 1.
    let rib = testkit::table(&[(0xC0A8_0100u32, 32, 1), (0xC0A8_0102, 32, 2)]);
    let fib = compile(&rib, 1.0, 0);
    assert_eq!((fib.trie[0].skip, fib.trie[0].branch), (30, 1));
    assert_eq!(fib.stats().nodes, 3);
    assert_same("skip", &fib, &rib, &probes(&rib, 500, 2));
}

#[test]
fn low_fill_factors_branch_wider_and_leave_empty_slots() {
    let rib = testkit::many_hops::<u32>(4000);
    let full = compile(&rib, 1.0, 0).stats();
    let half = compile(&rib, 0.25, 0).stats();
    assert!(half.max_depth < full.max_depth, "{half:?} vs {full:?}");
    assert!(half.empty_leaves > 0 && full.empty_leaves == 0, "{half:?} vs {full:?}");
    for (fill, root) in SETTINGS {
        assert_same(
            &format!("fill={fill}"),
            &compile(&rib, fill, root),
            &rib,
            &probes(&rib, 2000, 3),
        );
    }
}

#[test]
fn a_fixed_root_branch_indexes_the_first_bits() {
    let rib = testkit::table(&[(0x0A00_0000u32, 8, 1), (0x8000_0000, 1, 2), (0x0A01_0203, 32, 3)]);
    let fib = compile(&rib, 0.5, 16);
    assert_eq!((fib.trie[0].skip, fib.trie[0].branch), (0, 16));
    assert_same("root 16", &fib, &rib, &boundaries(&[16]));
}

#[test]
fn options_parse_and_reject_bad_values() {
    let spec: AlgoSpec = "lctrie:fill=0.25,root=12".parse().unwrap();
    assert_eq!(Config::from_spec(&spec).unwrap(), Config { fill: 0.25, root: 12 });
    assert_eq!(Config::from_spec(&AlgoSpec::named("lctrie")).unwrap(), Config::default());
    for bad in
        ["lctrie:fill=0", "lctrie:fill=1.5", "lctrie:fill=x", "lctrie:root=21", "lctrie:stride=4"]
    {
        let e = Config::from_spec(&bad.parse().unwrap()).unwrap_err();
        assert!(matches!(e, BuildError::BadOption { algo: "lctrie", .. }), "{bad}: {e}");
    }
    let rib: Rib<u32> = Rib::new();
    assert!(LcTrie::compile(&rib, &Config { fill: 2.0, root: 0 }).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]

    #[test]
    fn random_ipv4_tables_match_the_rib(routes in testkit::arb_routes::<u32>(120, 1000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        for (fill, root) in SETTINGS {
            assert_same("random v4", &compile(&rib, fill, root), &rib, &probes(&rib, 300, seed));
        }
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(120, 1000), seed in any::<u64>()) {
        let rib: Rib<u128> = routes.into_iter().collect();
        for (fill, root) in SETTINGS {
            assert_same("random v6", &compile(&rib, fill, root), &rib, &probes(&rib, 300, seed));
        }
    }
}
