//! Canonical prefixes and strict parsing.
//!
//! A [`Prefix`] always has its host bits zero and a length in `0..=A::BITS`; the constructors
//! enforce it, so every algorithm may rely on it. Text parsing is strict by default: a prefix
//! whose host bits are set (`10.0.0.1/8`) is an error that suggests the canonical form; the
//! lenient mode ([`ParseMode::Lenient`]) masks them instead and also accepts a bare address as
//! a host route.
//!
//! The text is one token: surrounding whitespace is ignored, whitespace inside is an error
//! (`10.0.0.0 /8`), and the length is plain decimal (`/8`, not `/+8`, `/08` or `/008`), just
//! as the address's octets may not have leading zeros (`010.0.0.0` is refused by the standard
//! address parser).

use crate::addr::{Address, Family, format_addr, parse_addr};
use std::fmt;

/// An IP prefix: an address with host bits zero and a length in `0..=A::BITS`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Prefix<A: Address> {
    addr: A,
    len: u8,
}

/// IPv4 prefix.
pub type Prefix4 = Prefix<u32>;
/// IPv6 prefix.
pub type Prefix6 = Prefix<u128>;

/// How text with host bits set (or without a length) is treated.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ParseMode {
    /// Reject host bits and missing lengths (the default).
    #[default]
    Strict,
    /// Mask host bits; a bare address is a host route (/32, /128).
    Lenient,
}

/// What was wrong with a prefix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrefixError {
    /// The address part is not an address of the expected family.
    #[error("'{text}' is not a valid {family} address")]
    BadAddress {
        /// The text as given.
        text: String,
        /// The family expected.
        family: Family,
    },
    /// The text has an address of the other family.
    #[error("'{text}' is an {found} prefix where {expected} was expected")]
    WrongFamily {
        /// The text as given.
        text: String,
        /// The family expected.
        expected: Family,
        /// The family the text has.
        found: Family,
    },
    /// The length is not a number.
    #[error("'{text}': prefix length is not a decimal number without sign or leading zeros")]
    BadLength {
        /// The text as given.
        text: String,
    },
    /// The length exceeds the address width.
    #[error("'{text}': prefix length {len} is out of range 0..={max}")]
    LengthOutOfRange {
        /// The text as given.
        text: String,
        /// The length given.
        len: u32,
        /// The address width.
        max: u32,
    },
    /// Bits beyond the length are set.
    #[error("'{text}': host bits set (canonical form: {canonical})")]
    HostBitsSet {
        /// The text as given.
        text: String,
        /// The prefix with its host bits cleared.
        canonical: String,
    },
    /// No `/len` part.
    #[error("'{text}': missing prefix length")]
    MissingLength {
        /// The text as given.
        text: String,
    },
}

impl<A: Address> Prefix<A> {
    /// The prefix covering every address (`0.0.0.0/0` or `::/0`).
    pub const DEFAULT_ROUTE: Self = Prefix { addr: A::ZERO, len: 0 };

    /// A prefix from an address and length; errors if the length is too large or host bits
    /// are set.
    pub fn new(addr: A, len: u32) -> Result<Self, PrefixError> {
        let p = Self::new_masked(addr, len)?;
        if p.addr != addr {
            return Err(PrefixError::HostBitsSet {
                text: format!("{}/{}", format_addr(addr), len),
                canonical: p.to_string(),
            });
        }
        Ok(p)
    }

    /// A prefix from an address and length, masking host bits; errors only on the length.
    pub fn new_masked(addr: A, len: u32) -> Result<Self, PrefixError> {
        if len > A::BITS {
            return Err(PrefixError::LengthOutOfRange {
                text: format!("{}/{}", format_addr(addr), len),
                len,
                max: A::BITS,
            });
        }
        Ok(Prefix { addr: addr.truncate(len), len: len as u8 })
    }

    /// Builds a prefix whose invariants the caller guarantees (host bits zero, `len <= BITS`);
    /// checked in debug builds only. For hot loops of builders that already hold canonical parts.
    #[inline]
    #[doc(hidden)]
    pub fn from_parts_unchecked(addr: A, len: u32) -> Self {
        debug_assert!(len <= A::BITS && addr.truncate(len) == addr);
        Prefix { addr, len: len as u8 }
    }

    /// The host route of one address.
    #[doc(hidden)]
    pub fn host(addr: A) -> Self {
        Prefix { addr, len: A::BITS as u8 }
    }

    /// Parses `addr/len` strictly.
    pub fn parse(text: &str) -> Result<Self, PrefixError> {
        Self::parse_with(text, ParseMode::Strict)
    }

    /// Parses `addr/len` with the given mode.
    pub fn parse_with(text: &str, mode: ParseMode) -> Result<Self, PrefixError> {
        let text = text.trim();
        let (addr_text, len_text) = match text.split_once('/') {
            Some((a, l)) => (a, Some(l)),
            None => (text, None),
        };
        let addr = match parse_addr::<A>(addr_text) {
            Some(addr) if addr_text.trim() == addr_text => addr,
            _ => return Err(classify_bad_address(text, addr_text, A::FAMILY)),
        };
        let len = match len_text {
            Some(l) => {
                parse_length(l).ok_or_else(|| PrefixError::BadLength { text: text.into() })?
            }
            None if mode == ParseMode::Lenient => A::BITS,
            None => return Err(PrefixError::MissingLength { text: text.into() }),
        };
        if len > A::BITS {
            return Err(PrefixError::LengthOutOfRange { text: text.into(), len, max: A::BITS });
        }
        let p = Prefix { addr: addr.truncate(len), len: len as u8 };
        if mode == ParseMode::Strict && p.addr != addr {
            return Err(PrefixError::HostBitsSet { text: text.into(), canonical: p.to_string() });
        }
        Ok(p)
    }

    /// The network address (host bits zero).
    #[inline]
    pub fn addr(&self) -> A {
        self.addr
    }

    /// The prefix length.
    #[inline]
    #[allow(clippy::len_without_is_empty)] // a length in bits, not a container size
    pub fn len(&self) -> u32 {
        self.len as u32
    }

    /// True for the zero-length prefix (the default route).
    #[inline]
    pub fn is_default(&self) -> bool {
        self.len == 0
    }

    /// The last address inside the prefix.
    #[inline]
    #[doc(hidden)]
    pub fn last(&self) -> A {
        self.addr.fill_host_bits(self.len())
    }

    /// True when `addr` lies inside this prefix.
    #[inline]
    pub fn contains(&self, addr: A) -> bool {
        addr.truncate(self.len()) == self.addr
    }

    /// True when `other` lies inside (or equals) this prefix.
    #[inline]
    pub fn covers(&self, other: &Prefix<A>) -> bool {
        other.len >= self.len && self.contains(other.addr)
    }

    /// The bit following this prefix in `addr`'s direction: which half `addr` is in.
    #[inline]
    #[doc(hidden)]
    pub fn bit(&self, i: u32) -> bool {
        self.addr.bit(i)
    }

    /// The enclosing prefix of length `len` (`len <= self.len()`).
    #[inline]
    #[doc(hidden)]
    pub fn truncated(&self, len: u32) -> Self {
        debug_assert!(len <= self.len());
        Prefix { addr: self.addr.truncate(len), len: len as u8 }
    }

    /// The two halves of this prefix (`None` for a host route).
    #[doc(hidden)]
    pub fn children(&self) -> Option<[Self; 2]> {
        if self.len() == A::BITS {
            return None;
        }
        let len = self.len() + 1;
        let high = A::from_u128(self.addr.to_u128() | (1u128 << (A::BITS - len)));
        Some([Prefix { addr: self.addr, len: len as u8 }, Prefix { addr: high, len: len as u8 }])
    }
}

/// A prefix length in plain decimal: 1 to 3 digits, no sign, no leading zero (except `0`).
fn parse_length(text: &str) -> Option<u32> {
    let digits = text.as_bytes();
    let plain = (1..=3).contains(&digits.len())
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1);
    plain.then(|| text.parse().ok()).flatten()
}

fn classify_bad_address(text: &str, addr_text: &str, expected: Family) -> PrefixError {
    let other = match expected {
        Family::Ipv4 => parse_addr::<u128>(addr_text).map(|_| Family::Ipv6),
        Family::Ipv6 => parse_addr::<u32>(addr_text).map(|_| Family::Ipv4),
    };
    match other {
        Some(found) => PrefixError::WrongFamily { text: text.into(), expected, found },
        None => PrefixError::BadAddress { text: addr_text.into(), family: expected },
    }
}

impl<A: Address> fmt::Display for Prefix<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr.to_std(), self.len)
    }
}

impl<A: Address> fmt::Debug for Prefix<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<A: Address> std::str::FromStr for Prefix<A> {
    type Err = PrefixError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A prefix of either family, for readers of mixed files.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum AnyPrefix {
    /// An IPv4 prefix.
    V4(Prefix4),
    /// An IPv6 prefix.
    V6(Prefix6),
}

impl AnyPrefix {
    /// Parses either family; the presence of `:` selects IPv6.
    pub fn parse_with(text: &str, mode: ParseMode) -> Result<Self, PrefixError> {
        if text.contains(':') {
            Prefix6::parse_with(text, mode).map(AnyPrefix::V6)
        } else {
            Prefix4::parse_with(text, mode).map(AnyPrefix::V4)
        }
    }

    /// The family of this prefix.
    pub fn family(&self) -> Family {
        match self {
            AnyPrefix::V4(_) => Family::Ipv4,
            AnyPrefix::V6(_) => Family::Ipv6,
        }
    }
}

impl fmt::Display for AnyPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyPrefix::V4(p) => p.fmt(f),
            AnyPrefix::V6(p) => p.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_parsing_accepts_canonical_prefixes() {
        let p = Prefix4::parse("10.0.0.0/8").unwrap();
        assert_eq!(p.addr(), 0x0A00_0000);
        assert_eq!(p.len(), 8);
        assert_eq!(p.to_string(), "10.0.0.0/8");
        assert_eq!(Prefix6::parse("2001:db8::/32").unwrap().to_string(), "2001:db8::/32");
        assert_eq!(Prefix4::parse("0.0.0.0/0").unwrap(), Prefix4::DEFAULT_ROUTE);
        assert_eq!(Prefix6::parse("::1/128").unwrap().len(), 128);
    }

    #[test]
    fn strict_parsing_names_each_problem() {
        use PrefixError::*;
        assert!(matches!(Prefix4::parse("10.0.0.1/8"), Err(HostBitsSet { .. })));
        assert!(matches!(Prefix4::parse("10.0.0.0/33"), Err(LengthOutOfRange { len: 33, .. })));
        assert!(matches!(Prefix6::parse("::/129"), Err(LengthOutOfRange { len: 129, .. })));
        assert!(matches!(Prefix4::parse("10.0.0.0/x"), Err(BadLength { .. })));
        assert!(matches!(Prefix4::parse("10.0.0.0/-1"), Err(BadLength { .. })));
        for bad in ["10.0.0.0/+8", "10.0.0.0/08", "10.0.0.0/008", "10.0.0.0/ 8", "10.0.0.0/"] {
            assert!(matches!(Prefix4::parse(bad), Err(BadLength { .. })), "{bad}");
        }
        assert!(matches!(Prefix6::parse("::/064"), Err(BadLength { .. })));
        assert!(matches!(Prefix4::parse("10.0.0.0 /8"), Err(BadAddress { .. })));
        assert!(matches!(Prefix4::parse("010.0.0.0/8"), Err(BadAddress { .. })));
        assert_eq!(
            Prefix4::parse(" 10.0.0.0/8\n").unwrap().len(),
            8,
            "outer whitespace is trimmed"
        );
        assert_eq!(Prefix4::parse("0.0.0.0/0").unwrap().len(), 0);
        assert!(matches!(Prefix4::parse("10.0.0/8"), Err(BadAddress { .. })));
        assert!(matches!(Prefix4::parse("2001:db8::/32"), Err(WrongFamily { .. })));
        assert!(matches!(Prefix6::parse("10.0.0.0/8"), Err(WrongFamily { .. })));
        assert!(matches!(Prefix4::parse("10.0.0.0"), Err(MissingLength { .. })));
        assert!(matches!(Prefix4::parse(""), Err(BadAddress { .. })));
        let msg = Prefix4::parse("10.0.0.1/8").unwrap_err().to_string();
        assert!(msg.contains("10.0.0.0/8"), "{msg}");
        // The library's callers (C, Python) have no lenient mode to suggest.
        assert!(!msg.contains("lenient"), "{msg}");
        assert!(!Prefix4::parse("10.0.0.0").unwrap_err().to_string().contains("lenient"));
    }

    #[test]
    fn lenient_parsing_masks_and_accepts_bare_addresses() {
        let p = Prefix4::parse_with("10.1.2.3/8", ParseMode::Lenient).unwrap();
        assert_eq!(p.to_string(), "10.0.0.0/8");
        let h = Prefix4::parse_with("10.1.2.3", ParseMode::Lenient).unwrap();
        assert_eq!(h.len(), 32);
        assert!(Prefix4::parse_with("10.0.0.0/40", ParseMode::Lenient).is_err());
    }

    #[test]
    fn containment_and_children() {
        let p = Prefix4::parse("10.0.0.0/8").unwrap();
        assert!(p.contains(0x0AFF_FFFF));
        assert!(!p.contains(0x0B00_0000));
        assert_eq!(p.last(), 0x0AFF_FFFF);
        let [lo, hi] = p.children().unwrap();
        assert_eq!(lo.to_string(), "10.0.0.0/9");
        assert_eq!(hi.to_string(), "10.128.0.0/9");
        assert!(p.covers(&hi) && !hi.covers(&p));
        assert!(Prefix4::host(1).children().is_none());
        let err = Prefix4::new(0x0A01_0000, 8).unwrap_err().to_string();
        assert!(err.contains("host bits"), "{err}");
    }

    #[test]
    fn mixed_family_parsing() {
        assert_eq!(
            AnyPrefix::parse_with("::/0", ParseMode::Strict).unwrap().family(),
            Family::Ipv6
        );
        assert_eq!(
            AnyPrefix::parse_with("1.0.0.0/24", ParseMode::Strict).unwrap().family(),
            Family::Ipv4
        );
        let mapped = AnyPrefix::parse_with("::ffff:10.0.0.0/104", ParseMode::Strict).unwrap();
        assert_eq!(mapped.family(), Family::Ipv6, "mapped addresses stay IPv6");
    }
}
