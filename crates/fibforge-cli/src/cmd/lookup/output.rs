//! Answer lines, written into a byte buffer without `fmt` (formatting dominated the cost per
//! line): tab-separated text, the matching prefix alone, or JSON Lines.

use fibforge::Prefix;
use fibforge::algo::poptrie::Key;
use std::io::Write;

/// How each answer is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// `query<TAB>prefix<TAB>value`, `query<TAB>-<TAB>-` without a route (prefix `-` when
    /// unknown, as from an export file).
    Text,
    /// The matching prefix alone, `-` without a route.
    Prefix,
    /// `{"address":…,"prefix":…,"value":…}`, `null` prefix and value without a route; with
    /// `origin_as` (the values are origin ASes), also `"origin_as":N` (`null` without one).
    Json {
        /// Whether the table's values are origin AS numbers (`--value origin_as`).
        origin_as: bool,
    },
}

/// Addresses the answer writer can print.
pub trait AddrText: Key {
    /// Appends the canonical text of `addr` (RFC 5952 for IPv6).
    fn push(out: &mut Vec<u8>, addr: Self);

    /// The canonical text of `addr`, for messages.
    fn push_text(addr: Self) -> String {
        let mut out = Vec::new();
        Self::push(&mut out, addr);
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl AddrText for u32 {
    fn push(out: &mut Vec<u8>, addr: u32) {
        fibforge::addr::push_ipv4_text(out, addr);
    }
}

impl AddrText for u128 {
    fn push(out: &mut Vec<u8>, addr: u128) {
        fibforge::addr::push_ipv6_text(out, addr);
    }
}

/// Appends `addr/len`.
pub fn push_prefix<A: AddrText>(out: &mut Vec<u8>, p: &Prefix<A>) {
    A::push(out, p.addr());
    let len = p.len() as u8; // at most 128
    out.push(b'/');
    if len >= 100 {
        out.push(b'0' + len / 100);
    }
    if len >= 10 {
        out.push(b'0' + len / 10 % 10);
    }
    out.push(b'0' + len % 10);
}

/// Appends the answer line for one query; `query` appends the query's own text.
pub fn push_answer<A: AddrText>(
    out: &mut Vec<u8>,
    format: Format,
    query: impl FnOnce(&mut Vec<u8>),
    route: Option<(Option<&Prefix<A>>, &str)>,
) {
    match (format, route) {
        (Format::Text, Some((p, value))) => {
            query(out);
            out.push(b'\t');
            match p {
                Some(p) => push_prefix(out, p),
                None => out.push(b'-'),
            }
            out.push(b'\t');
            out.extend_from_slice(value.as_bytes());
        }
        (Format::Text, None) => {
            query(out);
            out.extend_from_slice(b"\t-\t-");
        }
        (Format::Prefix, Some((Some(p), _))) => push_prefix(out, p),
        (Format::Prefix, _) => out.push(b'-'),
        (Format::Json { origin_as }, route) => {
            out.extend_from_slice(b"{\"address\":\"");
            query(out);
            match route {
                Some((p, value)) => {
                    match p {
                        Some(p) => {
                            out.extend_from_slice(b"\",\"prefix\":\"");
                            push_prefix(out, p);
                            out.push(b'"');
                        }
                        None => out.extend_from_slice(b"\",\"prefix\":null"),
                    }
                    out.extend_from_slice(b",\"value\":");
                    // A Vec cannot fail as a writer, and a str always serializes.
                    let _ = serde_json::to_writer(&mut *out, value);
                }
                None => out.extend_from_slice(b"\",\"prefix\":null,\"value\":null"),
            }
            if origin_as {
                out.extend_from_slice(b",\"origin_as\":");
                push_origin_as(out, route.map(|(_, v)| v));
            }
            out.push(b'}');
        }
    }
    out.push(b'\n');
}

/// Appends an origin AS value as a JSON number: the reader gives canonical decimal text or
/// `-` (a route without AS path), which with no route at all is `null`.
fn push_origin_as(out: &mut Vec<u8>, value: Option<&str>) {
    match value.map(str::parse::<u32>) {
        Some(Ok(asn)) => {
            // Writing to a Vec cannot fail.
            let _ = write!(out, "{asn}");
        }
        _ => out.extend_from_slice(b"null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line<A: AddrText>(format: Format, q: A, route: Option<(&str, &str)>) -> String {
        let parsed = route.map(|(p, v)| (p.parse::<Prefix<A>>().unwrap(), v));
        let mut out = Vec::new();
        push_answer(
            &mut out,
            format,
            |o| A::push(o, q),
            parsed.as_ref().map(|(p, v)| (Some(p), *v)),
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn prefix_lengths_of_every_width() {
        for (text, len) in [("0.0.0.0/0", 0), ("10.0.0.0/8", 8), ("1.2.3.4/32", 32)] {
            let mut out = Vec::new();
            push_prefix(&mut out, &Prefix::<u32>::parse(text).unwrap());
            assert_eq!(out, text.as_bytes(), "/{len}");
        }
        for text in ["::/0", "2001:db8::/32", "::1/128", "::ffff:1.2.3.0/120"] {
            let mut out = Vec::new();
            push_prefix(&mut out, &Prefix::<u128>::parse(text).unwrap());
            assert_eq!(out, text.as_bytes());
        }
    }

    #[test]
    fn each_format_writes_its_line() {
        let hit = Some(("10.0.0.0/8", "a\"b"));
        assert_eq!(line(Format::Text, 0x0a01_0203u32, hit), "10.1.2.3\t10.0.0.0/8\ta\"b\n");
        assert_eq!(line(Format::Text, 0x0a01_0203u32, None), "10.1.2.3\t-\t-\n");
        assert_eq!(line(Format::Prefix, 0x0a01_0203u32, hit), "10.0.0.0/8\n");
        assert_eq!(line(Format::Prefix, 1u128, None), "-\n");
        let json = line(Format::Json { origin_as: false }, 0x0a01_0203u32, hit);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["address"], "10.1.2.3");
        assert_eq!(v["prefix"], "10.0.0.0/8");
        assert_eq!(v["value"], "a\"b");
        let none: serde_json::Value =
            serde_json::from_str(&line(Format::Json { origin_as: false }, 1u128, None)).unwrap();
        assert_eq!(none["address"], "::1");
        assert!(none["prefix"].is_null() && none["value"].is_null());
        assert!(none.get("origin_as").is_none());
    }

    #[test]
    fn json_carries_the_origin_as_when_the_values_are_ases() {
        let json = |q: u32, route| {
            let text = line(Format::Json { origin_as: true }, q, route);
            serde_json::from_str::<serde_json::Value>(&text).unwrap()
        };
        let v = json(0x0a01_0203, Some(("10.0.0.0/8", "64500")));
        assert_eq!((v["value"].as_str(), v["origin_as"].as_u64()), (Some("64500"), Some(64500)));
        let v = json(0x0a01_0203, Some(("10.0.0.0/8", "4294967295")));
        assert_eq!(v["origin_as"].as_u64(), Some(u64::from(u32::MAX)));
        let v = json(0x0a01_0203, Some(("10.0.0.0/8", "-")));
        assert!(v["origin_as"].is_null() && v["value"] == "-");
        let v = json(0x0a01_0203, None);
        assert!(v["origin_as"].is_null() && v["prefix"].is_null());
    }
}
