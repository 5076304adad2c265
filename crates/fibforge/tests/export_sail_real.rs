//! SAIL_L exports of the shipped real tables, through bytes and back: the imported structure
//! answers as the compiled one and as the RIB (IPv4 in 16- and 32-bit words; IPv6 on the
//! tier1 table's routes up to /64, the longest SAIL_L represents).

mod common;

use common::{check, expected, load, probes, repo_data};
use fibforge::algo::sail;
use fibforge::algo::sail::{SailL, Width, max_len};
use fibforge::export::ExportFile;
use fibforge::{Address, Compile, Lookup, Rib};

fn round_trip<A: Address>(rib: &Rib<A>, width: Width, what: &str) -> usize {
    let compiled = SailL::compile(rib, &sail::Config { width }).unwrap();
    let bytes = compiled.to_export().unwrap().to_bytes();
    let back = SailL::<A>::from_export(&ExportFile::from_bytes(&bytes).unwrap()).unwrap();
    assert_eq!(back.width_bits(), compiled.width_bits(), "{what}");
    assert_eq!(back.chunk_counts(), compiled.chunk_counts(), "{what}");
    let addrs = probes(rib, 3, 100_000, 0x5eed);
    let want = expected(rib, &addrs);
    check(what, &back, &addrs, &want);
    let same = addrs.iter().filter(|&&a| back.lookup(a) == compiled.lookup(a)).count();
    assert_eq!(same, addrs.len(), "{what}: imported vs compiled");
    bytes.len()
}

#[test]
fn ris2015_in_both_word_widths() {
    let t = load(&repo_data("ris2015-as3856.tsv.gz"));
    let narrow = round_trip(&t.v4, Width::Narrow, "ris2015 width=16");
    let wide = round_trip(&t.v4, Width::Wide, "ris2015 width=32");
    assert!(wide > narrow, "{wide} vs {narrow} bytes");
}

#[test]
fn tier1_v6_up_to_64() {
    let t = load(&repo_data("tier1-2024-v6.txt.gz"));
    let rib: Rib<u128> = t.v6.iter().filter(|(p, _)| p.len() <= max_len::<u128>()).collect();
    assert!(rib.len() > 1000, "{} routes", rib.len());
    round_trip(&rib, Width::Auto, "tier1-v6 up to /64");
}
