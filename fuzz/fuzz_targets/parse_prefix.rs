//! Prefix and address parsing in every textual form the fuzzer finds (IPv4-mapped IPv6,
//! zones, leading zeros, whitespace, signs): never a panic; whatever parses prints in a
//! canonical form that parses back to the same value; the text reader's fast IPv4 path and the
//! library's byte parsers (`addr::parse_*_ascii`) agree with the standard parser.
#![no_main]
use fibforge::addr::{
    format_addr, parse_addr, parse_ip_ascii, parse_ipv4_ascii, parse_ipv6_ascii, push_ipv6_text,
};
use fibforge::{AnyPrefix, ParseMode, Prefix4, Prefix6};
use fibforge_io::text::fast_ipv4_prefix;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((addr, len)) = fast_ipv4_prefix(data) {
        let text = std::str::from_utf8(data).expect("the fast path accepts ASCII only");
        let slow = AnyPrefix::parse_with(text, ParseMode::Lenient);
        match Prefix4::new_masked(addr, len) {
            Ok(p) => assert_eq!(slow, Ok(AnyPrefix::V4(p)), "fast and standard parsers differ"),
            Err(_) => assert!(slow.is_err(), "fast path length out of range but {slow:?}"),
        }
    }
    let Ok(text) = std::str::from_utf8(data) else {
        assert_eq!(parse_ip_ascii(data), None, "not UTF-8, yet an address");
        return;
    };
    let std_v4 = text.parse::<std::net::Ipv4Addr>().ok();
    let std_v6 = text.parse::<std::net::Ipv6Addr>().ok();
    assert_eq!(parse_ipv4_ascii(data), std_v4.map(u32::from), "IPv4 {text:?}");
    assert_eq!(parse_ipv6_ascii(data), std_v6.map(u128::from), "IPv6 {text:?}");
    assert_eq!(parse_ip_ascii(data), text.parse().ok(), "IpAddr {text:?}");
    if let Some(a) = std_v6 {
        let mut written = Vec::new();
        push_ipv6_text(&mut written, a.into());
        assert_eq!(written, a.to_string().as_bytes(), "IPv6 text of {a}");
    }
    for mode in [ParseMode::Strict, ParseMode::Lenient] {
        if let Ok(p) = AnyPrefix::parse_with(text, mode) {
            let canonical = p.to_string();
            assert_eq!(AnyPrefix::parse_with(&canonical, ParseMode::Strict), Ok(p), "{canonical}");
        }
        if let Ok(p) = Prefix4::parse_with(text, mode) {
            assert_eq!(p.to_string().parse::<Prefix4>(), Ok(p));
            assert_eq!(AnyPrefix::parse_with(text, mode), Ok(AnyPrefix::V4(p)));
        }
        if let Ok(p) = Prefix6::parse_with(text, mode) {
            assert_eq!(p.to_string().parse::<Prefix6>(), Ok(p));
        }
    }
    if let Some(a) = parse_addr::<u32>(text) {
        assert_eq!(parse_addr::<u32>(&format_addr(a)), Some(a));
    }
    if let Some(a) = parse_addr::<u128>(text) {
        assert_eq!(parse_addr::<u128>(&format_addr(a)), Some(a));
    }
});
