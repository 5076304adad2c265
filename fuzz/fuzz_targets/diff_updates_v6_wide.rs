//! Differential update sequences (v6) for the slowest structures per input: Poptrie s=18
//! (with and without the leaf vector) and bloomfwd; the first byte picks one of them (see
//! `diff_updates_v6`).
//!
//! Body: `fibforge::fuzzing::diff_updates_v6_wide`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge::fuzzing::diff_updates_v6_wide(data));
