//! Text tables: any bytes must give a table or an error naming a line, never a panic.
#![no_main]

use fibforge_io::{ReadConfig, read_text_table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = read_text_table(data, "fuzz", &ReadConfig::default()) {
        assert!(e.to_string().starts_with("fuzz"));
    }
});
