//! SAIL_M tests: every table's answers equal its own RIB (single and batch lookups), for edge
//! tables, sets of tables of different sizes, both word widths, IPv6 up to /64, and random sets.

use super::*;
use crate::algo::testkit::{edge_tables, hop, probes, table};
use crate::multi::generate::{Perturbation, perturbed_tables};
use crate::prefix::Prefix;
use proptest::prelude::*;

fn cfg(width: Width) -> sail::Config {
    sail::Config { width }
}

/// Probes from every table; each table checked against its own RIB, single and batch.
#[track_caller]
fn assert_matches<A: Address>(m: &SailM<A>, ribs: &[Rib<A>]) {
    let mut addrs: Vec<A> = ribs.iter().flat_map(|r| probes(r, 200, 9)).collect();
    addrs.extend([A::ZERO, A::from_u128(u128::MAX)]);
    assert_eq!(m.vrfs(), ribs.len());
    for (vrf, rib) in ribs.iter().enumerate() {
        let keys: Vec<(VrfId, A)> = addrs.iter().map(|&a| (vrf as VrfId, a)).collect();
        let mut out = vec![None; keys.len()];
        m.lookup_batch(&keys, &mut out);
        for (&a, &got) in addrs.iter().zip(&out) {
            let want = rib.lookup(a);
            assert_eq!(m.lookup(vrf as VrfId, a), want, "vrf {vrf} addr {}", a.to_std());
            assert_eq!(got, want, "batch: vrf {vrf} addr {}", a.to_std());
        }
    }
    let unknown = ribs.len() as VrfId;
    assert_eq!(m.lookup(unknown, A::ZERO), None, "unknown VRF");
}

fn rib4(routes: &[(&str, u32)]) -> Rib<u32> {
    routes.iter().map(|(p, h)| (p.parse::<Prefix<u32>>().unwrap(), hop(*h))).collect()
}

#[test]
fn merged_tables_answer_like_their_ribs() {
    let t1 = rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3), ("10.1.2.128/25", 4)]);
    let t2 = rib4(&[("10.0.0.0/16", 5), ("10.1.2.3/32", 6), ("192.168.0.0/16", 7)]);
    let ribs = vec![t1, t2, Rib::new()];
    for w in [Width::Auto, Width::Narrow, Width::Wide] {
        let m = SailM::build(&ribs, &cfg(w)).unwrap();
        assert_matches(&m, &ribs);
    }
    let s = SailM::build(&ribs, &cfg(Width::Auto)).unwrap().stats();
    assert_eq!(s.chunks, vec![1, 1], "10.1/16 and 10.1.2/24 are chunks of the merged trie");
    assert_eq!(s.width_bits, 16);
}

#[test]
fn edge_tables_alone_and_merged() {
    let tables: Vec<Rib<u32>> = edge_tables::<u32>().into_iter().map(|(_, r)| r).collect();
    for (name, rib) in edge_tables::<u32>() {
        let one = [rib];
        let m = SailM::build(&one, &sail::Config::default()).unwrap();
        assert_matches(&m, &one);
        let f = SailMFib::build(&one[0], &sail::Config::default()).unwrap();
        for a in probes(&one[0], 100, 3) {
            assert_eq!(f.lookup(a), one[0].lookup(a), "{name}");
        }
    }
    let m = SailM::build(&tables, &sail::Config::default()).unwrap();
    assert_matches(&m, &tables);
    assert_eq!(m.stats().width_bits, 32, "more than 2^15 composites need wide words");
    let e = SailM::build(&tables, &cfg(Width::Narrow)).unwrap_err();
    assert!(matches!(e, BuildError::LimitExceeded { algo: "sail_m", .. }), "{e}");
}

#[test]
fn no_tables_and_empty_tables() {
    let none: Vec<Rib<u32>> = Vec::new();
    let m = SailM::build(&none, &sail::Config::default()).unwrap();
    assert_eq!(m.lookup(0, 1), None);
    let empties: Vec<Rib<u32>> = vec![Rib::new(), Rib::new()];
    assert_matches(&SailM::build(&empties, &sail::Config::default()).unwrap(), &empties);
    let default_only = vec![rib4(&[("0.0.0.0/0", 3)]), Rib::new()];
    let m = SailM::build(&default_only, &sail::Config::default()).unwrap();
    assert_matches(&m, &default_only);
    assert_eq!(m.stats().composites, 1, "(3, none) everywhere");
}

#[test]
fn tables_of_different_sizes() {
    let base: Rib<u32> =
        (0..3000u32).map(|i| (Prefix::new(i << 11, 21).unwrap(), hop(i % 9))).collect();
    let mut ribs = perturbed_tables(&base, 5, Perturbation::default(), 3);
    ribs.push(rib4(&[("0.0.0.0/0", 1), ("1.2.3.4/32", 2)]));
    ribs.insert(0, table(&[(0x0000_0800u32, 21, 4), (0x0000_0801, 32, 5)]));
    let m = SailM::build(&ribs, &sail::Config::default()).unwrap();
    assert_matches(&m, &ribs);
}

#[test]
fn ipv6_up_to_64_and_longer_refused() {
    let tables: Vec<Rib<u128>> = edge_tables::<u128>()
        .into_iter()
        .map(|(_, r)| r.iter().filter(|(p, _)| p.len() <= 64).collect())
        .collect();
    let m = SailM::build(&tables, &sail::Config::default()).unwrap();
    assert_matches(&m, &tables);
    assert_eq!(m.stats().chunks.len(), 6, "levels 24..=64");
    let long: Rib<u128> = [("2001:db8::/32", 1), ("2001:db8::1/128", 2)]
        .iter()
        .map(|(p, h)| (p.parse::<Prefix<u128>>().unwrap(), hop(*h)))
        .collect();
    let e = SailM::build(&[Rib::new(), long], &sail::Config::default()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("table 1") && text.contains("2001:db8::1/128"), "{text}");
}

fn arb_set() -> impl Strategy<Value = Vec<Vec<(Prefix<u32>, NextHop)>>> {
    proptest::collection::vec(crate::algo::testkit::arb_routes::<u32>(40, 6), 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]
    #[test]
    fn random_sets_answer_like_their_ribs(set in arb_set()) {
        let ribs: Vec<Rib<u32>> = set.into_iter().map(|r| r.into_iter().collect()).collect();
        let m = SailM::build(&ribs, &sail::Config::default()).unwrap();
        assert_matches(&m, &ribs);
    }
}
