//! Every text table shipped in `data/` and, when present, every table in
//! `../shared/data/tables` and `../shared/data/multi` loads with the counts its README states.

mod common;

use fibforge_io::{LoadedTable, ReadConfig, read_table};
use std::collections::BTreeSet;
use std::path::Path;

fn load(path: &Path) -> LoadedTable {
    read_table(path, &ReadConfig::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (file, IPv4 prefixes, IPv6 prefixes, distinct next hops or None when not stated,
/// duplicate lines).
type Expected = (&'static str, usize, usize, Option<usize>, u64);

fn check(dir: &Path, expected: &[Expected]) {
    for &(file, v4, v6, hops, duplicates) in expected {
        let t = load(&dir.join(file));
        assert_eq!((t.v4.len(), t.v6.len(), t.duplicates), (v4, v6, duplicates), "{file}");
        if let Some(hops) = hops {
            assert_eq!(t.hops.len(), hops, "{file}: next hops");
        }
    }
}

#[test]
fn shipped_tables_have_their_documented_counts() {
    check(
        &common::repo_data(),
        &[
            ("ris2015-as3856.tsv.gz", 577_703, 0, Some(3_771), 0),
            ("tier1-2024-v6.txt.gz", 0, 160_147, Some(16), 0),
        ],
    );
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_single_tables_have_their_documented_counts() {
    let Some(shared) = common::shared_data() else { return };
    check(
        &shared.join("tables/v4"),
        &[
            ("ris2015-as3856.tsv.gz", 577_703, 0, Some(3_771), 0),
            ("ris2010-as4777.tsv.gz", 323_485, 0, Some(23), 0),
            ("ris2010-as2497.tsv.gz", 318_457, 0, Some(20), 0),
            ("ris2002-as1853.tsv.gz", 112_986, 0, Some(65), 0),
            ("maewest.txt.gz", 28_895, 0, None, 0),
        ],
    );
    check(
        &shared.join("tables/v6"),
        &[
            ("linx2014-p69.txt.gz", 0, 20_440, Some(94), 0),
            ("rrc00-v6.txt.gz", 0, 103_010, None, 0),
        ],
    );
    let listed = common::files_in(&shared.join("tables/v4")).len()
        + common::files_in(&shared.join("tables/v6")).len();
    assert_eq!(listed, 7, "a new file in tables/ needs its counts here");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_mixed_tables_have_their_documented_counts() {
    let Some(shared) = common::shared_data() else { return };
    check(&shared.join("tables/mixed"), &[("tier1-2024.txt.gz", 901_899, 160_147, None, 0)]);
    // 1,178,137 IPv4 lines of which 9,192 repeat a prefix (MOAS), 15,972 repeated lines in all.
    let t = load(&shared.join("tables/mixed/global2026-origin.tsv.gz"));
    assert_eq!((t.v4.len(), t.v6.len(), t.duplicates), (1_168_945, 279_855, 15_972));
    // The README counts origin ASes over all lines (also those a later MOAS line replaced).
    let file = fibforge_io::open(&shared.join("tables/mixed/global2026-origin.tsv.gz")).unwrap();
    let (mut v4_origins, mut v6_origins) = (BTreeSet::new(), BTreeSet::new());
    for line in std::io::BufRead::lines(file).map(|l| l.unwrap()) {
        let (prefix, origin) = line.split_once('\t').unwrap();
        let set = if prefix.contains(':') { &mut v6_origins } else { &mut v4_origins };
        set.insert(origin.to_string());
    }
    assert_eq!((v4_origins.len(), v6_origins.len()), (78_608, 36_987), "origin ASes");
    assert_eq!(t.hops.len(), v4_origins.union(&v6_origins).count());
    assert_eq!(common::files_in(&shared.join("tables/mixed")).len(), 2);
}

/// Loads every table of a `multi/` folder: (count, size range, union, intersection).
fn check_multi(
    dir: &Path,
    count: usize,
    sizes: (usize, usize),
    union: Option<usize>,
    intersection: Option<usize>,
) {
    let tables: Vec<(String, LoadedTable)> = common::files_in(dir)
        .into_iter()
        .filter(|p| !p.ends_with("all_peers.tsv.gz"))
        .map(|p| (p.display().to_string(), load(&p)))
        .collect();
    assert_eq!(tables.len(), count, "{}", dir.display());
    let mut all = BTreeSet::new();
    let mut common_prefixes: Option<BTreeSet<String>> = None;
    for (name, t) in &tables {
        assert!((sizes.0..=sizes.1).contains(&t.len()), "{name}: {} prefixes", t.len());
        let mine: BTreeSet<String> =
            t.v4.iter()
                .map(|(p, _)| p.to_string())
                .chain(t.v6.iter().map(|(p, _)| p.to_string()))
                .collect();
        all.extend(mine.iter().cloned());
        common_prefixes = Some(match common_prefixes {
            None => mine,
            Some(c) => c.intersection(&mine).cloned().collect(),
        });
    }
    if let Some(union) = union {
        assert_eq!(all.len(), union, "{}: union", dir.display());
    }
    if let Some(intersection) = intersection {
        assert_eq!(
            common_prefixes.unwrap_or_default().len(),
            intersection,
            "{}: intersection",
            dir.display()
        );
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_multi_tables_have_their_documented_counts() {
    let Some(shared) = common::shared_data() else { return };
    let multi = shared.join("multi");
    check_multi(&multi.join("internet2"), 9, (13_970, 14_054), Some(15_032), Some(13_588));
    check_multi(&multi.join("stanford"), 16, (90, 869), None, None);
    check_multi(&multi.join("ris2000-v4"), 6, (69_964, 76_575), Some(80_328), Some(68_611));
    check_multi(
        &multi.join("routeviews2021-v6"),
        9,
        (79_431, 105_957),
        Some(107_425),
        Some(76_822),
    );
    check_multi(&multi.join("routeviews2019-v6"), 7, (33_148, 74_583), Some(80_713), None);
    check_multi(&multi.join("routeviews2019-v4-partial"), 2, (126_000, 132_000), None, None);
    let wash = load(&multi.join("internet2/wash.tsv.gz"));
    assert_eq!(wash.duplicates, 1);
    // all_peers: every route of the seven peers (prefix, nexthop, peer, AS, origin).
    let all = load(&multi.join("ris2000-v4/all_peers.tsv.gz"));
    assert_eq!((all.v4.len(), all.duplicates), (82_377, 452_018 - 82_377));
}

fn table_of(text: &'static str) -> LoadedTable {
    fibforge_io::read_table_from(text.as_bytes(), "inline", &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn projected_hops_come_from_the_longest_covering_source_route() {
    let source = table_of("10.0.0.0/8 a\n10.1.0.0/16 b\n10.1.2.128/25 c\n2001:db8::/32 v6\n");
    let prefixes =
        table_of("10.1.2.0/24\n10.2.0.0/16\n10.1.2.128/26\n11.0.0.0/8\n2001:db8:1::/48\n");
    let t = prefixes.with_hops_from(&source);
    let prefix = |p: &str| fibforge::AnyPrefix::parse_with(p, fibforge::ParseMode::Strict).unwrap();
    let hop = |p: &str| t.hop_value(t.get(&prefix(p)).expect(p)).to_string();
    // The /25 "c" lies inside 10.1.2.0/24 but does not cover it: the /16 does.
    assert_eq!(hop("10.1.2.0/24"), "b");
    assert_eq!(hop("10.2.0.0/16"), "a");
    assert_eq!(hop("10.1.2.128/26"), "c");
    assert_eq!(hop("11.0.0.0/8"), fibforge_io::NO_COVERING_ROUTE);
    assert_eq!(hop("2001:db8:1::/48"), "v6");
    assert_eq!((t.v4.len(), t.v6.len(), t.hops.len()), (4, 1, 5));
}
