//! The text table reader on any bytes: an error or a table whose RIBs keep their invariants,
//! in both parse modes (first byte's low bit); never a panic, a hang or unbounded memory.
//!
//! Body: `fibforge_io::fuzzing::read_text`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge_io::fuzzing::read_text(data));
