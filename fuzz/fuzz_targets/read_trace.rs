//! The trace reader (pcap, pcapng, address lists) on any bytes: addresses or an error;
//! never a panic, a hang or unbounded memory.
#![no_main]
use fibforge_io::read_trace_from;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(trace) = read_trace_from(std::io::Cursor::new(data.to_vec()), "fuzz") {
        assert!(trace.non_ip <= trace.packets || trace.packets == 0);
    }
});
