//! Address text to numbers, fast: the exact grammar of std's `Ipv4Addr`, `Ipv6Addr` and
//! `IpAddr` `from_str`, read from bytes with no UTF-8 check, no allocation and no trimming.
//!
//! Address lists and text columns spend most of their time in parsing (std's IPv6 parser costs
//! several times a lookup), so this module follows std's recursive-descent reader step for step
//! on a byte cursor instead of calling it. "Exactly" is a tested promise: the tests compare
//! every answer with std's on generated and mutated texts (`tests` below and the
//! `parse_prefix` fuzz target), and a text std refuses is refused here.
//!
//! The grammar, as std reads it:
//! - IPv4: four decimal parts of 1–3 digits separated by `.`, each ≤ 255, no leading zero
//!   (`01`); a fourth digit fails the part rather than ending it.
//! - IPv6: up to eight groups of 1–4 hex digits separated by `:`, at most one `::` standing
//!   for one or more zero groups, and optionally a dotted quad in place of the last two
//!   groups (never before the `::`). Zones (`%eth0`) and brackets are not addresses.
//! - `IpAddr`: an IPv4 address or else an IPv6 address; the whole text is consumed.
//!
//! The writers ([`push_ipv4_text`], [`push_ipv6_text`]) append the text std's `Display`
//! writes (RFC 5952 for IPv6: lower-case hex, the first longest run of two or more zero
//! groups as `::`, IPv4-mapped addresses as `::ffff:a.b.c.d`) without `fmt`.

use std::net::IpAddr;

/// An IPv4 address in dotted-quad text, as `text.parse::<Ipv4Addr>()` would read it.
#[inline]
#[doc(hidden)]
pub fn parse_ipv4_ascii(text: &[u8]) -> Option<u32> {
    let (addr, end) = read_ipv4(text, 0)?;
    (end == text.len()).then_some(addr)
}

/// An IPv6 address in text, as `text.parse::<Ipv6Addr>()` would read it.
#[inline]
#[doc(hidden)]
pub fn parse_ipv6_ascii(text: &[u8]) -> Option<u128> {
    let (addr, end) = read_ipv6(text)?;
    (end == text.len()).then_some(addr)
}

/// An IPv4 or IPv6 address in text, as `text.parse::<IpAddr>()` would read it.
#[inline]
#[doc(hidden)]
pub fn parse_ip_ascii(text: &[u8]) -> Option<IpAddr> {
    // A text that starts with a dotted quad is never IPv6 (its first group would be that
    // quad, which std allows only after a `::`), so trying IPv4 first decides every case.
    if let Some(a) = parse_ipv4_ascii(text) {
        return Some(IpAddr::V4(a.into()));
    }
    parse_ipv6_ascii(text).map(|a| IpAddr::V6(a.into()))
}

/// std's `read_number`: digits of `radix` read greedily from `pos`, at least one and at most
/// `max` (one more fails the number instead of ending it), a value ≤ `limit`, and no leading
/// zero before another digit unless `zero_prefix`. The value and the position after it.
#[inline(always)]
fn read_number(
    text: &[u8],
    pos: usize,
    radix: u32,
    max: usize,
    limit: u32,
    zero_prefix: bool,
) -> Option<(u32, usize)> {
    let mut value = 0u32;
    let mut end = pos;
    while let Some(digit) = text.get(end).and_then(|&b| char::from(b).to_digit(radix)) {
        value = value * radix + digit;
        end += 1;
        // std's checked arithmetic in the part's own type fails as soon as the value passes
        // the type's maximum; the value only grows, so one test per digit is the same rule.
        if end - pos > max || value > limit {
            return None;
        }
    }
    let digits = end - pos;
    if digits == 0 || (!zero_prefix && digits > 1 && text[pos] == b'0') {
        return None;
    }
    Some((value, end))
}

/// std's `read_ipv4_addr` from `pos`: the address and the position after it.
#[inline(always)]
fn read_ipv4(text: &[u8], pos: usize) -> Option<(u32, usize)> {
    let mut addr = 0u32;
    let mut at = pos;
    for part in 0..4 {
        if part > 0 {
            at = read_char(text, at, b'.')?;
        }
        let (octet, end) = read_number(text, at, 10, 3, 255, false)?;
        addr = addr << 8 | octet;
        at = end;
    }
    Some((addr, at))
}

#[inline(always)]
fn read_char(text: &[u8], pos: usize, c: u8) -> Option<usize> {
    (text.get(pos) == Some(&c)).then_some(pos + 1)
}

/// The groups read by [`read_groups`]: how many, whether the last two came from a dotted quad,
/// and the position after them.
struct Groups {
    count: usize,
    ipv4: bool,
    end: usize,
}

/// std's `read_groups`: up to `groups.len()` groups from `pos`, `:`-separated (no separator
/// before the first), where a dotted quad may stand for the last two; stops, without consuming
/// it, at the first separator and group that do not read.
fn read_groups(text: &[u8], pos: usize, groups: &mut [u16]) -> Groups {
    let limit = groups.len();
    let mut at = pos;
    for i in 0..limit {
        let after_separator = if i > 0 { read_char(text, at, b':') } else { Some(at) };
        let Some(start) = after_separator else {
            return Groups { count: i, ipv4: false, end: at };
        };
        if i + 1 < limit
            && let Some((quad, end)) = read_ipv4(text, start)
        {
            groups[i] = (quad >> 16) as u16;
            groups[i + 1] = quad as u16;
            return Groups { count: i + 2, ipv4: true, end };
        }
        match read_number(text, start, 16, 4, 0xffff, true) {
            Some((group, end)) => {
                groups[i] = group as u16;
                at = end;
            }
            None => return Groups { count: i, ipv4: false, end: at },
        }
    }
    Groups { count: limit, ipv4: false, end: at }
}

/// std's `read_ipv6_addr`: the address and the position after it.
fn read_ipv6(text: &[u8]) -> Option<(u128, usize)> {
    let mut head = [0u16; 8];
    let front = read_groups(text, 0, &mut head);
    if front.count == 8 {
        return Some((join(&head), front.end));
    }
    if front.ipv4 {
        return None; // a dotted quad only ends an address, after its `::`
    }
    let at = read_char(text, read_char(text, front.end, b':')?, b':')?;
    // The `::` stands for at least one zero group.
    let mut tail = [0u16; 7];
    let back = read_groups(text, at, &mut tail[..8 - (front.count + 1)]);
    head[8 - back.count..].copy_from_slice(&tail[..back.count]);
    Some((join(&head), back.end))
}

#[inline(always)]
fn join(groups: &[u16; 8]) -> u128 {
    groups.iter().fold(0u128, |a, &g| a << 16 | u128::from(g))
}

/// Appends `addr` in dotted-quad text, as `Ipv4Addr`'s `Display` writes it.
#[inline]
#[doc(hidden)]
pub fn push_ipv4_text(out: &mut Vec<u8>, addr: u32) {
    // Into a stack buffer first: one capacity check instead of one per byte; each octet is
    // copied whole from a table and the cursor advanced by its length (random octets make the
    // digit count unpredictable, and branches on it cost more than the rest).
    let mut text = [0u8; 16];
    let mut n = 0;
    for byte in addr.to_be_bytes() {
        let (digits, len) = DECIMAL[usize::from(byte)];
        text[n..n + 4].copy_from_slice(&digits);
        n += len;
    }
    out.extend_from_slice(&text[..n - 1]);
}

/// For each value below 256: its decimal digits followed by a dot, and their count with the
/// dot.
static DECIMAL: [([u8; 4], usize); 256] = {
    let mut table = [([0u8; 4], 0usize); 256];
    let mut v = 0;
    while v < 256 {
        let (h, t, o) = ((v / 100) as u8, (v / 10 % 10) as u8, (v % 10) as u8);
        table[v] = if v >= 100 {
            ([b'0' + h, b'0' + t, b'0' + o, b'.'], 4)
        } else if v >= 10 {
            ([b'0' + t, b'0' + o, b'.', 0], 3)
        } else {
            ([b'0' + o, b'.', 0, 0], 2)
        };
        v += 1;
    }
    table
};

/// Appends `addr` in RFC 5952 text, as `Ipv6Addr`'s `Display` writes it.
#[doc(hidden)]
pub fn push_ipv6_text(out: &mut Vec<u8>, addr: u128) {
    if addr >> 32 == 0xffff {
        out.extend_from_slice(b"::ffff:");
        return push_ipv4_text(out, addr as u32);
    }
    let groups: [u16; 8] = std::array::from_fn(|i| (addr >> (112 - 16 * i)) as u16);
    let (start, len) = longest_zero_run(&groups);
    let mut text = [0u8; 40];
    let mut n = 0;
    if len > 1 {
        n = push_groups(&mut text, n, &groups[..start]);
        text[n..n + 2].copy_from_slice(b"::");
        n = push_groups(&mut text, n + 2, &groups[start + len..]);
    } else {
        n = push_groups(&mut text, n, &groups);
    }
    out.extend_from_slice(&text[..n]);
}

/// The start and length of the first longest run of zero groups.
fn longest_zero_run(groups: &[u16; 8]) -> (usize, usize) {
    let (mut best, mut run) = ((0, 0), (0, 0));
    for (i, &g) in groups.iter().enumerate() {
        run = if g == 0 { (if run.1 == 0 { i } else { run.0 }, run.1 + 1) } else { (0, 0) };
        if run.1 > best.1 {
            best = run;
        }
    }
    best
}

/// Writes `groups` in lower-case hex without leading zeros, `:`-separated, from `at`.
fn push_groups(text: &mut [u8; 40], mut at: usize, groups: &[u16]) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, &g) in groups.iter().enumerate() {
        if i > 0 {
            text[at] = b':';
            at += 1;
        }
        let digits = (16 - g.leading_zeros()).div_ceil(4).max(1) as usize;
        for d in 0..digits {
            text[at + d] = HEX[usize::from(g >> (4 * (digits - 1 - d)) & 0xf)];
        }
        at += digits;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::rng::XorShift64;
    use std::net::{Ipv4Addr, Ipv6Addr};

    /// Every parser of this module against std's on `text`.
    fn same_as_std(text: &[u8]) {
        let s = std::str::from_utf8(text).expect("tests use ASCII");
        let v4 = s.parse::<Ipv4Addr>().ok().map(u32::from);
        let v6 = s.parse::<Ipv6Addr>().ok().map(u128::from);
        let ip = s.parse::<IpAddr>().ok();
        assert_eq!(parse_ipv4_ascii(text), v4, "IPv4 {s:?}");
        assert_eq!(parse_ipv6_ascii(text), v6, "IPv6 {s:?}");
        assert_eq!(parse_ip_ascii(text), ip, "IpAddr {s:?}");
    }

    #[test]
    fn the_corner_cases_of_std_grammar() {
        for s in [
            "",
            "0.0.0.0",
            "255.255.255.255",
            "256.0.0.0",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.",
            "1.2.3.4 ",
            " 1.2.3.4",
            "1..2.3",
            "1.2.3.0004",
            "1.2.3.000",
            "0.0.0.00",
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "::2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7:8::",
            "1::2::3",
            ":::",
            "1:::2",
            ":1::",
            "::1:",
            "12345::",
            "1:2:3:4:5:6:1.2.3.4",
            "1:2:3:4:5:1.2.3.4",
            "::1.2.3.4",
            "::ffff:1.2.3.4",
            "1.2.3.4::",
            "1.2.3.4::5",
            "::1.2.3.4:5",
            "::1.2.3.04",
            "::01.2.3.4",
            "::0123.1.1.1",
            "::123.1.1.1",
            "fe80::1%eth0",
            "[::1]",
            "FFFF:ffff::",
            "0000:0000:0000:0000:0000:0000:0000:0000",
            "00000::",
            "::00000",
            "g::",
            "1:2:3:4:5:6:7:1.2.3.4",
            "::1.2.3",
            "1:2:3:4:5:6::1.2.3.4",
            "1:2:3:4:5:6:7:1.2.3.4",
            "2001:db8::1",
            "::ffff:0.0.0.0",
            "1:2:3:4:5:6:7:8:",
            ":1:2:3:4:5:6:7:8",
            "1::1.2.3.4.5",
            "1:2::3:4:1.2.3.4",
        ] {
            same_as_std(s.as_bytes());
        }
    }

    /// The library's test generator, with the bounded draws these texts need.
    struct Stream(XorShift64);

    impl Stream {
        fn new(seed: u64) -> Self {
            Stream(XorShift64::new(seed))
        }

        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const ALPHABET: &[u8] = b"0123456789abcdefABCDEFg:.:.:. %";

    /// A valid IPv6 address written one of the ways std reads: groups with or without leading
    /// zeros, in either case, a `::` anywhere, a dotted-quad tail.
    fn valid_ipv6(r: &mut Stream) -> String {
        let groups: Vec<u16> = (0..8)
            .map(|_| if r.below(3) == 0 { 0 } else { r.next() as u16 >> r.below(16) })
            .collect();
        let quad = r.below(4) == 0;
        let shown = if quad { 6 } else { 8 };
        let mut parts: Vec<String> = groups[..shown]
            .iter()
            .map(|g| match r.below(3) {
                0 => format!("{g:x}"),
                1 => format!("{g:04X}"),
                _ => format!("{g:X}"),
            })
            .collect();
        if quad {
            parts.push(Ipv4Addr::from(r.next() as u32).to_string());
        }
        if r.below(2) == 0 {
            let from = r.below(parts.len());
            let to = from + 1 + r.below(parts.len() - from);
            let (head, tail) = (parts[..from].join(":"), parts[to..].join(":"));
            return format!("{head}::{tail}");
        }
        parts.join(":")
    }

    /// `text` with one to three characters inserted, deleted or replaced.
    fn mutated(r: &mut Stream, text: &str) -> Vec<u8> {
        let mut t = text.as_bytes().to_vec();
        for _ in 0..1 + r.below(3) {
            let c = ALPHABET[r.below(ALPHABET.len())];
            match r.below(3) {
                0 => t.insert(r.below(t.len() + 1), c),
                1 if !t.is_empty() => {
                    t.remove(r.below(t.len()));
                }
                _ if !t.is_empty() => {
                    let at = r.below(t.len());
                    t[at] = c;
                }
                _ => t.push(c),
            }
        }
        t
    }

    #[test]
    fn generated_and_mutated_addresses_read_as_std_reads_them() {
        let mut r = Stream::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..40_000 {
            let v6 = valid_ipv6(&mut r);
            same_as_std(v6.as_bytes());
            same_as_std(&mutated(&mut r, &v6));
            let v4 = Ipv4Addr::from(r.next() as u32).to_string();
            same_as_std(v4.as_bytes());
            same_as_std(&mutated(&mut r, &v4));
        }
    }

    #[test]
    fn random_texts_over_the_grammar_alphabet_read_as_std_reads_them() {
        let mut r = Stream::new(0xD1B5_4A32_D192_ED03);
        for _ in 0..100_000 {
            let len = r.below(24);
            let text: Vec<u8> = (0..len).map(|_| ALPHABET[r.below(ALPHABET.len())]).collect();
            same_as_std(&text);
        }
    }

    #[test]
    fn written_text_is_std_display() {
        let mut r = Stream::new(0x2545_F491_4F6C_DD1D);
        let mut v6 = vec![0u128, 1, u128::MAX, 0xffff_0102_0304, 0xfffe_0102_0304, 1 << 112];
        for _ in 0..50_000 {
            // Groups zeroed at random, so runs of every length and position occur.
            let mask =
                (0..8).fold(0u128, |m, i| m | if r.below(2) == 0 { 0xffff << (16 * i) } else { 0 });
            let a = (u128::from(r.next()) << 64 | u128::from(r.next())) & mask;
            v6.push(a >> (16 * r.below(4)));
        }
        for a in v6 {
            let mut out = Vec::new();
            push_ipv6_text(&mut out, a);
            assert_eq!(std::str::from_utf8(&out).unwrap(), Ipv6Addr::from(a).to_string());
            assert_eq!(parse_ipv6_ascii(&out), Some(a));
        }
        for a in [0u32, 1, 9, 10, 99, 100, 255, 0x0a01_0203, 0xc0a8_6401, u32::MAX] {
            let mut out = Vec::new();
            push_ipv4_text(&mut out, a);
            assert_eq!(std::str::from_utf8(&out).unwrap(), Ipv4Addr::from(a).to_string());
        }
    }

    #[test]
    fn non_ascii_bytes_are_not_addresses() {
        for text in [&b"1.2.3.\xff"[..], b"::\xc3\xa9", b"\x001.2.3.4", b"1.2.3.4\n"] {
            assert_eq!(parse_ip_ascii(text), None);
        }
    }
}
