//! Differential update sequences (v4): the bytes decoded by `fibforge::verify::sequence`
//! into inserts, removals and next-hop changes; after each batch every `Incremental`
//! structure must answer exactly as the RIB (a mismatch or refused update panics). The three
//! with 2^24-entry arrays (DIR-24-8, SAIL_B, SAIL_U) are in `diff_updates_v4_wide`: their
//! compile per input would make this target a hundred times slower.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| matches!(name, "dir24_8" | "sail_b" | "sail_u");
    fibforge::verify::sequence::run::<u32>(data, |name| !wide(name));
});
