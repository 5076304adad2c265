//! Lulea against the RIB: edge cases, every chunk kind, mask counts, next-hop limits, property
//! tests.

use super::*;
use crate::algo::testkit::{
    self, assert_same, boundaries, boundaries_near_routes, edge_tables, probes,
};
use crate::prefix::Prefix;
use proptest::prelude::*;

fn compile(rib: &Rib<u32>) -> Lulea {
    Lulea::compile(rib, &Config).unwrap()
}

#[test]
fn edge_case_tables() {
    let grid = boundaries::<u32>(&[12]);
    for (name, rib) in edge_tables::<u32>() {
        let mut addrs = probes(&rib, 2000, 23);
        addrs.extend_from_slice(&grid);
        for k in [16, 24].into_iter().filter(|_| rib.len() <= 1000) {
            addrs.extend(boundaries_near_routes(&rib, k));
        }
        assert_same(name, &compile(&rib), &rib, &addrs);
    }
}

/// 10/8 plus, for `depth` d, every route of length 16 + d in 10.1/16 and of length 24 + d
/// in 10.2.3/24: chunks of 2^d heads at level 2 and level 3.
fn full_chunks(depth: u32) -> Rib<u32> {
    let mut routes = vec![(0x0A00_0000u32, 8, 0)];
    for i in 0..1u32 << depth {
        routes.push((0x0A01_0000 | i << (16 - depth), 16 + depth, 1 + i % 3));
        routes.push((0x0A02_0300 | i << (8 - depth), 24 + depth, 1 + i % 5));
    }
    testkit::table(&routes)
}

#[test]
fn every_chunk_kind_answers_like_the_rib() {
    for (depth, kind) in [(1, 0), (3, 0), (4, 1), (5, 1), (6, 2), (8, 2)] {
        let rib = full_chunks(depth);
        let fib = compile(&rib);
        let s = fib.stats();
        // Level 2 also holds the dense chunk of 10.2/16 on the way to 10.2.3/24.
        assert!(s.level2[kind] >= 1 && s.level3[kind] == 1, "depth {depth}: {s:?}");
        let mut addrs = boundaries_near_routes(&rib, 24);
        addrs.extend(boundaries_near_routes(&rib, 32));
        assert_same(&format!("depth {depth}"), &fib, &rib, &addrs);
    }
}

#[test]
fn sixty_four_heads_before_an_empty_last_mask() {
    // /23s at positions 0, 2, ..., 122 of 10.1/16: 62 heads, then the leaves 124/6 and the
    // right half 128/1, which spans the last mask. 64 heads lie before that mask, one more
    // than a dense chunk's 6-bit `six` can count.
    let mut routes = vec![(0x0A00_0000u32, 8, 0)];
    routes.extend((0..62u32).map(|i| (0x0A01_0000 | (2 * i) << 8, 23, 1 + i % 2)));
    let rib = testkit::table(&routes);
    let fib = compile(&rib);
    assert_eq!(fib.stats().level2, [0, 0, 1]);
    assert_same("64 heads", &fib, &rib, &boundaries_near_routes(&rib, 24));
}

#[test]
fn a_leaf_pushed_trie_counts_leaves_not_runs() {
    // 10.0/16 and 10.1/16 share a next hop but are two leaves, hence two heads. The other
    // leaves are the siblings of the path from the root to 10.0/15: one per depth 1..=15.
    let rib = testkit::table(&[(0x0A00_0000u32, 16, 1), (0x0A01_0000, 16, 1)]);
    let fib = compile(&rib);
    assert_eq!(fib.stats().level1_heads, 15 + 2);
    assert_same("runs", &fib, &rib, &boundaries(&[16]));
}

#[test]
fn next_hops_that_collide_with_the_chunk_bit_are_refused() {
    let big = NextHop::from_raw(CHUNK).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 8).unwrap(), big)].into_iter().collect();
    let e = Lulea::compile(&rib, &Config).unwrap_err();
    assert!(matches!(e, BuildError::LimitExceeded { algo: "lulea", .. }), "{e}");
    assert!(Config::from_spec(&"lulea:levels=3".parse().unwrap()).is_err());
    assert!(Config::from_spec(&AlgoSpec::named("lulea")).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(32)))]

    #[test]
    fn random_tables_match_the_rib(routes in testkit::arb_routes::<u32>(150, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        let mut addrs = probes(&rib, 500, seed);
        addrs.extend(boundaries_near_routes(&rib, 24));
        assert_same("random", &compile(&rib), &rib, &addrs);
    }
}
