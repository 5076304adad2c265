//! The update-stream reader (MRT BGP4MP or `time a|w prefix nexthop` text) on any bytes:
//! updates then at most one error; never a panic, a hang or unbounded memory.
//!
//! Body: `fibforge_io::fuzzing::read_updates`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge_io::fuzzing::read_updates(data));
