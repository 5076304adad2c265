//! Expansion and dynamic-program tests: the paper's Figure 1, property tests against the RIB,
//! and the programs against brute force over every choice of levels.

use super::*;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use proptest::prelude::*;

fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

/// An IPv4 prefix from a bit string such as `"1000*"`.
fn bits(s: &str) -> Prefix<u32> {
    let b = s.trim_end_matches('*');
    let v = b.chars().fold(0u32, |acc, c| (acc << 1) | (c == '1') as u32);
    let addr = if b.is_empty() { 0 } else { v << (32 - b.len()) };
    Prefix::new(addr, b.len() as u32).unwrap()
}

#[test]
fn figure_1_expansion() {
    let db = [
        ("0*", 5),
        ("10*", 1),
        ("111*", 2),
        ("11001*", 3),
        ("1*", 4),
        ("1000*", 6),
        ("100000*", 7),
        ("1000000*", 8),
    ];
    let rib: Rib<u32> = db.iter().map(|&(p, h)| (bits(p), hop(h))).collect();
    let exp = expand(&rib, &Levels::new(&[2, 5, 7], 32).unwrap()).unwrap();
    let mut got: Vec<(Prefix<u32>, u32)> = exp.iter().map(|(p, h)| (p, h.index())).collect();
    let mut want: Vec<(Prefix<u32>, u32)> = [
        ("00*", 5),
        ("01*", 5),
        ("10*", 1),
        ("11*", 4),
        ("11100*", 2),
        ("11101*", 2),
        ("11110*", 2),
        ("11111*", 2),
        ("11001*", 3),
        ("10000*", 6),
        ("10001*", 6),
        ("1000001*", 7),
        ("1000000*", 8),
    ]
    .iter()
    .map(|&(p, h)| (bits(p), h))
    .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(expansion_count(&rib, exp.levels()).unwrap(), [4, 7, 2]);
}

#[test]
fn routes_longer_than_the_last_level_are_rejected() {
    let rib: Rib<u32> = [(bits("101*"), hop(0))].into_iter().collect();
    let e = expand(&rib, &Levels::new(&[2], 32).unwrap()).unwrap_err();
    assert!(e.to_string().contains("longer than the longest target length"), "{e}");
}

#[test]
fn default_route_expands_to_the_whole_level() {
    let rib: Rib<u128> = [(Prefix::DEFAULT_ROUTE, hop(0))].into_iter().collect();
    let l = Levels::new(&[128], 128).unwrap();
    assert_eq!(expansion_count(&rib, &l).unwrap(), [u128::MAX]);
    assert!(matches!(expand(&rib, &l), Err(crate::BuildError::LimitExceeded { .. })));
    let l = Levels::new(&[3, 128], 128).unwrap();
    let exp = expand(&rib, &l).unwrap();
    assert_eq!(exp.total(), 8);
    assert_eq!(exp.lookup(u128::MAX), Some(hop(0)));
}

/// Random IPv4 RIBs whose routes are at most `max_len` long (few distinct bits, so nesting
/// and capture are frequent).
pub(crate) fn small_rib(max_len: u32, max_routes: usize) -> impl Strategy<Value = Rib<u32>> {
    prop::collection::vec((any::<u32>(), 0..=max_len, 0u32..4), 0..max_routes).prop_map(|v| {
        v.into_iter().map(|(a, l, h)| (Prefix::new_masked(a, l).unwrap(), hop(h))).collect()
    })
}

fn levels_strategy(max: u32) -> impl Strategy<Value = Levels> {
    prop::collection::btree_set(0..max, 0..4).prop_map(move |s| {
        let mut v: Vec<u32> = s.into_iter().collect();
        v.push(max);
        Levels::new(&v, 32).unwrap()
    })
}

/// Addresses worth checking: every route's first and last address and their neighbours.
fn probes(rib: &Rib<u32>, extra: &[u32]) -> Vec<u32> {
    let mut v = extra.to_vec();
    for (p, _) in rib.iter() {
        v.extend([p.addr(), p.last(), p.addr().wrapping_sub(1), p.last().wrapping_add(1)]);
    }
    v
}

proptest! {
    #[test]
    fn expansion_answers_like_the_rib(
        rib in small_rib(12, 40),
        levels in levels_strategy(12),
        extra in prop::collection::vec(any::<u32>(), 20),
    ) {
        let exp = expand(&rib, &levels).unwrap();
        for a in probes(&rib, &extra) {
            prop_assert_eq!(exp.lookup(a), rib.lookup(a), "address {:#x}", a);
        }
        let counts = expansion_count(&rib, &levels).unwrap();
        let costs = ExpansionCosts::of(&rib);
        for (j, &l) in levels.lens().iter().enumerate() {
            prop_assert_eq!(exp.level(j).len() as u128, counts[j]);
            prop_assert!(exp.level(j).iter().all(|(p, _)| p.len() == l));
            prop_assert!(exp.level(j).windows(2).all(|w| w[0].0 < w[1].0));
            let prev = (j > 0).then(|| levels.lens()[j - 1]);
            prop_assert_eq!(costs.expanded(prev, l) as u128, counts[j]);
        }
    }

    #[test]
    fn depth_profile_counts_inner_one_bit_nodes(rib in small_rib(10, 40)) {
        let prof = DepthProfile::of(&rib);
        let trie = OneBitTrie::new(&rib);
        for d in 1..=32usize {
            let inner = (0..trie.len() as u32)
                .filter(|&id| trie.depth[id as usize] as usize == d && trie.has_children(id))
                .count() as u64;
            prop_assert_eq!(prof.nodes_at[d], inner, "depth {}", d);
        }
    }

    #[test]
    fn fixed_dp_is_optimal(rib in small_rib(8, 30), k in 1u32..5, max_stride in 1u32..9) {
        let prof = DepthProfile::of(&rib);
        let dp = FixedStrideDp::run(&prof, k, 4, max_stride);
        let brute = all_cut_sequences(prof.depth, k, max_stride)
            .into_iter()
            .map(|c| prof.entries(&Levels::new(&c, 32).unwrap()) * 4)
            .min();
        prop_assert_eq!(dp.bytes(k), brute);
        if let Some(l) = dp.levels(k) {
            prop_assert_eq!(Some(prof.entries(l) * 4), brute);
            prop_assert!(l.len() <= k as usize && l.last() == prof.depth);
        }
    }

    #[test]
    fn min_expansion_is_optimal(rib in small_rib(9, 30), k in 1u32..4) {
        let costs = ExpansionCosts::of(&rib);
        let d = costs.depth();
        let Some((best, levels)) = min_expansion_levels(&costs, k) else { unreachable!() };
        let brute = all_level_sets(d, k)
            .into_iter()
            .map(|l| expansion_count(&rib, &Levels::new(&l, 32).unwrap()).unwrap().iter().sum::<u128>())
            .min()
            .unwrap();
        prop_assert_eq!(best as u128, brute);
        let got: u128 = expansion_count(&rib, &levels).unwrap().iter().sum();
        prop_assert_eq!(got, brute);
    }
}

/// Every increasing cut sequence ending at `depth` with at most `k` cuts of stride
/// `1..=max_stride`.
pub(crate) fn all_cut_sequences(depth: u32, k: u32, max_stride: u32) -> Vec<Vec<u32>> {
    let mut out = vec![];
    let mut cur = vec![];
    fn rec(d: u32, depth: u32, k: u32, s: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if d == depth {
            out.push(cur.clone());
            return;
        }
        if k == 0 {
            return;
        }
        for e in d + 1..=(d + s).min(depth) {
            cur.push(e);
            rec(e, depth, k - 1, s, cur, out);
            cur.pop();
        }
    }
    rec(0, depth, k, max_stride, &mut cur, &mut out);
    out
}

/// Every set of at most `k` target lengths in `0..=depth` whose last one is `depth`.
fn all_level_sets(depth: u32, k: u32) -> Vec<Vec<u32>> {
    let mut out = vec![];
    for mask in 0u64..(1 << depth) {
        if mask.count_ones() < k {
            let mut v: Vec<u32> = (0..depth).filter(|&l| mask >> l & 1 == 1).collect();
            v.push(depth);
            out.push(v);
        }
    }
    out
}
