//! Differential update sequences (v4) for the structures with 2^24-entry arrays: DIR-24-8,
//! SAIL_B and SAIL_U (see `diff_updates_v4`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| matches!(name, "dir24_8" | "sail_b" | "sail_u");
    fibforge::verify::sequence::run::<u32>(data, wide);
});
