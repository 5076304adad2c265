//! Transparent decompression chosen by content: gzip (`1f 8b`), bzip2 (`BZh`), or plain.

use crate::error::ReadError;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const BZIP2_MAGIC: &[u8] = b"BZh";

/// Opens a file and decompresses it if its first bytes say so.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, ReadError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|err| ReadError::Io { source_name: name.clone(), err })?;
    open_reader(file, &name)
}

/// Wraps any byte source, decompressing gzip or bzip2 content (several members allowed).
pub fn open_reader<R: Read + Send + 'static>(
    source: R,
    name: &str,
) -> Result<Box<dyn BufRead + Send>, ReadError> {
    let mut buffered = BufReader::with_capacity(1 << 16, source);
    let head = buffered
        .fill_buf()
        .map_err(|err| ReadError::Io { source_name: name.into(), err })?
        .to_vec();
    let reader: Box<dyn BufRead + Send> = if head.starts_with(GZIP_MAGIC) {
        Box::new(BufReader::with_capacity(1 << 16, flate2::bufread::MultiGzDecoder::new(buffered)))
    } else if head.starts_with(BZIP2_MAGIC) {
        Box::new(BufReader::with_capacity(1 << 16, bzip2::bufread::MultiBzDecoder::new(buffered)))
    } else {
        Box::new(buffered)
    };
    Ok(reader)
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
