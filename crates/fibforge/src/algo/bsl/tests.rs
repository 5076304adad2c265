//! Binary search on lengths against the RIB: edge cases, expansion, property tests, the
//! one-line hash tables.

use super::hash::{Bucket, Bucket32, Bucket128, OneLineTable};
use super::*;
use crate::algo::testkit::{self, assert_same, edge_tables, probes};
use crate::prefix::Prefix;
use proptest::prelude::*;
use std::collections::HashMap;

fn configs() -> Vec<Config> {
    let expand = |levels, lengths: Option<&[u32]>, first| Config {
        levels,
        lengths: lengths.map(<[u32]>::to_vec),
        first,
    };
    let mut v: Vec<Config> = [None, Some(1), Some(2), Some(3), Some(5)]
        .into_iter()
        .map(|levels| expand(levels, None, FirstLevel::Hash))
        .collect();
    for levels in [Some(2), Some(3)] {
        v.push(expand(levels, None, FirstLevel::Array));
    }
    for lengths in [&[8, 20, 32][..], &[4, 16, 24, 32]] {
        v.push(expand(None, Some(lengths), FirstLevel::Hash));
        v.push(expand(None, Some(lengths), FirstLevel::Array));
    }
    v
}

/// Expanded prefixes `cfg` would produce (`None`: no expansion).
fn expanded_count<A: Address>(rest: &Rib<A>, cfg: &Config) -> Option<u64> {
    let costs = crate::algo::cpe::ExpansionCosts::of(rest);
    if let Some(k) = cfg.levels {
        return crate::algo::cpe::min_expansion_levels(&costs, k).map(|(n, _)| n);
    }
    let levels = crate::algo::cpe::Levels::new(cfg.lengths.as_deref()?, A::BITS).ok()?;
    let counts = crate::algo::cpe::expansion_count(rest, &levels).ok()?;
    Some(counts.iter().fold(0u128, |a, &c| a.saturating_add(c)).min(u64::MAX as u128) as u64)
}

fn check_all<A: Address>(name: &str, rib: &Rib<A>, seed: u64) {
    let addrs = probes(rib, 1000, seed);
    let rest: Rib<A> = rib.iter().filter(|(p, _)| p.len() > 0).collect();
    for cfg in configs() {
        // Keep the tests fast: skip expansions of more than 2^20 prefixes.
        if expanded_count(&rest, &cfg).is_some_and(|n| n > 1 << 20) {
            continue;
        }
        // Expansions beyond the entry cap, and a full array for a first length above
        // MAX_ARRAY_BITS, must be clear errors; everything else answers as the RIB.
        let hashed = Config { first: FirstLevel::Hash, ..cfg.clone() };
        let first_len =
            Bsl::compile(rib, &hashed).ok().and_then(|f| f.stats().lengths.first().copied());
        match Bsl::compile(rib, &cfg) {
            Ok(fib) => {
                assert_same(&format!("{name} {cfg:?}"), &fib, rib, &addrs);
                let array = cfg.first == FirstLevel::Array && first_len.is_some();
                assert_eq!(fib.stats().first_array, array, "{name} {cfg:?}");
            }
            Err(BuildError::LimitExceeded { what: "expanded prefixes", .. }) => {}
            Err(BuildError::BadOption { option, .. }) if option == "first=array" => {
                assert!(first_len.is_some_and(|l| l > MAX_ARRAY_BITS), "{name} {cfg:?}");
            }
            Err(e) => panic!("{name} {cfg:?}: {e}"),
        }
    }
}

#[test]
fn edge_case_tables_ipv4() {
    for (name, rib) in edge_tables::<u32>() {
        check_all(name, &rib, 7);
    }
}

#[test]
fn edge_case_tables_ipv6() {
    for (name, rib) in edge_tables::<u128>() {
        let fib = Bsl::compile(&rib, &Config::default()).unwrap();
        assert_same(name, &fib, &rib, &probes(&rib, 1000, 9));
    }
}

#[test]
fn expansion_bounds_the_probes() {
    let rib = testkit::table::<u32>(&[
        (0, 0, 1),
        (0x0A00_0000, 8, 2),
        (0x0A01_0000, 16, 3),
        (0x0A01_0200, 23, 4),
        (0x0A01_0200, 24, 5),
        (0x0A01_0203, 32, 6),
        (0x0B00_0000, 9, 7),
    ]);
    let plain = Bsl::compile(&rib, &Config::default()).unwrap();
    assert_eq!(plain.stats().lengths, vec![8, 9, 16, 23, 24, 32]);
    assert_eq!(plain.max_probes(), 3);
    let two = Bsl::compile(&rib, &Config { levels: Some(2), ..Config::default() }).unwrap();
    assert_eq!(two.stats().lengths.len(), 2);
    assert_eq!(two.max_probes(), 2);
    assert_same("two levels", &two, &rib, &probes(&rib, 500, 3));
}

#[test]
fn bad_options_and_limits() {
    let rib = testkit::table::<u32>(&[(0x0A00_0000, 8, 2)]);
    let levels = |k| Config { levels: Some(k), ..Config::default() };
    assert!(Bsl::compile(&rib, &levels(0)).is_err());
    assert!(Bsl::compile(&rib, &levels(33)).is_err());
    let big = NextHop::from_raw(MARKER).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 8).unwrap(), big)].into_iter().collect();
    assert!(matches!(
        Bsl::compile(&rib, &Config::default()),
        Err(BuildError::LimitExceeded { .. })
    ));
    // /0 expanded to /32 would be 2^32 prefixes; the default route is never expanded, but a
    // /1 with a /32 and levels=1 is 2^31 and must be refused.
    let rib = testkit::table::<u32>(&[(0, 1, 1), (5, 32, 2)]);
    assert!(Bsl::compile(&rib, &levels(1)).is_err());
}

#[test]
fn first_array_changes_only_the_first_table() {
    let rib = testkit::table::<u32>(&[
        (0, 0, 1),
        (0x0A00_0000, 8, 2),
        (0x0A01_0000, 16, 3),
        (0x0A01_0200, 23, 4),
        (0x0A01_0203, 32, 6),
        (0x0B00_0000, 9, 7),
    ]);
    let lengths = Some(vec![16, 24, 32]);
    let hashed = Config { lengths: lengths.clone(), ..Config::default() };
    let array = Config { lengths, first: FirstLevel::Array, ..Config::default() };
    let (h, a) = (Bsl::compile(&rib, &hashed).unwrap(), Bsl::compile(&rib, &array).unwrap());
    let (hs, as_) = (h.stats(), a.stats());
    assert_eq!((hs.lengths.clone(), hs.entries.clone()), (vec![16, 24, 32], as_.entries.clone()));
    assert_eq!((hs.markers, hs.buckets[1..].to_vec()), (as_.markers, as_.buckets[1..].to_vec()));
    assert!(as_.first_array && !hs.first_array);
    assert_eq!((as_.buckets[0], as_.bytes[0]), (1 << 16, 4 << 16));
    assert_same("16/24/32 array", &a, &rib, &probes(&rib, 2000, 11));
    // Every address, against the hashed build: the first level's values are the same.
    for x in (0..=u32::MAX).step_by(4093).chain([0x0A01_0203, 0x0A01_02FF, 0x0AFF_FFFF]) {
        assert_eq!(a.lookup(x), h.lookup(x), "{x:#x}");
    }
}

#[test]
fn first_array_and_lengths_refuse_bad_input() {
    let rib = testkit::table::<u32>(&[(0x0A01_0200, 24, 2), (0x0A01_0203, 32, 3)]);
    let cfg = |levels, lengths: &[u32]| Config {
        levels,
        lengths: (!lengths.is_empty()).then(|| lengths.to_vec()),
        first: FirstLevel::Array,
    };
    // Plain search: the first length is 24, too long for an array.
    let err = Bsl::compile(&rib, &cfg(None, &[])).unwrap_err().to_string();
    assert!(err.contains("first=array") && err.contains("24"), "{err}");
    assert!(Bsl::compile(&rib, &cfg(None, &[21, 32])).is_err());
    // No route is as short as 20 here: that length is dropped and 32 comes first.
    assert!(Bsl::compile(&rib, &cfg(None, &[20, 32])).is_err());
    let short = testkit::table::<u32>(&[(0x0A00_0000, 12, 1), (0x0A01_0200, 24, 2)]);
    assert!(Bsl::compile(&short, &cfg(None, &[20, 32])).is_ok());
    for bad in [&[24, 16, 32][..], &[16, 33], &[16, 24]] {
        let err = Bsl::compile(&rib, &cfg(None, bad)).unwrap_err().to_string();
        assert!(!err.is_empty(), "{bad:?}");
    }
    let spec = |s: &str| Config::from_spec(&s.parse().unwrap());
    assert_eq!(spec("bsl:lengths=16/24/32,first=array").unwrap(), cfg(None, &[16, 24, 32]));
    assert_eq!(spec("bsl:levels=3,first=array").unwrap(), cfg(Some(3), &[]));
    assert!(spec("bsl:first=trie").is_err());
    assert!(spec("bsl:lengths=16/x").is_err());
    assert!(spec("bsl:levels=3,lengths=16/32").is_err());
}

#[test]
fn one_line_tables_find_every_key() {
    fn run<B: Bucket>(make: impl Fn(u64) -> B::Key, n: u64) {
        let entries: HashMap<B::Key, u32> =
            (0..n).map(|i| (make(i), (i as u32 % 1000) + 1)).collect();
        let t = OneLineTable::<B>::build(&entries);
        for (&k, &v) in &entries {
            assert_eq!(t.find(k), v);
        }
        assert_eq!(t.find(make(n + 1)), 0);
        assert!(t.buckets() * B::SLOTS >= entries.len());
    }
    for n in [0, 1, 7, 100, 50_000] {
        run::<Bucket32>(|i| (i as u32).wrapping_mul(2_654_435_761), n);
        run::<Bucket128>(|i| (i as u128) << 70 | 5, n);
    }
    assert_eq!(size_of::<Bucket32>(), 64);
    assert_eq!(size_of::<Bucket128>(), 64);
    assert_eq!(size_of::<super::hash::Bucket64>(), 64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(32)))]

    #[test]
    fn random_tables_match_the_rib(routes in testkit::arb_routes::<u32>(150, 100_000), seed in any::<u64>()) {
        let rib: Rib<u32> = routes.into_iter().collect();
        check_all("random", &rib, seed);
    }

    #[test]
    fn random_ipv6_tables_match_the_rib(routes in testkit::arb_routes::<u128>(150, 100_000), seed in any::<u64>()) {
        let rib: Rib<u128> = routes.into_iter().collect();
        let fib = Bsl::compile(&rib, &Config::default()).unwrap();
        assert_same("random v6", &fib, &rib, &probes(&rib, 500, seed));
    }
}
