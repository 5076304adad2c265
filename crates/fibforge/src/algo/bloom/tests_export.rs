//! Export → bytes → import round trips against the compiled structure and the RIB, updates on
//! an imported structure, and forged files (valid checksum, hostile content) that must give
//! errors, never a panic or an endless probe.

use super::*;
use crate::algo::testkit::{self, hop, table};
use crate::export::{Array, ExportError, ExportFile};
use crate::fib::{Compile, Incremental, Lookup};
use crate::prefix::Prefix;
use crate::rib::Rib;

const FUNCTIONS: [HashFn; 3] = [HashFn::H2, HashFn::Murmur, HashFn::Knuth];

fn cfg(f: HashFn, expansion: Expansion) -> Config {
    Config { hash: Some(f), expansion, max_keys: 1 << 18, ..Default::default() }
}

/// The structure written to bytes and read back.
fn round_trip<A: BloomKey>(fib: &BloomFib<A>) -> BloomFib<A> {
    let bytes = fib.to_export().expect("double hashing exports").to_bytes();
    BloomFib::from_export(&ExportFile::from_bytes(&bytes).unwrap()).unwrap()
}

/// The imported structure answers as the compiled one and as the RIB.
fn assert_same_answers<A: BloomKey>(fib: &BloomFib<A>, rib: &Rib<A>, what: &str) {
    let back = round_trip(fib);
    let addrs = testkit::probes(rib, 1000, 0x5eed);
    for &a in &addrs {
        assert_eq!(back.lookup(a), fib.lookup(a), "{what}: {a:?}");
    }
    testkit::assert_same(what, &back, rib, &addrs);
    for (l, b) in fib.levels.iter().zip(&back.levels) {
        assert!(b.filter_is_fresh(), "{what}: counters of /{} not rebuilt from the keys", l.len());
    }
}

/// An IPv6 table with routes at and beyond /64 (both slot layouts), nested, with a default.
fn v6_table() -> Rib<u128> {
    let base = 0x2001_0db8_0000_0000_0000_0000_0000_0000u128;
    let mut routes = vec![(0u128, 0, 1)];
    for (i, len) in [32u32, 48, 56, 64, 96, 127, 128].into_iter().enumerate() {
        for j in 0..20u128 {
            let a = base + (j << (128 - len)) + (j << 64) * (len > 64) as u128;
            routes.push((a, len, 10 * i as u32 + j as u32 % 3));
        }
    }
    table(&routes)
}

#[test]
fn ipv4_round_trip_with_the_direct_array_answers_as_compiled() {
    for (name, rib) in testkit::edge_tables::<u32>().into_iter().take(8) {
        for f in FUNCTIONS {
            let Ok(fib) = BloomFib::compile(&rib, &cfg(f, Expansion::FamilyDefault)) else {
                continue;
            };
            let file = fib.to_export().unwrap();
            assert_eq!((file.params[2], file.arrays[0].len()), (20, 1 << 20), "{name}");
            assert_same_answers(&fib, &rib, &format!("v4 {name} {f:?}"));
        }
    }
}

#[test]
fn ipv6_round_trip_with_both_slot_layouts_answers_as_compiled() {
    let rib = v6_table();
    for f in FUNCTIONS {
        let fib = BloomFib::compile(&rib, &cfg(f, Expansion::Levels(5))).unwrap();
        let file = fib.to_export().unwrap();
        let slots: Vec<u32> = file.arrays[1].bytes.chunks_exact(16).map(|r| r[12] as u32).collect();
        assert!(slots.contains(&1) && slots.contains(&2), "{f:?}: layouts {slots:?}");
        assert_same_answers(&fib, &rib, &format!("v6 {f:?}"));
    }
    for (name, rib) in testkit::edge_tables::<u128>().into_iter().take(4) {
        let fib = BloomFib::compile(&rib, &cfg(HashFn::Murmur, Expansion::None)).unwrap();
        assert_same_answers(&fib, &rib, &format!("v6 {name}"));
    }
}

#[test]
fn independent_hashing_has_no_export() {
    let rib = testkit::table(&[(0x0a00_0000u32, 8, 1)]);
    let fib = BloomFib::compile(&rib, &Config::baseline()).unwrap();
    assert!(matches!(fib.to_export(), Err(ExportError::Unsupported(_))));
}

/// Changes applied to an imported structure answer as a fresh compile of the changed RIB.
fn updates_after_import<A: BloomKey>(
    mut rib: Rib<A>,
    config: &Config,
    changes: &[(u128, u32, Option<u32>)],
) {
    let fib = BloomFib::compile(&rib, config).unwrap();
    let mut back = round_trip(&fib);
    let mark = rib.change_mark();
    for &(a, len, h) in changes {
        let p = Prefix::new_masked(A::from_u128(a), len).unwrap();
        match h {
            Some(h) => rib.insert(p, hop(h)),
            None => rib.remove(&p),
        };
    }
    back.apply_changes(&rib, rib.changes_since(mark)).unwrap();
    let fresh = BloomFib::compile(&rib, config).unwrap();
    let addrs = testkit::probes(&rib, 1000, 7);
    for &a in &addrs {
        assert_eq!(back.lookup(a), fresh.lookup(a), "{a:?}");
    }
    testkit::assert_same("updated import", &back, &rib, &addrs);
    for level in &back.levels {
        assert!(level.filter_is_fresh(), "counters of /{} drifted", level.len());
    }
}

#[test]
fn updates_on_an_imported_structure_answer_as_a_fresh_compile() {
    let v4 = table(&[(0x0a00_0000u32, 8, 1), (0x0a01_0200, 24, 2), (0x0a01_0280, 25, 3)]);
    let v4_changes = [
        (0x0a01_0200, 24, None),
        (0x0a01_0280, 25, None),
        (0x0a02_0000, 16, Some(4)),
        (0x0a02_0300, 23, Some(5)),
        (0x0a02_0304, 30, Some(6)),
        (0, 0, Some(7)),
    ];
    for f in FUNCTIONS {
        for e in [Expansion::FamilyDefault, Expansion::None] {
            updates_after_import(v4.clone(), &cfg(f, e), &v4_changes);
        }
    }
    let base = 0x2001_0db8_0000_0000_0000_0000_0000_0000u128;
    let v6_changes = [
        (base, 32, None),
        (base + (1 << 70), 60, Some(8)),
        (base + (3 << 64) + (1 << 40), 90, Some(9)),
        (base + (2 << 80), 47, Some(10)),
    ];
    updates_after_import(v6_table(), &cfg(HashFn::Murmur, Expansion::Levels(5)), &v6_changes);
}

/// A small IPv4 export without a direct array (fast to forge and re-serialise).
fn small_v4() -> ExportFile {
    let routes: Vec<(u32, u32, u32)> =
        (0..40u32).map(|i| (0x0a00_0000 + (i << 9), 23 + i % 10, i % 5)).collect();
    let fib = BloomFib::compile(&table(&routes), &cfg(HashFn::H2, Expansion::None)).unwrap();
    fib.to_export().unwrap()
}

/// Reads a forged file through its bytes (so the checksum is right) as `A`.
fn import_forged<A: BloomKey>(file: &ExportFile) -> Result<BloomFib<A>, ExportError> {
    BloomFib::from_export(&ExportFile::from_bytes(&file.to_bytes()).expect("a sound container"))
}

#[track_caller]
fn assert_rejected<A: BloomKey>(file: &ExportFile, array: &str, case: &str) {
    match import_forged::<A>(file) {
        Err(ExportError::Invalid { array: got, what, .. }) => {
            assert_eq!(got, array, "{case}: {what}")
        }
        Err(e) => panic!("{case}: {e}"),
        Ok(_) => panic!("{case}: accepted"),
    }
}

fn put32(a: &mut Array, at: usize, v: u32) {
    a.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get32(a: &Array, at: usize) -> u32 {
    u32::from_le_bytes(a.bytes[at..at + 4].try_into().unwrap())
}

/// Applies `edit` to a copy of `file`.
fn forged(file: &ExportFile, edit: impl FnOnce(&mut ExportFile)) -> ExportFile {
    let mut f = file.clone();
    edit(&mut f);
    f
}

#[test]
fn forged_level_records_are_rejected() {
    let file = small_v4();
    assert!(import_forged::<u32>(&file).is_ok());
    assert!(file.arrays.len() >= 6, "the test needs two levels");
    let levels = |edit: fn(&mut Array)| forged(&file, |f| edit(&mut f.arrays[1]));
    assert_rejected::<u32>(&levels(|a| put32(a, 0, 33)), "levels", "level longer than IPv4");
    assert_rejected::<u32>(&levels(|a| put32(a, 0, 0)), "levels", "level of length 0");
    let same = levels(|a| {
        let first = get32(a, 0);
        put32(a, 16, first)
    });
    assert_rejected::<u32>(&same, "levels", "non-decreasing levels");
    assert_rejected::<u32>(&levels(|a| put32(a, 12, 1)), "levels", "slot layout 1 for IPv4");
    assert_rejected::<u32>(&levels(|a| put32(a, 4, 63)), "levels", "m below 64");
    assert_rejected::<u32>(&levels(|a| put32(a, 8, 0)), "levels", "k = 0");
    assert_rejected::<u32>(&levels(|a| put32(a, 8, 65)), "levels", "k = 65");
    let short = forged(&file, |f| f.arrays[1].bytes.truncate(16));
    assert_rejected::<u32>(&short, "levels", "fewer records than levels");
}

#[test]
fn forged_headers_are_rejected() {
    let file = small_v4();
    for (p, v) in [(0, 3), (1, 99), (2, 25), (3, 1 << 32), (7, 1)] {
        assert_rejected::<u32>(&forged(&file, |f| f.params[p] = v), "header", &format!("p[{p}]"));
    }
    assert_rejected::<u32>(&forged(&file, |f| f.params[2] = 4), "direct", "no direct array");
    let extra = forged(&file, |f| f.arrays.push(Array::of::<u64>(&[])));
    assert_rejected::<u32>(&extra, "header", "odd array count");
    assert!(import_forged::<u128>(&file).is_err(), "IPv4 read as IPv6");
}

#[test]
fn forged_filters_are_rejected() {
    let file = small_v4();
    // A compiled filter has exactly the keys' bits: clearing any set bit loses a key.
    let words = file.arrays[2].values::<u64>("filter").unwrap();
    let (w, bit) = words
        .iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(i, w)| (i, w.trailing_zeros()))
        .unwrap();
    let missing =
        forged(&file, |f| f.arrays[2].bytes[8 * w + bit as usize / 8] &= !(1 << (bit % 8)));
    assert_rejected::<u32>(&missing, "filter", "a key's bit cleared");
    let fewer = forged(&file, |f| f.arrays[2].bytes.truncate(words.len() * 8 - 8));
    assert_rejected::<u32>(&fewer, "filter", "a word short");
    let more = forged(&file, |f| f.arrays[2].bytes.extend([0; 8]));
    assert_rejected::<u32>(&more, "filter", "a word too many");
    let beyond = forged(&file, |f| {
        put32(&mut f.arrays[1], 4, 65);
        f.arrays[2] = Array::of(&[0u64, 1 << 63]);
    });
    assert_rejected::<u32>(&beyond, "filter", "a bit above m");
}

/// The slots of level `i`'s table as `(key, hop)`.
fn slots(file: &ExportFile, i: usize) -> Vec<(u32, u32)> {
    let a = &file.arrays[3 + 2 * i];
    (0..a.len()).map(|s| (get32(a, 8 * s), get32(a, 8 * s + 4))).collect()
}

#[test]
fn forged_tables_are_rejected() {
    let file = small_v4();
    let table = slots(&file, 0);
    let n = table.len();
    // An occupied slot followed by an empty one (there is one: the table has an empty slot).
    let last = (0..n).find(|&i| table[i].1 != 0 && table[(i + 1) % n].1 == 0).unwrap();
    let full = forged(&file, |f| {
        for (i, _) in table.iter().enumerate().filter(|(_, s)| s.1 == 0) {
            put32(&mut f.arrays[3], 8 * i + 4, 1 + i as u32);
        }
    });
    assert_rejected::<u32>(&full, "table", "no empty slot");
    // Keys moved half the table away from their home slots cannot be reached.
    let moved = forged(&file, |f| {
        let bytes = f.arrays[3].bytes.len();
        f.arrays[3].bytes.rotate_left(bytes / 2);
    });
    assert_rejected::<u32>(&moved, "table", "keys away from home");
    let twice = forged(&file, |f| {
        put32(&mut f.arrays[3], 8 * ((last + 1) % n), table[last].0);
        put32(&mut f.arrays[3], 8 * ((last + 1) % n) + 4, 9);
    });
    assert_rejected::<u32>(&twice, "table", "a key stored twice");
    let ghost = forged(&file, |f| put32(&mut f.arrays[3], 8 * ((last + 1) % n), 0x0a00_0000));
    assert_rejected::<u32>(&ghost, "table", "an empty slot with a key");
    let odd = forged(&file, |f| f.arrays[3].bytes.truncate(8 * (n - 1)));
    assert_rejected::<u32>(&odd, "table", "not a power of two");
    let tiny = forged(&file, |f| f.arrays[3] = Array::of(&[0u64, 0]));
    assert_rejected::<u32>(&tiny, "table", "two slots");
    // The shortest level (/23) has host bits a key must not set.
    let short = file.arrays.len() / 2 - 2;
    let table = slots(&file, short);
    let k = table.iter().position(|s| s.1 != 0).unwrap();
    let host_bit = forged(&file, |f| put32(&mut f.arrays[3 + 2 * short], 8 * k, table[k].0 | 1));
    assert_rejected::<u32>(&host_bit, "table", "a key with bits beyond its length");
}

#[test]
fn forged_ipv6_padding_is_rejected() {
    let fib = BloomFib::compile(&v6_table(), &cfg(HashFn::Murmur, Expansion::Levels(5))).unwrap();
    let file = fib.to_export().unwrap();
    for i in 0..file.arrays.len() / 2 - 1 {
        let pad = forged(&file, |f| {
            let a = &mut f.arrays[3 + 2 * i];
            let at = a.elem_bytes as usize - 1;
            a.bytes[at] = 1;
        });
        assert_rejected::<u128>(&pad, "table", &format!("padding of level {i}"));
    }
}

/// Every byte of every array flipped in turn: the import answers Ok or Err, never panics, and
/// an accepted structure's lookups end (single and batched alike).
#[test]
fn every_flipped_array_byte_is_handled() {
    let rib =
        table(&[(0x2001_0db8u128 << 96, 32, 1), ((0x2001_0db8u128 << 96) | (5 << 60), 68, 2)]);
    let file =
        BloomFib::compile(&rib, &cfg(HashFn::Knuth, Expansion::None)).unwrap().to_export().unwrap();
    let addrs = testkit::probes(&rib, 20, 3);
    for a in 0..file.arrays.len() {
        for i in 0..file.arrays[a].bytes.len() {
            let f = forged(&file, |f| f.arrays[a].bytes[i] ^= 0x5a);
            if let Ok(fib) = BloomFib::<u128>::from_export(&f) {
                let mut batch = vec![None; addrs.len()];
                fib.lookup_batch(&addrs, &mut batch);
                for (&x, &b) in addrs.iter().zip(&batch) {
                    assert_eq!(fib.lookup(x), b, "array {a} byte {i}: {x:?}");
                }
            }
        }
    }
}
