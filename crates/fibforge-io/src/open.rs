//! Transparent decompression chosen by content: gzip (`1f 8b`), bzip2 (`BZh`), or plain.
//!
//! Decompressed output is capped (a decompression bomb — gigabytes of zeros in a few
//! megabytes — ends with an error instead of running for minutes): at
//! [`DEFAULT_MAX_DECOMPRESSED`] bytes, or the byte count in the environment variable
//! [`MAX_DECOMPRESSED_ENV`] (suffixes K, M, G, T: powers of 1024), or what the caller passes to
//! [`open_reader_with_limit`] (`ReadConfig::max_decompressed`, the CLI's
//! `--max-decompressed`). Plain input is not capped: its size is the file's.

use crate::error::ReadError;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const BZIP2_MAGIC: &[u8] = b"BZh";

/// The default cap on decompressed bytes: 16 GiB, several times the largest full-feed MRT
/// RIB dump (all peers of a RIPE RIS collector), thousands of times a text table.
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 16 << 30;

/// The environment variable that sets the cap on decompressed bytes (`FIBFORGE_MAX_DECOMPRESSED=64G`).
pub const MAX_DECOMPRESSED_ENV: &str = "FIBFORGE_MAX_DECOMPRESSED";

/// The cap in effect when the caller sets none: the environment's, else the default.
pub fn default_decompression_limit() -> Result<u64, String> {
    match std::env::var(MAX_DECOMPRESSED_ENV) {
        Ok(text) => parse_size(&text).map_err(|e| format!("{MAX_DECOMPRESSED_ENV}: {e}")),
        Err(_) => Ok(DEFAULT_MAX_DECOMPRESSED),
    }
}

/// A byte count: digits with an optional suffix K, M, G or T (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if "kKmMgGtT".contains(c) => {
            (&t[..i], 10 * (1 + "KMGT".find(c.to_ascii_uppercase()).unwrap_or(0) as u32))
        }
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a byte count (digits, then K, M, G or T)"))?;
    n.checked_mul(1u64 << shift)
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("'{text}': a byte count from 1 to 2^64 - 1"))
}

/// Opens a file and decompresses it if its first bytes say so.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, ReadError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|err| ReadError::Io { source_name: name.clone(), err })?;
    open_reader(file, &name)
}

/// Wraps any byte source, decompressing gzip or bzip2 content (several members allowed) up
/// to [`default_decompression_limit`] bytes.
pub fn open_reader<R: Read + Send + 'static>(
    source: R,
    name: &str,
) -> Result<Box<dyn BufRead + Send>, ReadError> {
    let limit = default_decompression_limit()
        .map_err(|reason| ReadError::Content { source_name: name.into(), reason })?;
    open_reader_with_limit(source, name, limit)
}

/// [`open_reader`] with a cap of `limit` decompressed bytes: reading past it fails with an
/// error that names the cap and how to raise it.
pub fn open_reader_with_limit<R: Read + Send + 'static>(
    source: R,
    name: &str,
    limit: u64,
) -> Result<Box<dyn BufRead + Send>, ReadError> {
    let mut buffered = BufReader::with_capacity(1 << 16, source);
    let head = buffered
        .fill_buf()
        .map_err(|err| ReadError::Io { source_name: name.into(), err })?
        .to_vec();
    let reader: Box<dyn BufRead + Send> = if head.starts_with(GZIP_MAGIC) {
        let decoder = flate2::bufread::MultiGzDecoder::new(buffered);
        Box::new(BufReader::with_capacity(1 << 16, Capped::new(decoder, limit)))
    } else if head.starts_with(BZIP2_MAGIC) {
        let decoder = bzip2::bufread::MultiBzDecoder::new(buffered);
        Box::new(BufReader::with_capacity(1 << 16, Capped::new(decoder, limit)))
    } else {
        Box::new(buffered)
    };
    Ok(reader)
}

/// A reader that fails once more than `limit` bytes came out of it.
struct Capped<R> {
    inner: R,
    limit: u64,
    read: u64,
}

impl<R> Capped<R> {
    fn new(inner: R, limit: u64) -> Self {
        Capped { inner, limit, read: 0 }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.read >= self.limit {
            // One byte more tells a stream of exactly `limit` bytes from a longer one.
            let mut probe = [0u8];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            return Err(std::io::Error::other(format!(
                "decompressed data exceeds the limit of {} bytes (a decompression bomb?); \
                 raise it with --max-decompressed or {MAX_DECOMPRESSED_ENV}",
                self.limit
            )));
        }
        let room = (self.limit - self.read).min(buf.len() as u64) as usize;
        let n = self.inner.read(&mut buf[..room])?;
        self.read += n as u64;
        Ok(n)
    }
}

/// The first `n` bytes of a stream (fewer if it is shorter) and the stream, unchanged.
pub fn peek(
    mut input: Box<dyn BufRead + Send>,
    n: usize,
    name: &str,
) -> Result<(Vec<u8>, Box<dyn BufRead + Send>), ReadError> {
    let mut head = Vec::with_capacity(n);
    (&mut input)
        .take(n as u64)
        .read_to_end(&mut head)
        .map_err(|err| ReadError::Io { source_name: name.into(), err })?;
    let replay = std::io::Cursor::new(head.clone());
    Ok((head, Box::new(replay.chain(input))))
}
