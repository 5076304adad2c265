//! Differential update sequences (v4): the first byte picks one `Incremental` structure, the
//! rest is decoded by `fibforge::verify::sequence` into inserts, removals and next-hop
//! changes; after each batch the structure must answer exactly as the RIB (a mismatch or
//! refused update panics, naming the structure). One structure per input keeps an input cheap
//! and lets coverage guidance spread the inputs over all of them. The structures whose
//! compile fills a fixed array of 2^18 entries or more (DIR-24-8, SAIL_B and SAIL_U: 2^24;
//! Poptrie s=18 and DXR k=18: 2^18) are in `diff_updates_v4_wide`, so they do not dominate
//! this target's time (docs/lab/reliability.md has the profile and the rates).
//!
//! Body: `fibforge::fuzzing::diff_updates_v4`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge::fuzzing::diff_updates_v4(data));
