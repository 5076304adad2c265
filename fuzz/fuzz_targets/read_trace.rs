//! The trace reader (pcap, pcapng, address lists) on any bytes: addresses or an error;
//! never a panic, a hang or unbounded memory.
//!
//! Body: `fibforge_io::fuzzing::read_trace`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge_io::fuzzing::read_trace(data));
