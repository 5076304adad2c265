//! MRT: any bytes must decode to entries and at most one error (last), never a panic or hang;
//! the table loader on the same bytes must not panic either.
#![no_main]

use fibforge_io::mrt::MrtReader;
use fibforge_io::{ReadConfig, read_table_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut failed = false;
    for item in MrtReader::new(data, "fuzz") {
        assert!(!failed, "nothing may follow an error");
        failed = item.is_err();
    }
    let _ = read_table_from(std::io::Cursor::new(data.to_vec()), "fuzz", &ReadConfig::default());
});
