//! The MRT decoder on any bytes (entries one by one, then the whole-table load with its
//! format detection): errors, never a panic, a hang or unbounded memory.
//!
//! Body: `fibforge_io::fuzzing::read_mrt`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge_io::fuzzing::read_mrt(data));
