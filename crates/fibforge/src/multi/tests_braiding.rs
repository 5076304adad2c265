//! Tests of Trie Braiding's choices (`braid_choice`, `braiding`): the lookahead never adds
//! more nodes than the plain merge when one table is merged into a trie, `braid=optimal`
//! never has more nodes than `braid=off` over any number of tables, and every choice answers
//! each table's RIB. The random sets contain tables whose prefixes are another table's with
//! some bit positions inverted (what braiding can undo) plus random routes.

use super::braiding;
use super::braiding::{Braid, BraidOutcome, TrieBraiding};
use super::trie_build::merge;
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::algo::testkit::{arb_routes, hop};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use proptest::prelude::*;
use std::collections::BTreeSet;

fn braided<A: Address>(ribs: &[Rib<A>], braid: Braid) -> TrieBraiding<A> {
    TrieBraiding::build(ribs, &braiding::Config { braid }).unwrap()
}

/// Every table's answers on its own and the other tables' route boundaries, single and batch.
fn assert_answers<A: Address>(m: &TrieBraiding<A>, ribs: &[Rib<A>], what: &str) {
    let addrs: Vec<A> = ribs
        .iter()
        .flat_map(|r| r.iter().flat_map(|(p, _)| [p.addr(), p.last()]))
        .chain([A::ZERO, A::from_u128(u128::MAX)])
        .collect();
    let keys: Vec<(VrfId, A)> =
        (0..ribs.len()).flat_map(|v| addrs.iter().map(move |&a| (v as VrfId, a))).collect();
    let mut out = vec![None; keys.len()];
    m.lookup_batch(&keys, &mut out);
    for (&(v, a), &got) in keys.iter().zip(&out) {
        let want = ribs[v as usize].lookup(a);
        assert_eq!(m.lookup(v, a), want, "{what}: vrf {v} addr {}", a.to_std());
        assert_eq!(got, want, "{what} batch: vrf {v} addr {}", a.to_std());
    }
}

/// Tables built from `base`: table `i` inverts the prefix bits set in `masks[i]`, then adds
/// its own routes.
fn twisted<A: Address>(
    base: &[(Prefix<A>, NextHop)],
    masks: &[u128],
    extra: &[Vec<(Prefix<A>, NextHop)>],
) -> Vec<Rib<A>> {
    masks
        .iter()
        .zip(extra)
        .map(|(&mask, own)| {
            let mut rib: Rib<A> = base
                .iter()
                .map(|&(p, h)| {
                    let a = A::from_u128(p.addr().to_u128() ^ mask);
                    (Prefix::new_masked(a, p.len()).unwrap(), h)
                })
                .collect();
            for &(p, h) in own {
                rib.insert(p, h);
            }
            rib
        })
        .collect()
}

#[test]
fn optimal_undoes_a_mirror_greedy_may_not() {
    // Table 1 is table 0 with every bit inverted: one shared path of the longest route.
    let t0: Rib<u32> = [(0x0A00_0000u32, 8), (0x0A01_0000, 16), (0x0A01_8000, 17)]
        .iter()
        .map(|&(a, l)| (Prefix::new_masked(a, l).unwrap(), hop(1)))
        .collect();
    let t1: Rib<u32> =
        t0.iter().map(|(p, _)| (Prefix::new_masked(!p.addr(), p.len()).unwrap(), hop(2))).collect();
    let ribs = [t0, t1];
    let opt = braided(&ribs, Braid::Optimal);
    assert_eq!(opt.counts().0, 18, "root + 17 shared nodes");
    assert_eq!(braided(&ribs, Braid::Off).counts().0, 35, "two disjoint paths");
    assert_answers(&opt, &ribs, "mirror");
    let o = opt.outcome();
    assert_eq!((o.tables, o.exact, o.kept_braided), (2, 2, true), "small tables: exact");
    assert_eq!(o.to_string(), "exact 2/2, braided kept");
    assert_eq!(braided(&ribs, Braid::Off).outcome().to_string(), "off");
}

#[test]
fn the_outcome_says_which_program_answered() {
    let o = BraidOutcome { braid: Braid::Optimal, tables: 7, exact: 2, kept_braided: false };
    assert_eq!(o.to_string(), "exact 2/7 (lookahead 5), plain kept");
    let greedy = BraidOutcome { braid: Braid::Greedy, ..o };
    assert_eq!(greedy.to_string(), "greedy");
}

#[test]
fn identical_tables_add_no_node() {
    let base: Rib<u32> = (0..500u32)
        .map(|i| (Prefix::new_masked(i.wrapping_mul(0x9E37_79B9), 8 + i % 17).unwrap(), hop(i % 5)))
        .collect();
    let one = braided(std::slice::from_ref(&base), Braid::Off).counts().0;
    let ribs = [base.clone(), base.clone(), base];
    for b in [Braid::Optimal, Braid::Greedy, Braid::Off] {
        let m = braided(&ribs, b);
        assert_answers(&m, &ribs, "identical");
        if b != Braid::Greedy {
            assert_eq!(m.counts().0, one, "{b:?}: copies share every node");
        }
    }
}

fn arb_twisted<A: Address>() -> impl Strategy<Value = Vec<Rib<A>>> {
    let tables = 2..6usize;
    (arb_routes::<A>(40, 6), tables).prop_flat_map(|(base, n)| {
        let masks = proptest::collection::vec(
            prop_oneof![Just(0u128), any::<u128>(), any::<u8>().prop_map(|x| (x as u128) << 120)],
            n,
        );
        let extra = proptest::collection::vec(arb_routes::<A>(8, 6), n);
        (masks, extra).prop_map(move |(masks, extra)| {
            let masks: Vec<u128> = masks.iter().map(|m| m >> (128 - A::BITS)).collect();
            twisted(&base, &masks, &extra)
        })
    })
}

fn check_invariants<A: Address>(ribs: &[Rib<A>]) {
    // Two tables: one merge step, no fallback involved.
    let pair = &ribs[..2];
    let (opt, off) = (merge(pair, Braid::Optimal), merge(pair, Braid::Off));
    assert!(
        opt.child.len() <= off.child.len(),
        "lookahead {} > off {}",
        opt.child.len(),
        off.child.len()
    );
    let off = braided(ribs, Braid::Off);
    for b in [Braid::Optimal, Braid::Greedy] {
        let m = braided(ribs, b);
        if b == Braid::Optimal {
            assert!(
                m.counts().0 <= off.counts().0,
                "optimal {} > off {}",
                m.counts().0,
                off.counts().0
            );
        }
        assert_answers(&m, ribs, &format!("{b:?}"));
    }
    assert_answers(&off, ribs, "off");
}

/// The first `l` bits of `a`.
fn mask(a: u32, l: u32) -> u32 {
    if l == 0 { 0 } else { a & (u32::MAX << (32 - l)) }
}

/// Every trie node `(bits, len)` on the paths of `routes` (IPv4 `(addr, len)`), root included.
fn path_nodes(routes: &[(u32, u32)]) -> BTreeSet<(u32, u32)> {
    routes.iter().flat_map(|&(a, l)| (0..=l).map(move |d| (mask(a, d), d))).collect()
}

/// The fewest shared nodes over every braiding of `t1`'s trie onto `t0`'s, by enumeration.
fn brute_force(t0: &[(u32, u32)], t1: &[(u32, u32)]) -> usize {
    let base = path_nodes(t0);
    // Nodes with a child: the only ones whose bit changes anything.
    let inner: Vec<(u32, u32)> = path_nodes(t1)
        .into_iter()
        .filter(|&(a, d)| t1.iter().any(|&(b, l)| l > d && path_nodes(&[(b, l)]).contains(&(a, d))))
        .collect();
    (0..1u32 << inner.len())
        .map(|set| {
            let moved: Vec<(u32, u32)> = t1
                .iter()
                .map(|&(a, l)| {
                    let flips = (0..l).filter(|&d| {
                        inner
                            .iter()
                            .position(|&n| n == (mask(a, d), d))
                            .is_some_and(|i| set >> i & 1 == 1)
                    });
                    (flips.fold(a, |b, d| b ^ (1 << (31 - d))), l)
                })
                .collect();
            base.union(&path_nodes(&moved)).count()
        })
        .min()
        .unwrap()
}

fn short_routes() -> impl Strategy<Value = Vec<(u32, u32)>> {
    proptest::collection::vec((any::<u8>(), 1..=4u32), 1..6)
        .prop_map(|v| v.into_iter().map(|(x, l)| ((x as u32) << 24, l)).collect())
}

fn rib_of(routes: &[(u32, u32)]) -> Rib<u32> {
    routes.iter().map(|&(a, l)| (Prefix::new_masked(a, l).unwrap(), hop(1))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]
    /// Two small tables: the exact program finds the fewest nodes any braiding gives.
    #[test]
    fn exact_program_is_optimal(t0 in short_routes(), t1 in short_routes()) {
        let ribs = [rib_of(&t0), rib_of(&t1)];
        let m = merge(&ribs, Braid::Optimal);
        prop_assert_eq!(m.exact, 2, "both tables within the budget");
        prop_assert_eq!(m.child.len(), brute_force(&t0, &t1));
        assert_answers(&braided(&ribs, Braid::Optimal), &ribs, "exact");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]
    #[test]
    fn optimal_never_above_off_v4(ribs in arb_twisted::<u32>()) {
        check_invariants(&ribs);
    }

    #[test]
    fn optimal_never_above_off_v6(ribs in arb_twisted::<u128>()) {
        check_invariants(&ribs);
    }
}
