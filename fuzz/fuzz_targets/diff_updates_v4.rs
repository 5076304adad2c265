//! Differential update sequences (v4): the bytes decoded by `fibforge::verify::sequence`
//! into inserts, removals and next-hop changes; after each batch every `Incremental`
//! structure must answer exactly as the RIB (a mismatch or refused update panics). The four
//! whose compile fills a large fixed array (DIR-24-8, SAIL_B and SAIL_U: 2^24 entries;
//! Poptrie s=18: 2^18) are in `diff_updates_v4_wide`: with them an input takes about ten
//! times as long (docs/experiments/reliability.md has the profile).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| matches!(name, "dir24_8" | "sail_b" | "sail_u" | "poptrie s=18");
    fibforge::verify::sequence::run::<u32>(data, |name| !wide(name));
});
