//! SAIL_B, SAIL_U and SAIL_L against the RIB on real tables: the shipped `data/` tables, every
//! table of `../shared/data/tables` when that folder exists (sampled probes), and a real BGP
//! update stream replayed onto ris2015-as3856 (SAIL_U and SAIL_B incremental updates must
//! answer like a fresh compile).

mod common;

use common::{Update, read_updates, repo_data, shared_data as shared};
use fibforge::algo::sail;
use fibforge::algo::sail::{SailB, SailL, SailU, max_len};
use fibforge::{Address, BuildError, Compile, Incremental, Lookup, Prefix, Rib};
use fibforge_io::{LoadedTable, PrefixOnlyHops, ReadConfig};
use std::path::Path;

fn load(path: &Path, prefix_only: PrefixOnlyHops) -> LoadedTable {
    let cfg = ReadConfig { prefix_only, ..ReadConfig::default() };
    fibforge_io::read_table(path, &cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first and last address of every `every`-th route and their outside neighbours,
/// random addresses, and random addresses inside random routes.
fn probes<A: Address>(rib: &Rib<A>, every: usize, random: usize) -> Vec<A> {
    common::probes(rib, every, random, 0x2545_F491_4F6C_DD1D)
}

/// `fib` answers every probe like the RIB, through `lookup` and `lookup_batch`.
fn assert_agrees<A: Address>(rib: &Rib<A>, fib: &dyn Lookup<A>, probes: &[A], what: &str) {
    let mut batch = vec![None; probes.len()];
    fib.lookup_batch(probes, &mut batch);
    let mut bad = 0;
    for (&a, &b) in probes.iter().zip(&batch) {
        let want = rib.lookup(a);
        if fib.lookup(a) != want || b != want {
            bad += 1;
            assert!(bad > 5 || fib.lookup(a) == want, "{what}: {a:?} want {want:?}");
            assert!(bad > 5 || b == want, "{what}: batch {a:?} want {want:?}");
        }
    }
    assert_eq!(bad, 0, "{what}: {bad} mismatches of {}", probes.len());
}

fn check_v4(rib: &Rib<u32>, name: &str, every: usize) {
    let probes = probes(rib, every, 200_000);
    let cfg = sail::Config::default();
    assert_agrees(rib, &SailB::compile(rib, &cfg).unwrap(), &probes, &format!("{name} sail_b"));
    assert_agrees(rib, &SailU::compile(rib, &cfg).unwrap(), &probes, &format!("{name} sail_u"));
    assert_agrees(rib, &SailL::compile(rib, &cfg).unwrap(), &probes, &format!("{name} sail_l"));
}

/// SAIL_L on IPv6: equal to the RIB when every prefix is at most /64, otherwise refused with
/// the first longer prefix named.
fn check_v6(rib: &Rib<u128>, name: &str) {
    let too_long = rib.iter().find(|(p, _)| p.len() > max_len::<u128>());
    match (SailL::compile(rib, &sail::Config::default()), too_long) {
        (Ok(fib), None) => assert_agrees(rib, &fib, &probes(rib, 1, 100_000), name),
        (Err(BuildError::Unsupported { reason, .. }), Some((p, _))) => {
            assert!(reason.contains(&format!("{p} ")), "{name}: {reason} should name {p}");
            // The same table without the longer prefixes compiles and agrees.
            let short: Rib<u128> = rib.iter().filter(|(p, _)| p.len() <= 64).collect();
            let fib = SailL::compile(&short, &sail::Config::default()).unwrap();
            assert_agrees(&short, &fib, &probes(&short, 1, 100_000), name);
        }
        (Ok(_), Some((p, _))) => panic!("{name}: {p} is longer than /64 but was accepted"),
        (Err(e), _) => panic!("{name}: {e}"),
    }
}

#[test]
fn data_ris2015_as3856() {
    let t = load(&repo_data("ris2015-as3856.tsv.gz"), PrefixOnlyHops::default());
    check_v4(&t.v4, "ris2015-as3856", 2);
}

#[test]
fn data_tier1_2024_v6() {
    let t = load(&repo_data("tier1-2024-v6.txt.gz"), PrefixOnlyHops::default());
    check_v6(&t.v6, "tier1-2024-v6");
}

macro_rules! shared_v4 {
    ($($test:ident: $file:literal, $hops:expr, $every:literal;)*) => {$(
        #[test]
        fn $test() {
            if let Some(path) = shared($file) {
                let t = load(&path, $hops);
                check_v4(&t.v4, $file, $every);
            }
        }
    )*};
}

shared_v4! {
    shared_maewest: "tables/v4/maewest.txt.gz", PrefixOnlyHops::Distinct, 1;
    shared_ris2002_as1853: "tables/v4/ris2002-as1853.tsv.gz", PrefixOnlyHops::default(), 1;
    shared_ris2010_as2497: "tables/v4/ris2010-as2497.tsv.gz", PrefixOnlyHops::default(), 3;
    shared_ris2010_as4777: "tables/v4/ris2010-as4777.tsv.gz", PrefixOnlyHops::default(), 3;
    shared_ris2015_as3856: "tables/v4/ris2015-as3856.tsv.gz", PrefixOnlyHops::default(), 7;
    // Every prefix its own next hop: 901,899 next hops force 32-bit words.
    shared_tier1_2024_v4_distinct: "tables/mixed/tier1-2024.txt.gz", PrefixOnlyHops::Distinct, 5;
    shared_global2026_origin_v4: "tables/mixed/global2026-origin.tsv.gz", PrefixOnlyHops::default(), 6;
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_v6_tables() {
    for file in ["tables/v6/linx2014-p69.txt.gz", "tables/v6/rrc00-v6.txt.gz"] {
        if let Some(path) = shared(file) {
            check_v6(&load(&path, PrefixOnlyHops::default()).v6, file);
        }
    }
}

/// One-hour LINX update stream (`unixtime a|w prefix nexthop`) applied update by update to
/// ris2015-as3856 through SAIL_U and SAIL_B; afterwards both answer like a fresh compile.
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn linx_updates_replayed_onto_ris2015() {
    let Some(updates) = shared("updates/linx2014-p52-v4.txt.gz") else { return };
    let mut t = load(&repo_data("ris2015-as3856.tsv.gz"), PrefixOnlyHops::default());
    let cfg = sail::Config::default();
    let mut sail_u = SailU::compile(&t.v4, &cfg).unwrap();
    let mut sail_b = SailB::compile(&t.v4, &cfg).unwrap();
    let mut touched: Vec<Prefix<u32>> = Vec::new();
    let mut applied = 0;
    for u in read_updates(&updates, &mut t) {
        let mark = t.v4.change_mark();
        let p = match u {
            Update::Announce(p, h) => {
                t.v4.insert(p, h);
                p
            }
            Update::Withdraw(p) => {
                t.v4.remove(&p);
                p
            }
        };
        let changed = t.v4.changes_since(mark).to_vec();
        sail_u.apply_changes(&t.v4, &changed).unwrap();
        sail_b.apply_changes(&t.v4, &changed).unwrap();
        t.v4.trim_changes(t.v4.change_mark());
        touched.push(p);
        applied += 1;
    }
    assert_eq!(applied, 23_446);
    let mut probes = probes(&t.v4, 3, 200_000);
    for p in &touched {
        probes.extend([p.addr(), p.last(), p.addr().wrapping_sub(1), p.last().wrapping_add(1)]);
    }
    let fresh_u = SailU::compile(&t.v4, &cfg).unwrap();
    let fresh_b = SailB::compile(&t.v4, &cfg).unwrap();
    assert_agrees(&t.v4, &fresh_u, &probes, "fresh sail_u");
    assert_agrees(&t.v4, &sail_u, &probes, "updated sail_u");
    assert_agrees(&t.v4, &sail_b, &probes, "updated sail_b");
    assert_eq!(sail_u.chunks(), fresh_u.chunks());
    assert_eq!(sail_b.chunks(), fresh_b.chunks());
    for &a in &probes {
        assert_eq!(sail_u.lookup(a), fresh_u.lookup(a), "{a:#x}");
    }
}
