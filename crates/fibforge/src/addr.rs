//! Addresses: one trait for IPv4 (`u32`) and IPv6 (`u128`).
//!
//! Addresses are plain unsigned integers in host order, most significant bit first: bit 0 of
//! `10.0.0.0` is the leading `0` of `00001010`. Every algorithm reads address bits through
//! [`Address::bits`], which extracts a big-endian bit field, so one generic implementation
//! serves both families.
//!
//! IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) are IPv6 addresses here and stay so: they are
//! never looked up in an IPv4 table. A caller who wants that mapping does it explicitly with
//! [`ipv4_from_mapped`].

mod text;

pub use text::{
    parse_ip_ascii, parse_ipv4_ascii, parse_ipv6_ascii, push_ipv4_text, push_ipv6_text,
};

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// Which address family a value belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// IPv4, 32-bit addresses.
    Ipv4,
    /// IPv6, 128-bit addresses.
    Ipv6,
}

impl Family {
    /// `"ipv4"` or `"ipv6"`, as used in JSON reports.
    pub fn name(self) -> &'static str {
        match self {
            Family::Ipv4 => "ipv4",
            Family::Ipv6 => "ipv6",
        }
    }
}

impl Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An IP address as an unsigned integer, most significant bit first.
pub trait Address:
    Copy + Ord + Eq + Hash + Debug + Default + Send + Sync + 'static + Unpin
{
    /// Width in bits: 32 or 128.
    const BITS: u32;
    /// The family of this address type.
    const FAMILY: Family;
    /// The all-zero address.
    const ZERO: Self;
    /// The standard library's address type used for text conversion.
    type Std: FromStr + Display + Copy;

    /// Widens to `u128` (IPv4 occupies the low 32 bits).
    #[doc(hidden)]
    fn to_u128(self) -> u128;
    /// Narrows from `u128`, keeping the low `BITS` bits.
    #[doc(hidden)]
    fn from_u128(v: u128) -> Self;
    /// Converts to the standard library type.
    fn to_std(self) -> Self::Std;
    /// Converts from the standard library type.
    fn from_std(a: Self::Std) -> Self;

    /// The `len` bits starting `start` bits from the top, right-aligned in a `u64`.
    ///
    /// `len` is at most 64 and `start + len` at most `BITS`. Example for IPv4 `0xC0A80101`
    /// (192.168.1.1): `bits(0, 8) == 0xC0`, `bits(8, 16) == 0xA801`.
    #[doc(hidden)]
    fn bits(self, start: u32, len: u32) -> u64;

    /// The single bit at position `i` (0 = most significant).
    #[inline]
    #[doc(hidden)]
    fn bit(self, i: u32) -> bool {
        self.bits(i, 1) != 0
    }

    /// The network mask with `len` leading ones (`len` in `0..=BITS`).
    #[doc(hidden)]
    fn netmask(len: u32) -> Self;

    /// Keeps the first `len` bits, zeroing the rest.
    #[inline]
    #[doc(hidden)]
    fn truncate(self, len: u32) -> Self {
        Self::from_u128(self.to_u128() & Self::netmask(len).to_u128())
    }

    /// Sets all bits after the first `len` to one (the last address of a prefix).
    #[inline]
    #[doc(hidden)]
    fn fill_host_bits(self, len: u32) -> Self {
        Self::from_u128(self.to_u128() | !Self::netmask(len).to_u128())
    }

    /// Number of leading bits shared by `self` and `other` (`BITS` when equal).
    #[inline]
    #[doc(hidden)]
    fn common_prefix_len(self, other: Self) -> u32 {
        let x = (self.to_u128() ^ other.to_u128()) << (128 - Self::BITS);
        x.leading_zeros().min(Self::BITS)
    }
}

impl Address for u32 {
    const BITS: u32 = 32;
    const FAMILY: Family = Family::Ipv4;
    const ZERO: Self = 0;
    type Std = Ipv4Addr;

    #[inline]
    fn to_u128(self) -> u128 {
        self as u128
    }
    #[inline]
    fn from_u128(v: u128) -> Self {
        v as u32
    }
    #[inline]
    fn to_std(self) -> Ipv4Addr {
        Ipv4Addr::from(self)
    }
    #[inline]
    fn from_std(a: Ipv4Addr) -> Self {
        u32::from(a)
    }
    #[inline]
    fn bits(self, start: u32, len: u32) -> u64 {
        debug_assert!(len <= 32 && start + len <= 32);
        (((self as u64) << start) as u32 as u64) >> (32 - len) & low_mask(len)
    }
    #[inline]
    fn netmask(len: u32) -> Self {
        if len == 0 { 0 } else { u32::MAX << (32 - len) }
    }
    #[inline]
    fn common_prefix_len(self, other: Self) -> u32 {
        (self ^ other).leading_zeros()
    }
}

impl Address for u128 {
    const BITS: u32 = 128;
    const FAMILY: Family = Family::Ipv6;
    const ZERO: Self = 0;
    type Std = Ipv6Addr;

    #[inline]
    fn to_u128(self) -> u128 {
        self
    }
    #[inline]
    fn from_u128(v: u128) -> Self {
        v
    }
    #[inline]
    fn to_std(self) -> Ipv6Addr {
        Ipv6Addr::from(self)
    }
    #[inline]
    fn from_std(a: Ipv6Addr) -> Self {
        u128::from(a)
    }
    #[inline]
    fn bits(self, start: u32, len: u32) -> u64 {
        debug_assert!(len <= 64 && start + len <= 128);
        if len == 0 {
            return 0;
        }
        ((self << start) >> (128 - len)) as u64
    }
    #[inline]
    fn netmask(len: u32) -> Self {
        if len == 0 { 0 } else { u128::MAX << (128 - len) }
    }
    #[inline]
    fn common_prefix_len(self, other: Self) -> u32 {
        (self ^ other).leading_zeros()
    }
}

#[inline]
fn low_mask(len: u32) -> u64 {
    if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }
}

/// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), if it is one.
///
/// fibforge never applies this mapping on its own; call it when your data wants it.
#[doc(hidden)]
pub fn ipv4_from_mapped(addr: u128) -> Option<u32> {
    (addr >> 32 == 0xffff).then_some(addr as u32)
}

/// Parses an address of type `A` from text (`"192.0.2.1"`, `"2001:db8::1"`), around which
/// whitespace is ignored; otherwise exactly what `A::Std::from_str` accepts.
#[doc(hidden)]
pub fn parse_addr<A: Address>(text: &str) -> Option<A> {
    let text = text.trim().as_bytes();
    let addr = match A::FAMILY {
        Family::Ipv4 => parse_ipv4_ascii(text).map(u128::from),
        Family::Ipv6 => parse_ipv6_ascii(text),
    };
    addr.map(A::from_u128)
}

/// Formats an address in canonical text (RFC 5952 for IPv6).
#[doc(hidden)]
pub fn format_addr<A: Address>(addr: A) -> String {
    addr.to_std().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_bit_fields() {
        let a: u32 = 0xC0A8_0101;
        assert_eq!(a.bits(0, 8), 0xC0);
        assert_eq!(a.bits(8, 16), 0xA801);
        assert_eq!(a.bits(0, 32), 0xC0A8_0101);
        assert_eq!(a.bits(31, 1), 1);
        assert_eq!(a.bits(0, 0), 0);
        assert!(a.bit(0));
        assert!(!a.bit(2));
    }

    #[test]
    fn ipv6_bit_fields() {
        let a: u128 = 0x2001_0db8_0000_0000_0000_0000_0000_0001;
        assert_eq!(a.bits(0, 16), 0x2001);
        assert_eq!(a.bits(16, 16), 0x0db8);
        assert_eq!(a.bits(64, 64), 1);
        assert_eq!(a.bits(127, 1), 1);
        assert_eq!(a.bits(0, 64), 0x2001_0db8_0000_0000);
    }

    #[test]
    fn masks_and_common_prefix() {
        assert_eq!(<u32 as Address>::netmask(0), 0);
        assert_eq!(<u32 as Address>::netmask(8), 0xFF00_0000);
        assert_eq!(<u32 as Address>::netmask(32), u32::MAX);
        assert_eq!(<u128 as Address>::netmask(128), u128::MAX);
        assert_eq!(<u128 as Address>::netmask(1), 1u128 << 127);
        assert_eq!(0x0A00_0001u32.truncate(8), 0x0A00_0000);
        assert_eq!(0x0A00_0000u32.fill_host_bits(8), 0x0AFF_FFFF);
        assert_eq!(5u32.common_prefix_len(5), 32);
        assert_eq!(0u32.common_prefix_len(1), 31);
        assert_eq!(0u128.common_prefix_len(1 << 127), 0);
    }

    #[test]
    fn mapped_addresses_are_only_unmapped_on_request() {
        let mapped: u128 = parse_addr("::ffff:192.0.2.1").unwrap();
        assert_eq!(ipv4_from_mapped(mapped), Some(0xC000_0201));
        assert_eq!(ipv4_from_mapped(1), None);
        assert!(parse_addr::<u32>("::ffff:192.0.2.1").is_none());
    }
}
