//! Poptrie against the RIB oracle: edge cases, generated tables (proptest), wide leaves.

use super::*;
use crate::addr::Address;
use crate::prefix::Prefix;
use proptest::prelude::*;

/// `(s, aggregate, narrow dir, fan-out)`: both `dir` widths (a narrow one only where the
/// table fits), with and without root fan-out (which needs the narrow one).
pub(crate) const CONFIGS: &[(u32, bool, bool, bool)] = &[
    (0, true, true, false),
    (0, false, false, false),
    (0, true, true, true),
    (16, true, true, false),
    (16, false, true, false),
    (16, true, false, false),
    (16, false, true, true),
    (18, true, true, false),
    (18, false, true, false),
    (18, true, false, false),
    (18, true, true, true),
    (18, true, false, true),
    (7, true, true, false),
    (7, true, true, true),
];

pub(crate) fn cfg(s: u32, aggregate: bool, narrow_dir: bool, fanout: bool) -> Config {
    Config { s, aggregate, leafvec: true, narrow_dir, fanout, isa: None }
}

pub(crate) fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

/// Route boundaries and their outside neighbours, plus `random` xorshift addresses.
pub(crate) fn probes<A: Key>(rib: &Rib<A>, random: usize, seed: u64) -> Vec<A> {
    let mut v = Vec::new();
    for (p, _) in rib.iter() {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        v.extend([first, last, first.wrapping_sub(1), last.wrapping_add(1)].map(A::from_u128));
        let mid = first + ((last - first) >> 1);
        v.push(A::from_u128(mid));
    }
    v.extend(crate::verify::uniform::<A>(&mut crate::verify::XorShift64::new(seed), random));
    v.extend([A::ZERO, A::from_u128(u128::MAX)]);
    v
}

/// Asserts that `p` answers like `rib` on `addrs`, through `lookup` and `lookup_batch`.
pub(crate) fn assert_same<A: Key>(p: &dyn Lookup<A>, rib: &Rib<A>, addrs: &[A], what: &str) {
    let mut batch = vec![None; addrs.len()];
    p.lookup_batch(addrs, &mut batch);
    for (i, &a) in addrs.iter().enumerate() {
        let want = rib.lookup(a);
        assert_eq!(p.lookup(a), want, "{what}: lookup {}", a.to_std());
        assert_eq!(batch[i], want, "{what}: lookup_batch {}", a.to_std());
    }
}

fn check_all_configs<A: Key>(rib: &Rib<A>, what: &str) {
    let addrs = probes(rib, 2000, 7);
    for &(s, agg, dir16, fan) in CONFIGS {
        let p = Poptrie::compile(rib, &cfg(s, agg, dir16, fan)).unwrap();
        assert_same(
            &p,
            rib,
            &addrs,
            &format!("{what} s={s} aggregate={agg} dir16={dir16} fanout={fan}"),
        );
    }
}

fn rib_of<A: Key>(routes: &[(&str, u32)]) -> Rib<A> {
    routes.iter().map(|&(p, h)| (Prefix::<A>::parse(p).unwrap(), hop(h))).collect()
}

#[test]
fn empty_table_answers_none() {
    for &(s, agg, dir16, fan) in CONFIGS {
        let p = Poptrie::<u32>::compile(&Rib::new(), &cfg(s, agg, dir16, fan)).unwrap();
        assert_eq!(p.lookup(0x0102_0304), None);
        let q = Poptrie::<u128>::compile(&Rib::new(), &cfg(s, agg, dir16, fan)).unwrap();
        assert_eq!(q.lookup(42), None);
        assert_eq!(p.stats().inodes, 0);
    }
}

#[test]
fn default_route_only() {
    check_all_configs(&rib_of::<u32>(&[("0.0.0.0/0", 3)]), "v4 default");
    check_all_configs(&rib_of::<u128>(&[("::/0", 3)]), "v6 default");
    let p =
        Poptrie::<u32>::compile(&rib_of(&[("0.0.0.0/0", 3)]), &cfg(18, true, true, false)).unwrap();
    assert_eq!(p.stats().inodes, 0);
    assert_eq!(p.stats().direct_leaves, 1 << 18);
}

#[test]
fn host_routes_at_both_ends() {
    let v4 = rib_of::<u32>(&[
        ("0.0.0.0/0", 0),
        ("0.0.0.0/32", 1),
        ("255.255.255.255/32", 2),
        ("10.0.0.1/32", 3),
        ("10.0.0.2/31", 4),
        ("10.0.0.3/32", 5),
    ]);
    check_all_configs(&v4, "v4 hosts");
    let v6 = rib_of::<u128>(&[
        ("::/0", 0),
        ("::/128", 1),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", 2),
        ("2001:db8::/126", 3),
        ("2001:db8::1/128", 4),
        ("2001:db8::2/127", 5),
        ("2001:db8::3/128", 6),
        ("2001:db8::4/126", 7),
    ]);
    check_all_configs(&v6, "v6 hosts");
}

#[test]
fn a_prefix_at_every_length_nested() {
    let mut v4 = Rib::new();
    let mut v6 = Rib::new();
    let a4: u32 = 0xA5A5_5A5A;
    let a6: u128 = 0x2001_0db8_a5a5_5a5a_0123_4567_89ab_cdef;
    for len in 0..=32 {
        v4.insert(Prefix::new_masked(a4, len).unwrap(), hop(len % 3));
    }
    for len in 0..=128 {
        v6.insert(Prefix::new_masked(a6, len).unwrap(), hop(len % 5));
    }
    check_all_configs(&v4, "v4 every length");
    check_all_configs(&v6, "v6 every length");
}

#[test]
fn redundant_routes_are_aggregated() {
    // A /25 with its cover's next hop changes nothing: no node with aggregation, one without.
    let rib = rib_of::<u32>(&[("10.0.0.0/24", 1), ("10.0.0.0/25", 1)]);
    let on = Poptrie::compile(&rib, &cfg(18, true, true, false)).unwrap();
    let off = Poptrie::compile(&rib, &cfg(18, false, true, false)).unwrap();
    assert_eq!(on.stats().inodes, 1);
    assert_eq!(off.stats().inodes, 2);
    check_all_configs(&rib, "redundant");
}

#[test]
fn leafvec_compresses_runs_across_holes() {
    // Under one /18 node: a /24 hole with a /25 inside, surrounded by the /16's next hop.
    let rib = rib_of::<u32>(&[("10.0.0.0/16", 1), ("10.0.1.0/25", 2)]);
    let p = Poptrie::compile(&rib, &cfg(18, true, true, false)).unwrap();
    // Node at /18 (slot 1 is internal; the other 63 slots are one run) + node at /24.
    assert_eq!(p.stats().inodes, 2);
    assert_eq!(p.stats().leaves, 1 + 2);
    check_all_configs(&rib, "holes");
}

#[test]
fn leaf_width_follows_the_largest_next_hop() {
    let mut rib = Rib::new();
    for i in 0..70_000u32 {
        rib.insert(Prefix::new(0x0A00_0000 + (i << 8), 24).unwrap(), hop(i * 7 % 70_000));
    }
    rib.insert(Prefix::new(0x0A00_0000, 8).unwrap(), hop(69_999));
    let p = Poptrie::compile(&rib, &cfg(18, true, true, false)).unwrap();
    assert_eq!(p.stats().leaf_bits, 32);
    check_all_configs(&rib, "70k hops");
    let tiny = rib_of::<u32>(&[("10.0.0.0/8", 254)]);
    assert_eq!(Poptrie::compile(&tiny, &cfg(18, true, true, false)).unwrap().stats().leaf_bits, 8);
    let narrow = rib_of::<u32>(&[("10.0.0.0/8", 255)]);
    assert_eq!(
        Poptrie::compile(&narrow, &cfg(18, true, true, false)).unwrap().stats().leaf_bits,
        16
    );
    let narrow = rib_of::<u32>(&[("10.0.0.0/8", 65_534)]);
    assert_eq!(
        Poptrie::compile(&narrow, &cfg(18, true, true, false)).unwrap().stats().leaf_bits,
        16
    );
    let wide = rib_of::<u32>(&[("10.0.0.0/8", 65_535)]);
    assert_eq!(Poptrie::compile(&wide, &cfg(18, true, true, false)).unwrap().stats().leaf_bits, 32);
}

#[test]
fn next_hops_beyond_the_direct_flag_are_an_error() {
    let rib = rib_of::<u32>(&[("10.0.0.0/8", MAX_DIRECT_RAW)]);
    let err = Poptrie::compile(&rib, &cfg(18, true, true, false)).err().unwrap();
    assert!(matches!(err, BuildError::LimitExceeded { .. }), "{err}");
    // The message speaks of next-hop indexes as users give them (not raw index + 1 values).
    let (largest, given) = (MAX_DIRECT_RAW - 1, MAX_DIRECT_RAW);
    assert!(err.to_string().contains(&format!("limit of {largest} (found {given})")), "{err}");
    let ok = rib_of::<u32>(&[("10.0.0.0/8", MAX_DIRECT_RAW - 1)]);
    check_all_configs(&ok, "largest next hop");
}

#[test]
fn bad_s_is_rejected() {
    assert!(Poptrie::<u32>::compile(&Rib::new(), &cfg(25, true, true, false)).is_err());
}

#[test]
fn every_address_of_a_small_region() {
    let rib = rib_of::<u32>(&[
        ("10.0.0.0/8", 1),
        ("10.0.0.0/20", 2),
        ("10.0.4.0/22", 3),
        ("10.0.5.128/25", 4),
        ("10.0.5.129/32", 5),
        ("10.0.8.0/21", 1),
    ]);
    for &(s, agg, dir16, fan) in CONFIGS {
        let p = Poptrie::compile(&rib, &cfg(s, agg, dir16, fan)).unwrap();
        for a in 0x0A00_0000u32..0x0A00_4000 {
            assert_eq!(p.lookup(a), rib.lookup(a), "s={s} agg={agg} {a:#x}");
        }
    }
}

pub(crate) fn arb_table<A: Key>(n: usize) -> impl Strategy<Value = Vec<(u128, u32, u32)>> {
    // Addresses share a few random tops so that routes nest; lengths cover 0..=BITS.
    let bits = A::BITS;
    prop::collection::vec(
        (
            prop::sample::select(vec![0u128, u128::MAX, 0x5555 << 112, 0xA0 << 120]),
            any::<u128>(),
            0..=bits,
            0u32..6,
        ),
        0..n,
    )
    .prop_map(move |v| {
        v.into_iter()
            .map(|(top, low, len, h)| {
                let keep = (low >> 9) as u32 % bits; // shared top bits
                let a = (top & !super::build::low_ones(128 - keep))
                    | (low & super::build::low_ones(128 - keep));
                let a = if bits == 32 { a >> 96 } else { a };
                (a, len, h)
            })
            .collect()
    })
}

pub(crate) fn rib_from<A: Key>(routes: &[(u128, u32, u32)]) -> Rib<A> {
    routes
        .iter()
        .map(|&(a, len, h)| (Prefix::new_masked(A::from_u128(a), len).unwrap(), hop(h)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(64)))]

    #[test]
    fn v4_matches_rib(routes in arb_table::<u32>(80), s in prop::sample::select(vec![0u32, 5, 16, 18, 24]), agg in any::<bool>(), dir16 in any::<bool>(), fan in any::<bool>()) {
        let rib: Rib<u32> = rib_from(&routes);
        let p = Poptrie::compile(&rib, &cfg(s, agg, dir16, fan)).unwrap();
        for a in probes(&rib, 200, routes.len() as u64) {
            prop_assert_eq!(p.lookup(a), rib.lookup(a), "{}", a.to_std());
        }
    }

    #[test]
    fn v6_matches_rib(routes in arb_table::<u128>(80), s in prop::sample::select(vec![0u32, 16, 18, 20]), agg in any::<bool>(), dir16 in any::<bool>(), fan in any::<bool>()) {
        let rib: Rib<u128> = rib_from(&routes);
        let p = Poptrie::compile(&rib, &cfg(s, agg, dir16, fan)).unwrap();
        for a in probes(&rib, 200, routes.len() as u64) {
            prop_assert_eq!(p.lookup(a), rib.lookup(a), "{}", a.to_std());
        }
    }
}

/// Every instruction set this CPU supports, the portable one first.
pub(crate) fn supported_isas() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.available()).collect()
}

#[test]
fn every_instruction_set_answers_alike() {
    for family_v6 in [false, true] {
        let mut r4 = rib_of::<u32>(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3)]);
        let mut r6 = Rib::<u128>::new();
        for i in 0..3000u32 {
            let a = i.wrapping_mul(0x9E37_79B9);
            r4.insert(Prefix::new_masked(a, 8 + i % 25).unwrap(), hop(i % 11));
            let a6 = (a as u128) << 96 | (i as u128) << 40;
            r6.insert(Prefix::new_masked(a6, 16 + i % 113).unwrap(), hop(i % 300));
        }
        for &(s, agg, dir16, fan) in CONFIGS {
            for isa in supported_isas() {
                if family_v6 {
                    let mut p = Poptrie::compile(&r6, &cfg(s, agg, dir16, fan)).unwrap();
                    Arc::get_mut(&mut p.fib).unwrap().isa = isa;
                    assert_same(&p, &r6, &probes(&r6, 5000, 3), &format!("v6 {isa:?} s={s}"));
                } else {
                    let mut p = Poptrie::compile(&r4, &cfg(s, agg, dir16, fan)).unwrap();
                    Arc::get_mut(&mut p.fib).unwrap().isa = isa;
                    assert_same(&p, &r4, &probes(&r4, 5000, 3), &format!("v4 {isa:?} s={s}"));
                }
            }
        }
    }
}

#[test]
fn portable_walk_equals_the_popcnt_walk() {
    let mut rib = rib_of::<u32>(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3)]);
    for i in 0..3000u32 {
        let a = i.wrapping_mul(0x9E37_79B9);
        rib.insert(Prefix::new_masked(a, 8 + i % 25).unwrap(), hop(i % 11));
    }
    let addrs = probes(&rib, 5000, 3);
    for &(s, agg, dir16, fan) in CONFIGS {
        let fast = Poptrie::compile(&rib, &cfg(s, agg, dir16, fan)).unwrap();
        let mut slow = Poptrie::compile(&rib, &cfg(s, agg, dir16, fan)).unwrap();
        Arc::get_mut(&mut slow.fib).unwrap().isa = Isa::Portable;
        assert_same(&slow, &rib, &addrs, "portable");
        assert_same(&fast, &rib, &addrs, "detected");
    }
}
