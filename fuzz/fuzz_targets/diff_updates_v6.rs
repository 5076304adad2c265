//! Differential update sequences (v6): the first byte picks one `Incremental` structure, the
//! rest is decoded by `fibforge::verify::sequence` into inserts, removals and next-hop
//! changes; after each batch the structure must answer exactly as the RIB (a mismatch or
//! refused update panics, naming the structure). The slowest per input (Poptrie s=18, whose
//! compile fills 2^18 entries, with and without the leaf vector, and bloomfwd, which expands
//! the short prefixes these inputs are full of into its levels) are in `diff_updates_v6_wide`.
//!
//! Body: `fibforge::fuzzing::diff_updates_v6`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge::fuzzing::diff_updates_v6(data));
