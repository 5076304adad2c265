//! Tree Bitmap against the RIB: edge cases, property tests, updates equal to a fresh compile,
//! both strides, IPv4 and IPv6.

use super::*;
use crate::algo::testkit::{self, assert_same, boundaries_near_routes, edge_tables, probes};
use crate::fib::Incremental;
use crate::prefix::Prefix;
use proptest::prelude::*;

fn compile<A: Address, N: NodeLayout>(rib: &Rib<A>) -> TreeBitmap<A, N> {
    TreeBitmap::compile(rib, &()).unwrap()
}

fn check_edges<A: Address, N: NodeLayout>() {
    for (name, rib) in edge_tables::<A>() {
        let mut addrs = probes(&rib, 2000, 13);
        for k in [16, 18, 24].into_iter().filter(|_| rib.len() <= 1000) {
            addrs.extend(boundaries_near_routes(&rib, k));
        }
        let fib = compile::<A, N>(&rib);
        assert_eq!(fib.result_count(), rib.len(), "{name}: one result per route");
        assert_same(&format!("{name} {}", N::NAME), &fib, &rib, &addrs);
    }
}

#[test]
fn ipv4_edge_case_tables() {
    check_edges::<u32, Node4>();
    check_edges::<u32, Node6>();
}

#[test]
fn ipv6_edge_case_tables() {
    check_edges::<u128, Node4>();
    check_edges::<u128, Node6>();
}

#[test]
fn node_counts_follow_the_strides() {
    // 10.0.0.0/8 and 10.1.2.3/32: stride 4 has nodes at depths 0, 4, 8, …, 32 on one path;
    // stride 6 at depths 0, 6, …, 30.
    let rib = testkit::table(&[(0x0A00_0000u32, 8, 1), (0x0A01_0203, 32, 2)]);
    assert_eq!(compile::<u32, Node4>(&rib).node_count(), 9);
    assert_eq!(compile::<u32, Node6>(&rib).node_count(), 6);
    assert_eq!(compile::<u32, Node6>(&Rib::new()).node_count(), 1);
}

#[test]
fn removing_every_route_leaves_the_empty_root() {
    let mut rib = testkit::table(&[(0x0A00_0000u32, 8, 1), (0x0A01_0203, 32, 2), (0, 0, 3)]);
    let mut fib = compile::<u32, Node6>(&rib);
    let mark = rib.change_mark();
    let all: Vec<_> = rib.iter().map(|(p, _)| p).collect();
    for p in &all {
        rib.remove(p);
    }
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    assert_eq!((fib.node_count(), fib.result_count()), (1, 0));
    assert_eq!(fib.lookup(0x0A01_0203), None);
    // Re-adding reuses the freed blocks.
    let before = fib.nodes.len();
    let mark = rib.change_mark();
    rib.insert(Prefix::new(0x0A01_0203, 32).unwrap(), testkit::hop(4));
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    assert_eq!(fib.nodes.len(), before);
    assert!(fib.same_shape(&compile(&rib)));
}

#[derive(Debug, Clone)]
enum Op<A: Address> {
    Insert(Prefix<A>, NextHop),
    Remove(usize),
}

fn arb_ops<A: Address>() -> impl Strategy<Value = Vec<Op<A>>> {
    let insert = testkit::arb_routes::<A>(2, 1000)
        .prop_filter_map("one route", |v| v.first().map(|&(p, h)| Op::Insert(p, h)));
    prop::collection::vec(prop_oneof![3 => insert, 2 => any::<usize>().prop_map(Op::Remove)], 0..60)
}

/// Applies `ops` to `rib` and the trie (in `batches` groups), then compares with a fresh
/// compile.
fn check_updates<A: Address, N: NodeLayout>(
    routes: Vec<(Prefix<A>, NextHop)>,
    ops: Vec<Op<A>>,
    batch: usize,
    seed: u64,
) {
    let mut rib: Rib<A> = routes.into_iter().collect();
    let mut fib = compile::<A, N>(&rib);
    for chunk in ops.chunks(batch.max(1)) {
        let mark = rib.change_mark();
        for op in chunk {
            match *op {
                Op::Insert(p, h) => {
                    rib.insert(p, h);
                }
                Op::Remove(i) => {
                    let victim = rib.iter().nth(i % rib.len().max(1)).map(|(p, _)| p);
                    if let Some(p) = victim {
                        rib.remove(&p);
                    }
                }
            }
        }
        fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    }
    assert!(
        fib.same_shape(&compile(&rib)),
        "{}: updated trie differs from a fresh compile",
        N::NAME
    );
    assert_eq!(fib.result_count(), rib.len());
    assert_same("updated", &fib, &rib, &probes(&rib, 300, seed));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]

    #[test]
    fn random_ipv4_tables_match_the_rib(routes in testkit::arb_routes::<u32>(80, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        assert_same("random v4/4", &compile::<u32, Node4>(&rib), &rib, &probes(&rib, 300, seed));
        assert_same("random v4/6", &compile::<u32, Node6>(&rib), &rib, &probes(&rib, 300, seed));
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(80, 100_000), seed in any::<u64>()) {
        let rib: Rib<u128> = routes.into_iter().collect();
        assert_same("random v6/4", &compile::<u128, Node4>(&rib), &rib, &probes(&rib, 300, seed));
        assert_same("random v6/6", &compile::<u128, Node6>(&rib), &rib, &probes(&rib, 300, seed));
    }

    #[test]
    fn ipv4_updates_equal_a_fresh_compile(routes in testkit::arb_routes::<u32>(60, 1000), ops in arb_ops::<u32>(), batch in 1usize..20, seed in any::<u64>()) {
        check_updates::<u32, Node4>(routes.clone(), ops.clone(), batch, seed);
        check_updates::<u32, Node6>(routes, ops, batch, seed);
    }

    #[test]
    fn ipv6_updates_equal_a_fresh_compile(routes in testkit::arb_routes::<u128>(60, 1000), ops in arb_ops::<u128>(), batch in 1usize..20, seed in any::<u64>()) {
        check_updates::<u128, Node4>(routes.clone(), ops.clone(), batch, seed);
        check_updates::<u128, Node6>(routes, ops, batch, seed);
    }
}
