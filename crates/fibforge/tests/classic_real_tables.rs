//! The classic comparators (DIR-24-8, DXR, Tree Bitmap) against the RIB on real tables: the tables shipped
//! in `data/` and, when this checkout sits in the workplace, every table in
//! `../shared/data/tables`; and DIR-24-8 and Tree Bitmap after replaying a real BGP update
//! stream.
//!
//! Prefix-only tables are read with a distinct next hop per prefix (the strictest setting:
//! every route is distinguishable, and tier1 has about 900,000 next hops). Checks are sampled
//! (route boundaries and their neighbours, random addresses, random addresses inside routes);
//! the exhaustive IPv4 check is `fibforge verify --exhaustive`.

mod common;

use common::{read_updates, replay, repo_data, shared_data};
use fibforge::algo::dir24_8::Dir24_8;
use fibforge::algo::dxr;
use fibforge::algo::dxr::Dxr;
use fibforge::algo::treebitmap::{NodeLayout, TreeBitmap, TreeBitmap4, TreeBitmap6};
use fibforge::rib::Range;
use fibforge::{Address, Compile, Incremental, Lookup, NextHop, Rib};
use fibforge_io::{LoadedTable, PrefixOnlyHops, ReadConfig, read_table};
use std::path::Path;

fn load(path: &Path) -> LoadedTable {
    let cfg = ReadConfig { prefix_only: PrefixOnlyHops::Distinct, ..Default::default() };
    read_table(path, &cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Route boundaries and their neighbours, random addresses, random addresses inside routes.
fn probes<A: Address>(rib: &Rib<A>, random: usize) -> Vec<A> {
    common::probes(rib, 1, random, 0x9E37_79B9_7F4A_7C15)
}

/// Sorted probe addresses with the RIB's answers, computed once per table by walking the
/// RIB's range partition, then checked against any number of structures.
struct Oracle<A: Address> {
    sorted: Vec<A>,
    want: Vec<Option<NextHop>>,
}

impl<A: Address> Oracle<A> {
    fn new(rib: &Rib<A>, addrs: &[A]) -> Self {
        let mut sorted = addrs.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let ranges: Vec<Range<A>> = rib.ranges();
        let mut i = 0;
        let want = sorted
            .iter()
            .map(|&a| {
                while i + 1 < ranges.len() && ranges[i + 1].start <= a {
                    i += 1;
                }
                ranges[i].hop
            })
            .collect();
        Oracle { sorted, want }
    }

    /// Asserts `fib` gives the RIB's answers through `lookup` and `lookup_batch`.
    fn check(&self, what: &str, fib: &dyn Lookup<A>) {
        let mut batch = vec![None; self.sorted.len()];
        fib.lookup_batch(&self.sorted, &mut batch);
        let mut bad = 0;
        for (k, (&a, &want)) in self.sorted.iter().zip(&self.want).enumerate() {
            let got = fib.lookup(a);
            if got != want || batch[k] != want {
                if bad < 5 {
                    eprintln!("{what}: {a:?}: lookup {got:?} batch {:?} rib {want:?}", batch[k]);
                }
                bad += 1;
            }
        }
        assert_eq!(bad, 0, "{what}: {bad} of {} addresses differ", self.sorted.len());
    }
}

/// Asserts `fib` equals the RIB on `addrs` through `lookup` and `lookup_batch`.
fn assert_same<A: Address>(what: &str, fib: &dyn Lookup<A>, rib: &Rib<A>, addrs: &[A]) {
    Oracle::new(rib, addrs).check(what, fib);
}

/// Every algorithm of this file that handles IPv4, on one table.
fn check_v4(name: &str, rib: &Rib<u32>) {
    if rib.is_empty() {
        return;
    }
    let oracle = Oracle::new(rib, &probes(rib, 200_000));
    let fib = Dir24_8::compile(rib, &()).unwrap();
    oracle.check(&format!("{name} dir24_8"), &fib);
    check_dxr(name, rib, &oracle);
    check_treebitmap(name, rib, &oracle);
}

/// Tree Bitmap with strides 4 and 6 on one table.
fn check_treebitmap<A: Address>(name: &str, rib: &Rib<A>, oracle: &Oracle<A>) {
    let fib = TreeBitmap4::compile(rib, &()).unwrap();
    oracle.check(&format!("{name} treebitmap4"), &fib);
    let fib = TreeBitmap6::compile(rib, &()).unwrap();
    oracle.check(&format!("{name} treebitmap6"), &fib);
}

/// D16R and D18R on one table.
fn check_dxr<A: Address>(name: &str, rib: &Rib<A>, oracle: &Oracle<A>) {
    for k in [16, 18] {
        let fib = Dxr::compile(rib, &dxr::Config::with_k(k)).unwrap();
        oracle.check(&format!("{name} dxr{k}"), &fib);
    }
}

/// Every algorithm of this file that handles IPv6, on one table.
fn check_v6(name: &str, rib: &Rib<u128>) {
    if rib.is_empty() {
        return;
    }
    let oracle = Oracle::new(rib, &probes(rib, 100_000));
    check_dxr(name, rib, &oracle);
    check_treebitmap(name, rib, &oracle);
}

fn check_file(path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let table = load(path);
    check_v4(&name, &table.v4);
    check_v6(&name, &table.v6);
}

fn check_shared(dir: &str, file: &str) {
    if let Some(path) = shared_data(&format!("tables/{dir}/{file}")) {
        check_file(&path);
    }
}

#[test]
fn shipped_ris2015_as3856() {
    check_file(&repo_data("ris2015-as3856.tsv.gz"));
}

#[test]
fn shipped_tier1_2024_v6() {
    check_file(&repo_data("tier1-2024-v6.txt.gz"));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_v4_tables() {
    for f in ["maewest.txt.gz", "ris2002-as1853.tsv.gz", "ris2010-as2497.tsv.gz"] {
        check_shared("v4", f);
    }
    check_shared("v4", "ris2010-as4777.tsv.gz");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_v6_tables() {
    check_shared("v6", "linx2014-p69.txt.gz");
    check_shared("v6", "rrc00-v6.txt.gz");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_tier1_2024_mixed() {
    check_shared("mixed", "tier1-2024.txt.gz");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_global2026_origin_mixed() {
    check_shared("mixed", "global2026-origin.tsv.gz");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn dir24_8_after_replaying_linx_updates_equals_a_fresh_compile() {
    let Some(ris) = shared_data("tables/v4/ris2015-as3856.tsv.gz") else { return };
    let Some(stream) = shared_data("updates/linx2014-p52-v4.txt.gz") else { return };
    let mut table = load(&ris);
    let mut fib = Dir24_8::compile(&table.v4, &()).unwrap();
    replay_linx(&stream, &mut table, &mut fib);
    let fresh = Dir24_8::compile(&table.v4, &()).unwrap();
    assert!(fib.same_answers(&fresh), "updated table differs from a fresh compile");
    assert_same("dir24_8 after updates", &fib, &table.v4, &probes(&table.v4, 100_000));
}

/// Replays the LINX update stream on the shared ris2015 table into a Tree Bitmap of layout
/// `N`, one `apply_changes` per update, and compares with a fresh compile.
fn treebitmap_replay<N: NodeLayout>() {
    let Some(ris) = shared_data("tables/v4/ris2015-as3856.tsv.gz") else { return };
    let Some(stream) = shared_data("updates/linx2014-p52-v4.txt.gz") else { return };
    let mut table = load(&ris);
    let mut fib = TreeBitmap::<u32, N>::compile(&table.v4, &()).unwrap();
    replay_linx(&stream, &mut table, &mut fib);
    let fresh = TreeBitmap::<u32, N>::compile(&table.v4, &()).unwrap();
    assert!(fib.same_shape(&fresh), "{}: updated trie differs from a fresh compile", N::NAME);
    assert_eq!(fib.node_count(), fresh.node_count());
    assert_same(
        &format!("{} after updates", N::NAME),
        &fib,
        &table.v4,
        &probes(&table.v4, 100_000),
    );
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn treebitmap4_after_replaying_linx_updates_equals_a_fresh_compile() {
    treebitmap_replay::<fibforge::algo::treebitmap::Node4>();
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn treebitmap6_after_replaying_linx_updates_equals_a_fresh_compile() {
    treebitmap_replay::<fibforge::algo::treebitmap::Node6>();
}

/// Applies the 23,446 LINX updates to `table` and `fib`, one `apply_changes` per update.
fn replay_linx<F: Incremental<u32>>(stream: &Path, table: &mut LoadedTable, fib: &mut F) {
    let updates = read_updates(stream, table);
    assert_eq!(updates.len(), 23_446);
    replay(&updates, &mut table.v4, fib);
}
