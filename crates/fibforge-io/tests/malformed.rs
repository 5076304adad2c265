//! Damaged input of every kind gives an error naming the place — never a panic, a hang or a
//! huge allocation — and what was valid before the damage is kept.

mod common;

use fibforge_io::mrt::{MrtEntry, MrtReader};
use fibforge_io::{ReadConfig, ReadError, read_table_from};
use proptest::prelude::*;
use std::io::{Cursor, Read};
use std::sync::OnceLock;

fn decompressed(name: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    fibforge_io::open(&common::repo_data().join(name)).unwrap().read_to_end(&mut bytes).unwrap();
    bytes
}

/// A shipped BGP4MP update file (2,193 records), decompressed, with its record boundaries.
fn updates() -> &'static (Vec<u8>, Vec<usize>, Vec<MrtEntry>) {
    static CELL: OnceLock<(Vec<u8>, Vec<usize>, Vec<MrtEntry>)> = OnceLock::new();
    CELL.get_or_init(|| {
        let bytes = decompressed("mrt/updates.20100722.2015.gz");
        let entries = entries_of(&bytes).0;
        (bytes.clone(), record_ends(&bytes), entries)
    })
}

/// Offsets where records end (each 12-byte header states its body length).
fn record_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    while at + 12 <= bytes.len() {
        at += 12 + u32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        ends.push(at);
    }
    ends
}

fn entries_of(bytes: &[u8]) -> (Vec<MrtEntry>, Option<ReadError>) {
    let mut entries = Vec::new();
    for item in MrtReader::new(Cursor::new(bytes.to_vec()), "t") {
        match item {
            Ok(e) => entries.push(e),
            Err(e) => return (entries, Some(e)),
        }
    }
    (entries, None)
}

fn offset_of(e: &ReadError) -> Option<u64> {
    match e {
        ReadError::Binary { offset, .. } => Some(*offset),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fibforge::verify::cases(200)))]

    /// A cut stream yields exactly the entries of the records before the cut, then an error
    /// at the cut (or nothing more when it falls between records).
    #[test]
    fn truncated_mrt_keeps_every_record_before_the_cut(cut in 0usize..227_230) {
        let (bytes, ends, all) = updates();
        let cut = cut.min(bytes.len());
        let (got, error) = entries_of(&bytes[..cut]);
        prop_assert_eq!(&got[..], &all[..got.len()], "a prefix of the full entries");
        let boundary = ends.iter().take_while(|&&end| end <= cut).last().copied().unwrap_or(0);
        prop_assert_eq!(error.is_none(), cut == boundary);
        if let Some(e) = error {
            prop_assert!(offset_of(&e).is_some_and(|o| o <= cut as u64), "{}", e);
        }
        prop_assert_eq!(got.len(), entries_of(&bytes[..boundary]).0.len());
    }

    /// Corrupt bytes: the records before the first corrupted byte decode as before, and the
    /// reader ends (with or without an error) without panicking.
    #[test]
    fn corrupted_mrt_keeps_every_record_before_the_damage(
        flips in proptest::collection::vec((0usize..227_230, 1u8..=255), 1..6)
    ) {
        let (bytes, ends, all) = updates();
        let mut damaged = bytes.clone();
        for &(at, value) in &flips {
            damaged[at % bytes.len()] ^= value;
        }
        let first = flips.iter().map(|&(at, _)| at % bytes.len()).min().unwrap();
        let intact_end = ends.iter().take_while(|&&end| end <= first).last().copied().unwrap_or(0);
        let intact = entries_of(&bytes[..intact_end]).0;
        let (got, _) = entries_of(&damaged);
        prop_assert!(got.len() >= intact.len());
        prop_assert_eq!(&got[..intact.len()], &intact[..]);
        prop_assert!(got.len() < all.len() + 100_000);
    }

    /// Any bytes at all, through format detection, decompression and either reader.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = read_table_from(Cursor::new(bytes), "random", &ReadConfig::default());
    }

    /// Random MRT-looking records (a valid header, random body) never panic.
    #[test]
    fn random_record_bodies_never_panic(
        kind in prop_oneof![Just(5u16), Just(12), Just(13), Just(16), Just(17)],
        subtype in 0u16..12,
        body in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut bytes = vec![0, 0, 0, 1];
        bytes.extend_from_slice(&kind.to_be_bytes());
        bytes.extend_from_slice(&subtype.to_be_bytes());
        bytes.extend_from_slice(&(body.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&body);
        let _ = entries_of(&bytes);
        let _ = read_table_from(Cursor::new(bytes), "r", &ReadConfig::default());
    }

    /// Text tables with garbage lines fail at the first bad line, keeping the lines before.
    #[test]
    fn garbage_text_lines_are_errors_naming_the_line(
        good in 0usize..20,
        garbage in "[^\\n#;]{1,30}",
    ) {
        let mut text: String = (0..good).map(|i| format!("10.{i}.0.0/16 gw{i}\n")).collect();
        text.push_str(&garbage);
        text.push('\n');
        let cols: Vec<&str> = garbage.split_ascii_whitespace().collect();
        let is_route = cols.first().is_some_and(|p| fibforge::AnyPrefix::parse_with(p, fibforge::ParseMode::Strict).is_ok());
        match read_table_from(Cursor::new(text.clone()), "g", &ReadConfig::default()) {
            Ok(t) => prop_assert!(is_route || cols.is_empty(), "accepted {:?} ({} routes)", garbage, t.len()),
            Err(e) if text.bytes().take(12).any(|b| b == 0) => {
                // A NUL byte in the first 12 bytes makes the file binary: refused as MRT.
                prop_assert!(e.to_string().contains("g: at byte offset 0"), "{}", e);
            }
            Err(e) => {
                // A route line is refused only for a control byte or a prefix in a later column.
                let control = garbage.bytes().any(|b| (b < b' ' && b != b'\t') || b == 0x7f);
                let merged = cols.iter().skip(1).any(|c| c.contains('/')
                    && fibforge::AnyPrefix::parse_with(c, fibforge::ParseMode::Lenient).is_ok());
                prop_assert!(!is_route || control || merged, "{}", e);
                let line = format!("g:{}:", good + 1);
                prop_assert!(e.to_string().contains(&line), "{}", e);
                prop_assert_eq!(e.partial.len(), good);
            }
        }
    }
}

#[test]
fn truncated_gzip_is_an_error_keeping_what_was_decompressed() {
    let gz = std::fs::read(common::repo_data().join("mrt/updates.20100722.2015.gz")).unwrap();
    for cut in (1..gz.len()).step_by(gz.len() / 97) {
        let err =
            read_table_from(Cursor::new(gz[..cut].to_vec()), "cut.gz", &ReadConfig::default())
                .expect_err("a cut gzip stream must fail");
        assert!(err.to_string().contains("cut.gz"), "{err}");
    }
    let text = std::fs::read(common::repo_data().join("ris2015-as3856.tsv.gz")).unwrap();
    let err = read_table_from(
        Cursor::new(text[..text.len() / 2].to_vec()),
        "half.tsv.gz",
        &ReadConfig::default(),
    )
    .expect_err("half a gzip stream must fail");
    assert!(err.partial.len() > 100_000, "{err}");
}

#[test]
fn hostile_lengths_are_refused_without_allocating_them() {
    // Record length 4 GiB - 1: refused by the 16 MiB limit.
    let huge = [0, 0, 0, 1, 0, 16, 0, 4, 0xff, 0xff, 0xff, 0xff, 1, 2, 3];
    let e = entries_of(&huge).1.unwrap();
    assert!(e.to_string().contains("exceeds") && offset_of(&e) == Some(0), "{e}");
    // Length 16 MiB in a 20-byte stream: a truncation error, read in bounded chunks.
    let mut long = vec![0, 0, 0, 1, 0, 16, 0, 4, 0, 0xff, 0xff, 0xff];
    long.extend_from_slice(&[0; 8]);
    let e = entries_of(&long).1.unwrap();
    assert!(e.to_string().contains("truncated"), "{e}");
    // A PEER_INDEX_TABLE claiming 65,535 peers with none present.
    let peers = [0, 0, 0, 1, 0, 13, 0, 1, 0, 0, 0, 8, 1, 2, 3, 4, 0, 0, 0xff, 0xff];
    let e = entries_of(&peers).1.unwrap();
    assert_eq!(offset_of(&e), Some(20), "{e}");
    // An unknown record type is damage, not something to skip.
    let garbage = [0, 0, 0, 1, 0x38, 0x7a, 0, 1, 0, 0, 0, 0];
    let e = entries_of(&garbage).1.unwrap();
    assert!(e.to_string().contains("unknown MRT record type 14458"), "{e}");
}

#[test]
fn host_bits_and_bad_lengths_in_text_are_errors() {
    for (text, what) in [
        ("10.0.0.1/8 a\n", "host bits"),
        ("10.0.0.0/33 a\n", "out of range"),
        ("2001:db8::1/32 a\n", "host bits"),
        ("2001:db8::/129 a\n", "out of range"),
        ("10.0.0.0/x a\n", "not a decimal number"),
        ("10.0.0.0/+8 a\n", "not a decimal number"),
        ("10.0.0.0/08 a\n", "not a decimal number"),
        ("10.0.0.0/024 a\n", "not a decimal number"),
        ("010.0.0.0/8 a\n", "not a valid"),
        ("10.0.0/8 a\n", "not a valid"),
    ] {
        let e = read_table_from(Cursor::new(text), "h", &ReadConfig::default()).unwrap_err();
        assert!(e.to_string().contains(what) && e.to_string().contains("h:1"), "{text}: {e}");
    }
}
