//! Export → bytes → import round trips: the imported structure answers like the compiled one
//! and the RIB, re-exports to the same bytes, places `dir` and fan-out as a compile would,
//! and takes updates; exports are canonical (an updated structure exports as a fresh compile
//! of its routes). Forged files are in `tests_export_hostile.rs`.

use super::tests::{CONFIGS, cfg, hop, probes};
use super::*;
use crate::algo::bloom::BloomKey;
use crate::algo::testkit;
use crate::export::ExportFile;
use crate::fib::Incremental;

/// Through the file's bytes and back to a structure.
pub(super) fn reimport<A: Key>(
    file: &ExportFile,
) -> Result<Poptrie<A>, crate::export::ExportError> {
    let bytes = file.to_bytes();
    Poptrie::from_export(&ExportFile::from_bytes(&bytes).expect("container reads back"))
}

/// `got` answers `addrs` exactly as `want` and as `rib`, one by one and in batches.
fn assert_answers<A: Key>(
    got: &Poptrie<A>,
    want: &Poptrie<A>,
    rib: &Rib<A>,
    addrs: &[A],
    what: &str,
) {
    let mut batch = vec![None; addrs.len()];
    got.lookup_batch(addrs, &mut batch);
    for (&a, &b) in addrs.iter().zip(&batch) {
        let (expect, oracle) = (want.lookup(a), rib.lookup(a));
        assert_eq!(expect, oracle, "{what}: the compiled structure at {}", a.to_std());
        assert_eq!(got.lookup(a), expect, "{what}: imported lookup {}", a.to_std());
        assert_eq!(b, expect, "{what}: imported lookup_batch {}", a.to_std());
    }
}

/// The full round trip of `rib` compiled with `c`.
fn round_trip<A: Key + BloomKey>(rib: &Rib<A>, c: &Config, addrs: &[A], what: &str) {
    let p = Poptrie::compile(rib, c).unwrap();
    let file = p.to_export().unwrap();
    assert_eq!((file.params[0], file.arrays.len()), (c.s as u64, 3), "{what}");
    let q = reimport::<A>(&file).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_answers(&q, &p, rib, addrs, what);
    let dynamic = crate::export::import::<A>(&ExportFile::from_bytes(&file.to_bytes()).unwrap())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    testkit::assert_same(what, &*dynamic, rib, addrs);
    assert_eq!(q.to_export().unwrap(), file, "{what}: re-export differs");
    // Placed as a compile of the default configuration with the file's s and aggregation.
    let def = Config { s: c.s, aggregate: c.aggregate, ..Config::for_family::<A>() };
    let (got, fresh) = (q.stats(), Poptrie::compile(rib, &def).unwrap().stats());
    assert_eq!((got.dir_bits, got.fanout), (fresh.dir_bits, fresh.fanout), "{what}: placement");
    assert_eq!((got.inodes, got.leaves), (fresh.inodes, fresh.leaves), "{what}: counts");
    assert_eq!(got.leaf_bits, p.stats().leaf_bits, "{what}: leaf width");
}

/// `(s, aggregate, narrow dir, fan-out)` of the round trips: s = 0, 16, 18, both
/// aggregations, both `dir` widths, with and without fan-out (skipped for IPv4).
const ROUND_TRIP_CONFIGS: &[(u32, bool, bool, bool)] = &[
    (0, true, true, false),
    (0, false, false, false),
    (16, true, true, true),
    (16, false, true, false),
    (18, true, false, false),
    (18, false, true, true),
    (18, true, true, false),
];

fn edge_tables_round_trip<A: Key + BloomKey>() {
    for (name, rib) in testkit::edge_tables::<A>() {
        let addrs = probes(&rib, 300, 5);
        // The 70,000-route table (32-bit leaves) takes seconds per configuration: two do.
        let big = rib.len() > 10_000;
        for (i, &(s, agg, dir16, fan)) in ROUND_TRIP_CONFIGS.iter().enumerate() {
            if (fan && !A::FANOUT) || (big && i % 4 != 0) {
                continue;
            }
            let what = format!("{name} s={s} aggregate={agg} dir16={dir16} fanout={fan}");
            round_trip(&rib, &cfg(s, agg, dir16, fan), &addrs, &what);
        }
    }
}

#[test]
fn ipv4_edge_tables_round_trip() {
    edge_tables_round_trip::<u32>();
}

#[test]
fn ipv6_edge_tables_round_trip() {
    edge_tables_round_trip::<u128>();
}

/// A table of `n` pseudo-random routes (lengths 8 to 30 of 32, scaled for IPv6) on 40 hops.
fn random_rib<A: Key>(n: usize, seed: u64) -> Rib<A> {
    let mut rng = crate::verify::XorShift64::new(seed);
    let mut rib = Rib::new();
    for _ in 0..n {
        let len = (8 + rng.below(23) as u32) * A::BITS / 32;
        let addr = A::from_u128(rng.next_u128() >> (128 - A::BITS));
        rib.insert(Prefix::new_masked(addr, len).unwrap(), hop(rng.below(40) as u32));
    }
    rib
}

/// Updates leave freed blocks behind; the export has none of them: it is the export of a
/// fresh compile of the same routes, and the import takes further updates.
fn updated_table_round_trip<A: Key>() {
    for &(s, agg, dir16, fan) in CONFIGS.iter().filter(|c| A::FANOUT || !c.3) {
        let c = cfg(s, agg, dir16, fan);
        let what = format!("s={s} aggregate={agg} dir16={dir16} fanout={fan}");
        let mut rib = random_rib::<A>(600, 3);
        let mut p = Poptrie::compile(&rib, &c).unwrap();
        let changed = churn(&mut rib, 300, 9);
        p.apply_changes(&rib, &changed).unwrap();
        let file = p.to_export().unwrap();
        let fresh = Poptrie::compile(&rib, &c).unwrap().to_export().unwrap();
        assert_eq!(file, fresh, "{what}: an updated structure exports as a fresh compile");
        let mut q = reimport::<A>(&file).unwrap();
        assert_answers(&q, &p, &rib, &probes(&rib, 500, 1), &what);
        let changed = churn(&mut rib, 200, 10);
        q.apply_changes(&rib, &changed).unwrap();
        testkit::assert_same(&format!("{what}: updated"), &q, &rib, &probes(&rib, 500, 2));
    }
}

/// Inserts and removes `n` random routes; returns the changed prefixes.
fn churn<A: Key>(rib: &mut Rib<A>, n: usize, seed: u64) -> Vec<Prefix<A>> {
    let existing: Vec<Prefix<A>> = rib.iter().map(|(p, _)| p).collect();
    let mut rng = crate::verify::XorShift64::new(seed);
    let mut changed = Vec::new();
    for (i, p) in random_rib::<A>(n, seed).iter().map(|(p, _)| p).enumerate() {
        if i % 3 == 0 {
            let old = existing[rng.below(existing.len() as u64) as usize];
            rib.remove(&old);
            changed.push(old);
        }
        rib.insert(p, hop(rng.below(40) as u32));
        changed.push(p);
    }
    changed
}

#[test]
fn ipv4_updated_table_round_trips() {
    updated_table_round_trip::<u32>();
}

#[test]
fn ipv6_updated_table_round_trips() {
    updated_table_round_trip::<u128>();
}

/// A shipped table from `data/` (gzip text: a prefix, then optionally a next hop, per line);
/// prefix-only tables get next hops by line number.
fn shipped<A: Key>(name: &str) -> Rib<A> {
    use std::io::BufRead;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut hops = std::collections::HashMap::new();
    let mut rib = Rib::new();
    let lines = std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines();
    for (i, line) in lines.enumerate() {
        let line = line.unwrap();
        let mut fields = line.split_whitespace();
        let Some(Ok(prefix)) = fields.next().map(Prefix::<A>::parse) else { continue };
        let key = fields.next().map_or_else(|| format!("#{}", i % 250), str::to_owned);
        let n = hops.len() as u32;
        rib.insert(prefix, hop(*hops.entry(key).or_insert(n)));
    }
    assert!(rib.len() > 1000, "{name}: {} routes", rib.len());
    rib
}

#[test]
fn shipped_tables_round_trip() {
    let v4 = shipped::<u32>("ris2015-as3856.tsv.gz");
    let addrs = crate::verify::probes(&v4, 40, 50_000, 21);
    for c in [Config::for_family::<u32>(), cfg(16, false, false, false)] {
        round_trip(&v4, &c, &addrs, &format!("ris2015 {c:?}"));
    }
    let v6 = shipped::<u128>("tier1-2024-v6.txt.gz");
    let addrs = crate::verify::probes(&v6, 10, 50_000, 22);
    round_trip(&v6, &Config::for_family::<u128>(), &addrs, "tier1-v6");
}
