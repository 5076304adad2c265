//! Differential update sequences (v6): the bytes decoded by `fibforge::verify::sequence`
//! into inserts, removals and next-hop changes; after each batch every `Incremental`
//! structure must answer exactly as the RIB (a mismatch or refused update panics). The two
//! slowest per input (Poptrie s=18, whose compile fills 2^18 entries, and bloomfwd, which
//! expands the short prefixes these inputs are full of into its levels) are in
//! `diff_updates_v6_wide`: with them an input takes about twice as long.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wide = |name: &str| matches!(name, "poptrie s=18" | "bloomfwd");
    fibforge::verify::sequence::run::<u128>(data, |name| !wide(name));
});
