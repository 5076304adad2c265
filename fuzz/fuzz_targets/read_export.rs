//! Export files (`docs/reference/export-format.md`): any bytes, with the checksum made right so that the
//! fuzzer reaches the structural checks behind it, either parse and import into a structure
//! whose lookups stay in bounds and end, or are refused with an error; never a panic.
//!
//! Body: `fibforge::fuzzing::read_export`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge::fuzzing::read_export(data));
