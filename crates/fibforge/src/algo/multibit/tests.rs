//! Multibit trie tests: every layout against the RIB (edge cases and property tests), the
//! dynamic programs against brute force over all stride choices, measured by building, and
//! the updatable trie after random update sequences against the RIB and a fresh compile.

use super::*;
use crate::Address;
use crate::algo::cpe::{CostModel, Levels, VarPlan};
use crate::fib::{Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use proptest::prelude::*;
use std::collections::HashMap;
use std::time::Duration;

fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

/// Every configuration worth checking for a table: both layouts, fixed and variable,
/// packed or not, a few level bounds and maximum strides.
fn configs(levels: &[u32], max_strides: &[Option<u32>]) -> Vec<Config> {
    let mut v = vec![];
    for &l in levels {
        for &max_stride in max_strides {
            for variable in [false, true] {
                for packed in [false, true] {
                    v.push(Config {
                        levels: Some(l),
                        variable,
                        packed,
                        max_stride,
                        leaf_pushed: true,
                    });
                }
            }
        }
    }
    v
}

/// First and last address of every route, their outside neighbours, and `extra`.
fn probes<A: Address>(rib: &Rib<A>, extra: &[A]) -> Vec<A> {
    let mut v = extra.to_vec();
    for (p, _) in rib.iter() {
        let (a, l) = (p.addr().to_u128(), p.last().to_u128());
        v.extend([p.addr(), p.last()]);
        v.extend([A::from_u128(a.wrapping_sub(1)), A::from_u128(l.wrapping_add(1))]);
    }
    v
}

fn check_against_rib<A: Address, F: Lookup<A>>(f: &F, rib: &Rib<A>, addrs: &[A], what: &str) {
    let mut batch = vec![None; addrs.len()];
    f.lookup_batch(addrs, &mut batch);
    for (i, &a) in addrs.iter().enumerate() {
        let want = rib.lookup(a);
        assert_eq!(f.lookup(a), want, "{what}: lookup {}", crate::addr::format_addr(a));
        assert_eq!(batch[i], want, "{what}: lookup_batch {}", crate::addr::format_addr(a));
    }
}

/// Builds both layouts for every config that fits and checks them against the RIB.
fn check_all<A: Address>(rib: &Rib<A>, cfgs: &[Config], extra: &[A]) {
    let addrs = probes(rib, extra);
    for cfg in cfgs {
        let what = format!("{cfg:?}");
        match LeafPushedTrie::compile(rib, cfg) {
            Ok(t) => {
                check_against_rib(&t, rib, &addrs, &format!("leaf-pushed {what}"));
                let s = t.stats();
                if cfg.packed {
                    assert!(s.node_bytes <= s.predicted_bytes, "{what}: {s:?}");
                } else {
                    assert_eq!(s.node_bytes, s.predicted_bytes, "{what}: {s:?}");
                }
                assert!(s.levels as u32 <= cfg.levels_for::<A>(), "{what}: {s:?}");
            }
            Err(e) => assert!(infeasible(rib, cfg), "{what}: {e}"),
        }
        match UpdatableTrie::compile(rib, cfg) {
            Ok(t) => {
                check_against_rib(&t, rib, &addrs, &format!("non-leaf-pushed {what}"));
                let s = t.stats();
                assert!(s.node_bytes <= s.predicted_bytes, "{what}: {s:?}");
            }
            Err(e) => assert!(infeasible(rib, cfg), "{what}: {e}"),
        }
    }
}

/// A build may only fail when the levels cannot reach the longest route.
fn infeasible<A: Address>(rib: &Rib<A>, cfg: &Config) -> bool {
    let longest = rib.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
    let stride = cfg.max_stride.unwrap_or(17).min(crate::algo::cpe::MAX_STRIDE);
    cfg.levels_for::<A>() * stride < longest
}

#[test]
fn edge_case_tables() {
    let cfgs = configs(&[1, 2, 4], &[None, Some(3)]);
    let extra4 = [0u32, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff];
    let empty: Rib<u32> = Rib::new();
    check_all(&empty, &cfgs, &extra4);
    let default_only: Rib<u32> = [(Prefix::DEFAULT_ROUTE, hop(3))].into_iter().collect();
    check_all(&default_only, &cfgs, &extra4);
    let hosts: Rib<u32> = [0u32, 1, u32::MAX, 0x0a00_0001]
        .iter()
        .enumerate()
        .map(|(i, &a)| (Prefix::host(a), hop(i as u32)))
        .collect();
    check_all(&hosts, &cfgs, &extra4);
    // a route at every length on one path, and the complementary branch at every length
    let every: Rib<u32> = (0..=32)
        .flat_map(|l| {
            let on = Prefix::new_masked(0xdead_beef, l).unwrap();
            let off = Prefix::new_masked(0xdead_beef ^ (1u32 << (32 - l.max(1))), l).unwrap();
            [(on, hop(l)), (off, hop(100 + l))]
        })
        .collect();
    check_all(&every, &configs(&[1, 3, 4, 8, 12], &[None, Some(5)]), &extra4);
}

#[test]
fn more_next_hops_than_16_bits() {
    // 70,000 distinct next hops on /24s plus covering /16s.
    let rib: Rib<u32> = (0..70_000u32)
        .map(|i| (Prefix::new(i << 8, 24).unwrap(), hop(i)))
        .chain((0..300u32).map(|i| (Prefix::new(i << 16, 16).unwrap(), hop(100_000 + i))))
        .collect();
    let extra: Vec<u32> = (0..2000u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let cfgs = vec![
        Config {
            levels: Some(3),
            variable: true,
            packed: true,
            max_stride: None,
            leaf_pushed: true,
        },
        Config {
            levels: Some(4),
            variable: false,
            packed: false,
            max_stride: None,
            leaf_pushed: true,
        },
    ];
    check_all(&rib, &cfgs, &extra);
}

#[test]
fn ipv6_edge_cases() {
    let routes = [("::/0", 0), ("::1/128", 1), ("2001:db8::/32", 2), ("2001:db8::/48", 3)];
    let mut rib: Rib<u128> = routes.iter().map(|&(p, h)| (p.parse().unwrap(), hop(h))).collect();
    for l in 0..=128u32 {
        rib.insert(
            Prefix::new_masked(0x2a00_1450_4001_0815_0000_0000_0000_200e, l).unwrap(),
            hop(10 + l),
        );
    }
    let extra = [0u128, 1, u128::MAX, 0x2001_0db8 << 96];
    check_all(&rib, &configs(&[6, 8, 12], &[None, Some(16)]), &extra);
    let host: Rib<u128> = [(Prefix::host(u128::MAX), hop(0))].into_iter().collect();
    check_all(&host, &configs(&[8], &[None]), &extra);
    let default_only: Rib<u128> = [(Prefix::DEFAULT_ROUTE, hop(1))].into_iter().collect();
    check_all(&default_only, &configs(&[1, 8], &[None]), &extra);
}

#[test]
fn hops_beyond_the_leaf_pushed_encoding_are_refused() {
    let rib: Rib<u32> =
        [(Prefix::new(0, 8).unwrap(), NextHop::from_index(1 << 31))].into_iter().collect();
    let e = LeafPushedTrie::compile(&rib, &Config::default()).err().unwrap();
    assert!(e.to_string().contains("next-hop id"), "{e}");
    assert!(UpdatableTrie::compile(&rib, &Config::default()).is_ok());
}

pub(crate) fn small_rib(max_len: u32, max_routes: usize) -> impl Strategy<Value = Rib<u32>> {
    crate::algo::cpe::tests::small_rib(max_len, max_routes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]

    #[test]
    fn tries_answer_like_the_rib(
        rib in small_rib(32, 60),
        levels in 1u32..7,
        max_stride in prop::option::of(2u32..12),
        extra in prop::collection::vec(any::<u32>(), 30),
    ) {
        check_all(&rib, &configs(&[levels], &[max_stride]), &extra);
    }

    #[test]
    fn variable_dp_is_optimal(rib in small_rib(6, 7), k in 1u32..4, packed in any::<bool>()) {
        let model = CostModel::leaf_pushed(packed);
        let cfg = Config { levels: Some(k), variable: true, packed, max_stride: None , leaf_pushed: true };
        let plan = make_plan(&rib, &cfg, model, 24).unwrap();
        let routes: Vec<Prefix<u32>> = rib.iter().map(|(p, _)| p).filter(|p| p.len() > 0).collect();
        let mut best = u64::MAX;
        for strides in all_var_plans(&routes, Prefix::DEFAULT_ROUTE, k) {
            let cost = if packed {
                strides.iter().map(|(q, &s)| model.node_bytes(s as u32, segments(&routes, q, s as u32))).sum()
            } else {
                let p = Plan {
                    strides: StridePlan::Variable(VarPlan::from_strides(strides, k, 0)),
                    levels: k,
                    predicted_bytes: 0,
                    dp_time: Duration::ZERO,
                };
                LeafPushedTrie::with_plan(&rib, &p, false).unwrap().stats().node_bytes
            };
            best = best.min(cost);
        }
        prop_assert_eq!(plan.predicted_bytes, best);
    }

    #[test]
    fn fixed_dp_is_optimal_when_built(rib in small_rib(7, 20), k in 1u32..4) {
        let cfg = Config { levels: Some(k), variable: false, packed: false, max_stride: None , leaf_pushed: true };
        let plan = make_plan(&rib, &cfg, CostModel::leaf_pushed(false), 24).unwrap();
        let depth = rib.iter().map(|(p, _)| p.len()).max().unwrap_or(0).max(1);
        let best = crate::algo::cpe::tests::all_cut_sequences(depth, k, 24)
            .into_iter()
            .map(|cuts| {
                let levels = Levels::new(&cuts, 32).unwrap();
                let p = Plan {
                    strides: StridePlan::Fixed { strides: levels.strides(), levels },
                    levels: k,
                    predicted_bytes: 0,
                    dp_time: Duration::ZERO,
                };
                LeafPushedTrie::with_plan(&rib, &p, false).unwrap().stats().node_bytes
            })
            .min()
            .unwrap();
        prop_assert_eq!(plan.predicted_bytes, best);
    }
}

/// Every assignment of strides to the nodes of a variable-stride trie of at most `k` levels
/// for `routes` below `node` (routes longer than `node`).
fn all_var_plans(
    routes: &[Prefix<u32>],
    node: Prefix<u32>,
    k: u32,
) -> Vec<HashMap<Prefix<u32>, u8>> {
    let below: Vec<Prefix<u32>> =
        routes.iter().copied().filter(|p| node.covers(p) && p.len() > node.len()).collect();
    let height = below.iter().map(|p| p.len() - node.len()).max().unwrap_or(0);
    if node.len() == 0 && height == 0 {
        return vec![HashMap::from([(node, 1)])];
    }
    if k == 0 {
        return vec![];
    }
    let mut out = vec![];
    for s in 1..=height {
        let end = node.len() + s;
        let mut children: Vec<Prefix<u32>> =
            below.iter().filter(|p| p.len() > end).map(|p| p.truncated(end)).collect();
        children.dedup();
        let mut partial = vec![HashMap::from([(node, s as u8)])];
        for c in children {
            let subs = all_var_plans(&below, c, k - 1);
            partial = partial
                .iter()
                .flat_map(|base| {
                    subs.iter()
                        .map(move |sub| base.iter().chain(sub).map(|(a, b)| (*a, *b)).collect())
                })
                .collect();
        }
        out.extend(partial);
    }
    out
}

/// Segments of node `q` with stride `s`, counted from the routes: one, plus one for every
/// distinct string at depths `d..d+s` below which a longer route lies.
fn segments(routes: &[Prefix<u32>], q: &Prefix<u32>, s: u32) -> u64 {
    let mut n = 1;
    for t in q.len()..q.len() + s {
        let mut inner: Vec<Prefix<u32>> =
            routes.iter().filter(|p| q.covers(p) && p.len() > t).map(|p| p.truncated(t)).collect();
        inner.sort();
        inner.dedup();
        n += inner.len() as u64;
    }
    n
}

#[derive(Clone, Debug)]
enum Op {
    Set(Prefix<u32>, u32),
    Remove(usize),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        (any::<u32>(), 0u32..=32, 0u32..5)
            .prop_map(|(a, l, h)| Op::Set(Prefix::new_masked(a, l).unwrap(), h)),
        (any::<u32>(), 16u32..=28, 0u32..5)
            .prop_map(|(a, l, h)| Op::Set(Prefix::new_masked(a & 0xff0f_ffff, l).unwrap(), h)),
        any::<usize>().prop_map(Op::Remove),
    ];
    prop::collection::vec(op, 1..80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]

    #[test]
    fn updates_match_the_rib_and_a_fresh_compile(
        start in small_rib(32, 40),
        ops in ops(),
        batch in 1usize..8,
        levels in 2u32..6,
        variable in any::<bool>(),
        packed in any::<bool>(),
        max_stride in 3u32..18,
        extra in prop::collection::vec(any::<u32>(), 20),
    ) {
        let cfg = Config { levels: Some(levels), variable, packed, max_stride: Some(max_stride) , leaf_pushed: true };
        prop_assume!(!infeasible(&start, &cfg));
        let mut rib = start;
        let mut trie = UpdatableTrie::compile(&rib, &cfg).unwrap();
        let mut mark = rib.change_mark();
        for chunk in ops.chunks(batch) {
            for op in chunk {
                match *op {
                    Op::Set(p, h) => { rib.insert(p, hop(h)); }
                    Op::Remove(i) => {
                        let routes: Vec<_> = rib.iter().map(|(p, _)| p).collect();
                        if !routes.is_empty() {
                            rib.remove(&routes[i % routes.len()]);
                        }
                    }
                }
            }
            let changed = rib.changes_since(mark).to_vec();
            trie.apply_changes(&rib, &changed).unwrap();
            mark = rib.change_mark();
            check_against_rib(&trie, &rib, &probes(&rib, &extra), &format!("{cfg:?} after updates"));
        }
        if !infeasible(&rib, &cfg) {
            let fresh = UpdatableTrie::compile(&rib, &cfg).unwrap();
            for a in probes(&rib, &extra) {
                prop_assert_eq!(trie.lookup(a), fresh.lookup(a));
            }
        }
        prop_assert_eq!(trie.stats().nodes, count_nodes(&trie));
    }
}

/// Nodes reachable from the root (checks the node counter and that no pointer dangles).
fn count_nodes(t: &UpdatableTrie<u32>) -> usize {
    let mut stack = vec![t.root];
    let mut n = 0;
    while let Some(ptr) = stack.pop() {
        n += 1;
        for i in 0..1u32 << t.stride(ptr) {
            let c = updatable::child_of(t.read(ptr, i));
            if c != 0 {
                stack.push(c);
            }
        }
    }
    n
}

/// A level count above the address width is refused at once, not planned level by level (the
/// fuzz inputs behind it are in `fuzz/regressions/algo_spec/`).
#[test]
fn more_levels_than_address_bits_are_refused() {
    let rib: Rib<u32> =
        [("10.0.0.0/8", 1)].iter().map(|(p, h)| (p.parse().unwrap(), hop(*h))).collect();
    for levels in [33, 411_117] {
        let cfg = Config { levels: Some(levels), ..Config::default() };
        let e = LeafPushedTrie::compile(&rib, &cfg).err().expect("an error");
        assert!(e.to_string().contains("levels must be in 1..=32"), "{e}");
    }
    let cfg = Config { levels: Some(32), ..Config::default() };
    assert!(LeafPushedTrie::compile(&rib, &cfg).is_ok(), "32 levels is allowed for IPv4");
}
