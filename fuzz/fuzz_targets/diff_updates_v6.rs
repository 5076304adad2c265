//! Differential update sequences (v6): the bytes decoded by `fibforge::verify::sequence`
//! into inserts, removals and next-hop changes; after each batch every `Incremental`
//! structure must answer exactly as the RIB (a mismatch or refused update panics).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fibforge::verify::sequence::run::<u128>(data, |_| true);
});
