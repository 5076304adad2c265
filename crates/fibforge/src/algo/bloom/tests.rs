//! Bloom structures against the RIB oracle: edge cases, generated tables, property tests with
//! insert/delete sequences compared with a fresh compile.

use super::*;
use crate::addr::Address;
use crate::fib::{Compile, Incremental, Lookup};
use crate::prefix::Prefix;
use crate::rib::Rib;
use crate::verify::XorShift64;
use proptest::prelude::*;

/// Tests keep expansions small: a larger one fails fast with `LimitExceeded`.
const TEST_MAX_KEYS: u128 = 1 << 18;

fn small(cfg: Config) -> Config {
    Config { max_keys: TEST_MAX_KEYS, ..cfg }
}

fn configs() -> Vec<Config> {
    let mut all = vec![Config::naive(), Config::baseline(), Config::default()];
    for f in [HashFn::H2, HashFn::Murmur, HashFn::Knuth] {
        all.push(Config { hash: Some(f), fpr: 0.9, ..Default::default() });
    }
    all.push(Config { expansion: Expansion::Levels(2), fpr: 0.01, ..Default::default() });
    all.push(Config { expansion: Expansion::None, ..Default::default() });
    all.into_iter().map(small).collect()
}

/// Addresses worth checking: every route's first and last address and their neighbours, plus
/// random ones.
fn probe_addrs<A: Address>(rib: &Rib<A>, random: usize) -> Vec<A> {
    let mut out = Vec::new();
    for (p, _) in rib.iter() {
        let (lo, hi) = (p.addr().to_u128(), p.last().to_u128());
        out.extend([lo, hi, lo.wrapping_sub(1), hi.wrapping_add(1)].map(A::from_u128));
    }
    let mut x = XorShift64::new(0x9e37_79b9_7f4a_7c15);
    out.extend(
        (0..random).map(|_| A::from_u128(((x.next_u64() as u128) << 64) | x.next_u64() as u128)),
    );
    out
}

fn assert_matches_rib<A: BloomKey>(fib: &BloomFib<A>, rib: &Rib<A>, what: &str) {
    let addrs = probe_addrs(rib, 2000);
    let mut batch = vec![None; addrs.len()];
    fib.lookup_batch(&addrs, &mut batch);
    for (i, &a) in addrs.iter().enumerate() {
        let want = rib.lookup(a);
        assert_eq!(fib.lookup(a), want, "{what}: lookup {a:?}");
        assert_eq!(batch[i], want, "{what}: lookup_batch {a:?}");
    }
}

fn check_all<A: BloomKey>(rib: &Rib<A>, what: &str) {
    for cfg in configs() {
        match BloomFib::compile(rib, &cfg) {
            Ok(fib) => assert_matches_rib(&fib, rib, &format!("{what} {cfg:?}")),
            Err(e) => {
                assert!(matches!(e, crate::fib::BuildError::LimitExceeded { .. }), "{what}: {e}")
            }
        }
    }
}

fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

fn pfx<A: Address>(addr: u128, len: u32) -> Prefix<A> {
    Prefix::new_masked(A::from_u128(addr), len).unwrap()
}

#[test]
fn empty_and_default_only() {
    check_all(&Rib::<u32>::new(), "empty v4");
    check_all(&Rib::<u128>::new(), "empty v6");
    let mut r4 = Rib::<u32>::new();
    r4.insert(pfx(0, 0), hop(7));
    check_all(&r4, "default v4");
    let mut r6 = Rib::<u128>::new();
    r6.insert(pfx(0, 0), hop(7));
    check_all(&r6, "default v6");
}

fn every_length<A: Address>() -> Rib<A> {
    let mut rib = Rib::new();
    let base: u128 = 0xA5A5_5A5A_0F0F_F0F0_1234_5678_9ABC_DEF0;
    for len in 0..=A::BITS {
        rib.insert(pfx(base >> (128 - A::BITS), len), hop(len));
        rib.insert(pfx(!base >> (128 - A::BITS), len), hop(1000 + len));
    }
    rib.insert(pfx(u128::MAX, A::BITS), hop(9));
    rib.insert(pfx(0, A::BITS), hop(10));
    rib
}

#[test]
fn a_route_at_every_length_and_host_routes() {
    check_all(&every_length::<u32>(), "every length v4");
    check_all(&every_length::<u128>(), "every length v6");
}

#[test]
fn more_than_65536_next_hops() {
    let mut rib = Rib::<u32>::new();
    for i in 0..70_000u32 {
        rib.insert(pfx((i as u128) << 8, 24), hop(i * 3));
        rib.insert(pfx(((i as u128) << 8) | 0x80, 25), hop(i * 3 + 1));
    }
    let fib = BloomFib::compile(&rib, &Config::default()).unwrap();
    assert_matches_rib(&fib, &rib, "70k hops");
    assert_eq!(fib.lookup(0x0001_0185), Some(hop(257 * 3 + 1)));
}

#[test]
fn ipv4_groups_have_the_paper_shape() {
    let fib = BloomFib::compile(&every_length::<u32>(), &Config::baseline()).unwrap();
    assert_eq!(fib.direct_bits(), 20);
    let lens: Vec<u32> = fib.levels().iter().map(|l| l.len).collect();
    assert_eq!(lens, [32, 24]);
}

#[test]
fn dpcpe_levels_option_sets_the_level_count() {
    let rib = every_length::<u128>();
    let cfg = small(Config { expansion: Expansion::Levels(5), ..Default::default() });
    // Five levels over lengths 1..=128 need too many keys: the build must say so, not panic.
    match BloomFib::compile(&rib, &cfg) {
        Ok(fib) => assert_eq!(fib.levels().len(), 5),
        Err(e) => assert!(e.to_string().contains("expanded prefixes"), "{e}"),
    }
    let cfg = Config { expansion: Expansion::Levels(200), ..Default::default() };
    let fib = BloomFib::compile(&rib, &cfg).unwrap();
    assert_eq!(fib.levels().len(), 128);
}

#[test]
fn bad_options_are_errors() {
    let rib = Rib::<u32>::new();
    for fpr in [0.0, 1.0, -1.0, f64::NAN] {
        assert!(BloomFib::compile(&rib, &Config { fpr, ..Default::default() }).is_err());
    }
    let cfg = Config { expansion: Expansion::Ipv4Groups, ..Default::default() };
    assert!(BloomFib::<u128>::compile(&Rib::new(), &cfg).is_err());
}

/// Routes clustered in a few /8s (IPv4) or under 2001::/16 (IPv6) so that they nest.
fn route_strategy(bits: u32) -> impl Strategy<Value = (u128, u32, u32)> {
    let top = if bits == 32 { 8u32 } else { 16 };
    (0u128..4, any::<u128>(), 0..=bits, 0u32..5).prop_map(move |(c, rest, len, h)| {
        let addr = ((0x0A + c * 0x20) << (bits - top)) | (rest >> (128 - bits + top));
        let addr = if bits == 128 { addr | (0x2001u128 << 112) } else { addr };
        (addr, len, h)
    })
}

fn updates_equal_fresh_compile<A: BloomKey>(
    initial: Vec<(u128, u32, u32)>,
    ops: Vec<(bool, (u128, u32, u32))>,
) {
    for cfg in [Config::naive(), Config::baseline(), Config::default()].map(small) {
        let mut rib = Rib::<A>::new();
        for &(a, l, h) in &initial {
            rib.insert(pfx(a, l), hop(h));
        }
        let Ok(mut fib) = BloomFib::compile(&rib, &cfg) else { continue };
        let mark = rib.change_mark();
        for &(insert, (a, l, h)) in &ops {
            let p = pfx(a, l);
            if insert {
                rib.insert(p, hop(h))
            } else {
                rib.remove(&p)
            };
        }
        if fib.apply_changes(&rib, rib.changes_since(mark)).is_err() {
            continue; // the fresh compile fails the same way (limit)
        }
        assert_matches_rib(&fib, &rib, &format!("after updates {cfg:?}"));
        let fresh = BloomFib::compile(&rib, &cfg).unwrap();
        for a in probe_addrs(&rib, 500) {
            assert_eq!(fib.lookup(a), fresh.lookup(a), "{cfg:?} {a:?}");
        }
        // The level lengths were planned from the first table's length histogram; a fresh
        // compile may plan others (DPCPE). Compare contents with a compile of the same plan.
        let same_plan = BloomFib::compile_planned(&rib, &cfg, fib.plan.clone()).unwrap();
        assert_same_contents(&fib, &same_plan, &format!("{cfg:?}"));
    }
}

/// The updated structure holds what a fresh compile holds: the same keys and next hops per
/// level, the same direct array and default route, and counting filters whose bits and
/// counters equal a refill from the keys (filters may be larger than a fresh compile's: they
/// only grow).
fn assert_same_contents<A: BloomKey>(fib: &BloomFib<A>, fresh: &BloomFib<A>, what: &str) {
    let non_empty = |f: &BloomFib<A>| -> Vec<(u32, Vec<(A, NextHop)>)> {
        f.levels.iter().filter(|l| l.keys() > 0).map(|l| (l.len(), l.sorted_entries())).collect()
    };
    assert!(non_empty(fib) == non_empty(fresh), "{what}: level contents differ");
    assert_eq!(fib.direct, fresh.direct, "{what}: direct array");
    assert_eq!(fib.default, fresh.default, "{what}: default route");
    for level in &fib.levels {
        assert!(level.filter_is_fresh(), "{what}: filter of /{} drifted", level.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]

    #[test]
    fn v4_equals_rib(routes in prop::collection::vec(route_strategy(32), 0..200)) {
        let mut rib = Rib::<u32>::new();
        for (a, l, h) in routes {
            rib.insert(pfx(a, l), hop(h));
        }
        check_all(&rib, "proptest v4");
    }

    #[test]
    fn v6_equals_rib(routes in prop::collection::vec(route_strategy(128), 0..150)) {
        let mut rib = Rib::<u128>::new();
        for (a, l, h) in routes {
            rib.insert(pfx(a, l.min(64).max(l / 2)), hop(h));
        }
        check_all(&rib, "proptest v6");
    }

    #[test]
    fn v4_updates_equal_fresh_compile(
        initial in prop::collection::vec(route_strategy(32), 0..150),
        ops in prop::collection::vec((any::<bool>(), route_strategy(32)), 0..80),
        deletes in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let mut ops = ops;
        // Also delete routes that exist, not only random ones.
        ops.extend(deletes.iter().filter(|_| !initial.is_empty()).map(|i| (false, initial[i.index(initial.len())])));
        updates_equal_fresh_compile::<u32>(initial, ops);
    }

    #[test]
    fn v6_updates_equal_fresh_compile(
        initial in prop::collection::vec(route_strategy(128), 0..100),
        ops in prop::collection::vec((any::<bool>(), route_strategy(128)), 0..60),
    ) {
        let clamp = |(a, l, h): (u128, u32, u32)| (a, l.clamp(16, 64), h);
        let initial: Vec<_> = initial.into_iter().map(clamp).collect();
        let ops = ops.into_iter().map(|(i, r)| (i, clamp(r))).collect();
        updates_equal_fresh_compile::<u128>(initial, ops);
    }
}

#[test]
fn parallel_batches_equal_single_lookups() {
    let rib = every_length::<u32>();
    let fib = BloomFib::compile(&rib, &Config::default()).unwrap();
    let addrs = probe_addrs(&rib, 10_000);
    let mut out = vec![None; addrs.len()];
    lookup_parallel(&fib, &addrs, &mut out);
    for (a, o) in addrs.iter().zip(&out) {
        assert_eq!(*o, rib.lookup(*a));
    }
}

#[test]
fn probe_stats_count_the_level_answers() {
    let rib = every_length::<u32>();
    let addrs = probe_addrs(&rib, 5000);
    // Addresses whose longest route is longer than the direct array's 20 bits end in a level.
    let in_levels =
        addrs.iter().filter(|&&a| rib.longest_match(a).is_some_and(|(p, _)| p.len() > 20)).count()
            as u64;
    for cfg in [Config::baseline(), Config::default()] {
        let fib = BloomFib::compile(&rib, &cfg).unwrap();
        let stats = fib.probe_stats(&addrs);
        assert_eq!(stats.iter().map(|s| s.table_hits).sum::<u64>(), in_levels, "{cfg:?}");
        assert_eq!(stats[0].reached, addrs.len() as u64);
        for s in &stats {
            assert!(s.table_hits <= s.filter_pass && s.filter_pass <= s.reached, "{s:?}");
            assert!(s.slots_read >= s.filter_pass, "{s:?}");
        }
    }
}

#[test]
fn naive_tables_hold_their_own_keys_only() {
    // Symmetric filters are sized for the largest length; tables must not be (one /8 level
    // next to 40,000 /24 keys used to get a 128k-slot table of its own).
    let mut rib = Rib::<u32>::new();
    for i in 0..40_000u32 {
        rib.insert(pfx((i as u128) << 8, 24), hop(1));
    }
    rib.insert(pfx(0x0a00_0000, 8), hop(2));
    let one = BloomFib::compile(&rib, &Config::naive()).unwrap();
    rib.remove(&pfx(0x0a00_0000, 8));
    let without = BloomFib::compile(&rib, &Config::naive()).unwrap();
    let extra = one.memory_bytes() - without.memory_bytes();
    let filter = one.levels()[1].m as usize / 8 * 9 + 64; // bits + 8-bit counters
    assert!(extra <= filter + 1024, "the /8 level takes {extra} bytes, its filter {filter}");
}
