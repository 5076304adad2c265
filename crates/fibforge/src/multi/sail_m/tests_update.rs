//! SAIL_M update tests: after inserts and removes in several tables, every table answers as
//! its RIB and as a fresh build (on every route's first, last and next address), the chunks
//! in use and the live composites are a fresh build's, and the reference counts are exact.

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

/// The writer equals its RIBs and a fresh build of them, shape and bookkeeping included.
#[track_caller]
fn assert_fresh<A: Address>(w: &SailMWriter<A>, extra: &[Prefix<A>]) {
    let ribs: Vec<Rib<A>> = (0..w.vrfs() as VrfId).map(|v| w.rib(v).unwrap().clone()).collect();
    let fresh = SailM::build(&ribs, &sail::Config { width: Width::Wide }).unwrap();
    for a in probes(&ribs, extra) {
        for (vrf, rib) in ribs.iter().enumerate() {
            let want = rib.lookup(a);
            assert_eq!(w.lookup(vrf as VrfId, a), want, "vrf {vrf} addr {}", a.to_std());
            assert_eq!(fresh.lookup(vrf as VrfId, a), want, "fresh: vrf {vrf}");
        }
    }
    assert_eq!(w.chunks_in_use(), fresh.stats().chunks, "chunks in use");
    assert_eq!(w.stats().composites, fresh.stats().composites, "live composites");
    assert!(w.book_consistent(), "reference counts");
}

fn rib4(routes: &[(&str, u32)]) -> Rib<u32> {
    routes.iter().map(|(p, h)| (p.parse::<Prefix4>().unwrap(), hop(*h))).collect()
}

fn p4(s: &str) -> Prefix4 {
    s.parse().unwrap()
}

#[test]
fn chunks_appear_and_disappear_with_long_routes() {
    let t0 = rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2)]);
    let t1 = rib4(&[("10.1.0.0/16", 3)]);
    let mut w = SailMWriter::build(vec![t0, t1], &sail::Config::default()).unwrap();
    assert_eq!(w.insert(1, p4("10.1.2.3/32"), hop(4)).unwrap(), None);
    assert_eq!(w.last_update_path(), "in place");
    assert_eq!(w.chunks_in_use(), vec![1, 1]);
    assert_fresh(&w, &[]);
    assert_eq!(w.insert(0, p4("10.1.2.0/25"), hop(5)).unwrap(), None);
    assert_fresh(&w, &[]);
    assert_eq!(w.remove(1, &p4("10.1.2.3/32")).unwrap(), Some(hop(4)));
    assert_eq!(w.chunks_in_use(), vec![1, 1], "table 0's /25 keeps both chunks");
    assert_eq!(w.remove(0, &p4("10.1.2.0/25")).unwrap(), Some(hop(5)));
    assert_eq!(w.chunks_in_use(), vec![0, 0]);
    assert_fresh(&w, &[p4("10.1.2.3/32")]);
    // A short route relabels every leaf below it that no longer route of its table shadows.
    assert_eq!(w.insert(1, p4("10.0.0.0/7"), hop(6)).unwrap(), None);
    assert_eq!(w.insert(1, p4("10.0.0.0/7"), hop(7)).unwrap(), Some(hop(6)));
    assert_fresh(&w, &[]);
    assert_eq!(w.remove(0, &p4("0.0.0.0/0")).unwrap(), Some(hop(1)));
    assert_fresh(&w, &[p4("0.0.0.0/0")]);
    assert_eq!(w.remove(0, &p4("0.0.0.0/0")).unwrap(), None);
    assert_eq!(w.last_update_path(), "unchanged");
}

#[test]
fn bad_updates_are_refused_by_name() {
    let mut w = SailMWriter::build(vec![Rib::<u32>::new()], &sail::Config::default()).unwrap();
    let e = w.insert(1, p4("10.0.0.0/8"), hop(1)).unwrap_err().to_string();
    assert!(e.contains("VRF id 1"), "{e}");
    let mut w6 = SailMWriter::build(vec![Rib::<u128>::new()], &sail::Config::default()).unwrap();
    let long: Prefix<u128> = "2001:db8::1/128".parse().unwrap();
    let e = w6.insert(0, long, hop(1)).unwrap_err().to_string();
    assert!(e.contains("table 0") && e.contains("2001:db8::1/128"), "{e}");
    assert_eq!(w6.rib(0).unwrap().len(), 0, "a refused route is not in the RIB");
}

#[test]
fn ipv6_updates_down_to_64() {
    let t: Vec<Rib<u128>> = [("2001:db8::/32", 1), ("2001:db8:1::/48", 2)]
        .iter()
        .map(|&(p, h)| std::iter::once((p.parse::<Prefix<u128>>().unwrap(), hop(h))).collect())
        .collect();
    let mut w = SailMWriter::build(t, &sail::Config::default()).unwrap();
    let p64: Prefix<u128> = "2001:db8:1:2::/64".parse().unwrap();
    w.insert(0, p64, hop(3)).unwrap();
    w.insert(1, "2001:db8::/40".parse().unwrap(), hop(4)).unwrap();
    assert_fresh(&w, &[]);
    w.remove(0, &p64).unwrap();
    assert_fresh(&w, &[p64]);
}

#[test]
fn narrow_words_overflowing_rebuild_wide() {
    // 2^15 - 2 distinct next hops in /24s, plus the "no route" composite: 16-bit words hold
    // one more composite id, not two.
    let n = (1u32 << 15) - 2;
    let rib: Rib<u32> =
        (0..n).map(|i| (Prefix4::new(0x0A00_0000 | i << 8, 24).unwrap(), hop(i))).collect();
    let mut w = SailMWriter::build(vec![rib], &sail::Config::default()).unwrap();
    assert_eq!(w.stats().width_bits, 16);
    w.insert(0, p4("11.0.0.0/24"), hop(n)).unwrap();
    assert_eq!((w.last_update_path(), w.stats().width_bits), ("in place", 16));
    w.insert(0, p4("11.0.1.0/24"), hop(n + 1)).unwrap();
    assert_eq!((w.last_update_path(), w.stats().width_bits), ("rebuild", 32));
    assert_eq!(w.lookup(0, 0x0B00_0101), Some(hop(n + 1)));
    assert_eq!(w.lookup(0, 0x0A00_0101), Some(hop(1)));
    assert!(w.book_consistent());
}

/// A change: insert `(vrf, prefix, hop)`, or remove route `i % len` of table `vrf` (or a
/// random prefix when the table is empty).
#[derive(Clone, Debug)]
enum Change {
    Insert(u32, Prefix4, u32),
    RemoveExisting(u32, usize),
    Remove(u32, Prefix4),
}

fn arb_prefix() -> impl Strategy<Value = Prefix4> {
    let addr =
        prop_oneof![Just(0x0A00_0000u32), Just(0x0A01_0200), Just(0x0A01_0280), any::<u32>()];
    (0u32..=32, addr).prop_map(|(len, a)| Prefix4::new_masked(a, len).unwrap())
}

fn arb_change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => (0u32..3, arb_prefix(), 0u32..5).prop_map(|(v, p, h)| Change::Insert(v, p, h)),
        2 => (0u32..3, any::<usize>()).prop_map(|(v, i)| Change::RemoveExisting(v, i)),
        1 => (0u32..3, arb_prefix()).prop_map(|(v, p)| Change::Remove(v, p)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]
    #[test]
    fn updates_equal_a_fresh_build(
        initial in prop::collection::vec((0u32..3, arb_prefix(), 0u32..5), 0..30),
        changes in prop::collection::vec(arb_change(), 1..40),
    ) {
        let mut tables = vec![Rib::new(), Rib::new(), Rib::new()];
        for (v, p, h) in initial {
            tables[v as usize].insert(p, hop(h));
        }
        let mut w = SailMWriter::build(tables, &sail::Config::default()).unwrap();
        let mut gone = Vec::new();
        for c in changes {
            match c {
                Change::Insert(v, p, h) => { w.insert(v, p, hop(h)).unwrap(); }
                Change::RemoveExisting(v, i) => {
                    let rib = w.rib(v).unwrap();
                    let Some((p, h)) = rib.iter().nth(i % rib.len().max(1)) else { continue };
                    prop_assert_eq!(w.remove(v, &p).unwrap(), Some(h));
                    gone.push(p);
                }
                Change::Remove(v, p) => { w.remove(v, &p).unwrap(); gone.push(p); }
            }
        }
        assert_fresh(&w, &gone);
    }
}
