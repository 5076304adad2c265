//! SAIL_L export: round trips through bytes answer as the compiled structure and the RIB, and
//! forged files (valid checksums) with each defect are errors, not panics.

use super::super::{Config, SailL, Width};
use crate::addr::Address;
use crate::export::{Algorithm, Array, ExportError, ExportFile};
use crate::fib::{Compile, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use crate::verify::{XorShift64, probes};

/// Routes clustered under a few /16s (so chunks exist at every level) plus spread ones, with
/// lengths up to `max_len`.
fn table<A: Address>(n: usize, max_len: u32, seed: u64) -> Rib<A> {
    let mut rng = XorShift64::new(seed);
    let mut rib = Rib::new();
    let clusters: Vec<u128> = (0..8).map(|_| rng.next_u128()).collect();
    for i in 0..n {
        let len = rng.below(u64::from(max_len) + 1) as u32;
        let base = if i % 3 == 0 {
            rng.next_u128()
        } else {
            let c = clusters[rng.below(8) as usize];
            let keep = !0u128 << (128 - 16);
            (c & keep) | (rng.next_u128() & !keep)
        };
        let addr = A::from_u128(base >> (128 - A::BITS)).truncate(len);
        let p = Prefix::new(addr, len).expect("masked");
        rib.insert(p, NextHop::from_index(rng.below(200) as u32));
    }
    rib
}

fn bytes_round_trip<A: Address>(l: &SailL<A>) -> SailL<A> {
    let bytes = l.to_export().unwrap().to_bytes();
    SailL::from_export(&ExportFile::from_bytes(&bytes).unwrap()).unwrap()
}

fn assert_same<A: Address>(rib: &Rib<A>, a: &SailL<A>, b: &SailL<A>, what: &str) {
    let addrs = probes(rib, 1, 20_000, 7);
    let mut batch = vec![None; addrs.len()];
    b.lookup_batch(&addrs, &mut batch);
    for (&x, got) in addrs.iter().zip(batch) {
        assert_eq!(b.lookup(x), rib.lookup(x), "{what}: {x:?} against the RIB");
        assert_eq!(got, a.lookup(x), "{what}: {x:?} against the compiled structure (batch)");
    }
}

#[test]
fn ipv4_round_trips_in_both_widths() {
    let rib = table::<u32>(6_000, 32, 1);
    for (width, bits) in [(Width::Narrow, 16), (Width::Wide, 32)] {
        let l = SailL::compile(&rib, &Config { width }).unwrap();
        assert_eq!(l.width_bits(), bits);
        assert!(l.chunk_counts().iter().all(|&c| c > 0), "{:?}", l.chunk_counts());
        let back = bytes_round_trip(&l);
        assert_eq!((back.width_bits(), back.chunk_counts()), (bits, l.chunk_counts()));
        assert_same(&rib, &l, &back, &format!("width {bits}"));
        let file = l.to_export().unwrap();
        assert_eq!((file.params[0], file.params[1], file.arrays.len()), (bits as u64 / 8, 2, 3));
    }
}

#[test]
fn ipv6_round_trips() {
    let rib = table::<u128>(6_000, 64, 2);
    let l = SailL::compile(&rib, &Config::default()).unwrap();
    assert_eq!(l.chunk_counts().len(), 6);
    assert!(l.chunk_counts()[5] > 0, "{:?}", l.chunk_counts());
    assert_same(&rib, &l, &bytes_round_trip(&l), "ipv6");
}

#[test]
fn dispatch_exports_and_imports_with_the_route_count() {
    let rib = table::<u32>(2_000, 32, 3);
    let file = crate::export::export(&"sail_l:width=32".parse().unwrap(), &rib).unwrap();
    assert_eq!((file.params[0], file.params[15]), (4, rib.len() as u64));
    let fib = crate::export::import::<u32>(&file).unwrap();
    for x in probes(&rib, 1, 5_000, 9) {
        assert_eq!(fib.lookup(x), rib.lookup(x), "{x:#x}");
    }
    assert!(crate::export::import::<u128>(&file).is_err());
}

/// The narrow IPv4 export of a clustered table, as a mutable file.
fn sample() -> ExportFile {
    let rib = table::<u32>(3_000, 32, 4);
    SailL::compile(&rib, &Config { width: Width::Narrow }).unwrap().to_export().unwrap()
}

/// `edit` applied to the words of array `i`.
fn edit_words(file: &mut ExportFile, i: usize, edit: impl FnOnce(&mut Vec<u16>)) {
    let mut w = file.arrays[i].values::<u16>("test").unwrap();
    edit(&mut w);
    file.arrays[i] = Array::of(&w);
}

/// The position of the first chunk word of array `i`.
fn first_chunk(file: &ExportFile, i: usize) -> usize {
    let w = file.arrays[i].values::<u16>("test").unwrap();
    w.iter().position(|&x| x & 0x8000 != 0).expect("a chunk word")
}

/// Re-serialises `file` (valid checksum) and reads it as IPv4 SAIL_L: the error, if any.
fn import_forged(file: &ExportFile) -> Result<(), ExportError> {
    let parsed = ExportFile::from_bytes(&file.to_bytes())?;
    SailL::<u32>::from_export(&parsed).map(|_| ())
}

#[test]
fn forged_files_are_errors_naming_the_array() {
    type Forge = fn(&mut ExportFile);
    let cases: Vec<(&str, &str, Forge)> = vec![
        ("header", "word size", |f| f.params[0] = 3),
        ("header", "chunk levels", |f| f.params[1] = 3),
        ("header", "IPv6", |f| f.family = 6),
        ("header", "poptrie", |f| f.algorithm = Algorithm::Poptrie),
        ("header", "arrays", |f| {
            f.arrays.pop();
        }),
        ("top", "elements", |f| f.params[0] = 4),
        ("level32", "elements", |f| {
            let w = f.arrays[2].values::<u16>("t").unwrap();
            f.arrays[2] = Array::of(&w.iter().map(|&x| u32::from(x)).collect::<Vec<_>>());
        }),
        ("top", "65535 words", |f| {
            edit_words(f, 0, |w| {
                w.pop();
            })
        }),
        ("level24", "whole number", |f| edit_words(f, 1, |w| w.push(0))),
        ("top", "names chunk", |f| {
            let (at, n) = (first_chunk(f, 0), f.arrays[1].len() / 256);
            edit_words(f, 0, |w| w[at] = 0x8000 | n as u16);
        }),
        ("level24", "names chunk", |f| {
            let (at, n) = (first_chunk(f, 1), f.arrays[2].len() / 256);
            edit_words(f, 1, |w| w[at] = 0x8000 | n as u16);
        }),
        ("level32", "below the last level", |f| edit_words(f, 2, |w| w[5] = 0x8000)),
    ];
    assert!(import_forged(&sample()).is_ok());
    for (array, words, forge) in cases {
        let mut file = sample();
        forge(&mut file);
        let e = import_forged(&file).expect_err(words);
        let text = e.to_string();
        assert!(
            matches!(&e, ExportError::Invalid { algo: "sail_l", array: a, .. } if *a == array),
            "{words}: {text}"
        );
        assert!(text.contains(words), "{words}: {text}");
    }
}

#[test]
fn every_truncation_of_a_real_file_is_an_error() {
    let bytes = sample().to_bytes();
    for n in (0..bytes.len()).step_by(997).chain([bytes.len() - 1]) {
        assert!(ExportFile::from_bytes(&bytes[..n]).is_err(), "truncated to {n}");
    }
}
