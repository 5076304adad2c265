//! The update-stream reader (MRT BGP4MP or `time a|w prefix nexthop` text) on any bytes:
//! updates then at most one error; never a panic, a hang or unbounded memory.
#![no_main]
use fibforge_io::{ReadConfig, read_updates_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cfg = ReadConfig::default();
    let Ok(reader) = read_updates_from(std::io::Cursor::new(data.to_vec()), "fuzz", &cfg) else {
        return;
    };
    for update in reader {
        match update {
            Ok(u) => assert!(u.next_hop.is_none() || !u.prefix.to_string().is_empty()),
            Err(_) => break,
        }
    }
});
