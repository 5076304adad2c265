//! RIB tests: unit cases and property tests against a linear-scan model.

use super::*;
use crate::prefix::Prefix4;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn p4(s: &str) -> Prefix4 {
    s.parse().unwrap()
}

fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

#[test]
fn insert_get_replace_remove() {
    let mut rib = Rib::new();
    assert_eq!(rib.insert(p4("10.0.0.0/8"), hop(1)), None);
    assert_eq!(rib.insert(p4("10.1.0.0/16"), hop(2)), None);
    assert_eq!(rib.insert(p4("10.0.0.0/8"), hop(3)), Some(hop(1)));
    assert_eq!(rib.len(), 2);
    assert_eq!(rib.get(&p4("10.0.0.0/8")), Some(hop(3)));
    assert_eq!(rib.get(&p4("10.0.0.0/9")), None);
    assert_eq!(rib.lookup(0x0A01_0203), Some(hop(2)));
    assert_eq!(rib.lookup(0x0A02_0203), Some(hop(3)));
    assert_eq!(rib.lookup(0x0B00_0000), None);
    assert_eq!(rib.remove(&p4("10.1.0.0/16")), Some(hop(2)));
    assert_eq!(rib.remove(&p4("10.1.0.0/16")), None);
    assert_eq!(rib.lookup(0x0A01_0203), Some(hop(3)));
    rib.check_invariants();
}

#[test]
fn default_and_host_routes() {
    let mut rib = Rib::new();
    rib.insert(p4("0.0.0.0/0"), hop(0));
    rib.insert(p4("255.255.255.255/32"), hop(1));
    rib.insert(p4("0.0.0.0/32"), hop(2));
    assert_eq!(rib.lookup(u32::MAX), Some(hop(1)));
    assert_eq!(rib.lookup(0), Some(hop(2)));
    assert_eq!(rib.lookup(1), Some(hop(0)));
    let mut v6: Rib<u128> = Rib::new();
    v6.insert("::/0".parse().unwrap(), hop(0));
    v6.insert("::1/128".parse().unwrap(), hop(1));
    assert_eq!(v6.lookup(1), Some(hop(1)));
    assert_eq!(v6.lookup(2), Some(hop(0)));
}

#[test]
fn covering_and_covered_queries() {
    let rib: Rib<u32> = ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "11.0.0.0/8"]
        .iter()
        .enumerate()
        .map(|(i, s)| (p4(s), hop(i as u32)))
        .collect();
    let cov: Vec<_> = rib.covering(&p4("10.1.2.128/25")).map(|(p, _)| p.to_string()).collect();
    assert_eq!(cov, ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24"]);
    let sub: Vec<_> = rib.covered(&p4("10.0.0.0/8")).map(|(p, _)| p.to_string()).collect();
    assert_eq!(sub, ["10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24"]);
    let sub: Vec<_> = rib.covered(&p4("10.0.0.0/15")).map(|(p, _)| p.to_string()).collect();
    assert_eq!(sub, ["10.1.0.0/16", "10.1.2.0/24"]);
    assert_eq!(rib.covered(&p4("12.0.0.0/8")).count(), 0);
    assert_eq!(rib.longest_covering(&p4("10.1.3.0/24")).unwrap().0, p4("10.1.0.0/16"));
}

#[test]
fn change_log_records_effective_changes() {
    let mut rib = Rib::new();
    let m0 = rib.change_mark();
    rib.insert(p4("10.0.0.0/8"), hop(1));
    let m1 = rib.change_mark();
    rib.insert(p4("10.0.0.0/8"), hop(1)); // no change
    rib.remove(&p4("11.0.0.0/8")); // absent
    assert!(rib.changes_since(m1).is_empty());
    rib.insert(p4("10.0.0.0/8"), hop(2));
    rib.remove(&p4("10.0.0.0/8"));
    assert_eq!(rib.changes_since(m0).len(), 3);
    rib.trim_changes(m1);
    assert_eq!(rib.changes_since(m0).len(), 2);
    assert_eq!(rib.changes_since(rib.change_mark()).len(), 0);
}

#[test]
fn depth_histogram_of_small_table() {
    let rib: Rib<u32> = [(p4("0.0.0.0/1"), hop(0))].into_iter().collect();
    let h = rib.depth_histogram();
    assert_eq!(h.by_matched_len[1], 0.5);
    assert_eq!(h.unmatched, 0.5);
    let total: f64 = h.by_depth.iter().sum();
    assert!((total - 1.0).abs() < 1e-12);
    let rib: Rib<u32> = [(p4("10.0.0.0/8"), hop(0))].into_iter().collect();
    let h = rib.depth_histogram();
    assert!((h.by_depth.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(h.by_depth[8], 1.0 / 256.0);
    assert_eq!(h.by_depth[0], 0.5);
}

/// A linear-scan model of a routing table.
#[derive(Default)]
struct Model(BTreeMap<Prefix4, NextHop>);

impl Model {
    fn lookup(&self, a: u32) -> Option<(Prefix4, NextHop)> {
        self.0
            .iter()
            .filter(|(p, _)| p.contains(a))
            .max_by_key(|(p, _)| p.len())
            .map(|(p, h)| (*p, *h))
    }
}

#[derive(Debug, Clone)]
enum Op {
    Insert(Prefix4, u32),
    Remove(Prefix4),
}

fn arb_prefix() -> impl Strategy<Value = Prefix4> {
    // Few distinct top bits so that prefixes nest and collide often.
    (0u32..=32, prop_oneof![Just(0u32), Just(0x0A00_0000), any::<u32>(), 0u32..16])
        .prop_map(|(len, a)| Prefix4::new_masked(a, len).unwrap())
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (arb_prefix(), 0u32..8).prop_map(|(p, h)| Op::Insert(p, h)),
        1 => arb_prefix().prop_map(Op::Remove),
    ]
}

proptest! {
    #[test]
    fn rib_matches_linear_model(ops in prop::collection::vec(arb_op(), 0..120), probes in prop::collection::vec(any::<u32>(), 32)) {
        let mut rib = Rib::new();
        let mut model = Model::default();
        for op in &ops {
            match *op {
                Op::Insert(p, h) => prop_assert_eq!(rib.insert(p, hop(h)), model.0.insert(p, hop(h))),
                Op::Remove(p) => prop_assert_eq!(rib.remove(&p), model.0.remove(&p)),
            }
        }
        rib.check_invariants();
        prop_assert_eq!(rib.len(), model.0.len());
        let ordered: Vec<_> = rib.iter().collect();
        let expected: Vec<_> = model.0.iter().map(|(p, h)| (*p, *h)).collect();
        prop_assert_eq!(ordered, expected);
        let mut addrs = probes.clone();
        addrs.extend(model.0.keys().flat_map(|p| [p.addr(), p.last(), p.addr().wrapping_sub(1), p.last().wrapping_add(1)]));
        for a in addrs {
            prop_assert_eq!(rib.longest_match(a), model.lookup(a));
        }
        for p in model.0.keys().chain(ops.iter().map(|o| match o { Op::Insert(p, _) | Op::Remove(p) => p })) {
            prop_assert_eq!(rib.get(p), model.0.get(p).copied());
            let cov: Vec<_> = rib.covering(p).collect();
            let mut want: Vec<_> = model.0.iter().filter(|(q, _)| q.covers(p)).map(|(q, h)| (*q, *h)).collect();
            want.sort_by_key(|(q, _)| q.len());
            prop_assert_eq!(cov, want);
            let sub: Vec<_> = rib.covered(p).collect();
            let want: Vec<_> = model.0.iter().filter(|(q, _)| p.covers(q)).map(|(q, h)| (*q, *h)).collect();
            prop_assert_eq!(&sub, &want);
            // One descent: the longest strictly covering route, then the routes inside.
            let (outer, root) = rib.region_root(p);
            let strict = model.0.iter().filter(|(q, _)| q.covers(p) && q.len() < p.len());
            prop_assert_eq!(outer, strict.max_by_key(|(q, _)| q.len()).map(|(_, h)| *h));
            let (mut visited, mut stack) = (Vec::new(), vec![NIL]);
            rib.visit_subtree(root, &mut stack, |q, h| visited.push((q, h)));
            prop_assert_eq!(visited, want);
        }
        let ranges = rib.ranges();
        prop_assert_eq!(ranges[0].start, 0);
        for (i, r) in ranges.iter().enumerate() {
            let end = ranges.get(i + 1).map(|n| n.start - 1).unwrap_or(u32::MAX);
            prop_assert!(r.start <= end);
            prop_assert_eq!(rib.lookup(r.start), r.hop);
            prop_assert_eq!(rib.lookup(end), r.hop);
            if i > 0 {
                prop_assert_ne!(ranges[i - 1].hop, r.hop);
            }
        }
        let h = rib.depth_histogram();
        prop_assert!((h.by_depth.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        prop_assert!((h.by_matched_len.iter().sum::<f64>() + h.unmatched - 1.0).abs() < 1e-9);
    }
}

proptest! {
    #[test]
    fn ranges_within_a_region_partition_it(ops in prop::collection::vec(arb_op(), 0..80), regions in prop::collection::vec(arb_prefix(), 1..8)) {
        let mut rib = Rib::new();
        for op in &ops {
            match *op {
                Op::Insert(p, h) => { rib.insert(p, hop(h)); }
                Op::Remove(p) => { rib.remove(&p); }
            }
        }
        for region in regions {
            let ranges = rib.ranges_within(&region);
            prop_assert_eq!(ranges[0].start, region.addr());
            for (i, r) in ranges.iter().enumerate() {
                let end = ranges.get(i + 1).map(|n| n.start - 1).unwrap_or(region.last());
                prop_assert!(r.start <= end && region.contains(end));
                prop_assert_eq!(rib.lookup(r.start), r.hop);
                prop_assert_eq!(rib.lookup(end), r.hop);
                if i > 0 {
                    prop_assert_ne!(ranges[i - 1].hop, r.hop);
                }
            }
        }
    }
}

proptest! {
    /// `ranges_between` against the whole space's partition cut to `first..=last`: the same
    /// ranges, the first starting at `first` (its empty regions take the short path).
    #[test]
    fn ranges_between_is_the_partition_cut_to_the_span(ops in prop::collection::vec(arb_op(), 0..80), ends in prop::collection::vec((any::<u32>(), any::<u32>()), 1..8)) {
        let mut rib = Rib::new();
        for op in &ops {
            match *op {
                Op::Insert(p, h) => { rib.insert(p, hop(h)); }
                Op::Remove(p) => { rib.remove(&p); }
            }
        }
        let whole = rib.ranges_within(&"0.0.0.0/0".parse::<Prefix4>().unwrap());
        for (a, b) in ends {
            let (first, last) = (a.min(b), a.max(b));
            let mut expected: Vec<Range<u32>> = whole
                .iter()
                .enumerate()
                .filter(|&(i, r)| r.start <= last && whole.get(i + 1).is_none_or(|n| n.start > first))
                .map(|(_, r)| *r)
                .collect();
            expected[0].start = first;
            prop_assert_eq!(rib.ranges_between(first, last), expected);
        }
    }
}

/// `trie_depth` against its definition: the longest `min(common prefix, length)` over routes.
#[test]
fn trie_depth_matches_definition() {
    let routes = ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "192.168.0.0/16"];
    let rib: Rib<u32> = routes.iter().enumerate().map(|(i, r)| (p4(r), hop(i as u32))).collect();
    let model = |a: u32| {
        routes.iter().map(|r| p4(r)).map(|p| p.addr().common_prefix_len(a).min(p.len())).max()
    };
    let mut rng = crate::verify::XorShift64::new(0x1234_5678);
    let probes = [0x0A01_0203, 0x0A01_0303, 0x0A02_0000, 0xC0A8_0101, 0xC0A9_0000, 0];
    for a in probes.into_iter().chain((0..2000).map(|_| rng.next_u64() as u32)) {
        assert_eq!(Some(rib.trie_depth(a)), model(a), "{a:#x}");
    }
    assert_eq!(rib.trie_depth(0x0A01_0203), 24);
    assert_eq!(Rib::<u32>::new().trie_depth(5), 0);
}
