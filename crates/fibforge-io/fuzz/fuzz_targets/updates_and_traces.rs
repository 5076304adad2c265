//! Update streams (MRT or text) and traces (pcap, pcapng, address lists) on any bytes.
#![no_main]

use fibforge_io::{ReadConfig, read_trace_from, read_updates_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cursor = || std::io::Cursor::new(data.to_vec());
    if let Ok(updates) = read_updates_from(cursor(), "fuzz", &ReadConfig::default()) {
        updates.for_each(drop);
    }
    let _ = read_trace_from(cursor(), "fuzz");
});
