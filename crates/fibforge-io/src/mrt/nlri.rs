//! Prefixes in BGP wire form (RFC 4271 §4.3): a length byte, then the fewest whole bytes that
//! hold that many bits; with ADD-PATH (RFC 7911) each is preceded by a 4-byte path identifier.
//!
//! Bits beyond the length in the last byte are ignored, as RFC 4271 says ("the value of
//! trailing bits is irrelevant"), so the prefix is canonical whatever the sender put there.

use super::cursor::{Afi, Cursor, Decoded};
use fibforge::{AnyPrefix, Prefix};

/// Reads one prefix of family `afi` in wire form.
pub(crate) fn read_prefix(cur: &mut Cursor<'_>, afi: Afi) -> Decoded<AnyPrefix> {
    let at = cur.offset();
    let len = u32::from(cur.u8("prefix length")?);
    let max = match afi {
        Afi::Ipv4 => 32,
        Afi::Ipv6 => 128,
    };
    if len > max {
        let reason = format!("prefix length {len} exceeds {max}");
        return Err(super::cursor::Malformed { offset: at, reason: reason.into() });
    }
    let bytes = cur.take(len.div_ceil(8) as usize, "prefix bytes")?;
    Ok(prefix_from_bytes(afi, bytes, len))
}

/// Builds a prefix from at most `len` bits of left-aligned bytes (missing bytes are zero).
pub(crate) fn prefix_from_bytes(afi: Afi, bytes: &[u8], len: u32) -> AnyPrefix {
    let mut octets = [0u8; 16];
    let n = bytes.len().min(16);
    octets[..n].copy_from_slice(&bytes[..n]);
    match afi {
        Afi::Ipv4 => {
            let addr = u32::from_be_bytes([octets[0], octets[1], octets[2], octets[3]]);
            AnyPrefix::V4(masked(addr, len))
        }
        Afi::Ipv6 => AnyPrefix::V6(masked(u128::from_be_bytes(octets), len)),
    }
}

fn masked<A: fibforge::Address>(addr: A, len: u32) -> Prefix<A> {
    // The callers check `len <= A::BITS`, so masking cannot fail.
    Prefix::new_masked(addr, len.min(A::BITS)).unwrap_or_default()
}

/// Reads prefixes until the cursor is empty, handing each (with its path id when `add_path`)
/// to `each`. Prefixes before a damaged one have already been handed on when it fails.
pub(crate) fn read_prefix_list(
    cur: &mut Cursor<'_>,
    afi: Afi,
    add_path: bool,
    mut each: impl FnMut(Option<u32>, AnyPrefix),
) -> Decoded<()> {
    while !cur.is_empty() {
        let path_id = if add_path { Some(cur.u32("ADD-PATH path identifier")?) } else { None };
        each(path_id, read_prefix(cur, afi)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(bytes: &[u8], afi: Afi, add_path: bool) -> (Vec<String>, Option<u64>) {
        let mut out = Vec::new();
        let r = read_prefix_list(&mut Cursor::new(bytes, 0), afi, add_path, |id, p| {
            out.push(format!("{}{p}", id.map(|i| format!("#{i} ")).unwrap_or_default()))
        });
        (out, r.err().map(|e| e.offset))
    }

    #[test]
    fn decodes_prefixes_and_masks_trailing_bits() {
        let bytes = [13, 11, 15, 0, 24, 10, 1, 2, 32, 1, 2, 3, 4];
        let (got, err) = list(&bytes, Afi::Ipv4, false);
        assert_eq!(got, ["11.8.0.0/13", "0.0.0.0/0", "10.1.2.0/24", "1.2.3.4/32"]);
        assert_eq!(err, None);
        let (got, _) = list(&[0, 0, 0, 7, 32, 0x20, 1, 0x0d, 0xb8], Afi::Ipv6, true);
        assert_eq!(got, ["#7 2001:db8::/32"]);
    }

    #[test]
    fn rejects_long_lengths_and_short_data_after_keeping_the_good_ones() {
        assert_eq!(
            list(&[8, 10, 33, 1, 2, 3, 4, 5], Afi::Ipv4, false),
            (vec!["10.0.0.0/8".into()], Some(2))
        );
        assert_eq!(list(&[129], Afi::Ipv6, false).1, Some(0));
        assert_eq!(list(&[24, 10, 1], Afi::Ipv4, false).1, Some(1));
        assert_eq!(list(&[0, 0, 1], Afi::Ipv4, true).1, Some(0));
    }
}
