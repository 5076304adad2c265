//! Queries from the command line and from address lists.
//!
//! A list line holds a query in its first column: an address (`192.0.2.1`, `2001:db8::1`) or
//! a prefix (`10.1.0.0/16`); further columns (tab or space separated), `#` comments and blank
//! lines are ignored, so the shipped ipsum list (`IP<TAB>count`) reads as it is. Lines are
//! read into one reused buffer; a line longer than [`MAX_LINE`] bytes ends the input (binary
//! data such as `/dev/zero` has no line breaks, and skipping it would never finish).

use fibforge::{Prefix, addr::parse_addr};
use std::io::BufRead;
use std::net::IpAddr;

/// The longest line an address list may have, in bytes.
pub const MAX_LINE: usize = 4096;

/// One thing to look up.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// An IPv4 address: its longest matching route.
    Addr4(u32),
    /// An IPv6 address.
    Addr6(u128),
    /// An IPv4 prefix: the longest route that covers it.
    Prefix4(Prefix<u32>),
    /// An IPv6 prefix.
    Prefix6(Prefix<u128>),
}

/// The query in a list line; `Ok(None)` for a blank or comment line.
pub fn parse_line(line: &[u8]) -> Result<Option<Query>, String> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(line.len());
    let rest = &line[start..];
    let end = rest.iter().position(|&b| b.is_ascii_whitespace() || b == b'#').unwrap_or(rest.len());
    match &rest[..end] {
        [] => Ok(None),
        first => parse_query(first).map(Some),
    }
}

/// An address or a prefix (strict: a prefix's host bits must be zero).
pub fn parse_query(text: &[u8]) -> Result<Query, String> {
    // The common case of a list, without the UTF-8 check and the prefix parser.
    match fibforge::addr::parse_ip_ascii(text) {
        Some(IpAddr::V4(a)) => return Ok(Query::Addr4(a.into())),
        Some(IpAddr::V6(a)) => return Ok(Query::Addr6(a.into())),
        None => {}
    }
    let shown = || fibforge_io::error::quote(text);
    let Ok(s) = std::str::from_utf8(text) else {
        return Err(format!("{} is not an IPv4 or IPv6 address or prefix", shown()));
    };
    if s.contains('/') {
        let parsed = if s.contains(':') {
            Prefix::<u128>::parse(s).map(Query::Prefix6)
        } else {
            Prefix::<u32>::parse(s).map(Query::Prefix4)
        };
        return parsed.map_err(|e| e.to_string());
    }
    // Surrounding whitespace (a command-line argument may carry any Unicode space).
    if let Some(a) = parse_addr::<u32>(s) {
        return Ok(Query::Addr4(a));
    }
    if let Some(a) = parse_addr::<u128>(s) {
        return Ok(Query::Addr6(a));
    }
    Err(format!("{} is not an IPv4 or IPv6 address or prefix", shown()))
}

/// Reads the next line (without its line break) into `buf`; `Ok(false)` at the end.
/// A line longer than [`MAX_LINE`] is an error.
pub fn next_line(input: &mut dyn BufRead, buf: &mut Vec<u8>) -> Result<bool, String> {
    buf.clear();
    loop {
        let chunk = input.fill_buf().map_err(|e| e.to_string())?;
        if chunk.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(nl) => (nl + 1, true),
            None => (chunk.len(), false),
        };
        let body = if done { take - 1 } else { take };
        if buf.len() + body > MAX_LINE {
            return Err(format!(
                "a line longer than {MAX_LINE} bytes: not an address list (binary data?)"
            ));
        }
        buf.extend_from_slice(&chunk[..body]);
        input.consume(take);
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_lines_take_the_first_column() {
        assert_eq!(parse_line(b"77.90.185.20\t10"), Ok(Some(Query::Addr4(0x4d5a_b914))));
        assert_eq!(
            parse_line(b"  2001:db8::1 x # c"),
            Ok(Some(Query::Addr6(0x2001_0db8 << 96 | 1)))
        );
        assert_eq!(parse_line(b"# IPsum"), Ok(None));
        assert_eq!(parse_line(b"   "), Ok(None));
        let p = Prefix::<u32>::parse("10.1.0.0/16").unwrap();
        assert_eq!(parse_line(b"10.1.0.0/16 a"), Ok(Some(Query::Prefix4(p))));
        assert!(parse_line(b"10.1.0.1/16").unwrap_err().contains("host bits"));
        assert!(parse_line(b"10.1.0.300").unwrap_err().contains("'10.1.0.300' is not an IPv4"));
        assert!(parse_line(b"\xff\xfe").is_err());
    }

    #[test]
    fn ipv4_queries_are_read_as_std_reads_them() {
        let mut cases: Vec<String> = [
            "0.0.0.0",
            "255.255.255.255",
            "256.1.1.1",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.5",
            "1..3.4",
            "1.2.3.4.",
            ".1.2.3",
            "1.2.3.0",
            "1.2.3.00",
            "+1.2.3.4",
            "1.2.3.-4",
            "1.2.3.4 ",
            "",
            "1000.1.1.1",
            "9.99.199.255",
            "1.2.3.a",
        ]
        .map(String::from)
        .to_vec();
        let mut rng = fibforge::verify::rng::XorShift64::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let x = rng.next_u64();
            let parts: Vec<String> =
                (0..4).map(|i| format!("{}", (x >> (i * 12)) & 0x1ff)).collect();
            cases.push(parts.join("."));
            cases.push(format!("{}.{}", parts[0], (x >> 50) % 4));
        }
        for c in &cases {
            let std = c.trim().parse::<std::net::Ipv4Addr>().ok().map(u32::from);
            let got = match parse_query(c.as_bytes()) {
                Ok(Query::Addr4(a)) => Some(a),
                _ => None,
            };
            assert_eq!(got, std, "{c:?}");
        }
    }

    #[test]
    fn lines_are_split_and_capped() {
        let mut input: &[u8] = b"a\r\nb\n\nc";
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while next_line(&mut input, &mut buf).unwrap() {
            got.push(String::from_utf8(buf.clone()).unwrap());
        }
        assert_eq!(got, ["a", "b", "", "c"]);
        let long = vec![b'1'; MAX_LINE + 1];
        assert!(next_line(&mut long.as_slice(), &mut buf).unwrap_err().contains("longer than"));
        let exact = vec![b'1'; MAX_LINE];
        assert_eq!(next_line(&mut exact.as_slice(), &mut buf), Ok(true));
    }
}
