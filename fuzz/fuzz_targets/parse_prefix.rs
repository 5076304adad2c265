//! Prefix and address parsing in every textual form the fuzzer finds (IPv4-mapped IPv6,
//! zones, leading zeros, whitespace, signs): never a panic; whatever parses prints in a
//! canonical form that parses back to the same value; the text reader's fast IPv4 path and the
//! library's byte parsers (`addr::parse_*_ascii`) agree with the standard parser.
//!
//! Body: `fibforge_io::fuzzing::parse_prefix`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge_io::fuzzing::parse_prefix(data));
