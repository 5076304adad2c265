//! Tests of the merged-trie comparators (`merged`, `overlap`, `braiding`, `bitmap_trie`):
//! every `(vrf, addr)` answer equals table `vrf`'s own RIB, single and batch, on hand-made
//! tables, the edge tables, generated sets, IPv6 and random sets; and the options' effects.

use super::braiding;
use super::braiding::{Braid, TrieBraiding};
use super::merged;
use super::merged::MergedTrie;
use super::overlap;
use super::overlap::TrieOverlap;
use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::algo::testkit::{edge_tables, hop, probes};
use crate::fib::BuildError;
use crate::multi::generate::{Perturbation, perturbed_tables};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::registry::{RegistryFamily, build_many, comparator_specs, many_info};
use crate::rib::Rib;
use crate::spec::AlgoSpec;
use proptest::prelude::*;

/// Every comparator and the options that change its layout.
const SPECS: &[&str] = &[
    "merged_trie:leafpush=off",
    "merged_trie:leafpush=on",
    "trie_overlap",
    "trie_overlap:fill=1,root=0",
    "trie_overlap:fill=0.25,root=8",
    "trie_overlap:stride=4,root=0",
    "trie_overlap:stride=8,root=16",
    "trie_braiding",
    "trie_braiding:braid=off",
    "trie_braiding:braid=greedy",
    "bitmap_trie",
];

fn built<A: RegistryFamily>(spec: &str, ribs: &[Rib<A>]) -> Box<dyn MultiLookup<A>> {
    let spec: AlgoSpec = spec.parse().unwrap();
    build_many(&spec, ribs).expect("a comparator").unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Probes from every table; each table checked against its own RIB, single and batch.
#[track_caller]
fn assert_matches<A: Address>(spec: &str, m: &dyn MultiLookup<A>, ribs: &[Rib<A>]) {
    let mut addrs: Vec<A> = ribs.iter().flat_map(|r| probes(r, 100, 9)).collect();
    addrs.extend([A::ZERO, A::from_u128(u128::MAX)]);
    assert_eq!(m.vrfs(), ribs.len(), "{spec}");
    for (vrf, rib) in ribs.iter().enumerate() {
        let keys: Vec<(VrfId, A)> = addrs.iter().map(|&a| (vrf as VrfId, a)).collect();
        let mut out = vec![None; keys.len()];
        m.lookup_batch(&keys, &mut out);
        for (&a, &got) in addrs.iter().zip(&out) {
            let want = rib.lookup(a);
            assert_eq!(m.lookup(vrf as VrfId, a), want, "{spec}: vrf {vrf} addr {}", a.to_std());
            assert_eq!(got, want, "{spec} batch: vrf {vrf} addr {}", a.to_std());
        }
    }
    assert_eq!(m.lookup(ribs.len() as VrfId, A::ZERO), None, "{spec}: unknown VRF");
}

fn check_all<A: RegistryFamily>(ribs: &[Rib<A>]) {
    check_specs(SPECS, ribs);
}

fn check_specs<A: RegistryFamily>(specs: &[&str], ribs: &[Rib<A>]) {
    for spec in specs {
        assert_matches(spec, &*built(spec, ribs), ribs);
    }
}

fn rib4(routes: &[(&str, u32)]) -> Rib<u32> {
    routes.iter().map(|(p, h)| (p.parse::<Prefix<u32>>().unwrap(), hop(*h))).collect()
}

#[test]
fn hand_made_tables() {
    let t1 = rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3), ("10.1.2.128/25", 4)]);
    let t2 = rib4(&[("10.0.0.0/16", 5), ("10.1.2.3/32", 6), ("192.168.0.0/16", 7)]);
    check_all(&[t1, t2, Rib::new()]);
}

#[test]
fn no_tables_empty_tables_default_routes() {
    check_all::<u32>(&[]);
    check_all::<u32>(&[Rib::new(), Rib::new()]);
    check_all(&[rib4(&[("0.0.0.0/0", 3)]), Rib::new(), rib4(&[("255.255.255.255/32", 1)])]);
}

/// Fixed strides are left out: the edge tables' scattered host routes would need a 2^8-word
/// node per trie level each (`stride_limit_is_an_error` checks that this is refused).
#[test]
fn edge_tables_merged_ipv4_and_ipv6() {
    let specs: Vec<&str> = SPECS.iter().copied().filter(|s| !s.contains("stride")).collect();
    check_specs(&specs, &edge_tables::<u32>().into_iter().map(|(_, r)| r).collect::<Vec<_>>());
    check_specs(&specs, &edge_tables::<u128>().into_iter().map(|(_, r)| r).collect::<Vec<_>>());
}

#[test]
fn stride_limit_is_an_error() {
    // 4,096 scattered IPv6 host routes at stride 16: each needs its own 2^16-word nodes.
    let rib: Rib<u128> = (0..1u128 << 12)
        .map(|i| {
            (
                Prefix::new(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835), 128)
                    .unwrap(),
                hop(1),
            )
        })
        .collect();
    let cfg = overlap::Config { stride: 16, ..Default::default() };
    let e = TrieOverlap::build(&[rib], &cfg).unwrap_err();
    assert!(matches!(e, BuildError::LimitExceeded { algo: "trie_overlap", .. }), "{e}");
}

#[test]
fn generated_sets() {
    let base: Rib<u32> =
        (0..3000u32).map(|i| (Prefix::new(i << 11, 21).unwrap(), hop(i % 9))).collect();
    check_all(&perturbed_tables(&base, 5, Perturbation::default(), 3));
    let base6: Rib<u128> = (0..1500u128)
        .map(|i| (Prefix::new(0x2001u128 << 112 | i << 80, 48).unwrap(), hop(i as u32 % 5)))
        .collect();
    check_all(&perturbed_tables(&base6, 4, Perturbation::default(), 7));
}

#[test]
fn bench_specs_build() {
    let ribs = vec![rib4(&[("10.0.0.0/8", 1)])];
    let specs: Vec<_> = comparator_specs().collect();
    assert_eq!(specs.len(), 7, "{specs:?}");
    for spec in specs {
        assert_matches(spec, &*built(spec, &ribs), &ribs);
    }
    assert!(!many_info("loop").unwrap().comparator, "not a comparator");
}

#[test]
fn options_are_checked() {
    for bad in [
        "merged_trie:leafpush=maybe",
        "trie_overlap:fill=0",
        "trie_overlap:fill=2",
        "trie_overlap:root=17",
        "trie_overlap:stride=40",
        "trie_braiding:x=1",
        "trie_braiding:braid=maybe",
        "bitmap_trie:a=b",
    ] {
        let spec: AlgoSpec = bad.parse().unwrap();
        let e = build_many::<u32>(&spec, &[]).unwrap().err().unwrap_or_else(|| panic!("{bad}"));
        assert!(matches!(e, BuildError::BadOption { .. }), "{bad}: {e}");
    }
}

/// Table 1's routes mirror table 0's (every bit inverted): braiding maps one onto the other.
#[test]
fn braiding_overlaps_mirrored_tables() {
    let routes: Vec<(u32, u32)> = vec![(0x0A00_0000, 8), (0x0A01_0000, 16), (0x0A01_8000, 17)];
    let t0: Rib<u32> =
        routes.iter().map(|&(a, l)| (Prefix::new_masked(a, l).unwrap(), hop(1))).collect();
    let t1: Rib<u32> =
        routes.iter().map(|&(a, l)| (Prefix::new_masked(!a, l).unwrap(), hop(2))).collect();
    let ribs = [t0, t1];
    let braided = TrieBraiding::build(&ribs, &braiding::Config::default()).unwrap();
    let plain = TrieBraiding::build(&ribs, &braiding::Config { braid: Braid::Off }).unwrap();
    let merged = MergedTrie::build(&ribs, &merged::Config::default()).unwrap();
    assert_eq!(plain.counts().0, merged.counts().0, "braid=off is the merged shape");
    assert_eq!(braided.counts().0, 18, "one path of 17 nodes below the root, shared");
    assert_eq!(plain.counts().0, 35, "two disjoint paths");
    assert!(braided.counts().2 > 0);
    assert_matches("trie_braiding", &braided, &ribs);
}

#[test]
fn overlap_levels_follow_the_fill_factor() {
    // Every /8: the fill rule makes the root one 256-way node over leaves.
    let full: Rib<u32> = (0..256u32).map(|i| (Prefix::new(i << 24, 8).unwrap(), hop(i))).collect();
    let ribs = [full];
    let lc = TrieOverlap::build(&ribs, &overlap::Config { root: 0, ..Default::default() }).unwrap();
    assert_eq!(lc.counts().0, 257, "root word + 256 leaves");
    let s2 = overlap::Config { root: 0, stride: 2, ..Default::default() };
    assert_eq!(TrieOverlap::build(&ribs, &s2).unwrap().counts().0, 1 + 4 + 16 + 64 + 256);
}

fn arb_set<A: Address>() -> impl Strategy<Value = Vec<Vec<(Prefix<A>, NextHop)>>> {
    proptest::collection::vec(crate::algo::testkit::arb_routes::<A>(30, 6), 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]
    #[test]
    fn random_sets_v4(set in arb_set::<u32>()) {
        let ribs: Vec<Rib<u32>> = set.into_iter().map(|r| r.into_iter().collect()).collect();
        check_all(&ribs);
    }

    #[test]
    fn random_sets_v6(set in arb_set::<u128>()) {
        let ribs: Vec<Rib<u128>> = set.into_iter().map(|r| r.into_iter().collect()).collect();
        check_all(&ribs);
    }
}
