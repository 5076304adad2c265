//! MRT record framing (RFC 6396 §2): a 12-byte common header — timestamp (4), type (2),
//! subtype (2), length (4) — then `length` bytes of body.
//!
//! Bodies are read as the bytes arrive, in chunks of at most 1 MiB, so a hostile length field
//! costs no more memory than the stream really holds; records longer than
//! [`MAX_RECORD_LEN`] are refused outright. Types that are not assigned by IANA are treated as
//! damage (a misframed stream shows up as garbage types), assigned types that carry no
//! routes (OSPF, IS-IS, RIP, ...) are skipped.

use std::io::{ErrorKind, Read};

/// The largest record body accepted (16 MiB; real records are at most a few hundred KiB).
pub const MAX_RECORD_LEN: u32 = 16 << 20;
/// Size of the common header.
pub(crate) const HEADER_LEN: usize = 12;

/// Record types the reader decodes.
pub(crate) const TYPE_BGP_LEGACY: u16 = 5;
pub(crate) const TYPE_TABLE_DUMP: u16 = 12;
pub(crate) const TYPE_TABLE_DUMP_V2: u16 = 13;
pub(crate) const TYPE_BGP4MP: u16 = 16;
pub(crate) const TYPE_BGP4MP_ET: u16 = 17;

/// True for the types the reader decodes.
pub(crate) fn is_routing_type(kind: u16) -> bool {
    matches!(
        kind,
        TYPE_BGP_LEGACY | TYPE_TABLE_DUMP | TYPE_TABLE_DUMP_V2 | TYPE_BGP4MP | TYPE_BGP4MP_ET
    )
}

/// True for every type IANA assigned (including the deprecated 0–10 and OSPF/IS-IS).
pub(crate) fn is_assigned_type(kind: u16) -> bool {
    matches!(kind, 0..=13 | 16 | 17 | 32 | 33 | 48 | 49)
}

/// A record's common header and where it starts in the stream.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub offset: u64,
    pub timestamp: u32,
    pub kind: u16,
    pub subtype: u16,
    pub length: u32,
}

impl Header {
    pub fn parse(bytes: &[u8; HEADER_LEN], offset: u64) -> Header {
        let be16 = |i: usize| u16::from_be_bytes([bytes[i], bytes[i + 1]]);
        let be32 =
            |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        Header { offset, timestamp: be32(0), kind: be16(4), subtype: be16(6), length: be32(8) }
    }

    /// Stream offset of the body's first byte.
    pub fn body_offset(&self) -> u64 {
        self.offset + HEADER_LEN as u64
    }
}

/// What stopped the framing layer.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The byte source failed (I/O, or a corrupt/truncated compressed stream).
    Io { offset: u64, err: std::io::Error },
    /// The stream ended inside a header.
    TruncatedHeader { offset: u64, got: usize },
}

/// Reads headers and bodies from a byte stream, counting offsets.
pub(crate) struct RecordReader<R> {
    input: R,
    offset: u64,
    /// The current record's body.
    pub body: Vec<u8>,
}

impl<R: Read> RecordReader<R> {
    pub fn new(input: R) -> Self {
        RecordReader { input, offset: 0, body: Vec::new() }
    }

    /// The next header, or `None` at a clean end of stream.
    pub fn read_header(&mut self) -> Result<Option<Header>, FrameError> {
        let offset = self.offset;
        let mut bytes = [0u8; HEADER_LEN];
        let got = fill(&mut self.input, &mut self.offset, &mut bytes)?;
        match got {
            0 => Ok(None),
            HEADER_LEN => Ok(Some(Header::parse(&bytes, offset))),
            _ => Err(FrameError::TruncatedHeader { offset, got }),
        }
    }

    /// Replaces the body with the next `len` bytes; returns how many the stream really had.
    pub fn read_body(&mut self, len: usize) -> Result<usize, FrameError> {
        self.body.clear();
        self.append_body(len)
    }

    /// Appends up to `len` more bytes to the body; returns how many were read.
    pub fn append_body(&mut self, len: usize) -> Result<usize, FrameError> {
        const CHUNK: usize = 1 << 20;
        let mut total = 0;
        while total < len {
            let want = (len - total).min(CHUNK);
            let start = self.body.len();
            self.body.resize(start + want, 0);
            let got = fill(&mut self.input, &mut self.offset, &mut self.body[start..])?;
            self.body.truncate(start + got);
            total += got;
            if got < want {
                break;
            }
        }
        Ok(total)
    }
}

/// Reads until `buf` is full or the stream ends, advancing `offset`; returns the bytes read.
fn fill<R: Read>(input: &mut R, offset: &mut u64, buf: &mut [u8]) -> Result<usize, FrameError> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => {
                got += n;
                *offset += n as u64;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(err) => return Err(FrameError::Io { offset: *offset, err }),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_records_and_reports_short_reads() {
        let mut bytes = vec![0, 0, 0, 1, 0, 16, 0, 4, 0, 0, 0, 3, 7, 8, 9];
        bytes.extend_from_slice(&[0, 0, 0, 2, 0, 13, 0, 1, 0xff, 0xff, 0xff, 0xff, 1]);
        let mut r = RecordReader::new(&bytes[..]);
        let h = r.read_header().unwrap().unwrap();
        assert_eq!((h.timestamp, h.kind, h.subtype, h.length, h.offset), (1, 16, 4, 3, 0));
        assert_eq!(r.read_body(3).unwrap(), 3);
        assert_eq!(r.body, [7, 8, 9]);
        let h = r.read_header().unwrap().unwrap();
        assert_eq!((h.offset, h.length), (15, u32::MAX));
        assert_eq!(r.read_body(h.length as usize).unwrap(), 1, "only what the stream holds");
        assert!(r.body.capacity() <= 1 << 20);
        assert!(r.read_header().unwrap().is_none());
        let mut short = RecordReader::new(&bytes[..5]);
        assert!(matches!(short.read_header(), Err(FrameError::TruncatedHeader { got: 5, .. })));
    }
}
