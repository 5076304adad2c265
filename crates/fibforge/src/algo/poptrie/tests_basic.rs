//! The basic layout (`leafvec=off`, §3.1) against the RIB, against the `leafvec` layout's
//! node counts, and the places that refuse it (fan-out, export, raw view).

use super::tests::{arb_table, assert_same, hop, probes, rib_from, supported_isas};
use super::*;
use crate::spec::AlgoSpec;
use proptest::prelude::*;

fn basic(s: u32, aggregate: bool, narrow_dir: bool) -> Config {
    Config { s, aggregate, leafvec: false, narrow_dir, fanout: false, isa: None }
}

/// A table with nested routes, long prefixes and hundreds of next hops (16-bit leaves).
fn mixed<A: Key>(n: u32) -> Rib<A> {
    let mut rib = Rib::new();
    rib.insert(Prefix::DEFAULT_ROUTE, hop(0));
    for i in 0..n {
        let a = (i.wrapping_mul(0x9E37_79B9) as u128) << (A::BITS - 32).min(96);
        let len = if A::BITS == 32 { 8 + i % 25 } else { 16 + i % 113 };
        rib.insert(Prefix::new_masked(A::from_u128(a), len).unwrap(), hop(i % 300));
    }
    rib
}

/// Every leaf slot has its own leaf: a node has `64 - children` leaves, so the leaves are
/// `64 · inodes` minus the child slots (every node but a root is one parent's child slot).
fn expected_basic_leaves(st: &Stats) -> u64 {
    let roots = (1u64 << st.s) - st.direct_leaves;
    64 * st.inodes - (st.inodes - roots)
}

#[test]
fn basic_has_the_leafvec_nodes_and_a_leaf_per_leaf_slot() {
    for s in [0, 16, 18] {
        for agg in [true, false] {
            let rib = mixed::<u32>(4000);
            let b = Poptrie::compile(&rib, &basic(s, agg, true)).unwrap();
            let v =
                Poptrie::compile(&rib, &Config { leafvec: true, ..basic(s, agg, true) }).unwrap();
            let (bs, vs) = (b.stats(), v.stats());
            assert!(!bs.leafvec && vs.leafvec);
            assert_eq!((bs.inodes, bs.direct_leaves), (vs.inodes, vs.direct_leaves), "s={s}");
            assert_eq!(bs.leaves, expected_basic_leaves(&bs), "s={s} agg={agg}");
            assert!(bs.leaves > vs.leaves, "s={s}: runs compress");
            assert_same(&b, &rib, &probes(&rib, 3000, 5), &format!("basic s={s} agg={agg}"));
        }
    }
}

#[test]
fn basic_records_are_16_bytes() {
    let rib = mixed::<u32>(2000);
    let b = Poptrie::compile(&rib, &basic(0, true, true)).unwrap();
    let v = Poptrie::compile(&rib, &Config { leafvec: true, ..basic(0, true, true) }).unwrap();
    let node_slots = |p: &Poptrie<u32>| with_core!(&p.fib.cores, c => c.nodes.capacity());
    let (nb, nv) = (node_slots(&b), node_slots(&v));
    assert_eq!(nb, nv, "same node count");
    let leaf_bytes = |p: &Poptrie<u32>| with_core!(&p.fib.cores, c => c.leaves.capacity());
    let (lb, lv) = (leaf_bytes(&b), leaf_bytes(&v));
    // Leaves are 16-bit here (300 next hops).
    let grown = (b.fib.memory_bytes() as i64 - v.fib.memory_bytes() as i64) as f64;
    let want = 2.0 * (lb as f64 - lv as f64) - 8.0 * nb as f64;
    assert_eq!(grown, want, "8 bytes less per node, 2 more per extra leaf");
}

#[test]
fn every_instruction_set_walks_the_basic_layout() {
    let (r4, r6) = (mixed::<u32>(3000), mixed::<u128>(3000));
    for s in [0, 16, 18] {
        for isa in supported_isas() {
            let mut p = Poptrie::compile(&r4, &basic(s, true, true)).unwrap();
            Arc::get_mut(&mut p.fib).unwrap().isa = isa;
            assert_same(&p, &r4, &probes(&r4, 4000, 3), &format!("v4 {isa:?} s={s}"));
            let mut p = Poptrie::compile(&r6, &basic(s, false, true)).unwrap();
            Arc::get_mut(&mut p.fib).unwrap().isa = isa;
            assert_same(&p, &r6, &probes(&r6, 4000, 3), &format!("v6 {isa:?} s={s}"));
        }
    }
}

#[test]
fn the_option_parses_and_fan_out_is_refused_with_it() {
    let spec = |s: &str| s.parse::<AlgoSpec>().unwrap();
    let c = Config::from_spec::<u128>(&spec("poptrie:leafvec=off")).unwrap();
    assert!(!c.leafvec && !c.fanout, "IPv6's default fan-out is off without leafvec");
    let c = Config::from_spec::<u128>(&spec("poptrie")).unwrap();
    assert!(c.leafvec && c.fanout);
    let e = Config::from_spec::<u128>(&spec("poptrie:leafvec=off,fanout=on"));
    assert!(e.unwrap_err().to_string().contains("leafvec"));
    // Asked for through the Rust API, fan-out is not built (as for IPv4).
    let rib = mixed::<u128>(500);
    let p = Poptrie::compile(&rib, &Config { fanout: true, ..basic(16, true, true) }).unwrap();
    assert!(!p.stats().fanout);
    assert_same(&p, &rib, &probes(&rib, 1000, 9), "fan-out asked for");
}

#[test]
fn export_and_raw_view_refuse_the_basic_layout() {
    let rib = mixed::<u32>(300);
    let p = Poptrie::compile(&rib, &basic(18, true, true)).unwrap();
    let e = p.to_export().unwrap_err().to_string();
    assert!(e.contains("leafvec=off"), "{e}");
    assert!(p.view().raw_arrays().is_none());
    let v = Poptrie::compile(&rib, &Config { leafvec: true, ..basic(18, true, true) }).unwrap();
    assert!(v.to_export().is_ok() && v.view().raw_arrays().is_some());
}

#[test]
fn wide_leaves_in_the_basic_layout() {
    let mut rib = mixed::<u32>(500);
    rib.insert("10.1.2.0/24".parse().unwrap(), hop(70_000));
    let p = Poptrie::compile(&rib, &basic(16, true, false)).unwrap();
    assert_eq!(p.stats().leaf_bits, 32);
    assert_same(&p, &rib, &probes(&rib, 2000, 4), "32-bit leaves");
}

/// The basic layout built from `routes` answers as the RIB, single and batched, and has the
/// leaf count the layout implies.
fn basic_matches_rib<A: Key>(
    routes: &[(u128, u32, u32)],
    s: u32,
    agg: bool,
    dir16: bool,
) -> Result<(), TestCaseError> {
    let rib: Rib<A> = rib_from(routes);
    let p = Poptrie::compile(&rib, &basic(s, agg, dir16)).unwrap();
    prop_assert_eq!(p.stats().leaves, expected_basic_leaves(&p.stats()));
    let addrs = probes(&rib, 200, routes.len() as u64);
    let mut batch = vec![None; addrs.len()];
    p.lookup_batch(&addrs, &mut batch);
    for (a, b) in addrs.iter().zip(&batch) {
        prop_assert_eq!(p.lookup(*a), rib.lookup(*a), "{}", a.to_std());
        prop_assert_eq!(*b, rib.lookup(*a), "batch {}", a.to_std());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]

    #[test]
    fn v4_basic_matches_rib(routes in arb_table::<u32>(80), s in prop::sample::select(vec![0u32, 5, 16, 18]), agg in any::<bool>(), dir16 in any::<bool>()) {
        basic_matches_rib::<u32>(&routes, s, agg, dir16)?;
    }

    #[test]
    fn v6_basic_matches_rib(routes in arb_table::<u128>(80), s in prop::sample::select(vec![0u32, 16, 18]), agg in any::<bool>(), dir16 in any::<bool>()) {
        basic_matches_rib::<u128>(&routes, s, agg, dir16)?;
    }
}
