//! Tests of the SAIL variants against the RIB oracle: edge-case tables, width limits, random
//! tables (proptest), and incremental updates against a fresh compile.

use super::*;
use crate::addr::Address;
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use crate::verify::XorShift64;
use proptest::prelude::*;

fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

fn p4(text: &str) -> Prefix<u32> {
    text.parse().unwrap()
}

/// Route boundaries and their neighbours, the boundaries of the /16 and /24 slots around
/// them, every range start of the RIB and the address before it, and random addresses.
fn probes<A: Address>(rib: &Rib<A>, random: usize) -> Vec<A> {
    let mut v = Vec::new();
    let mut add = |x: u128| v.push(A::from_u128(x));
    for (p, _) in rib.iter() {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        for x in [first, last, first.wrapping_sub(1), last.wrapping_add(1)] {
            add(x);
        }
        for len in [16, 24, 32, 40, 48, 56, 64].into_iter().filter(|&l| l < A::BITS) {
            let slot = p.addr().truncate(len).to_u128();
            let last_of_slot = A::from_u128(slot).fill_host_bits(len).to_u128();
            for x in [slot, last_of_slot, slot.wrapping_sub(1), last_of_slot.wrapping_add(1)] {
                add(x);
            }
        }
    }
    for r in rib.ranges() {
        add(r.start.to_u128());
        add(r.start.to_u128().wrapping_sub(1));
    }
    let mut rng = XorShift64::new(0x9E37_79B9_7F4A_7C15);
    for _ in 0..random {
        add(((rng.next_u64() as u128) << 64) | rng.next_u64() as u128);
    }
    v
}

/// Every probe through `lookup` and `lookup_batch` equals the RIB's answer.
fn assert_matches_rib<A: Address, F: Lookup<A>>(rib: &Rib<A>, fib: &F, what: &str) {
    let addrs = probes(rib, 2000);
    let mut batch = vec![None; addrs.len()];
    fib.lookup_batch(&addrs, &mut batch);
    for (&a, &b) in addrs.iter().zip(&batch) {
        let want = rib.lookup(a);
        assert_eq!(fib.lookup(a), want, "{what}: lookup {a:?}");
        assert_eq!(b, want, "{what}: lookup_batch {a:?}");
    }
}

/// Compiles all IPv4 variants with `cfg` and checks them against the RIB.
fn check_v4(rib: &Rib<u32>, cfg: &Config) {
    assert_matches_rib(rib, &SailB::compile(rib, cfg).unwrap(), "sail_b");
    assert_matches_rib(rib, &SailU::compile(rib, cfg).unwrap(), "sail_u");
    assert_matches_rib(rib, &SailL::compile(rib, cfg).unwrap(), "sail_l");
}

/// Auto and Wide words (small tables choose Narrow under Auto).
fn check_v4_all_widths(rib: &Rib<u32>) {
    for width in [Width::Auto, Width::Wide] {
        check_v4(rib, &Config { width });
    }
}

fn rib_of(routes: &[(&str, u32)]) -> Rib<u32> {
    routes.iter().map(|&(p, h)| (p4(p), hop(h))).collect()
}

#[test]
fn empty_table_answers_none() {
    let rib = Rib::<u32>::new();
    check_v4_all_widths(&rib);
    let fibs: [Box<dyn Lookup<u32>>; 3] = [
        Box::new(SailB::compile(&rib, &Config::default()).unwrap()),
        Box::new(SailU::compile(&rib, &Config::default()).unwrap()),
        Box::new(SailL::compile(&rib, &Config::default()).unwrap()),
    ];
    for fib in fibs {
        assert_eq!(fib.lookup(0), None);
        assert_eq!(fib.lookup(u32::MAX), None);
    }
    let v6 = Rib::<u128>::new();
    assert_matches_rib(&v6, &SailL::compile(&v6, &Config::default()).unwrap(), "v6");
}

#[test]
fn default_route_only() {
    let rib = rib_of(&[("0.0.0.0/0", 7)]);
    check_v4_all_widths(&rib);
    let b = SailB::compile(&rib, &Config::default()).unwrap();
    assert_eq!(b.lookup(0x0102_0304), Some(hop(7)));
    assert_eq!(b.chunks(), 0);
}

#[test]
fn host_routes_and_slot_boundaries() {
    let rib = rib_of(&[
        ("0.0.0.0/0", 1),
        ("10.0.0.0/8", 2),
        ("10.1.0.0/16", 3),
        ("10.1.255.255/32", 4),
        ("10.2.0.0/32", 5),
        ("10.1.1.0/24", 6),
        ("10.1.1.128/25", 7),
        ("255.255.255.255/32", 8),
        ("0.0.0.0/32", 9),
        ("192.168.0.0/23", 10),
        ("192.168.1.255/32", 11),
    ]);
    check_v4_all_widths(&rib);
    let l = SailL::compile(&rib, &Config::default()).unwrap();
    assert_eq!(l.lookup(0x0A01_FFFF), Some(hop(4)));
    assert_eq!(l.lookup(0x0A01_FFFE), Some(hop(3)));
    assert_eq!(l.lookup(0x0A02_0000), Some(hop(5)));
    assert_eq!(l.lookup(0x0A02_0001), Some(hop(2)));
    assert_eq!(l.lookup(u32::MAX), Some(hop(8)));
    assert_eq!(l.lookup(0), Some(hop(9)));
    assert_eq!(l.lookup(1), Some(hop(1)));
}

#[test]
fn a_route_at_every_length_deeply_nested() {
    // 0.0.0.0/0, 128.0.0.0/1, 192.0.0.0/2, ...: each inside the previous one.
    let rib: Rib<u32> = (0..=32u32)
        .map(|len| (Prefix::new(<u32 as Address>::netmask(len), len).unwrap(), hop(len)))
        .collect();
    check_v4_all_widths(&rib);
    // And the other way: every length at the low end of the space, alternating next hops.
    let low: Rib<u32> =
        (0..=32u32).map(|len| (Prefix::new(0, len).unwrap(), hop(len % 2))).collect();
    check_v4_all_widths(&low);
}

#[test]
fn more_than_65536_next_hops_go_wide() {
    // 70,000 distinct /24s with distinct next hops, and a few /30s below some of them.
    let mut rib = Rib::new();
    for i in 0..70_000u32 {
        rib.insert(Prefix::new(0x0A00_0000 + (i << 8), 24).unwrap(), hop(i));
    }
    for i in (0..70_000u32).step_by(997) {
        rib.insert(Prefix::new(0x0A00_0000 + (i << 8) + 4, 30).unwrap(), hop(100_000 + i));
    }
    let cfg = Config::default();
    let (b, u, l) = (
        SailB::compile(&rib, &cfg).unwrap(),
        SailU::compile(&rib, &cfg).unwrap(),
        SailL::compile(&rib, &cfg).unwrap(),
    );
    assert_eq!((b.width_bits(), u.width_bits(), l.width_bits()), (32, 32, 32));
    assert_matches_rib(&rib, &b, "sail_b");
    assert_matches_rib(&rib, &u, "sail_u");
    assert_matches_rib(&rib, &l, "sail_l");
    let narrow = Config { width: Width::Narrow };
    let e = SailL::compile(&rib, &narrow).unwrap_err();
    assert!(matches!(e, BuildError::LimitExceeded { limit: 0x7FFF, .. }), "{e}");
}

/// One /17 in each of `n` different /16s: `n` level-16 chunks (SAIL_L's C16 ids), or with
/// `/25`s in `n` different /24s, `n` level-32 chunks for SAIL_B and SAIL_U.
fn many_chunks(n: u32, len: u32) -> Rib<u32> {
    let shift = 32 - (len - 1);
    let mut rib: Rib<u32> =
        (0..n).map(|i| (Prefix::new(i << shift, len).unwrap(), hop(i % 5))).collect();
    rib.insert(p4("0.0.0.0/0"), hop(9));
    rib
}

#[test]
fn more_than_32768_c16_chunks_lift_the_papers_limit() {
    let rib = many_chunks(32_769, 17);
    let e = SailL::compile(&rib, &Config { width: Width::Narrow }).unwrap_err();
    assert!(matches!(e, BuildError::LimitExceeded { limit: 32_768, found: 32_769, .. }), "{e}");
    let l = SailL::compile(&rib, &Config::default()).unwrap();
    assert_eq!(l.width_bits(), 32);
    assert_eq!(l.chunk_counts(), vec![32_769, 0]);
    assert_matches_rib(&rib, &l, "sail_l wide");
    // Exactly 2^15 chunks still fit the paper's format.
    let fits = many_chunks(32_768, 17);
    assert_eq!(SailL::compile(&fits, &Config::default()).unwrap().width_bits(), 16);
}

#[test]
fn more_than_32768_pivot_chunks_go_wide() {
    let rib = many_chunks(32_769, 25);
    for width in [Width::Auto, Width::Wide] {
        let cfg = Config { width };
        let b = SailB::compile(&rib, &cfg).unwrap();
        assert_eq!((b.width_bits(), b.chunks()), (32, 32_769));
        assert_matches_rib(&rib, &b, "sail_b");
        assert_matches_rib(&rib, &SailU::compile(&rib, &cfg).unwrap(), "sail_u");
    }
    let narrow = Config { width: Width::Narrow };
    assert!(SailB::compile(&rib, &narrow).is_err());
    assert!(SailU::compile(&rib, &narrow).is_err());
}

#[test]
fn ipv6_up_to_64_and_refusal_beyond() {
    let p6 = |s: &str| s.parse::<Prefix<u128>>().unwrap();
    let mut rib: Rib<u128> = [
        ("::/0", 1),
        ("2001:db8::/32", 2),
        ("2001:db8:1::/48", 3),
        ("2001:db8:1:2::/64", 4),
        ("2001:db8:1:2::/63", 5),
        ("2001:db8:ff00::/40", 6),
        ("ffff:ffff:ffff:ffff::/64", 7),
        ("::/64", 8),
    ]
    .iter()
    .map(|&(p, h)| (p6(p), hop(h)))
    .collect();
    let l = SailL::compile(&rib, &Config::default()).unwrap();
    assert_matches_rib(&rib, &l, "sail_l v6");
    assert_eq!(l.lookup(p6("2001:db8:1:2::/64").addr() | 5), Some(hop(4)));
    rib.insert(p6("2001:db8:1:2::1/128"), hop(9));
    rib.insert(p6("2001:db8:1:3::/65"), hop(9));
    let e = SailL::compile(&rib, &Config::default()).unwrap_err();
    match e {
        BuildError::Unsupported { reason, .. } => {
            assert!(reason.contains("2001:db8:1:2::1/128"), "{reason}");
            assert!(reason.contains("/64"), "{reason}");
        }
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn ipv4_is_never_refused_for_length() {
    let rib = rib_of(&[("1.2.3.4/32", 1)]);
    assert!(SailL::compile(&rib, &Config::default()).is_ok());
    assert_eq!(max_len::<u32>(), 32);
    assert_eq!(max_len::<u128>(), 64);
}

/// Random IPv4 tables concentrated on the interesting lengths and a few /8s, so that routes
/// nest and share slots.
fn arb_v4_routes() -> impl Strategy<Value = Vec<(Prefix<u32>, u32)>> {
    let len = prop_oneof![0u32..=32, 14u32..=26, 22u32..=32];
    let addr = (0u32..4, any::<u32>()).prop_map(|(top, low)| (top << 30) | (low >> 2));
    prop::collection::vec((addr, len, 0u32..6), 0..120).prop_map(|v| {
        v.into_iter().map(|(a, l, h)| (Prefix::new_masked(a, l).unwrap(), h)).collect()
    })
}

fn arb_v6_routes() -> impl Strategy<Value = Vec<(Prefix<u128>, u32)>> {
    let len = prop_oneof![0u32..=64, 12u32..=40, 44u32..=64];
    let addr = (0u128..4, any::<u64>()).prop_map(|(top, low)| (top << 126) | ((low as u128) << 62));
    prop::collection::vec((addr, len, 0u32..6), 0..120).prop_map(|v| {
        v.into_iter().map(|(a, l, h)| (Prefix::new_masked(a, l).unwrap(), h)).collect()
    })
}

/// Routes as (prefix, next-hop index).
type Routes<A> = Vec<(Prefix<A>, u32)>;

fn rib_from<A: Address>(routes: &[(Prefix<A>, u32)]) -> Rib<A> {
    routes.iter().map(|&(p, h)| (p, hop(h))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]

    #[test]
    fn random_v4_tables_match_the_rib(routes in arb_v4_routes()) {
        check_v4_all_widths(&rib_from(&routes));
    }

    #[test]
    fn random_v6_tables_match_the_rib(routes in arb_v6_routes()) {
        let rib = rib_from(&routes);
        for width in [Width::Auto, Width::Wide] {
            assert_matches_rib(&rib, &SailL::compile(&rib, &Config { width }).unwrap(), "v6");
        }
    }

}

proptest! {
    // Each case compiles SAIL_B (2^25 words) afresh after every batch: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(24)))]

    #[test]
    fn updates_equal_a_fresh_compile(
        base in arb_v4_routes(),
        ops in prop::collection::vec((any::<bool>(), arb_v4_routes()), 1..6),
    ) {
        check_updates(&base, &ops);
    }
}

/// Applies batches of inserts (`true`) or removals to a RIB and to incremental SAIL_B and
/// SAIL_U; after each batch both must equal a fresh compile.
fn check_updates(base: &[(Prefix<u32>, u32)], ops: &[(bool, Routes<u32>)]) {
    let mut rib = rib_from(base);
    let cfg = Config::default();
    let mut b = SailB::compile(&rib, &cfg).unwrap();
    let mut u = SailU::compile(&rib, &cfg).unwrap();
    let mut mark = rib.change_mark();
    for (insert, routes) in ops {
        for &(p, h) in routes {
            if *insert {
                rib.insert(p, hop(h));
            } else {
                rib.remove(&p);
                // Also remove existing routes near it, so removals actually happen.
                let near: Vec<_> = rib
                    .covered(&p.truncated(p.len().saturating_sub(3)))
                    .map(|(q, _)| q)
                    .take(2)
                    .collect();
                for q in near {
                    rib.remove(&q);
                }
            }
        }
        let changed = rib.changes_since(mark).to_vec();
        b.apply_changes(&rib, &changed).unwrap();
        u.apply_changes(&rib, &changed).unwrap();
        mark = rib.change_mark();
        assert!(
            b.same_answers(&SailB::compile(&rib, &cfg).unwrap()),
            "sail_b differs from a fresh compile"
        );
        assert!(
            u.same_answers(&SailU::compile(&rib, &cfg).unwrap()),
            "sail_u differs from a fresh compile"
        );
        assert_matches_rib(&rib, &b, "sail_b updated");
        assert_matches_rib(&rib, &u, "sail_u updated");
    }
}

#[test]
fn sail_u_single_update_touches_at_most_one_bitmap_word() {
    let mut rng = XorShift64::new(42);
    let mut rib = Rib::new();
    for _ in 0..3000 {
        let len =
            [0, 3, 6, 7, 12, 13, 16, 18, 19, 22, 24, 25, 28, 32][rng.next_u64() as usize % 14];
        let p = Prefix::new_masked((rng.next_u64() as u32) & 0xC3FF_FFFF, len).unwrap();
        rib.insert(p, hop(rng.next_u64() as u32 % 7));
    }
    let mut u = SailU::compile(&rib, &Config::default()).unwrap();
    let routes: Vec<_> = rib.iter().collect();
    for (i, &(p, h)) in routes.iter().enumerate().step_by(7) {
        let before: Vec<Vec<u64>> = u.bitmaps().iter().map(|b| b.to_vec()).collect();
        let mark = rib.change_mark();
        if i % 2 == 0 {
            rib.remove(&p);
        } else {
            rib.insert(p, hop(h.index() + 1));
        }
        u.apply_changes(&rib, rib.changes_since(mark)).unwrap();
        let changed_words: usize = before
            .iter()
            .zip(u.bitmaps())
            .map(|(old, new)| old.iter().zip(new).filter(|(a, b)| a != b).count())
            .sum();
        assert!(changed_words <= 1, "update of {p} changed {changed_words} bitmap words");
    }
    assert!(u.same_answers(&SailU::compile(&rib, &Config::default()).unwrap()));
}

#[test]
fn narrow_words_widen_when_an_update_overflows() {
    let mut rib = many_chunks(32_768, 25);
    let mut b = SailB::compile(&rib, &Config::default()).unwrap();
    let mut u = SailU::compile(&rib, &Config::default()).unwrap();
    assert_eq!((b.width_bits(), u.width_bits()), (16, 16));
    let mark = rib.change_mark();
    rib.insert(p4("255.255.255.0/25"), hop(1));
    rib.insert(p4("200.0.0.0/8"), hop(0x9000));
    let changed = rib.changes_since(mark).to_vec();
    b.apply_changes(&rib, &changed).unwrap();
    u.apply_changes(&rib, &changed).unwrap();
    assert_eq!((b.width_bits(), u.width_bits()), (32, 32));
    assert!(b.same_answers(&SailB::compile(&rib, &Config::default()).unwrap()));
    assert!(u.same_answers(&SailU::compile(&rib, &Config::default()).unwrap()));
    assert_matches_rib(&rib, &u, "sail_u widened");
}

#[test]
fn random_update_sequences_with_short_and_long_routes() {
    let mut rng = XorShift64::new(7);
    let mut routes = |n: usize| -> Vec<(Prefix<u32>, u32)> {
        (0..n)
            .map(|_| {
                let len = (rng.next_u64() % 33) as u32;
                let a = (rng.next_u64() as u32) & 0x80FF_FFFF;
                (Prefix::new_masked(a, len).unwrap(), (rng.next_u64() % 9) as u32)
            })
            .collect()
    };
    let base = routes(400);
    let ops: Vec<_> = (0..12).map(|i| (i % 3 != 0, routes(40))).collect();
    check_updates(&base, &ops);
}

#[test]
fn on_chip_bytes_are_the_papers_arrays_in_the_word_width() {
    let mut rib = Rib::new();
    rib.insert(p4("10.0.0.0/8"), hop(1));
    rib.insert(p4("10.1.2.128/25"), hop(2));
    let b = SailB::compile(&rib, &Config::default()).unwrap();
    assert_eq!(b.on_chip_bytes(), 1 << 22, "B0-B24: 2^25 bits");
    assert!(b.memory_bytes() > b.on_chip_bytes(), "next hops and chunks are off chip");
    let l = SailL::<u32>::compile(&rib, &Config::default()).unwrap();
    assert_eq!(l.on_chip_bytes(), (1 << 16) * l.width_bits() as usize / 8, "BCN16");
    assert!(l.memory_bytes() > l.on_chip_bytes(), "level-24 and level-32 chunks");
    let wide = SailL::<u32>::compile(&rib, &Config { width: Width::Wide }).unwrap();
    assert_eq!(wide.on_chip_bytes(), 1 << 18);
}
