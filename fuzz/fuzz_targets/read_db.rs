//! The CSV table reader and the MaxMind DB reader on any bytes: an error naming the source or
//! a table whose RIBs keep their invariants; never a panic, a hang or unbounded memory.
//!
//! Body: `fibforge_io::fuzzing::read_db`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge_io::fuzzing::read_db(data));
