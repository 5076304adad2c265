//! A bounds-checked reader over one record's bytes that knows each byte's offset in the stream.
//!
//! Every read either returns the bytes or a [`Malformed`] naming the absolute offset where the
//! data ran out or went wrong, so no parser below ever indexes out of bounds or panics.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Damage found while decoding: where (offset in the decompressed stream) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Malformed {
    pub offset: u64,
    pub reason: Cow<'static, str>,
}

pub(crate) type Decoded<T> = Result<T, Malformed>;

/// A window on a byte slice; `base` is the stream offset of `buf[0]`.
#[derive(Clone, Debug)]
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor over `buf`, whose first byte sits at stream offset `base`.
    pub fn new(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }

    /// The stream offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when everything was read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error at the current position.
    pub fn error(&self, reason: impl Into<Cow<'static, str>>) -> Malformed {
        Malformed { offset: self.offset(), reason: reason.into() }
    }

    /// The next `n` bytes; `what` names the field in the error.
    pub fn take(&mut self, n: usize, what: &'static str) -> Decoded<&'a [u8]> {
        if n > self.remaining() {
            let reason = format!("{what}: needs {n} bytes, only {} left", self.remaining());
            return Err(self.error(reason));
        }
        let bytes = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    /// A cursor over the next `n` bytes (which this cursor skips).
    pub fn sub(&mut self, n: usize, what: &'static str) -> Decoded<Cursor<'a>> {
        let base = self.offset();
        self.take(n, what).map(|bytes| Cursor::new(bytes, base))
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Decoded<()> {
        self.take(n, what).map(|_| ())
    }

    pub fn u8(&mut self, what: &'static str) -> Decoded<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Decoded<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self, what: &'static str) -> Decoded<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An AS number of 2 or 4 bytes.
    pub fn asn(&mut self, four_bytes: bool, what: &'static str) -> Decoded<u32> {
        if four_bytes { self.u32(what) } else { self.u16(what).map(u32::from) }
    }

    pub fn ipv4(&mut self, what: &'static str) -> Decoded<Ipv4Addr> {
        self.u32(what).map(Ipv4Addr::from)
    }

    pub fn ipv6(&mut self, what: &'static str) -> Decoded<Ipv6Addr> {
        let b = self.take(16, what)?;
        let mut octets = [0u8; 16];
        octets.copy_from_slice(b);
        Ok(Ipv6Addr::from(octets))
    }

    /// An address of the family named by `afi` (1 = IPv4, 2 = IPv6).
    pub fn ip(&mut self, afi: Afi, what: &'static str) -> Decoded<IpAddr> {
        match afi {
            Afi::Ipv4 => self.ipv4(what).map(IpAddr::V4),
            Afi::Ipv6 => self.ipv6(what).map(IpAddr::V6),
        }
    }
}

/// Address family identifiers (RFC 4760, IANA).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Afi {
    Ipv4,
    Ipv6,
}

impl Afi {
    /// The family of an AFI number, if fibforge reads it.
    pub fn from_number(n: u16) -> Option<Afi> {
        match n {
            1 => Some(Afi::Ipv4),
            2 => Some(Afi::Ipv6),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_reports_offsets_when_short() {
        let bytes = [0, 1, 0, 0, 0, 2, 9];
        let mut c = Cursor::new(&bytes, 100);
        assert_eq!(c.u16("a").unwrap(), 1);
        assert_eq!(c.u32("b").unwrap(), 2);
        assert_eq!(c.offset(), 106);
        let e = c.u16("c").unwrap_err();
        assert_eq!(e.offset, 106);
        assert!(e.reason.contains("c: needs 2 bytes, only 1 left"), "{}", e.reason);
        let mut sub = c.sub(1, "d").unwrap();
        assert_eq!((sub.offset(), sub.u8("e").unwrap()), (106, 9));
        assert!(c.is_empty() && sub.is_empty());
    }
}
