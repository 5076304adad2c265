//! Merged Trie updates: after random inserts and removes in several tables, every table
//! answers as its RIB and as a fresh build (on every route's first, last and next address),
//! the trie holds a fresh build's node and vector counts, and the reference counts are exact.

use super::*;
use crate::algo::testkit::hop;
use crate::prefix::{Prefix, Prefix4};
use proptest::prelude::*;

/// Route boundaries of every table plus the ends of the address space.
fn probes<A: Address>(ribs: &[Rib<A>], extra: &[Prefix<A>]) -> Vec<A> {
    let mut v = vec![A::ZERO, A::from_u128(u128::MAX)];
    let routes = ribs.iter().flat_map(|r| r.iter().map(|(p, _)| p));
    for p in routes.chain(extra.iter().copied()) {
        let (a, z) = (p.addr().to_u128(), p.last().to_u128());
        v.extend([a, z, a.wrapping_sub(1), z.wrapping_add(1)].map(A::from_u128));
    }
    v
}

/// The writer equals `ribs` and a fresh build of them, counts and bookkeeping included.
#[track_caller]
fn assert_fresh<A: Address>(w: &MergedWriter<A>, ribs: &[Rib<A>], extra: &[Prefix<A>]) {
    let fresh = MergedTrie::build(ribs, &Config::default()).unwrap();
    for a in probes(ribs, extra) {
        for (vrf, rib) in ribs.iter().enumerate() {
            let want = rib.lookup(a);
            assert_eq!(w.lookup(vrf as VrfId, a), want, "vrf {vrf} addr {}", a.to_std());
            assert_eq!(fresh.lookup(vrf as VrfId, a), want, "fresh: vrf {vrf}");
        }
    }
    assert_eq!(w.counts(), fresh.counts(), "nodes in use, live vectors");
    assert!(w.consistent(), "reference counts");
}

fn p4(s: &str) -> Prefix4 {
    s.parse().unwrap()
}

#[test]
fn nodes_appear_and_go_with_their_routes() {
    let t0: Rib<u32> = [(p4("10.0.0.0/8"), hop(1))].into_iter().collect();
    let mut ribs = vec![t0, Rib::new()];
    let mut w = MergedWriter::build(&ribs, &Config::default()).unwrap();
    assert_eq!(w.counts(), (9, 2));
    assert_eq!(w.insert(1, p4("10.1.2.0/24"), hop(2)).unwrap(), None);
    ribs[1].insert(p4("10.1.2.0/24"), hop(2));
    assert_eq!(w.counts(), (25, 3));
    assert_eq!(w.insert(0, p4("10.1.2.0/24"), hop(3)).unwrap(), None);
    ribs[0].insert(p4("10.1.2.0/24"), hop(3));
    assert_fresh(&w, &ribs, &[]);
    assert_eq!(w.remove(1, &p4("10.1.2.0/24")).unwrap(), Some(hop(2)));
    ribs[1].remove(&p4("10.1.2.0/24"));
    assert_eq!(w.counts(), (25, 3), "table 0's /24 keeps the path");
    assert_eq!(w.remove(0, &p4("10.1.2.0/24")).unwrap(), Some(hop(3)));
    ribs[0].remove(&p4("10.1.2.0/24"));
    assert_eq!(w.counts(), (9, 2), "the path below the /8 is freed");
    assert_fresh(&w, &ribs, &[p4("10.1.2.0/24")]);
    assert_eq!(w.remove(0, &p4("10.1.2.0/24")).unwrap(), None, "absent");
    assert_eq!(w.remove(0, &p4("11.0.0.0/8")).unwrap(), None, "no path");
    assert_eq!(w.remove(0, &p4("10.0.0.0/8")).unwrap(), Some(hop(1)));
    assert_eq!(w.counts(), (1, 1), "the root stays");
    let e = w.insert(2, p4("10.0.0.0/8"), hop(1)).unwrap_err().to_string();
    assert!(e.contains("VRF id 2"), "{e}");
    let pushed = Config { leaf_push: true };
    let e = MergedWriter::build(&ribs, &pushed).unwrap_err().to_string();
    assert!(e.contains("leafpush=off"), "{e}");
}

#[test]
fn ipv6_and_default_routes() {
    let p6 = |s: &str| s.parse::<Prefix<u128>>().unwrap();
    let mut ribs = vec![Rib::<u128>::new(), Rib::new()];
    let mut w = MergedWriter::build(&ribs, &Config::default()).unwrap();
    for (v, p, h) in [(0, "::/0", 1), (1, "2001:db8::/32", 2), (1, "2001:db8::1/128", 3)] {
        w.insert(v, p6(p), hop(h)).unwrap();
        ribs[v as usize].insert(p6(p), hop(h));
    }
    assert_fresh(&w, &ribs, &[]);
    w.remove(1, &p6("2001:db8::/32")).unwrap();
    ribs[1].remove(&p6("2001:db8::/32"));
    assert_fresh(&w, &ribs, &[p6("2001:db8::/32")]);
}

fn arb_prefix() -> impl Strategy<Value = Prefix4> {
    let addr =
        prop_oneof![Just(0x0A00_0000u32), Just(0x0A01_0200), Just(0x0A01_0280), any::<u32>()];
    (0u32..=32, addr).prop_map(|(len, a)| Prefix4::new_masked(a, len).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]
    #[test]
    fn updates_equal_a_fresh_build(
        initial in prop::collection::vec((0u32..3, arb_prefix(), 0u32..5), 0..30),
        changes in prop::collection::vec(
            (0u32..3, arb_prefix(), prop::option::of(0u32..5), any::<usize>()), 1..40),
    ) {
        let mut ribs = vec![Rib::new(), Rib::new(), Rib::new()];
        for (v, p, h) in initial {
            ribs[v as usize].insert(p, hop(h));
        }
        let mut w = MergedWriter::build(&ribs, &Config::default()).unwrap();
        let mut gone = Vec::new();
        for (v, p, h, i) in changes {
            let rib = &mut ribs[v as usize];
            match h {
                Some(h) => prop_assert_eq!(w.insert(v, p, hop(h)).unwrap(), rib.insert(p, hop(h))),
                None => {
                    // Half the withdrawals hit an existing route.
                    let p = match rib.iter().nth(i % rib.len().max(1)) {
                        Some((q, _)) if i % 2 == 0 => q,
                        _ => p,
                    };
                    prop_assert_eq!(w.remove(v, &p).unwrap(), rib.remove(&p));
                    gone.push(p);
                }
            }
        }
        assert_fresh(&w, &ribs, &gone);
    }
}
