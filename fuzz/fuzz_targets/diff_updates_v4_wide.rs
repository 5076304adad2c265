//! Differential update sequences (v4) for the structures whose compile fills a fixed array of
//! 2^18 entries or more: DIR-24-8, SAIL_B and SAIL_U (2^24), Poptrie s=18 (with and without
//! the leaf vector) and DXR k=18 (2^18). The first byte picks one of them (see
//! `diff_updates_v4`).
//!
//! Body: `fibforge::fuzzing::diff_updates_v4_wide`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge::fuzzing::diff_updates_v4_wide(data));
