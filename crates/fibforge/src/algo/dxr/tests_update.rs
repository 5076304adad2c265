//! DXR updates: after every batch each chunk holds a fresh compile's ranges in the same
//! format, and lookups answer as the RIB.

use super::*;
use crate::algo::testkit::{assert_same, table};
use crate::algo::testkit_updates::{Batches, drive, probes_after, shipped_sample};
use crate::fib::Incremental;
use crate::prefix::Prefix;
use proptest::prelude::*;

/// How chunk `chunk` is stored: `None` for a leaf (with its raw hop), else whether its
/// ranges are short, and the ranges as (start offset bits, raw hop).
type View = (Option<bool>, Vec<(u128, u32)>);

fn view<A: Address>(fib: &Dxr<A>, chunk: usize) -> View {
    let e = fib.direct[chunk];
    if e & DESCRIPTOR == 0 {
        return (None, vec![(0, e)]);
    }
    let (base, size) = fib.span(e);
    let short = e & SHORT != 0;
    let ranges = (base..base + size)
        .map(|i| match short {
            true => ((fib.short[i] >> 16) as u128, fib.short[i] & 0xFFFF),
            false => (fib.long_starts[i].to_u128(), fib.long_hops[i]),
        })
        .collect();
    (Some(short), ranges)
}

/// Chunk by chunk, the same storage as a fresh compile.
fn assert_same_chunks<A: Address>(fib: &Dxr<A>, fresh: &Dxr<A>, when: &str) {
    assert_eq!(fib.direct.len(), fresh.direct.len());
    for chunk in 0..fib.direct.len() {
        assert_eq!(view(fib, chunk), view(fresh, chunk), "{when}: chunk {chunk}");
    }
}

/// Drives `spec` on `rib` with `fib`, comparing with a fresh compile and the RIB after each
/// batch; the update paths taken.
fn check<A: Address>(mut rib: Rib<A>, mut fib: Dxr<A>, spec: &Batches<'_>) -> Vec<&'static str> {
    let cfg = Config { k: fib.k, short: fib.use_short };
    let mut paths = Vec::new();
    drive(&mut rib, &mut fib, spec, |rib, fib, touched, when| {
        let fresh = Dxr::compile(rib, &cfg).unwrap();
        assert_same_chunks(fib, &fresh, when);
        let addrs = probes_after(rib, touched, spec.seed);
        assert_same(&format!("dxr k={} {when}", cfg.k), fib, rib, &addrs);
        paths.extend(fib.last_update_path());
    });
    paths
}

fn lengths<A: Address>() -> Vec<u32> {
    (0..=A::BITS).collect()
}

fn batches(lengths: &[u32], top_bits: u32, seed: u64) -> Batches<'_> {
    Batches { batches: 6, per_batch: 10, lengths, top_bits, hops: 9, seed }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(24)))]

    #[test]
    fn random_v4_batches_equal_a_fresh_compile(
        seed in any::<u64>(), top in 1u32..4, k in prop_oneof![Just(8u32), Just(16), Just(18)],
        short in any::<bool>(),
    ) {
        let lens = lengths::<u32>();
        let rib = Rib::<u32>::new();
        check(rib.clone(), Dxr::compile(&rib, &Config { k, short }).unwrap(), &batches(&lens, top, seed));
    }

    #[test]
    fn random_v6_batches_equal_a_fresh_compile(
        seed in any::<u64>(), top in 1u32..4, k in prop_oneof![Just(8u32), Just(16)],
    ) {
        let lens = lengths::<u128>();
        let rib = Rib::<u128>::new();
        check(rib.clone(), Dxr::compile(&rib, &Config::with_k(k)).unwrap(), &batches(&lens, top, seed));
    }

    /// With 28-bit bases the size field holds 0..=2: chunks of 3 or more ranges go through
    /// `wide`, and every update exercises it.
    #[test]
    fn wide_chunks_follow_updates(seed in any::<u64>()) {
        let lens = lengths::<u32>();
        let rib = table::<u32>(&[(0, 0, 1)]);
        let fib = build::build(&rib, &Config::default(), 28).unwrap();
        assert_eq!(fib.size_max, 3);
        check(rib, fib, &batches(&lens, 2, seed));
    }
}

#[test]
fn real_table_samples() {
    let lens = lengths::<u32>();
    let v4: Rib<u32> = shipped_sample("ris2015-as3856.tsv.gz", 40, 32);
    let spec =
        Batches { batches: 3, per_batch: 40, lengths: &lens, top_bits: 8, hops: 40, seed: 8 };
    let paths = check(v4.clone(), Dxr::compile(&v4, &Config::with_k(16)).unwrap(), &spec);
    assert!(paths.contains(&"in place"), "{paths:?}");
    let lens = lengths::<u128>();
    let v6: Rib<u128> = shipped_sample("tier1-2024-v6.txt.gz", 4, 128);
    let spec =
        Batches { batches: 3, per_batch: 40, lengths: &lens, top_bits: 8, hops: 40, seed: 9 };
    check(v6.clone(), Dxr::compile(&v6, &Config::with_k(16)).unwrap(), &spec);
}

#[test]
fn update_paths() {
    let p = |s: &str| s.parse::<Prefix<u32>>().unwrap();
    let mut rib = table::<u32>(&[(0x0A00_0000, 8, 1), (0x0A01_0200, 24, 2)]);
    let mut fib = Dxr::compile(&rib, &Config::default()).unwrap();
    assert_eq!(fib.last_update_path(), Some("compile"));
    // A /24 re-cuts one chunk in place: the range arrays do not grow for a hop change.
    let before = fib.stats();
    rib.insert(p("10.1.2.0/24"), NextHop::from_index(3));
    fib.apply_changes(&rib, &[p("10.1.2.0/24")]).unwrap();
    assert_eq!(fib.last_update_path(), Some("in place"));
    assert_eq!(fib.stats(), before);
    // A /8 touches 256 of 65,536 chunks: in place; a /1 touches half of them: rebuild.
    rib.insert(p("10.0.0.0/8"), NextHop::from_index(4));
    fib.apply_changes(&rib, &[p("10.0.0.0/8")]).unwrap();
    assert_eq!(fib.last_update_path(), Some("in place"));
    rib.insert(p("0.0.0.0/1"), NextHop::from_index(5));
    fib.apply_changes(&rib, &[p("0.0.0.0/1")]).unwrap();
    assert_eq!(fib.last_update_path(), Some("rebuild"));
    assert_eq!(fib.lookup(0x0A01_0203), Some(NextHop::from_index(3)));
    assert_eq!(fib.lookup(0x0B00_0000), Some(NextHop::from_index(5)));
}

#[test]
fn appends_past_the_base_field_rebuild_wider() {
    // One multi-range chunk: base 0 fits one bit; growing chunks append past it.
    let mut rib = table::<u32>(&[(0x0A01_0200, 24, 2)]);
    let mut fib = Dxr::compile(&rib, &Config::default()).unwrap();
    let bits = fib.stats().base_bits;
    let mut rebuilt = false;
    for i in 0..64u32 {
        let q = Prefix::new_masked(0x0B00_0000 + (i << 16) + 0x0100, 24).unwrap();
        rib.insert(q, NextHop::from_index(i % 7));
        fib.apply_changes(&rib, &[q]).unwrap();
        rebuilt |= fib.last_update_path() == Some("rebuild");
    }
    assert!(rebuilt, "appends never overflowed the base field");
    assert!(fib.stats().base_bits > bits);
    assert_same_chunks(&fib, &Dxr::compile(&rib, &Config::default()).unwrap(), "after appends");
}

#[test]
fn dead_entries_are_compacted() {
    // One chunk grows a range at a time: each growth appends it anew, leaving the old dead.
    let mut rib = Rib::<u32>::new();
    let mut fib = Dxr::compile(&rib, &Config::default()).unwrap();
    let mut compacted = false;
    for i in 0..200u32 {
        let q = Prefix::new_masked(0x0A0A_0000 + (i << 8), 24).unwrap();
        rib.insert(q, NextHop::from_index(i % 2 + 1));
        fib.apply_changes(&rib, &[q]).unwrap();
        let stats = fib.stats();
        assert!(fib.dead <= (stats.short_ranges - fib.dead).max(update::COMPACT_MIN));
        compacted |= fib.last_update_path() == Some("rebuild") && fib.dead == 0;
    }
    // 200 growths of one chunk leave about 200^2 / 2 dead entries: past the threshold.
    assert!(compacted, "dead entries never compacted");
    assert_same_chunks(&fib, &Dxr::compile(&rib, &Config::default()).unwrap(), "compacted");
}
