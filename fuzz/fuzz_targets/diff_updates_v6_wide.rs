//! Differential update sequences (v6) for the two slowest structures per input: Poptrie
//! s=18 and bloomfwd (see `diff_updates_v6`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| matches!(name, "poptrie s=18" | "bloomfwd");
    fibforge::verify::sequence::run::<u128>(data, wide);
});
