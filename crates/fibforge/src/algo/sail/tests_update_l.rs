//! SAIL_L updates: after every batch the structure has a fresh compile's words (chunks by
//! content) and answers as the RIB.

use super::{Config, SailL, max_len};
use crate::addr::Address;
use crate::algo::testkit::{assert_same, table};
use crate::algo::testkit_updates::{Batches, drive, probes_after, shipped_sample};
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use proptest::prelude::*;

fn p4(text: &str) -> Prefix<u32> {
    text.parse().unwrap()
}

/// Drives `spec` on `rib`, comparing with a fresh compile and the RIB after every batch.
fn check<A: Address>(mut rib: Rib<A>, spec: &Batches<'_>) {
    let cfg = Config::default();
    let mut fib = SailL::compile(&rib, &cfg).unwrap();
    drive(&mut rib, &mut fib, spec, |rib, fib, touched, when| {
        let fresh = SailL::compile(rib, &cfg).unwrap();
        assert!(fib.same_shape(&fresh), "{when}: words differ from a fresh compile");
        assert_eq!(fib.chunk_counts(), fresh.chunk_counts(), "{when}: chunks in use");
        assert_same(&format!("sail_l {when}"), fib, rib, &probes_after(rib, touched, spec.seed));
    });
}

/// Every length band: /0, ≤16, 17–24, 25–32 (IPv6: on to /64).
fn lengths<A: Address>() -> Vec<u32> {
    (0..=max_len::<A>()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(24)))]

    #[test]
    fn random_v4_batches_equal_a_fresh_compile(seed in any::<u64>(), top in 1u32..4) {
        let lens = lengths::<u32>();
        let spec = Batches { batches: 6, per_batch: 12, lengths: &lens, top_bits: top, hops: 9, seed };
        check(Rib::<u32>::new(), &spec);
    }

    #[test]
    fn random_v6_batches_equal_a_fresh_compile(seed in any::<u64>(), top in 1u32..4) {
        let lens = lengths::<u128>();
        let spec = Batches { batches: 6, per_batch: 12, lengths: &lens, top_bits: top, hops: 9, seed };
        check(Rib::<u128>::new(), &spec);
    }
}

#[test]
fn short_routes_over_many_chunks() {
    // Mostly long routes first, then short ones that are pushed over them.
    let mut rib = Rib::<u32>::new();
    let long = [20u32, 24, 25, 28, 32];
    let seed_spec =
        Batches { batches: 1, per_batch: 300, lengths: &long, top_bits: 2, hops: 5, seed: 3 };
    let mut fib = SailL::compile(&rib, &Config::default()).unwrap();
    drive(&mut rib, &mut fib, &seed_spec, |_, _, _, _| {});
    let short = [0u32, 1, 4, 8, 12, 15, 16, 17, 23, 24];
    let spec = Batches { batches: 8, per_batch: 6, lengths: &short, top_bits: 2, hops: 5, seed: 4 };
    check(rib, &spec);
}

#[test]
fn real_table_samples() {
    let v4: Rib<u32> = shipped_sample("ris2015-as3856.tsv.gz", 40, 32);
    let lens = lengths::<u32>();
    check(
        v4,
        &Batches { batches: 4, per_batch: 40, lengths: &lens, top_bits: 8, hops: 40, seed: 5 },
    );
    let v6: Rib<u128> = shipped_sample("tier1-2024-v6.txt.gz", 4, 64);
    let lens = lengths::<u128>();
    check(
        v6,
        &Batches { batches: 4, per_batch: 40, lengths: &lens, top_bits: 8, hops: 40, seed: 6 },
    );
}

#[test]
fn update_paths_and_freed_chunks() {
    let mut rib = table::<u32>(&[(0, 0, 1), (0x0A00_0000, 8, 2)]);
    let mut fib = SailL::compile(&rib, &Config::default()).unwrap();
    assert_eq!(fib.last_update_path(), Some("compile"));
    assert_eq!(fib.chunk_counts(), vec![0, 0]);
    // A /32 creates a level-24 and a level-32 chunk; removing it frees both.
    let host = p4("10.1.2.3/32");
    rib.insert(host, NextHop::from_index(3));
    fib.apply_changes(&rib, &[host]).unwrap();
    assert_eq!((fib.last_update_path(), fib.chunk_counts()), (Some("in place"), vec![1, 1]));
    assert_eq!(fib.lookup(0x0A01_0203), Some(NextHop::from_index(3)));
    rib.remove(&host);
    fib.apply_changes(&rib, &[host]).unwrap();
    assert_eq!(fib.chunk_counts(), vec![0, 0]);
    assert_eq!(fib.lookup(0x0A01_0203), Some(NextHop::from_index(2)));
    // The freed chunks are reused.
    let other = p4("10.9.9.128/25");
    rib.insert(other, NextHop::from_index(4));
    let bytes = fib.memory_bytes();
    fib.apply_changes(&rib, &[other]).unwrap();
    assert_eq!(fib.memory_bytes(), bytes, "a freed chunk is reused, no new one");
    assert!(fib.same_shape(&SailL::compile(&rib, &Config::default()).unwrap()));
}

#[test]
fn narrow_words_widen_when_an_update_overflows() {
    // 32,768 level-24 chunks fill 16-bit ids; one more, or a next hop past 2^15 - 1, widens.
    let shift = 32 - 16;
    let mut rib: Rib<u32> = (0..32_768u32)
        .map(|i| (Prefix::new(i << shift, 17).unwrap(), NextHop::from_index(i % 5)))
        .collect();
    let cfg = Config::default();
    let mut fib = SailL::compile(&rib, &cfg).unwrap();
    assert_eq!(fib.width_bits(), 16);
    let hop_change = p4("1.0.0.0/8");
    rib.insert(hop_change, NextHop::from_index(7));
    fib.apply_changes(&rib, &[hop_change]).unwrap();
    assert_eq!((fib.width_bits(), fib.last_update_path()), (16, Some("in place")));
    let extra = p4("200.1.128.0/17");
    rib.insert(extra, NextHop::from_index(1));
    fib.apply_changes(&rib, &[extra]).unwrap();
    assert_eq!((fib.width_bits(), fib.last_update_path()), (32, Some("rebuild")));
    assert!(fib.same_shape(&SailL::compile(&rib, &cfg).unwrap()));
    // Next hops past the narrow width.
    let mut rib = table::<u32>(&[(0x0A00_0000, 8, 2)]);
    let mut fib = SailL::compile(&rib, &cfg).unwrap();
    let big = p4("10.0.0.0/24");
    rib.insert(big, NextHop::from_index(0x9000));
    fib.apply_changes(&rib, &[big]).unwrap();
    assert_eq!((fib.width_bits(), fib.last_update_path()), (32, Some("rebuild")));
    assert_eq!(fib.lookup(0x0A00_0001), Some(NextHop::from_index(0x9000)));
}

#[test]
fn ipv6_route_past_64_is_refused_by_updates() {
    let mut rib = Rib::<u128>::new();
    let mut fib = SailL::compile(&rib, &Config::default()).unwrap();
    let long = Prefix::new_masked(0x2001_0db8u128 << 96, 96).unwrap();
    rib.insert(long, NextHop::from_index(1));
    let e = fib.apply_changes(&rib, &[long]).unwrap_err();
    assert!(matches!(e, BuildError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("2001:db8::/96"), "{e}");
}
