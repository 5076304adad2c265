//! Differential update sequences (v6) for the slowest structures per input: Poptrie s=18
//! (with and without the leaf vector) and bloomfwd; the first byte picks one of them (see
//! `diff_updates_v6`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| name.starts_with("poptrie s=18") || name == "bloomfwd";
    fibforge::verify::sequence::run_one::<u128>(data, wide);
});
