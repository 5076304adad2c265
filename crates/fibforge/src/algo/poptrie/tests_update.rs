//! Incremental updates against the RIB and against a fresh compile: after every change the
//! lookups equal the RIB's, and the node and leaf counts equal a fresh compile's.

use super::tests::{CONFIGS, assert_same, cfg, hop, probes};
use super::*;
use crate::fib::Incremental;
use proptest::prelude::*;

/// A Poptrie that follows a RIB through its change log.
struct Follower<A: Key> {
    rib: Rib<A>,
    fib: Poptrie<A>,
    mark: crate::rib::ChangeMark,
}

impl<A: Key> Follower<A> {
    fn new(rib: Rib<A>, c: &Config) -> Self {
        let fib = Poptrie::compile(&rib, c).unwrap();
        let mark = rib.change_mark();
        Follower { rib, fib, mark }
    }

    fn sync(&mut self) {
        let changed = self.rib.changes_since(self.mark).to_vec();
        self.fib.apply_changes(&self.rib, &changed).unwrap();
        self.mark = self.rib.change_mark();
        self.rib.trim_changes(self.mark);
    }

    /// Checks the prefix's boundaries against the RIB.
    fn check_around(&self, p: &Prefix<A>, what: &str) {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        let mid = first + ((last - first) >> 1);
        let addrs: Vec<A> = [first, last, mid, first.wrapping_sub(1), last.wrapping_add(1)]
            .map(A::from_u128)
            .to_vec();
        assert_same(&self.fib, &self.rib, &addrs, what);
    }

    /// Full comparison with a fresh compile: lookups on probes and the Table 2 counts.
    fn check_fresh(&self, what: &str) {
        let fresh = Poptrie::compile(&self.rib, &self.fib.cfg).unwrap();
        assert_same(&self.fib, &self.rib, &probes(&self.rib, 500, 11), what);
        let (got, want) = (self.fib.stats(), fresh.stats());
        assert_eq!((got.inodes, got.leaves), (want.inodes, want.leaves), "{what}: counts");
        assert_eq!(got.direct_leaves, want.direct_leaves, "{what}: direct leaves");
        assert_eq!(got.leafvec, want.leafvec, "{what}: layout");
    }
}

fn p4(s: &str) -> Prefix<u32> {
    s.parse().unwrap()
}

#[test]
fn insert_and_remove_one_by_one_equals_fresh_compile() {
    let routes = ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "10.1.2.128/25"];
    let more = ["10.1.2.3/32", "255.255.255.255/32", "0.0.0.0/32", "10.1.0.0/18", "10.1.2.0/30"];
    for &(s, agg, dir16, fan) in CONFIGS {
        let mut f = Follower::new(Rib::new(), &cfg(s, agg, dir16, fan));
        for (i, r) in routes.iter().chain(&more).enumerate() {
            f.rib.insert(p4(r), hop(i as u32 % 3));
            f.sync();
            f.check_around(&p4(r), &format!("insert {r} s={s} agg={agg}"));
            f.check_fresh(&format!("after insert {r} s={s} agg={agg}"));
        }
        for r in routes.iter().chain(&more).rev() {
            f.rib.remove(&p4(r));
            f.sync();
            f.check_around(&p4(r), &format!("remove {r} s={s} agg={agg}"));
            f.check_fresh(&format!("after remove {r} s={s} agg={agg}"));
        }
        assert_eq!(f.fib.stats().inodes, 0);
    }
}

#[test]
fn next_hop_change_of_a_cover_and_batches() {
    for leafvec in [true, false] {
        cover_and_batches_in(&Config { leafvec, ..cfg(16, true, true, false) });
    }
}

fn cover_and_batches_in(c: &Config) {
    let mut rib = Rib::new();
    for i in 0..2000u32 {
        let a = i.wrapping_mul(0x9E37_79B9);
        rib.insert(Prefix::new_masked(a, 8 + i % 25).unwrap(), hop(i % 7));
    }
    let mut f = Follower::new(rib, c);
    f.rib.insert(p4("0.0.0.0/0"), hop(9)); // rebuilds every entry
    f.sync();
    f.check_fresh("default route added");
    for i in 0..300u32 {
        let a = i.wrapping_mul(0x6F4F_2A35);
        f.rib.insert(Prefix::new_masked(a, 12 + i % 21).unwrap(), hop(i % 5));
        f.rib.remove(&Prefix::new_masked(a.rotate_left(7), 8 + i % 25).unwrap());
    }
    f.sync(); // one batch
    f.check_fresh("batch of 600 changes");
}

#[test]
fn widening_leaves_during_updates() {
    for leafvec in [true, false] {
        widening_leaves_in(&Config { leafvec, ..cfg(18, true, true, false) });
    }
}

fn widening_leaves_in(c: &Config) {
    let rib: Rib<u32> = [(p4("10.0.0.0/8"), hop(1))].into_iter().collect();
    let mut f = Follower::new(rib, c);
    assert_eq!(f.fib.stats().leaf_bits, 8);
    f.rib.insert(p4("10.1.3.0/24"), hop(300));
    f.sync();
    assert_eq!(f.fib.stats().leaf_bits, 16);
    f.check_around(&p4("10.1.3.0/24"), "narrow");
    f.check_fresh("narrow");
    f.rib.insert(p4("10.1.2.0/24"), hop(70_000));
    f.sync();
    assert_eq!(f.fib.stats().leaf_bits, 32);
    f.check_around(&p4("10.1.2.0/24"), "wide");
    f.check_fresh("wide");
    f.rib.insert(p4("0.0.0.0/0"), NextHop::from_raw(MAX_DIRECT_RAW + 1).unwrap());
    let changed = f.rib.changes_since(f.mark).to_vec();
    assert!(f.fib.apply_changes(&f.rib, &changed).is_err(), "beyond the direct flag");
}

#[test]
fn widening_the_direct_pointing_entries_during_updates() {
    // A next hop beyond what a narrow entry holds (4095 here).
    let rib: Rib<u32> = [(p4("10.0.0.0/8"), hop(1))].into_iter().collect();
    let mut f = Follower::new(rib, &cfg(18, true, true, false));
    assert_eq!((f.fib.stats().dir_bits, f.fib.stats().leaf_bits), (16, 8));
    f.rib.insert(p4("10.1.3.0/24"), hop(300));
    f.sync();
    assert_eq!((f.fib.stats().dir_bits, f.fib.stats().leaf_bits), (16, 16));
    f.rib.insert(p4("11.0.0.0/8"), hop(5000));
    f.sync();
    assert_eq!(f.fib.stats().dir_bits, 32);
    f.check_around(&p4("11.0.0.0/8"), "wide dir");
    f.check_fresh("wide dir after a large next hop");
    // More roots than the root region holds (1024 spare slots for an empty table): one /24
    // under each of 1,500 /16 entries.
    let mut f = Follower::new(Rib::new(), &cfg(16, true, true, false));
    assert_eq!(f.fib.stats().dir_bits, 16);
    let route = |i: u32| Prefix::new((i << 16) | 0x0100, 24).unwrap();
    for i in 0..1500u32 {
        f.rib.insert(route(i), hop(i % 7));
        f.sync();
        if i == 1023 {
            assert_eq!(f.fib.stats().dir_bits, 16, "1024 roots fit");
        }
    }
    assert_eq!(f.fib.stats().dir_bits, 32);
    for i in [0, 1023, 1024, 1499] {
        f.check_around(&route(i), "roots");
    }
    f.check_fresh("wide dir after many roots");
}

#[test]
fn fan_out_follows_new_roots_until_the_root_region_is_full() {
    // An empty table's root region has 64 spare slots with fan-out: one /24 under each of
    // 100 /16 entries adds roots (each with its fan-out block) until `dir` has to widen,
    // which drops the fan-out.
    let mut f = Follower::<u128>::new(Rib::new(), &cfg(16, true, true, true));
    assert!(f.fib.stats().fanout);
    let route = |i: u128| Prefix::new(i << 112 | 1 << 104, 24).unwrap();
    for i in 0..100 {
        f.rib.insert(route(i), hop((i % 7) as u32));
        f.sync();
        f.check_around(&route(i), "root");
        if i == 63 {
            assert!(f.fib.stats().fanout, "64 roots fit");
            f.check_fresh("64 roots with fan-out");
        }
    }
    let stats = f.fib.stats();
    assert_eq!((stats.dir_bits, stats.fanout), (32, false));
    for i in [0, 63, 64, 99] {
        f.check_around(&route(i), "roots after widening");
    }
    f.check_fresh("wide dir after many roots");
}

#[test]
fn fan_out_is_for_ipv6_only() {
    let rib: Rib<u32> = [(p4("10.1.2.0/24"), hop(1))].into_iter().collect();
    let f = Follower::new(rib, &cfg(18, true, true, true));
    assert!(!f.fib.stats().fanout);
    f.check_fresh("IPv4 with fan-out asked for");
}

#[test]
fn long_churn_grows_and_compacts_and_stays_exact() {
    let mut rib = Rib::new();
    for i in 0..5000u32 {
        rib.insert(
            Prefix::new_masked(i.wrapping_mul(0x9E37_79B9), 16 + i % 17).unwrap(),
            hop(i % 9),
        );
    }
    let mut f = Follower::new(rib, &cfg(18, true, true, false));
    let cap0 = f.fib.node_alloc.capacity();
    for i in 0..20_000u32 {
        let p = Prefix::new_masked(i.wrapping_mul(0x9E37_79B9) ^ (i >> 3), 16 + i % 17).unwrap();
        if i % 3 == 0 {
            f.rib.remove(&p);
        } else {
            f.rib.insert(p, hop(i % 13));
        }
        f.sync();
        if i % 97 == 0 {
            f.check_around(&p, "churn");
        }
    }
    assert!(f.fib.node_alloc.capacity() > cap0, "the arena grew");
    f.check_fresh("after 20k changes");
}

fn arb_ops(bits: u32) -> impl Strategy<Value = Vec<(bool, u128, u32, u32)>> {
    let tops = vec![0u128, u128::MAX, 0x5555 << 112, 0xA0 << 120];
    prop::collection::vec(
        (any::<bool>(), prop::sample::select(tops), any::<u128>(), 0..=bits, 0u32..5),
        1..60,
    )
    .prop_map(move |v| {
        v.into_iter()
            .map(|(ins, top, low, len, h)| {
                let keep = (low >> 9) as u32 % bits;
                let a = (top & !build::low_ones(128 - keep)) | (low & build::low_ones(128 - keep));
                let a = if bits == 32 { a >> 96 } else { a };
                // Every fourth op on the extreme lengths: /0 and host routes.
                let len = match h {
                    0 if ins => 0,
                    1 => bits,
                    _ => len,
                };
                (ins, a, len, h)
            })
            .collect()
    })
}

fn run_ops<A: Key>(ops: &[(bool, u128, u32, u32)], s: u32, agg: bool, dir16: bool, fan: bool) {
    run_ops_with::<A>(ops, &cfg(s, agg, dir16, fan));
}

fn run_ops_with<A: Key>(ops: &[(bool, u128, u32, u32)], c: &Config) {
    let (s, agg) = (c.s, c.aggregate);
    let mut f = Follower::<A>::new(Rib::new(), c);
    let mut seen = Vec::new();
    for (k, &(ins, a, len, h)) in ops.iter().enumerate() {
        let p = Prefix::new_masked(A::from_u128(a), len).unwrap();
        // Removals mostly target routes inserted before.
        let p = if !ins && !seen.is_empty() && h != 4 { seen[k % seen.len()] } else { p };
        if ins {
            f.rib.insert(p, hop(h));
            seen.push(p);
        } else {
            f.rib.remove(&p);
        }
        f.sync();
        f.check_around(&p, &format!("op {k} {p} s={s} agg={agg}"));
    }
    f.check_fresh(&format!("end s={s} agg={agg}"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]

    #[test]
    fn v4_random_updates(ops in arb_ops(32), s in prop::sample::select(vec![0u32, 5, 16, 18]), agg in any::<bool>(), dir16 in any::<bool>(), fan in any::<bool>()) {
        run_ops::<u32>(&ops, s, agg, dir16, fan);
    }

    #[test]
    fn v6_random_updates(ops in arb_ops(128), s in prop::sample::select(vec![0u32, 16, 18]), agg in any::<bool>(), dir16 in any::<bool>(), fan in any::<bool>()) {
        run_ops::<u128>(&ops, s, agg, dir16, fan);
    }

    /// The basic layout (`leafvec=off`) takes the same updates.
    #[test]
    fn v4_random_updates_basic(ops in arb_ops(32), s in prop::sample::select(vec![0u32, 5, 16, 18]), agg in any::<bool>(), dir16 in any::<bool>()) {
        run_ops_with::<u32>(&ops, &Config { leafvec: false, ..cfg(s, agg, dir16, false) });
    }

    #[test]
    fn v6_random_updates_basic(ops in arb_ops(128), s in prop::sample::select(vec![0u32, 16, 18]), agg in any::<bool>(), dir16 in any::<bool>()) {
        run_ops_with::<u128>(&ops, &Config { leafvec: false, ..cfg(s, agg, dir16, false) });
    }
}

#[test]
fn update_counts_name_what_each_patch_replaced() {
    let mut rib = Rib::new();
    rib.insert(p4("10.0.0.0/8"), hop(1));
    let mut f = Follower::new(rib, &cfg(18, true, true, false));
    assert_eq!(f.fib.update_counts(), UpdateCounts::default(), "nothing replaced by compile");

    // Below s: one root stored, its node and leaf blocks written.
    f.rib.insert(p4("10.1.2.0/24"), hop(2));
    f.sync();
    let c = f.fib.update_counts();
    assert_eq!((c.prefixes, c.top_level, c.dir_entries), (1, 0, 1));
    assert!(c.inodes >= 1 && c.leaves >= 2, "{c:?}");
    assert_eq!(c.inode_bytes, c.inodes * std::mem::size_of::<layout::Node>() as u64);
    assert_eq!(c.leaf_bytes, c.leaves, "one-byte leaves for two next hops");

    // At most s bits: every entry inside the /16 is stored again; they become next hops, so
    // no node or leaf is written.
    let before = f.fib.update_counts();
    f.rib.insert(p4("10.2.0.0/16"), hop(3));
    f.sync();
    let d = f.fib.update_counts().since(&before);
    assert_eq!((d.prefixes, d.top_level, d.dir_entries), (1, 1, 4));
    assert_eq!((d.inodes, d.leaves), (0, 0), "{d:?}");
    f.check_fresh("after the counted updates");
}
