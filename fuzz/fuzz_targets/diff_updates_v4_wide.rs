//! Differential update sequences (v4) for the structures whose compile fills a large fixed
//! array: DIR-24-8, SAIL_B and SAIL_U (2^24 entries) and Poptrie s=18 (2^18; see
//! `diff_updates_v4`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| matches!(name, "dir24_8" | "sail_b" | "sail_u" | "poptrie s=18");
    fibforge::verify::sequence::run::<u32>(data, wide);
});
