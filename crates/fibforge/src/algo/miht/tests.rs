//! MIHT against the RIB: B+ tree and priority trie invariants, edge cases, property tests,
//! updates against a fresh compile.

use super::*;
use crate::algo::testkit::{self, assert_same, boundaries, edge_tables, probes};
use proptest::prelude::*;

fn compile<A: Address>(rib: &Rib<A>) -> Miht<A> {
    Miht::compile(rib, &Config::default()).unwrap()
}

impl<A: Address> Miht<A> {
    /// Checks every priority trie and the B+ tree; returns the number of routes.
    fn check(&self) -> usize {
        let mut n = self.tries.check(self.short, 0, A::ZERO);
        with_tree!(&self.tree, t => {
            t.check();
            for key in t.keys() {
                let region = A::from_u128((key as u128) << (A::BITS - self.k));
                n += self.tries.check(t.find(key).unwrap(), self.k, region);
            }
        });
        n
    }
}

#[test]
fn bplus_tree_follows_a_btreemap() {
    fn run<const M: usize>() {
        let mut t = BPlusTree::<M>::new();
        let mut model = BTreeMap::new();
        let mut rng = crate::verify::XorShift64::new(7);
        for round in 0..20_000u32 {
            let k = rng.below(3000) as u32;
            if rng.below(5) < 3 || round < 3000 {
                assert_eq!(t.insert(k, round), model.insert(k, round));
            } else {
                assert_eq!(t.remove(k), model.remove(&k));
            }
            if round % 997 == 0 {
                t.check();
            }
        }
        t.check();
        for k in 0..3000 {
            assert_eq!(t.find(k), model.get(&k).copied());
        }
        let keys: Vec<u32> = model.keys().copied().collect();
        for k in keys {
            t.remove(k);
        }
        t.check();
        assert_eq!((t.len(), t.height()), (0, 0));
    }
    run::<16>();
    run::<32>();
}

#[test]
fn bulk_loaded_trees_are_full_and_valid() {
    for n in [0usize, 1, 14, 15, 16, 100, 225, 226, 5000] {
        let entries: Vec<(u32, u32)> = (0..n as u32).map(|i| (i * 3, i + 1)).collect();
        let mut t = BPlusTree::<16>::from_sorted(&entries);
        t.check();
        assert_eq!(t.keys(), entries.iter().map(|e| e.0).collect::<Vec<_>>());
        for &(k, v) in &entries {
            assert_eq!(t.find(k), Some(v));
        }
        let height = if n <= 15 {
            0
        } else if n <= 240 {
            1
        } else {
            3
        };
        assert_eq!(t.height(), height, "{n}");
        for i in 0..n as u32 {
            t.insert(i * 3 + 1, 0);
            assert_eq!(t.remove(i * 3), Some(i + 1));
        }
        t.check();
    }
    let t = BPlusTree::<32>::from_sorted(&[(5, 6)]);
    t.check();
}

#[test]
fn edge_case_tables_ipv4() {
    let levels = boundaries::<u32>(&[16]);
    for (name, rib) in edge_tables::<u32>() {
        let fib = compile(&rib);
        assert_eq!(fib.check(), rib.len(), "{name}");
        let mut addrs = probes(&rib, 2000, 7);
        addrs.extend_from_slice(&levels);
        assert_same(name, &fib, &rib, &addrs);
    }
}

#[test]
fn edge_case_tables_ipv6() {
    for (name, rib) in edge_tables::<u128>() {
        let fib = compile(&rib);
        assert_eq!(fib.check(), rib.len(), "{name}");
        assert_same(name, &fib, &rib, &probes(&rib, 2000, 9));
    }
}

#[test]
fn other_parameters_and_bad_options() {
    let rib = testkit::table::<u32>(&[(0, 0, 1), (0x0A00_0000, 8, 2), (0x0A01_0200, 24, 3)]);
    for (k, m) in [(1, 16), (8, 32), (24, 16), (32, 32)] {
        let cfg = Config { k: Some(k), m: Some(m) };
        let fib = Miht::compile(&rib, &cfg).unwrap();
        assert_eq!(fib.stats().m, m);
        assert_same("params", &fib, &rib, &probes(&rib, 100, 3));
    }
    for (k, m) in [(0, 16), (33, 16), (16, 8)] {
        assert!(Miht::<u32>::compile(&rib, &Config { k: Some(k), m: Some(m) }).is_err());
    }
}

#[test]
fn stats_count_keys_and_routes() {
    let rib = testkit::table::<u32>(&[
        (0, 0, 1),
        (0x0A00_0000, 8, 2),
        (0x0A01_0000, 16, 3),
        (0x0A01_0200, 24, 4),
        (0x0B01_0200, 24, 5),
    ]);
    let s = compile(&rib).stats();
    assert_eq!((s.k, s.m, s.keys, s.height, s.trie_nodes), (16, 16, 2, 0, 5));
}

#[derive(Debug, Clone)]
enum Op<A: Address> {
    Insert(Prefix<A>, NextHop),
    Remove(usize),
}

fn arb_ops<A: Address>() -> impl Strategy<Value = Vec<Op<A>>> {
    let insert = testkit::arb_routes::<A>(2, 100_000)
        .prop_filter_map("one route", |v| v.first().map(|&(p, h)| Op::Insert(p, h)));
    prop::collection::vec(
        prop_oneof![3 => insert, 2 => any::<usize>().prop_map(Op::Remove)],
        0..200,
    )
}

fn replay<A: Address>(routes: Vec<(Prefix<A>, NextHop)>, ops: Vec<Op<A>>, seed: u64) {
    let mut rib: Rib<A> = routes.into_iter().collect();
    let mut fib = compile(&rib);
    for op in ops {
        let mark = rib.change_mark();
        match op {
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
        fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    }
    assert_eq!(fib.check(), rib.len());
    let fresh = compile(&rib);
    let addrs = probes(&rib, 300, seed);
    assert_same("updated", &fib, &rib, &addrs);
    assert_same("fresh", &fresh, &rib, &addrs);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(32)))]

    #[test]
    fn random_tables_match_the_rib(routes in testkit::arb_routes::<u32>(200, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        let fib = compile(&rib);
        prop_assert_eq!(fib.check(), rib.len());
        assert_same("random", &fib, &rib, &probes(&rib, 500, seed));
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(200, 100_000), seed in any::<u64>()) {
        let rib: Rib<u128> = routes.into_iter().collect();
        let fib = compile(&rib);
        prop_assert_eq!(fib.check(), rib.len());
        assert_same("random v6", &fib, &rib, &probes(&rib, 500, seed));
    }

    #[test]
    fn updates_equal_a_fresh_compile(routes in testkit::arb_routes::<u32>(100, 1000), ops in arb_ops::<u32>(), seed in any::<u64>()) {
        replay(routes, ops, seed);
    }

    #[test]
    fn ipv6_updates_equal_a_fresh_compile(routes in testkit::arb_routes::<u128>(100, 1000), ops in arb_ops::<u128>(), seed in any::<u64>()) {
        replay(routes, ops, seed);
    }
}

#[test]
fn many_keys_grow_and_shrink_the_tree() {
    // 5,000 /24s under distinct /16 keys: a B+ tree of height 2 or more, then all removed.
    let routes: Vec<(u32, u32, u32)> =
        (0..5000u32).map(|i| ((i.wrapping_mul(0x9E37) & 0xFFFF) << 16 | 0x100, 24, i)).collect();
    let mut rib = testkit::table(&routes);
    let mut fib = Miht::new(&Config::default()).unwrap();
    let all: Vec<_> = rib.iter().map(|(p, _)| p).collect();
    fib.apply_changes(&rib, &all).unwrap();
    assert!(fib.stats().height >= 2, "{:?}", fib.stats());
    assert_same("grown", &fib, &rib, &probes(&rib, 1000, 5));
    let mark = rib.change_mark();
    for p in &all {
        rib.remove(p);
    }
    fib.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    let s = fib.stats();
    assert_eq!((s.keys, s.height, s.trie_nodes), (0, 0, 0));
}
