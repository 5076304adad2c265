//! The algorithm-spec grammar (`name:key=value,...`) and the registry build on a tiny RIB of
//! each family: a spec parses or is refused, prints back to itself, and what builds answers
//! like the RIB; never a panic or an allocation the options alone make unbounded.
//!
//! Body: `fibforge::fuzzing::algo_spec`;
//! `./test.sh` replays the committed seeds and regressions through it
//! (`crates/fibforge-io/tests/fuzz_seeds.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| fibforge::fuzzing::algo_spec(data));
