//! The hostile corpus: small bad table files that every face of fibforge (the Rust API, the
//! CLI, the C ABI, Python) must refuse with a clear error naming the file, in bounded time and
//! memory, leaving any table loaded before intact. The faces' tests write it with [`write()`]
//! and each checks its own answers; Python's tests hold a copy of the same list.
//!
//! Each [`Case`] says what its error message must contain besides the file's name. The
//! decompression bomb is refused only under a small cap: run the faces with
//! [`BOMB_CAP`] in the environment variable [`crate::open::MAX_DECOMPRESSED_ENV`] (or as
//! `ReadConfig::max_decompressed`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The cap on decompressed bytes under which the corpus's text bomb is refused (1 MiB; the
/// bomb decompresses to 2 MiB).
pub const BOMB_CAP: &str = "1M";

/// One bad file.
pub struct Case {
    /// The file's name (its extension matters to no reader).
    pub name: &'static str,
    /// Its bytes; `None` for a directory.
    pub bytes: Option<Vec<u8>>,
    /// What the error message says (besides the file name).
    pub says: &'static str,
}

fn case(name: &'static str, bytes: Vec<u8>, says: &'static str) -> Case {
    Case { name, bytes: Some(bytes), says }
}

/// Every case of the corpus.
pub fn corpus() -> Vec<Case> {
    let table: Vec<u8> = (0..4000)
        .flat_map(|i| format!("10.{}.{}.0/24 gw{}\n", i / 256, i % 256, i % 7).into_bytes())
        .collect();
    let gz = gzip(&table);
    let bz = bzip2(&table);
    let bomb: Vec<u8> = b"10.0.0.0/8 a\n".repeat(2 << 20 >> 4).into_iter().chain(*b"x\n").collect();
    // A BGP4MP STATE_CHANGE record, then the same with its type's low byte damaged.
    let state_change: Vec<u8> = [&[0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 20][..], &[0; 20]].concat();
    let mut damaged = state_change.clone();
    damaged[5] = 0xEF;
    vec![
        case("empty.txt", Vec::new(), "empty"),
        case("garbage.txt", b"hello, world\n".to_vec(), "not a valid"),
        case("binary.bin", (0x80..=0xFFu8).cycle().take(4096).collect(), "is not a prefix"),
        case("truncated.txt.gz", gz[..gz.len() / 2].to_vec(), "truncated.txt.gz"),
        case("truncated.txt.bz2", bz[..bz.len() / 2].to_vec(), "truncated.txt.bz2"),
        case("bomb.txt.gz", gzip(&bomb), "exceeds the limit"),
        case("zeros.gz", gzip(&vec![0; 4 << 20]), "MRT record header"),
        case("long-line.txt", vec![b'1'; 1 << 20], "byte limit"),
        case("nul.txt", b"10.0.0.0/8 a\n10.0.\x000.0/8 b\n".to_vec(), "0x00"),
        case("cr-only.txt", b"10.0.0.0/8 a\r11.0.0.0/8 b\r".to_vec(), "CR-only"),
        case("bom.txt", b"\xEF\xBB\xBF10.0.0.0/8 a\n".to_vec(), "byte-order mark"),
        case("bad-prefix.txt", b"10.0.0/8 a\n".to_vec(), "not a valid"),
        case("bad-length.txt", b"10.0.0.0/33 a\n".to_vec(), "out of range"),
        case("plus-length.txt", b"10.0.0.0/+8 a\n".to_vec(), "decimal"),
        case("zero-padded-length.txt", b"10.0.0.0/08 a\n".to_vec(), "decimal"),
        case("host-bits.txt", b"10.0.0.1/8 a\n".to_vec(), "host bits"),
        case("host-bits6.txt", b"2001:db8::1/32 a\n".to_vec(), "host bits"),
        case("merged-lines.txt", b"10.0.0.0/8 a 11.0.0.0/8 b\n".to_vec(), "prefix too"),
        case("mrt-damaged-header.mrt", damaged, "MRT record header"),
        case("mrt-no-route.mrt", state_change.repeat(3), "no unicast route"),
        Case { name: "a-directory", bytes: None, says: "directory" },
    ]
}

/// Writes the corpus into `dir` (created); returns each case's path, in [`corpus`] order.
pub fn write(dir: &Path) -> std::io::Result<Vec<(Case, PathBuf)>> {
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::new();
    for c in corpus() {
        let path = dir.join(c.name);
        match &c.bytes {
            Some(bytes) => std::fs::write(&path, bytes)?,
            None => std::fs::create_dir_all(&path)?,
        }
        out.push((c, path));
    }
    Ok(out)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("in memory");
    enc.finish().expect("in memory")
}

fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(bytes).expect("in memory");
    enc.finish().expect("in memory")
}
