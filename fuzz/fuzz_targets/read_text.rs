//! The text table reader on any bytes: an error or a table whose RIBs keep their invariants,
//! in both parse modes (first byte's low bit); never a panic, a hang or unbounded memory.
#![no_main]
use fibforge::ParseMode;
use fibforge_io::{ReadConfig, read_text_table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mode = match data.first() {
        Some(b) if b & 1 == 1 => ParseMode::Lenient,
        _ => ParseMode::Strict,
    };
    let cfg = ReadConfig { mode, ..Default::default() };
    let table = match read_text_table(data, "fuzz", &cfg) {
        Ok(t) => Box::new(t),
        Err(e) => {
            // The error names the source; a failed load hands back what it read.
            assert!(e.to_string().contains("fuzz"), "error without its source: {e}");
            e.partial
        }
    };
    table.v4.check_invariants();
    table.v6.check_invariants();
});
