//! The bodies of the cargo-fuzz targets that need this crate (the readers, and prefix parsing,
//! which checks the text reader's fast path), so that the fuzz targets and the normal test
//! run execute the same checks: each target in `fuzz/fuzz_targets` is a one-line call of its
//! function here or in `fibforge::fuzzing`, and `tests/fuzz_seeds.rs` replays every committed
//! seed (`fuzz/seeds/T`) and past crash (`fuzz/regressions/T`) through [`TARGETS`] on stable
//! Rust, without cargo-fuzz.
//!
//! Not a stable API (`#[doc(hidden)]`): it exists for the fuzz crate and the tests.
//!
//! Invariant: [`TARGETS`] names every target of `fuzz/Cargo.toml` once (the replay test
//! checks it against `fuzz/fuzz_targets`); a function returns for every input and panics,
//! naming what broke, only when an assertion of its target fails.

use crate::mrt::MrtReader;
use crate::text::fast_ipv4_prefix;
use crate::{ReadConfig, read_table_from, read_text_table, read_trace_from, read_updates_from};
use fibforge::addr::{
    format_addr, parse_addr, parse_ip_ascii, parse_ipv4_ascii, parse_ipv6_ascii, push_ipv6_text,
};
use fibforge::fuzzing::Body;
use fibforge::{AnyPrefix, ParseMode, Prefix4, Prefix6};

/// Every fuzz target, by its name in `fuzz/Cargo.toml`, with its body (this crate's and
/// `fibforge::fuzzing`'s).
pub const TARGETS: &[(&str, Body)] = &[
    ("read_text", read_text),
    ("read_mrt", read_mrt),
    ("read_updates", read_updates),
    ("read_trace", read_trace),
    ("read_db", read_db),
    ("parse_prefix", parse_prefix),
    ("algo_spec", fibforge::fuzzing::algo_spec),
    ("read_export", fibforge::fuzzing::read_export),
    ("diff_updates_v4", fibforge::fuzzing::diff_updates_v4),
    ("diff_updates_v4_wide", fibforge::fuzzing::diff_updates_v4_wide),
    ("diff_updates_v6", fibforge::fuzzing::diff_updates_v6),
    ("diff_updates_v6_wide", fibforge::fuzzing::diff_updates_v6_wide),
];

/// `read_text`: the text table reader on any bytes: an error or a table whose RIBs keep their
/// invariants, in both parse modes (first byte's low bit); never a panic, a hang or unbounded
/// memory.
pub fn read_text(data: &[u8]) {
    let mode = match data.first() {
        Some(b) if b & 1 == 1 => ParseMode::Lenient,
        _ => ParseMode::Strict,
    };
    let cfg = ReadConfig { mode, ..Default::default() };
    check_loaded(read_text_table(data, "fuzz", &cfg));
}

/// A read's table, or its error naming the source and the partial table it hands back: the
/// RIBs keep their invariants either way.
fn check_loaded(result: Result<crate::LoadedTable, crate::LoadError>) {
    let table = match result {
        Ok(t) => Box::new(t),
        Err(e) => {
            assert!(e.to_string().contains("fuzz"), "error without its source: {e}");
            e.partial
        }
    };
    table.v4.check_invariants();
    table.v6.check_invariants();
}

/// `read_mrt`: the MRT decoder on any bytes (entries one by one, then the whole-table load
/// with its format detection): errors, never a panic, a hang or unbounded memory.
pub fn read_mrt(data: &[u8]) {
    for entry in MrtReader::new(data, "fuzz.mrt") {
        if entry.is_err() {
            break;
        }
    }
    let cfg = ReadConfig::default();
    let table = match read_table_from(std::io::Cursor::new(data.to_vec()), "fuzz", &cfg) {
        Ok(t) => Box::new(t),
        Err(e) => e.partial,
    };
    table.v4.check_invariants();
    table.v6.check_invariants();
}

/// `read_db`: the CSV table reader and the MaxMind DB reader on any bytes (both, without
/// the format detection: the first byte's low bit picks the origin-AS value column, the
/// second's a value field by name): an error naming the source or a table whose RIBs keep
/// their invariants; never a panic, a hang or unbounded memory.
pub fn read_db(data: &[u8]) {
    let value = match data.first() {
        Some(b) if b & 1 == 1 => crate::ValueColumn::OriginAs,
        _ => crate::ValueColumn::NextHop,
    };
    let value_field = match data.get(1) {
        Some(b) if b & 1 == 1 => Some("country.iso_code".to_string()),
        _ => None,
    };
    let cfg = ReadConfig {
        value,
        value_field,
        json_values: data.len().is_multiple_of(2),
        ..Default::default()
    };
    check_loaded(crate::delimited::read_csv_table(data, "fuzz", &cfg));
    check_loaded(crate::mmdb::read_mmdb(data.to_vec(), "fuzz", &cfg));
}

/// `read_updates`: the update-stream reader (MRT BGP4MP or `time a|w prefix nexthop` text) on
/// any bytes: updates then at most one error; never a panic, a hang or unbounded memory.
pub fn read_updates(data: &[u8]) {
    let cfg = ReadConfig::default();
    let Ok(reader) = read_updates_from(std::io::Cursor::new(data.to_vec()), "fuzz", &cfg) else {
        return;
    };
    for update in reader {
        match update {
            Ok(u) => assert!(u.next_hop.is_none() || !u.prefix.to_string().is_empty()),
            Err(_) => break,
        }
    }
}

/// `read_trace`: the trace reader (pcap, pcapng, address lists) on any bytes: addresses or
/// an error; never a panic, a hang or unbounded memory.
pub fn read_trace(data: &[u8]) {
    if let Ok(trace) = read_trace_from(std::io::Cursor::new(data.to_vec()), "fuzz") {
        assert!(trace.non_ip <= trace.packets || trace.packets == 0);
    }
}

/// `parse_prefix`: prefix and address parsing in every textual form the fuzzer finds
/// (IPv4-mapped IPv6, zones, leading zeros, whitespace, signs): never a panic; whatever
/// parses prints in a canonical form that parses back to the same value; the text reader's
/// fast IPv4 path and the library's byte parsers (`addr::parse_*_ascii`) agree with the
/// standard parser.
pub fn parse_prefix(data: &[u8]) {
    fast_path_agrees(data);
    let Ok(text) = std::str::from_utf8(data) else {
        assert_eq!(parse_ip_ascii(data), None, "not UTF-8, yet an address");
        return;
    };
    byte_parsers_agree(data, text);
    for mode in [ParseMode::Strict, ParseMode::Lenient] {
        prefixes_round_trip(text, mode);
    }
    if let Some(a) = parse_addr::<u32>(text) {
        assert_eq!(parse_addr::<u32>(&format_addr(a)), Some(a));
    }
    if let Some(a) = parse_addr::<u128>(text) {
        assert_eq!(parse_addr::<u128>(&format_addr(a)), Some(a));
    }
}

/// The text reader's fast IPv4 path accepts only what the standard parser accepts, with the
/// same value.
fn fast_path_agrees(data: &[u8]) {
    if let Some((addr, len)) = fast_ipv4_prefix(data) {
        let text = std::str::from_utf8(data).expect("the fast path accepts ASCII only");
        let slow = AnyPrefix::parse_with(text, ParseMode::Lenient);
        match Prefix4::new_masked(addr, len) {
            Ok(p) => assert_eq!(slow, Ok(AnyPrefix::V4(p)), "fast and standard parsers differ"),
            Err(_) => assert!(slow.is_err(), "fast path length out of range but {slow:?}"),
        }
    }
}

/// The byte parsers (`addr::parse_*_ascii`) and the IPv6 writer agree with std.
fn byte_parsers_agree(data: &[u8], text: &str) {
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
}

/// Whatever parses in `mode` prints in a canonical form that parses back to the same value.
fn prefixes_round_trip(text: &str, mode: ParseMode) {
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
