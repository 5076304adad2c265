//! DIR-24-8 against the RIB: edge cases, boundaries, property tests, updates.

use super::*;
use crate::algo::testkit::{
    self, assert_same, boundaries, boundaries_near_routes, edge_tables, probes,
};
use crate::fib::Incremental;
use proptest::prelude::*;

fn compile(rib: &Rib<u32>) -> Dir24_8 {
    Dir24_8::compile(rib, &()).unwrap()
}

#[test]
fn edge_case_tables() {
    let levels = boundaries::<u32>(&[16, 18]);
    for (name, rib) in edge_tables::<u32>() {
        let fib = compile(&rib);
        let mut addrs = probes(&rib, 2000, 7);
        addrs.extend_from_slice(&levels);
        addrs.extend(boundaries_near_routes(&rib, 24));
        assert_same(name, &fib, &rib, &addrs);
    }
}

#[test]
fn chunks_only_where_answers_differ() {
    // A /25 with the same hop as its /24 changes nothing: no chunk.
    let rib = testkit::table(&[(0x0A00_0000, 24, 1), (0x0A00_0000, 25, 1)]);
    assert_eq!(compile(&rib).chunks_in_use(), 0);
    let rib = testkit::table(&[(0x0A00_0000, 24, 1), (0x0A00_0000, 25, 2), (0x0B00_0000, 32, 3)]);
    assert_eq!(compile(&rib).chunks_in_use(), 2);
}

#[test]
fn next_hops_beyond_31_bits_are_a_clear_error() {
    let big = NextHop::from_raw(1 << 31).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 8).unwrap(), big)].into_iter().collect();
    match Dir24_8::compile(&rib, &()) {
        Err(BuildError::LimitExceeded { limit, found, .. }) => {
            assert_eq!((limit, found), ((1 << 31) - 1, 1 << 31));
        }
        other => panic!("expected LimitExceeded, got {other:?}"),
    }
    let largest = NextHop::from_raw((1 << 31) - 1).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 28).unwrap(), largest)].into_iter().collect();
    assert_eq!(compile(&rib).lookup(0x0A00_0001), Some(largest));
}

#[test]
fn updates_reuse_freed_chunks() {
    let mut rib = testkit::table(&[(0x0A00_0000, 8, 1)]);
    let mut fib = compile(&rib);
    let mark = rib.change_mark();
    for i in 0..10u32 {
        rib.insert(Prefix::new(0x0A00_0000 + (i << 8), 25).unwrap(), testkit::hop(2));
    }
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    assert_eq!((fib.chunk_count(), fib.chunks_in_use()), (10, 10));
    let mark = rib.change_mark();
    for i in 0..5u32 {
        rib.remove(&Prefix::new(0x0A00_0000 + (i << 8), 25).unwrap());
    }
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    assert_eq!((fib.chunk_count(), fib.chunks_in_use()), (10, 5));
    let mark = rib.change_mark();
    for i in 0..7u32 {
        rib.insert(Prefix::new(0x0B00_0000 + (i << 8), 30).unwrap(), testkit::hop(3));
    }
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    assert_eq!((fib.chunk_count(), fib.chunks_in_use()), (12, 12));
    assert!(fib.same_answers(&compile(&rib)));
    // Replacing the /8 repaints its chunks too.
    let mark = rib.change_mark();
    rib.insert(Prefix::new(0x0A00_0000, 8).unwrap(), testkit::hop(2));
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    assert_eq!(fib.chunks_in_use(), 7, "the /25s now equal their /8");
    assert!(fib.same_answers(&compile(&rib)));
}

#[derive(Debug, Clone)]
enum Op {
    Insert(Prefix<u32>, NextHop),
    Remove(usize),
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    let insert = testkit::arb_routes::<u32>(2, 100_000)
        .prop_filter_map("one route", |v| v.first().map(|&(p, h)| Op::Insert(p, h)));
    prop::collection::vec(prop_oneof![3 => insert, 1 => any::<usize>().prop_map(Op::Remove)], 0..60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]

    #[test]
    fn random_tables_match_the_rib(routes in testkit::arb_routes::<u32>(80, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        let fib = compile(&rib);
        assert_same("random", &fib, &rib, &probes(&rib, 500, seed));
    }

    #[test]
    fn updates_equal_a_fresh_compile(routes in testkit::arb_routes::<u32>(60, 1000), ops in arb_ops(), seed in any::<u64>()) {
        let mut rib: Rib<u32> = routes.into_iter().collect();
        let mut fib = compile(&rib);
        let mark = rib.change_mark();
        for op in ops {
            match op {
                Op::Insert(p, h) => { rib.insert(p, h); }
                Op::Remove(i) => {
                    let victim = rib.iter().nth(i % rib.len().max(1)).map(|(p, _)| p);
                    if let Some(p) = victim { rib.remove(&p); }
                }
            }
        }
        fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
        prop_assert!(fib.same_answers(&compile(&rib)));
        assert_same("updated", &fib, &rib, &probes(&rib, 300, seed));
    }
}
