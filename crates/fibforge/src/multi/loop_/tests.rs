//! LOOP tests: every table's answers equal its own RIB, after builds and after updates.

use super::*;
use crate::addr::Address;
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::prefix::{Prefix, Prefix4};
use crate::rib::Rib;
use proptest::prelude::*;
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub(super) fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

pub(super) fn rib4(routes: &[(&str, u32)]) -> Rib<u32> {
    routes.iter().map(|(p, h)| (p.parse::<Prefix4>().unwrap(), hop(*h))).collect()
}

/// Route boundaries of every table plus some fixed addresses.
pub(super) fn probes<A: Address>(ribs: &[Option<Rib<A>>], extra: &[A]) -> Vec<A> {
    let mut v = extra.to_vec();
    for rib in ribs.iter().flatten() {
        for (p, _) in rib.iter() {
            let (a, z) = (p.addr().to_u128(), p.last().to_u128());
            v.extend([a, z, a.wrapping_sub(1), z.wrapping_add(1)].map(A::from_u128));
        }
    }
    v
}

pub(super) fn assert_matches<A: Address>(l: &Loop<A>, extra: &[A]) {
    let reader = l.reader();
    for a in probes(&l.ribs, extra) {
        for (vrf, rib) in l.ribs.iter().enumerate() {
            let want = rib.as_ref().and_then(|r| r.lookup(a));
            assert_eq!(l.lookup(vrf as u32, a), want, "vrf {vrf} addr {}", a.to_std());
            assert_eq!(reader.lookup(vrf as u32, a), want);
        }
    }
}

#[test]
fn merged_tables_answer_like_their_ribs() {
    let t1 = rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3), ("10.1.2.128/25", 4)]);
    let t2 = rib4(&[("10.0.0.0/16", 5), ("10.1.2.3/32", 6), ("192.168.0.0/16", 7)]);
    let t3 = Rib::new();
    let l = Loop::build(vec![t1, t2, t3], &Config::default()).unwrap();
    assert_matches(&l, &[0, u32::MAX, 0x0A01_0203]);
    assert_eq!(l.lookup(3, 0x0A00_0000), None, "unknown VRF");
    assert!(l.memory_bytes() > 0);
}

#[test]
fn edge_tables() {
    for routes in
        [vec![], vec![("0.0.0.0/0", 1)], vec![("255.255.255.255/32", 1), ("0.0.0.0/32", 2)]]
    {
        let l = Loop::build(vec![rib4(&routes)], &Config::default()).unwrap();
        assert_matches(&l, &[0, 1, u32::MAX]);
    }
    let every: Vec<(String, u32)> = (0..=32)
        .map(|len| (Prefix4::new_masked(0xA5A5_A5A5, len).unwrap().to_string(), len))
        .collect();
    let routes: Vec<(&str, u32)> = every.iter().map(|(p, h)| (p.as_str(), *h)).collect();
    for group in [32, 64, 128] {
        let cfg = Config { group, ..Default::default() };
        let l = Loop::build(vec![rib4(&routes), rib4(&routes[..10])], &cfg).unwrap();
        assert_matches(&l, &[0xA5A5_A5A5, 0xA5A5_A5A4]);
    }
}

#[test]
fn ipv6_tables_down_to_128() {
    let p = |s: &str| s.parse::<Prefix<u128>>().unwrap();
    let t1: Rib<u128> =
        [(p("::/0"), hop(0)), (p("2001:db8::/32"), hop(1)), (p("2001:db8::1/128"), hop(2))]
            .into_iter()
            .collect();
    let t2: Rib<u128> =
        [(p("2001:db8::/126"), hop(3)), (p("2001:db8:0:1::/64"), hop(4))].into_iter().collect();
    let mut l = Loop::build(vec![t1, t2], &Config::default()).unwrap();
    assert_matches(&l, &[0, u128::MAX]);
    l.insert(1, p("2001:db8::2/127"), hop(5)).unwrap();
    l.remove(0, &p("2001:db8::1/128")).unwrap();
    assert_matches(&l, &[0, u128::MAX]);
}

#[test]
fn bad_shapes_are_rejected() {
    let bad =
        |strides: Vec<u32>, group| Config { strides: Some(strides), group, ..Default::default() };
    assert!(Loop::<u32>::build(vec![], &bad(vec![16, 8, 4], 64)).is_err());
    assert!(Loop::<u32>::build(vec![], &bad(vec![16, 8, 8], 48)).is_err());
    assert!(Loop::<u32>::build(vec![], &bad(vec![26, 6], 64)).is_err());
    assert!(Loop::<u32>::build(vec![], &bad(vec![8, 8, 8, 8], 64)).is_ok());
}

#[test]
fn table_insertion_and_deletion() {
    let t1 = rib4(&[("10.0.0.0/8", 1), ("10.1.0.0/24", 2)]);
    let mut l = Loop::build(vec![t1], &Config::default()).unwrap();
    let id = l.add_table(rib4(&[("10.1.0.0/25", 3)])).unwrap();
    assert_eq!(id, 1);
    assert_matches(&l, &[0x0A01_0001]);
    l.remove_table(0).unwrap();
    assert_eq!(l.lookup(0, 0x0A01_0001), None);
    assert_eq!(l.lookup(1, 0x0A01_0001), Some(hop(3)));
}

pub(super) fn arb_prefix() -> impl Strategy<Value = Prefix4> {
    (0u32..=32, prop_oneof![Just(0x0A00_0000u32), Just(0x0A01_0200), any::<u32>()])
        .prop_map(|(len, a)| Prefix4::new_masked(a, len).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]
    #[test]
    fn updates_equal_fresh_build(
        initial in prop::collection::vec((0u32..3, arb_prefix(), 0u32..6), 0..40),
        changes in prop::collection::vec((0u32..3, arb_prefix(), prop::option::of(0u32..6)), 0..40),
        group in prop_oneof![Just(32u32), Just(64), Just(128)],
        compress_pmt in any::<bool>(),
    ) {
        let mut tables = vec![Rib::new(), Rib::new(), Rib::new()];
        for (v, p, h) in initial {
            tables[v as usize].insert(p, hop(h));
        }
        let cfg = Config { group, headroom: 0.0, compress_pmt, ..Default::default() };
        let mut l = Loop::build(tables, &cfg).unwrap();
        for (v, p, h) in changes {
            match h {
                Some(h) => { l.insert(v, p, hop(h)).unwrap(); }
                None => { l.remove(v, &p).unwrap(); }
            }
        }
        let fresh = Loop::build(l.ribs.iter().map(|r| r.clone().unwrap()).collect(), &cfg).unwrap();
        for a in probes(&l.ribs, &[0, u32::MAX]) {
            for vrf in 0..3 {
                let want = l.ribs[vrf].as_ref().unwrap().lookup(a);
                prop_assert_eq!(l.lookup(vrf as u32, a), want);
                prop_assert_eq!(fresh.lookup(vrf as u32, a), want);
            }
        }
    }
}

#[test]
fn optimization1_announcements_equal_the_slow_path() {
    let tables = || {
        vec![
            rib4(&[("10.0.0.0/8", 1), ("10.1.2.128/25", 4), ("10.1.3.0/24", 2)]),
            rib4(&[("10.1.0.0/16", 5), ("10.1.4.7/32", 6)]),
        ]
    };
    let p = |s: &str| s.parse::<Prefix4>().unwrap();
    let changes = [
        (0, "10.1.5.0/24", 7),  // announcement of a leaf /24 on a PMT element
        (0, "10.1.5.0/24", 8),  // path change of it
        (0, "10.1.2.0/24", 9),  // not a leaf: covers 10.1.2.128/25
        (1, "10.1.4.0/24", 3),  // element is a chunk (10.1.4.7/32 below)
        (1, "10.2.0.0/16", 2),  // a leaf /16 on the root
        (0, "10.1.4.7/32", 1),  // a /32 in a chunk
        (1, "10.1.3.0/24", 11), // another table's column of an existing element
    ];
    for compress_pmt in [false, true] {
        let on = Config { compress_pmt, ..Default::default() };
        let off = Config { optimization1: false, ..on.clone() };
        let (mut a, mut b) =
            (Loop::build(tables(), &on).unwrap(), Loop::build(tables(), &off).unwrap());
        for &(vrf, prefix, h) in &changes {
            a.insert(vrf, p(prefix), hop(h)).unwrap();
            b.insert(vrf, p(prefix), hop(h)).unwrap();
            assert_matches(&a, &[0x0A01_0280, 0x0A01_0500]);
            assert_matches(&b, &[0x0A01_0280, 0x0A01_0500]);
        }
        assert_eq!(a.stats().modified_pointers, b.stats().modified_pointers);
    }
}

/// A long run of route updates (announcements, path changes, withdrawals) does not grow the
/// PortMapTable without bound: entries the updates leave unnamed are swept and reused. The
/// structure keeps answering like the RIBs and a fresh build, with a reader running.
///
/// The reserved room is large enough for every entry the run creates, so without the sweep
/// entries would be reclaimed only by a rebuild (which happens here only when other threads
/// hold the grace period up for long enough to exhaust the reserved chunk ids or words), and
/// the entries in use would grow with the run (about 2,300 instead of at most 2 × 74 + 512).
#[test]
fn long_update_run_reuses_unnamed_entries() {
    let tables = vec![
        rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2)]),
        rib4(&[("10.0.0.0/9", 3), ("10.128.0.0/9", 4)]),
        rib4(&[("10.1.0.0/16", 5), ("10.1.2.0/24", 6)]),
    ];
    let cfg = Config { headroom: 100.0, ..Default::default() };
    let mut l = Loop::build(tables.clone(), &cfg).unwrap();
    let reader = l.reader();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let checker = {
        let (stop, probes) = (stop.clone(), probes(&l.ribs, &[0x0A01_0203, 0x0A80_0001]));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for &a in &probes {
                    assert_eq!(reader.lookup(2, a), tables[2].lookup(a), "untouched table, {a:#x}");
                }
            }
        })
    };
    let mut rng = crate::verify::XorShift64::new(0x2545_F491_4F6C_DD1D);
    for step in 0..6_000u32 {
        let s = rng.next_u64();
        // Mostly /14 to /16 routes in 10.64.0.0/10 (root elements, replaced in place: the arena
        // is not used up), some /24 to /26 routes in 10.1.2.0/23 (a chunk's groups): few
        // entries are named at any time, while every announcement names a new next hop.
        let prefix = if s >> 58 == 0 {
            Prefix4::new_masked(0x0A01_0200 | (s as u32 & 0x1FF), 24 + (s >> 50) as u32 % 3)
        } else {
            Prefix4::new_masked(0x0A40_0000 | (s as u32 & 0x3F) << 16, 14 + (s >> 50) as u32 % 3)
        }
        .unwrap();
        let vrf = (s >> 40) as u32 % 2;
        if (s >> 32).is_multiple_of(3) {
            l.remove(vrf, &prefix).unwrap();
        } else {
            l.insert(vrf, prefix, hop(100 + step)).unwrap(); // a new composite, mostly
        }
        if step % 2_000 == 1_999 {
            assert_matches(&l, &[0x0A01_0203]);
        }
    }
    stop.store(true, Ordering::Relaxed);
    checker.join().expect("reader saw a wrong answer");
    super::tests_tables::settle(&mut l);
    let fresh = Loop::build(l.ribs.iter().map(|r| r.clone().unwrap()).collect(), &l.cfg).unwrap();
    let (now, want) = (l.stats().pmt_entries, fresh.stats().pmt_entries);
    assert!(now <= 2 * want + 2 * sweep::MIN_CREATED as usize, "{now} in use, fresh {want}");
    for a in probes(&l.ribs, &[0, u32::MAX]) {
        for vrf in 0..3 {
            assert_eq!(l.lookup(vrf, a), fresh.lookup(vrf, a), "vrf {vrf} addr {a:#x}");
        }
    }
    assert_matches(&l, &[0x0A01_0203]);
}

/// Every key of a batch (any length, VRFs out of range included) gets what a single lookup
/// and the RIB give, for every chunk form and PortMapTable layout, IPv4 and IPv6.
fn assert_batch_matches<A: Address>(l: &Loop<A>, extra: &[A]) {
    let vrfs = l.ribs.len() as u32 + 1;
    let keys: Vec<(VrfId, A)> =
        probes(&l.ribs, extra).into_iter().flat_map(|a| (0..vrfs).map(move |v| (v, a))).collect();
    for len in [keys.len(), 1, 15, 16, 17, 100] {
        let keys = &keys[..len.min(keys.len())];
        let mut out = vec![Some(hop(99)); keys.len()];
        l.reader().lookup_batch(keys, &mut out);
        for (&(vrf, a), &got) in keys.iter().zip(&out) {
            let rib = l.ribs.get(vrf as usize).and_then(|r| r.as_ref());
            assert_eq!(got, l.lookup(vrf, a), "vrf {vrf} addr {}", a.to_std());
            assert_eq!(got, rib.and_then(|r| r.lookup(a)), "vrf {vrf} addr {}", a.to_std());
        }
    }
}

#[test]
fn batch_lookups_equal_single_lookups_and_the_ribs() {
    let t1 = rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3), ("10.1.2.128/25", 4)]);
    let t2 = rib4(&[("10.0.0.0/16", 5), ("10.1.2.3/32", 6), ("192.168.0.0/16", 7)]);
    let t3: Rib<u32> = (0..60u32)
        .map(|i| {
            let a = 0x0A01_0000 | (i % 4) << 8 | (i * 4);
            (Prefix4::new_masked(a, 26 + i % 7).unwrap(), hop(i % 9))
        })
        .collect();
    for (group, sparse_limit, compress_pmt) in [(64, 3, false), (32, 0, true), (128, 1, false)] {
        let cfg = Config { group, sparse_limit, compress_pmt, ..Default::default() };
        let mut l = Loop::build(vec![t1.clone(), t2.clone(), t3.clone()], &cfg).unwrap();
        assert_batch_matches(&l, &[0, u32::MAX, 0x0A01_0203]);
        l.insert(1, "10.1.3.64/27".parse().unwrap(), hop(12)).unwrap();
        l.remove_table(0).unwrap();
        assert_batch_matches(&l, &[0, u32::MAX, 0x0A01_0203]);
    }
    let p = |s: &str| s.parse::<Prefix<u128>>().unwrap();
    let t6: Rib<u128> =
        [(p("::/0"), hop(0)), (p("2001:db8::/32"), hop(1)), (p("2001:db8::1/128"), hop(2))]
            .into_iter()
            .collect();
    let l6 = Loop::build(vec![t6.clone(), t6], &Config::default()).unwrap();
    assert_batch_matches(&l6, &[0, u128::MAX]);
    let mut empty = [None; 0];
    l6.reader().lookup_batch(&[], &mut empty);
}

/// QSBR readers: an online reader keeps a replaced structure alive until it reports a
/// quiescent state; an offline one never holds the writer up.
#[test]
fn an_online_reader_holds_replaced_structures_until_it_reports() {
    let mut l = Loop::build(vec![rib4(&[("10.0.0.0/8", 1)])], &Config::default()).unwrap();
    let mut reader = l.reader();
    reader.online();
    assert!(reader.is_online());
    l.add_table(rib4(&[("10.1.0.0/16", 2)])).unwrap(); // publishes a new structure
    l.collect();
    assert!(l.published.pending() > 0, "the online reader may still use the old structure");
    assert_eq!(reader.lookup(1, 0x0A01_0203), None, "it holds the structure it went online with");
    reader.quiescent();
    l.collect();
    assert_eq!(l.published.pending(), 0, "released by the report");
    assert_eq!(reader.lookup(1, 0x0A01_0203), Some(hop(2)), "and took the new one there");
    reader.offline();
    l.add_table(Rib::new()).unwrap();
    l.collect();
    assert_eq!(l.published.pending(), 0, "an offline reader holds nothing");
    assert_eq!(reader.lookup(0, 0x0A01_0203), Some(hop(1)));
}
