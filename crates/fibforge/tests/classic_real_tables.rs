//! The classic comparators (DIR-24-8, DXR, Tree Bitmap) against the RIB on real tables: the tables shipped
//! in `data/` and, when this checkout sits in the workplace, every table in
//! `../shared/data/tables`; and DIR-24-8 after replaying a real BGP update stream.
//!
//! Prefix-only tables are read with a distinct next hop per prefix (the strictest setting:
//! every route is distinguishable, and tier1 has about 900,000 next hops). Checks are sampled
//! (route boundaries and their neighbours, random addresses, random addresses inside routes);
//! the exhaustive IPv4 check is `fibforge verify --exhaustive`.

use fibforge::algo::dir24_8::Dir24_8;
use fibforge::algo::dxr::{Dxr, DxrConfig};
use fibforge::rib::Range;
use fibforge::{Address, Compile, Incremental, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{PrefixOnlyHops, ReadConfig, Table, read_table};
use std::io::BufRead;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared/data` next to the repository, when it exists.
fn shared_data() -> Option<PathBuf> {
    let p = repo_root().join("../shared/data");
    p.is_dir().then_some(p)
}

fn load(path: &Path) -> Table {
    let cfg = ReadConfig { prefix_only: PrefixOnlyHops::Distinct, ..Default::default() };
    read_table(path, &cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn next_random(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// Route boundaries and their neighbours, random addresses, random addresses inside routes.
fn probes<A: Address>(rib: &Rib<A>, random: usize) -> Vec<A> {
    let routes: Vec<Prefix<A>> = rib.iter().map(|(p, _)| p).collect();
    let mut v = Vec::with_capacity(routes.len() * 4 + random * 2);
    for p in &routes {
        v.extend([p.addr(), p.last()]);
        v.push(A::from_u128(p.addr().to_u128().wrapping_sub(1)));
        v.push(A::from_u128(p.last().to_u128().wrapping_add(1)));
    }
    let mut state = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..random {
        let r = ((next_random(&mut state) as u128) << 64) | next_random(&mut state) as u128;
        v.push(A::from_u128(r));
        let p = routes[(next_random(&mut state) % routes.len() as u64) as usize];
        v.push(A::from_u128(p.addr().to_u128() | (r & !A::netmask(p.len()).to_u128())));
    }
    v
}

/// Asserts `fib` equals the RIB on `addrs` through `lookup` and `lookup_batch`; the expected
/// answers come from walking the RIB's range partition over the sorted addresses.
fn assert_same<A: Address>(what: &str, fib: &dyn Lookup<A>, rib: &Rib<A>, addrs: &[A]) {
    let mut sorted = addrs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let ranges: Vec<Range<A>> = rib.ranges();
    let mut batch = vec![None; sorted.len()];
    fib.lookup_batch(&sorted, &mut batch);
    let mut i = 0;
    let mut bad = 0;
    for (k, &a) in sorted.iter().enumerate() {
        while i + 1 < ranges.len() && ranges[i + 1].start <= a {
            i += 1;
        }
        let want = ranges[i].hop;
        let got = fib.lookup(a);
        if got != want || batch[k] != want {
            if bad < 5 {
                eprintln!("{what}: {a:?}: lookup {got:?} batch {:?} rib {want:?}", batch[k]);
            }
            bad += 1;
        }
    }
    assert_eq!(bad, 0, "{what}: {bad} of {} addresses differ", sorted.len());
}

/// Every algorithm of this file that handles IPv4, on one table.
fn check_v4(name: &str, rib: &Rib<u32>) {
    if rib.is_empty() {
        return;
    }
    let addrs = probes(rib, 200_000);
    let fib = Dir24_8::compile(rib, &()).unwrap();
    assert_same(&format!("{name} dir24_8"), &fib, rib, &addrs);
    check_dxr(name, rib, &addrs);
}

/// D16R and D18R on one table.
fn check_dxr<A: Address>(name: &str, rib: &Rib<A>, addrs: &[A]) {
    for k in [16, 18] {
        let fib = Dxr::compile(rib, &DxrConfig::with_k(k)).unwrap();
        assert_same(&format!("{name} dxr{k}"), &fib, rib, addrs);
    }
}

/// Every algorithm of this file that handles IPv6, on one table.
fn check_v6(name: &str, rib: &Rib<u128>) {
    if rib.is_empty() {
        return;
    }
    let addrs = probes(rib, 100_000);
    check_dxr(name, rib, &addrs);
}

fn check_file(path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let table = load(path);
    check_v4(&name, &table.v4);
    check_v6(&name, &table.v6);
}

fn check_shared(dir: &str, file: &str) {
    match shared_data() {
        Some(d) => check_file(&d.join("tables").join(dir).join(file)),
        None => eprintln!("../shared/data not present: skipped {dir}/{file}"),
    }
}

#[test]
fn shipped_ris2015_as3856() {
    check_file(&repo_root().join("data/ris2015-as3856.tsv.gz"));
}

#[test]
fn shipped_tier1_2024_v6() {
    check_file(&repo_root().join("data/tier1-2024-v6.txt.gz"));
}

#[test]
fn shared_v4_tables() {
    for f in ["maewest.txt.gz", "ris2002-as1853.tsv.gz", "ris2010-as2497.tsv.gz"] {
        check_shared("v4", f);
    }
    check_shared("v4", "ris2010-as4777.tsv.gz");
}

#[test]
fn shared_v6_tables() {
    check_shared("v6", "linx2014-p69.txt.gz");
    check_shared("v6", "rrc00-v6.txt.gz");
}

#[test]
fn shared_tier1_2024_mixed() {
    check_shared("mixed", "tier1-2024.txt.gz");
}

#[test]
fn shared_global2026_origin_mixed() {
    check_shared("mixed", "global2026-origin.tsv.gz");
}

/// One line of an update stream: `unixtime a|w prefix nexthop`.
fn parse_update(line: &str, table: &mut Table) -> Option<(Prefix<u32>, Option<NextHop>)> {
    let cols: Vec<&str> = line.split_ascii_whitespace().collect();
    let [_, kind, prefix, hop] = cols[..] else { panic!("bad update line '{line}'") };
    let prefix: Prefix<u32> = prefix.parse().ok()?; // IPv6 updates do not apply here
    match kind {
        "a" => Some((prefix, Some(table.hops.intern_ref(hop).unwrap()))),
        "w" => Some((prefix, None)),
        _ => panic!("bad update kind in '{line}'"),
    }
}

#[test]
fn dir24_8_after_replaying_linx_updates_equals_a_fresh_compile() {
    let Some(shared) = shared_data() else {
        eprintln!("../shared/data not present: skipped the update replay");
        return;
    };
    let mut table = load(&shared.join("tables/v4/ris2015-as3856.tsv.gz"));
    let mut fib = Dir24_8::compile(&table.v4, &()).unwrap();
    let file = std::fs::File::open(shared.join("updates/linx2014-p52-v4.txt.gz")).unwrap();
    let reader = fibforge_io::open_reader(file, "updates").unwrap();
    let mut applied = 0;
    for line in reader.lines() {
        let Some((prefix, hop)) = parse_update(&line.unwrap(), &mut table) else { continue };
        let mark = table.v4.change_mark();
        match hop {
            Some(h) => table.v4.insert(prefix, h),
            None => table.v4.remove(&prefix),
        };
        fib.apply_changes(&table.v4, table.v4.changes_since(mark)).unwrap();
        table.v4.trim_changes(table.v4.change_mark());
        applied += 1;
    }
    assert_eq!(applied, 23_446);
    let fresh = Dir24_8::compile(&table.v4, &()).unwrap();
    assert!(fib.same_answers(&fresh), "updated table differs from a fresh compile");
    assert_same("dir24_8 after updates", &fib, &table.v4, &probes(&table.v4, 100_000));
}
