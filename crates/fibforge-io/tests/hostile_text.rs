//! Regression tests for the defects a hostile run found in the readers (issue 19): no line
//! without a newline may grow memory without bound, line endings and columns that would
//! silently lose routes are refused, messages quote bad bytes visibly and briefly, a
//! decompression bomb stops at the cap, and binary input is never read as text.

mod common;

use fibforge_io::text::{MAX_LINE_LEN, SHOWN_BYTES};
use fibforge_io::{PeerFilter, ReadConfig, ReadError, read_table, read_table_from};
use std::io::{Cursor, Read, Write};

fn load(bytes: &[u8]) -> Result<fibforge_io::LoadedTable, fibforge_io::LoadError> {
    read_table_from(Cursor::new(bytes.to_vec()), "t.txt", &ReadConfig::default())
}

fn error_of(bytes: &[u8]) -> String {
    load(bytes).expect_err("must be refused").error.to_string()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// A reader of `n` bytes of `byte` that never materialises them.
fn endless(byte: u8, n: u64) -> impl Read + Send + 'static {
    std::io::repeat(byte).take(n)
}

#[test]
fn a_line_without_newline_stops_at_the_cap_with_a_short_message() {
    // Four times the cap of one byte: read in bounded memory, refused at the cap.
    let src = endless(b'1', 4 * MAX_LINE_LEN as u64);
    let e = read_table_from(src, "big.txt", &ReadConfig::default()).unwrap_err().error;
    let msg = e.to_string();
    assert!(msg.starts_with("big.txt:1:"), "{msg}");
    assert!(msg.contains(&format!("{MAX_LINE_LEN}-byte limit")), "{msg}");
    assert!(msg.len() < 400, "the long line is not echoed in full: {} bytes", msg.len());
    // A line of exactly the cap is fine (it is the prefix column that is wrong here).
    let mut exact = vec![b' '; MAX_LINE_LEN - 12];
    exact.splice(0..0, b"10.0.0.0/8 a".iter().copied());
    exact.push(b'\n');
    assert_eq!(load(&exact).unwrap().len(), 1);
}

#[test]
fn zeros_plain_or_compressed_are_refused_at_once() {
    // NUL bytes are binary data: an MRT error about the first header, not a text read.
    let e = read_table_from(endless(0, 1 << 30), "zeros", &ReadConfig::default()).unwrap_err();
    assert!(matches!(e.error, ReadError::Binary { offset: 0, .. }), "{}", e.error);
    assert!(e.error.to_string().contains("first MRT record header"), "{}", e.error);
    let bomb = gzip(&vec![0u8; 8 << 20]);
    let msg = error_of(&bomb);
    assert!(msg.contains("first MRT record header") && msg.contains("\\x00"), "{msg}");
    #[cfg(unix)]
    {
        let e = read_table(std::path::Path::new("/dev/zero"), &ReadConfig::default());
        assert!(e.unwrap_err().error.to_string().starts_with("/dev/zero: at byte offset 0"));
    }
}

#[test]
fn a_decompression_bomb_stops_at_the_configured_cap() {
    let routes = "10.0.0.0/8 a\n".repeat(1 << 16); // 832 KiB, a few KiB compressed
    let bomb = gzip(routes.as_bytes());
    let cfg = ReadConfig { max_decompressed: Some(64 << 10), ..Default::default() };
    let e = read_table_from(Cursor::new(bomb.clone()), "bomb.gz", &cfg).unwrap_err();
    let msg = e.error.to_string();
    assert!(msg.contains("exceeds the limit of 65536 bytes"), "{msg}");
    assert!(msg.contains("--max-decompressed") && msg.contains("FIBFORGE_MAX_DECOMPRESSED"));
    // At or above the size, the same file loads.
    let cfg = ReadConfig { max_decompressed: Some(routes.len() as u64), ..Default::default() };
    assert_eq!(read_table_from(Cursor::new(bomb), "ok.gz", &cfg).unwrap().len(), 1);
    assert_eq!(fibforge_io::open::parse_size("64K"), Ok(64 << 10));
    assert_eq!(fibforge_io::open::parse_size("2g"), Ok(2 << 30));
    assert!(fibforge_io::open::parse_size("0").is_err());
    assert!(fibforge_io::open::parse_size("1e9").is_err());
    assert!(fibforge_io::open::parse_size("99999999999T").is_err());
}

#[test]
fn cr_only_line_endings_are_refused_crlf_is_read() {
    let msg = error_of(b"10.0.0.0/8 a\r11.0.0.0/8 b\r");
    assert!(msg.starts_with("t.txt:1:") && msg.contains("CR-only"), "{msg}");
    let t = load(b"10.0.0.0/8 a\r\n11.0.0.0/8 b\r\n").unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t.hop_value(t.v4.lookup(0x0B00_0000).unwrap()), "b");
}

#[test]
fn a_prefix_in_a_later_column_is_two_merged_lines() {
    let msg = error_of(b"10.0.0.0/8 a 11.0.0.0/8 b\n");
    assert!(msg.contains("column 3 ('11.0.0.0/8') is a prefix too"), "{msg}");
    let msg = error_of(b"10.0.0.0/8 11.0.0.0/8\n");
    assert!(msg.contains("column 2"), "{msg}");
    // Other extra columns (an origin AS, a path) stay allowed.
    assert_eq!(load(b"10.0.0.0/8\t185.1.1.241\t51336\n").unwrap().len(), 1);
    assert_eq!(load(b"10.0.0.0/8 a 3356 1299 x/y\n").unwrap().len(), 1);
}

#[test]
fn non_canonical_lengths_are_refused_like_leading_zero_octets() {
    for bad in ["10.0.0.0/+8", "10.0.0.0/08", "10.0.0.0/024", "010.0.0.0/8", "::/064"] {
        let msg = error_of(format!("{bad} a\n").as_bytes());
        assert!(msg.starts_with("t.txt:1:"), "{bad}: {msg}");
    }
}

#[test]
fn nul_bom_and_control_bytes_are_visible_in_messages() {
    let msg = error_of(b"10.0.0.0/8 a\n10.0.\x000.0/8 b\n");
    assert!(msg.starts_with("t.txt:2:") && msg.contains("0x00") && msg.contains("\\x00"), "{msg}");
    let msg = error_of(b"\xEF\xBB\xBF10.0.0.0/8 a\n");
    assert!(msg.contains("byte-order mark") && msg.contains("\\xef\\xbb\\xbf"), "{msg}");
    let msg = error_of(b"10.0.0.0/8 a\x1b[31m\n");
    assert!(msg.contains("0x1B") && msg.contains("\\x1b"), "{msg}");
    let msg = error_of(b"10.0.0.0/8 \xff\xfe\n");
    assert!(msg.contains("UTF-8") && msg.contains("\\xff\\xfe"), "{msg}");
    // A long bad prefix column is cut in the message.
    let long = format!("{} a\n", "9".repeat(10_000));
    let msg = error_of(long.as_bytes());
    assert!(msg.contains("(10000 bytes)") && msg.len() < 200 + SHOWN_BYTES, "{msg}");
}

#[test]
fn a_peer_selection_on_a_text_table_is_an_error() {
    let cfg = ReadConfig { peer: PeerFilter::As(3356), ..Default::default() };
    let e = read_table_from(Cursor::new(b"10.0.0.0/8 a\n".to_vec()), "t", &cfg).unwrap_err();
    assert!(e.error.to_string().contains("text table, which has no peers"), "{}", e.error);
}

#[test]
fn an_empty_file_is_an_error_a_file_of_comments_an_empty_table() {
    assert!(error_of(b"").contains("the file is empty"));
    assert!(error_of(&gzip(b"")).contains("the file is empty"));
    assert!(load(b"# nothing yet\n").unwrap().is_empty());
}

#[test]
fn a_directory_is_refused_by_name() {
    let dir = common::repo_data();
    let e = read_table(&dir, &ReadConfig::default()).unwrap_err().error.to_string();
    assert!(e.contains("is a directory"), "{e}");
}

fn decompressed(name: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    fibforge_io::open(&common::repo_data().join(name)).unwrap().read_to_end(&mut bytes).unwrap();
    bytes
}

#[test]
fn a_damaged_first_mrt_header_is_an_mrt_error_not_a_text_one() {
    let good = decompressed("mrt/updates.20100722.2015.gz");
    // Every single-byte change of the type, subtype and length fields of the first header.
    for at in 4..12 {
        for flip in [0x01u8, 0x10, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            let Err(e) = load(&bad) else { continue };
            let msg = e.error.to_string();
            assert!(!msg.starts_with("t.txt:1:"), "byte {at} ^ {flip:#x} read as text: {msg}");
            assert!(matches!(e.error, ReadError::Binary { .. }), "byte {at}: {msg}");
        }
    }
    // An `.mrt` name without a NUL in its head is refused as MRT too.
    let e = read_table_from(
        Cursor::new(b"hello world, no table".to_vec()),
        "x.mrt.gz",
        &ReadConfig::default(),
    );
    assert!(e.unwrap_err().error.to_string().contains("MRT record header"));
}

#[test]
fn an_mrt_stream_without_a_unicast_route_is_an_error() {
    // Three BGP4MP STATE_CHANGE records (subtype 0): routing records that carry no route.
    let mut bytes = Vec::new();
    for _ in 0..3 {
        bytes.extend_from_slice(&[0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 20]);
        bytes.extend_from_slice(&[0, 1, 0, 2, 0, 0, 0, 1, 10, 0, 0, 1, 10, 0, 0, 2, 0, 1, 0, 6]);
    }
    let msg = error_of(&bytes);
    assert!(msg.contains("no unicast route in its 3 MRT records"), "{msg}");
}

#[test]
fn the_hostile_corpus_is_refused_and_a_loaded_table_stays_intact() {
    let dir = std::env::temp_dir().join(format!("fibforge-io-corpus-{}", std::process::id()));
    let before = load(b"10.0.0.0/8 a\n2001:db8::/32 b\n").unwrap();
    let cfg = ReadConfig {
        max_decompressed: Some(
            fibforge_io::open::parse_size(fibforge_io::hostile::BOMB_CAP).unwrap(),
        ),
        ..Default::default()
    };
    for (case, path) in fibforge_io::hostile::write(&dir).unwrap() {
        let e = read_table(&path, &cfg).expect_err(case.name).error.to_string();
        assert!(e.contains(case.name), "{}: {e}", case.name);
        assert!(e.contains(case.says), "{}: {e}", case.name);
        assert!(e.len() < 600, "{}: a short message, not {} bytes", case.name, e.len());
    }
    assert_eq!(before.len(), 2);
    assert_eq!(before.hop_value(before.v4.lookup(0x0A01_0203).unwrap()), "a");
    let _ = std::fs::remove_dir_all(&dir);
}
