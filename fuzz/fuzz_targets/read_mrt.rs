//! The MRT decoder on any bytes (entries one by one, then the whole-table load with its
//! format detection): errors, never a panic, a hang or unbounded memory.
#![no_main]
use fibforge_io::mrt::MrtReader;
use fibforge_io::{ReadConfig, read_table_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for entry in MrtReader::new(data, "fuzz.mrt") {
        if entry.is_err() {
            break;
        }
    }
    let cfg = ReadConfig::default();
    let table = match read_table_from(std::io::Cursor::new(data.to_vec()), "fuzz", &cfg) {
        Ok(t) => Box::new(t),
        Err(e) => e.partial,
    };
    table.v4.check_invariants();
    table.v6.check_invariants();
});
